"""Where each single-message kernel issues its G_t load relative to the exchange-table lookups (SASS).

python3 survey.py double.sass float.sass mixed.sass, the files dump.sh.txt writes on the GPU machine.
Per kernel (walk: SingleMessageKernel, in order; diag: SingleMessageDiagonalKernel with k steps; ch:
Channel 0 pp_up_down, 1 ph_transverse, 2 ph_magnetic, 3 ph_charge; ahead: loads ahead) it takes the
first G_t store (STG.E.128 or .64) and the last wide load before it that is not a .CONSTANT (cross,
factor) load: the G_t load of that step (with loads ahead, the next step's). It reports whether an
instruction between the 32-bit table lookups (LDG.E) issued in the 40 instructions before that load
and the load reads a lookup's destination register: then the load issues only once a lookup has
returned. A heuristic over straight-line code; read the SASS to confirm a case (../2_unfused/
sass_row_start.txt and pp_walk_row.txt were read by hand)."""
import re, sys
def functions(path):
    text = open(path).read()
    for p in re.split(r"\n?Function : ", text)[1:]:
        name = p.split("\n")[0].strip()
        ins = []
        for l in p.split("\n"):
            m = re.search(r"/\*([0-9a-f]{4})\*/\s+(.*?);", l)
            if m: ins.append((int(m.group(1), 16), m.group(2).strip()))
        yield name, ins
def regs_written(i):
    body = i.split(None, 1)
    if i.startswith("@"): body = i.split(None, 2)[1:]
    if len(body) < 2: return []
    first = body[1].split(",")[0].strip()
    m = re.match(r"R(\d+)", first)
    return [int(m.group(1))] if m else []
def regs_read(i):
    parts = i.split(",")
    return [int(x) for p in parts[1:] for x in re.findall(r"\bR(\d+)", p)] + \
           ([int(x) for x in re.findall(r"\[R(\d+)", parts[0])] if "[" in parts[0] else [])
for path in sys.argv[1:]:
    for name, ins in functions(path):
        m = re.search(r"SingleMessage(Diagonal)?KernelINS_7complexI(\w)EE(?:S\d+_|NS\d+_IfEE)LNS\d_7ChannelE(\d)ELi(\d)ELb(\d)", name)
        if not m: continue
        diag, _, ch, k, ahead = m.groups()
        # the first G_t store, and the last G_t load (a wide load that is not .CONSTANT) before it
        stores = [n for n, (a, i) in enumerate(ins) if re.search(r"\bSTG\.E\.(128|64)\b", i)]
        if not stores: continue
        s = stores[0]
        loads = [n for n in range(s) if re.search(r"\bLDG\.E\.(128|64)\b", ins[n][1]) and "CONSTANT" not in ins[n][1]]
        lookups = [n for n in range(s) if re.search(r"\bLDG\.E\b(?!\.)", ins[n][1])]
        first_load = loads[-1] if loads else None
        # does an instruction between the lookups issued shortly before that load and the load read a
        # lookup's result?
        late = False
        if first_load is not None:
            look_before = [n for n in lookups if n < first_load and first_load - n < 40]
            dests = {r for n in look_before for r in regs_written(ins[n][1])}
            for n in range(min(look_before) if look_before else first_load, first_load):
                if n in look_before: continue
                if dests & set(regs_read(ins[n][1])): late = True
        print("%s %s ch%s k%s ahead%s: G_t load at %s, %d lookups before it within 40, waits on a lookup: %s" % (
            path.split("/")[-1], "diag" if diag else "walk", ch, k, ahead,
            hex(ins[first_load][0]) if first_load is not None else None, len([n for n in lookups if first_load and n < first_load and first_load - n < 40]), late))
