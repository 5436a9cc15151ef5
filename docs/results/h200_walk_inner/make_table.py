"""Prints the tables of README.md from the JSON files of this folder: python3 make_table.py."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def results(folder, name):
    with open(os.path.join(HERE, folder, name + ".json")) as f:
        return json.load(f)["results"]


def by_key(rows):
    out = {}
    for r in rows:
        out.setdefault((r["nb"], r["precision"], r["channel"]), []).append(r)
    return out


def span(values):
    lo, hi = min(values), max(values)
    return "%.3f" % lo if "%.3f" % lo == "%.3f" % hi else "%.3f–%.3f" % (lo, hi)


def inner(runs, k, n):
    return [r["ratio"] for run in runs for r in run.get(k, []) if r.get("walk_inner_indices") == n]


def table_inner(folder, base_names, inners):
    """ce1a49b's defaults, the patch's defaults and its walk in order with n inner indices per thread."""
    bases = [by_key(results(folder, n)) for n in base_names]
    new = by_key(results(folder, "new_default"))
    runs = [by_key(results(folder, n)) for n in ("inner_a", "inner_b")]
    # ce1a49b's walk in order, where the folder measured it
    has_steps1 = os.path.exists(os.path.join(HERE, folder, "base_steps1.json"))
    steps1 = by_key(results(folder, "base_steps1")) if has_steps1 else None
    head = ["nb", "precision", "channel", "ce1a49b default", "patch default"]
    head += ["ce1a49b walk in order"] if steps1 else []
    head += ["patch walk in order, inner %d" % n for n in inners] + ["inner 2 / inner 1"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    for k in sorted(bases[0]):
        b = [base[k][0] for base in bases]
        cells = [str(k[0]), k[1], k[2], "%s (%s)" % (span([r["ratio"] for r in b]), b[0]["kernel"]),
                 "%.3f (%s)" % (new[k][0]["ratio"], new[k][0]["kernel"])]
        if steps1:
            cells.append("%.3f" % steps1[k][0]["ratio"])
        cells += [span(inner(runs, k, n)) for n in inners]
        one, two = inner(runs, k, 1), inner(runs, k, 2)
        cells.append("%.3f" % ((sum(two) / len(two)) / (sum(one) / len(one))))
        print("| " + " | ".join(cells) + " |")


def table_float_steps():
    rows = {}
    for name in ("float_pp_a", "float_tr_a", "float_pp_b", "float_tr_b"):
        for r in results("3_float_steps", name):
            rows.setdefault((r["nb"], r["channel"]), {}).setdefault(r["frequency_steps"], []).append(r["ratio"])
    print("| nb | channel | walk in order (1 step) | diagonal walk (4 steps) | 1 step / 4 steps |")
    print("| --- | --- | --- | --- | --- |")
    for (nb, channel), v in sorted(rows.items()):
        gain = (sum(v[1]) / len(v[1])) / (sum(v[4]) / len(v[4]))
        print("| %d | %s | %s | %s | %.3f |" % (nb, channel, span(v[1]), span(v[4]), gain))
    print()
    print("| nb | precision | channel | kernel (steps) | ratio |")
    print("| --- | --- | --- | --- | --- |")
    for r in results("3_float_steps", "defaults"):
        print("| %d | %s | %s | %s (%d) | %.3f |" % (r["nb"], r["precision"], r["channel"], r["kernel"],
                                                    r["frequency_steps"], r["ratio"]))


def table_shifts_ahead():
    rows = {}
    for i, name in enumerate(("base_1", "base_2", "new_1", "new_2")):
        for r in results("5_shifts_ahead", name):
            rows.setdefault((r["nb"], r["precision"], r["channel"]), ([], []))[i // 2].append(r["ratio"])
    print("| nb | precision | channel | ce1a49b walk in order | shifts a row ahead | ahead / ce1a49b |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (nb, precision, channel), (b, n) in sorted(rows.items()):
        print("| %d | %s | %s | %s | %s | %.3f |" % (nb, precision, channel, span(b), span(n),
                                                     (sum(n) / len(n)) / (sum(b) / len(b))))


print("## 1_inner\n")
table_inner("1_inner", ["base_default"], [1, 2, 4])
print("\n## 2_unfused\n")
table_inner("2_unfused", ["base_default", "base_default2"], [1, 2])
print("\n## 3_float_steps\n")
table_float_steps()
print("\n## 5_shifts_ahead\n")
table_shifts_ahead()
