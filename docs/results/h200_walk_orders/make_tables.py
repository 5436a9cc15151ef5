#!/usr/bin/env python3
"""Prints every table of README.md from the files of this folder and writes ncu_summary.json
(python3 make_tables.py)."""
import collections
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)
from tables_lib import joined, ncu_metrics, order  # noqa: E402


def results(pattern):
    return tables_lib.results(HERE, pattern)


def walk_name(r):
    if r["kernel"] != "single":
        return "%s, %d steps" % (r["kernel"], r["frequency_steps"])
    if r.get("walk_frequencies_first"):
        return "frequencies first"
    return "in order, TMA %d" % r["walk_tma_stages"] if r["walk_tma_stages"] else "in order"


def sweep_table():
    print("## 1_sweep: the library's default walk against the walk with frequencies first (rounds 1 / 2)")
    print("| nb | precision | channel | default walk | default | frequencies first | change |")
    print("|---|---|---|---|---|---|---|")
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    names = {}
    for f, r in results("1_sweep/kb_first_*.json"):
        key = (r["nb"], r["precision"], r["channel"])
        first = bool(r.get("walk_frequencies_first"))
        rows[key][first].append(r["ratio"])
        if not first:
            names[key] = walk_name(r)
    for key in sorted(rows, key=order):
        off, on = rows[key][False], rows[key][True]
        label = joined(on) if on else "(not taken: %s)" % names[key]
        change = "%+.1f %%" % (100 * (sum(on) / sum(off) - 1)) if on else "-"
        print("| %s | %s | %s | " % key + "%s | %s | %s | %s |" % (names[key], joined(off), label, change))
    print()


WALKS = {"off": "in order", "on": "frequencies first", "w1": "in order", "w4": "4 warps a diagonal"}


def write_ncu_summary():
    """ncu_summary.json: the metrics of every ncu_*.txt (2_ncu, 4_diagonal_warps, 5_diagonal_warps_lean),
    flattened, with instructions per entry."""
    entries = {r["nb"]: r["entries"] for _, r in results("1_sweep/kb_first_1.json")}
    rows = []
    for path in sorted(glob.glob(os.path.join(HERE, "[245]_*/ncu_*.txt"))):
        nb, precision, channel, walk = re.match(r"ncu_nb(\d)_(\w+?)_(\w+)_(on|off|w1|w4)\.txt", os.path.basename(path)).groups()
        m = ncu_metrics(path)
        unit, duration = m["gpu__time_duration.sum"]
        rows.append({"file": os.path.relpath(path, HERE), "nb": int(nb), "precision": precision, "channel": channel,
                     "walk": WALKS[walk],
                     "duration_ms": duration / 1000 if unit == "us" else duration,
                     "instructions_per_entry": round(m["sm__inst_executed.sum"][1] * 32 / entries[int(nb)], 2),
                     "dram_read_GB": m["dram__bytes_read.sum"][1], "dram_write_GB": m["dram__bytes_write.sum"][1],
                     "l1_hit_pct": m["l1tex__t_sector_hit_rate.pct"][1], "l2_hit_pct": m["lts__t_sector_hit_rate.pct"][1],
                     "l2_sectors_pct": m["lts__t_sectors.avg.pct_of_peak_sustained_elapsed"][1],
                     "issue_active_pct": m["smsp__issue_active.avg.pct_of_peak_sustained_active"][1],
                     "registers": m["launch__registers_per_thread"][1]})
    with open(os.path.join(HERE, "ncu_summary.json"), "w") as f:
        json.dump({"written_by": "make_tables.py", "entries": entries, "profiles": rows}, f, indent=1)
    return rows


def ncu_table(rows, folder):
    print("## %s: Nsight Compute, one launch each (profiler at the GPU's own clocks; TMA off)" % folder)
    print("| nb | precision | channel | walk | ms | instructions per entry | DRAM read GB | L1 hit % | L2 hit % | issue active % | registers |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    rows = [r for r in rows if r["file"].startswith(folder)]
    for r in sorted(rows, key=lambda r: order((r["nb"], r["precision"], r["channel"], r["walk"] != "in order"))):
        print("| %d | %s | %s | %s | %.2f | %.1f | %.2f | %.1f | %.1f | %.1f | %d |" % (
            r["nb"], r["precision"], r["channel"], r["walk"],
            r["duration_ms"], r["instructions_per_entry"], r["dram_read_GB"], r["l1_hit_pct"], r["l2_hit_pct"],
            r["issue_active_pct"], r["registers"]))
    print()


def variants_table(title, columns, pattern, case_of, variants):
    """One row per case, one column per variant: case_of(file name, result) -> (case..., variant)."""
    cases = [case_of(f, r) + (r["ratio"],) for f, r in results(pattern)]
    rows = tables_lib.grouped(cases, lambda c: c[:-2], lambda c: c[-2], lambda c: c[-1])
    tables_lib.print_table(title, ("nb", "precision", "channel", "walk"), variants, rows, labels=columns)


sweep_table()
variants_table("1_sweep: the walk in order at nb = 2 (--frequency-steps 1), rows in memory order or frequencies first",
               ("in order", "frequencies first"), "1_sweep/kb_steps1_*.json",
               lambda f, r: (r["nb"], r["precision"], r["channel"], r["kernel"], bool(r["walk_frequencies_first"])),
               (False, True))
summary = write_ncu_summary()
ncu_table(summary, "2_ncu")
variants_table("3_policy: L2 eviction policy of the walks' G_t loads and stores, four binaries (rounds 1 / 2)",
               ("p0 plain", "p1 stores evict first", "p2 loads evict first", "p3 both"), "3_policy/kb_*.json",
               lambda f, r: (r["nb"], r["precision"], r["channel"], r["kernel"], f.split("_")[1]),
               ("p0", "p1", "p2", "p3"))
for folder, title in (("4_diagonal_warps", "warps of the walk in order on one frequency diagonal"),
                      ("5_diagonal_warps_lean", "the same with pointer increments and pair groups")):
    variants_table("%s: %s (rounds 1 / 2)" % (folder, title), ("1 (the walk)", "2 warps", "4 warps"),
                   folder + "/kb_*.json",
                   lambda f, r: (r["nb"], r["precision"], r["channel"],
                                 "%s, TMA %s" % (r["kernel"], r.get("walk_tma_stages", "-")), r.get("walk_diagonal_warps", 1)),
                   (1, 2, 4))
    ncu_table(summary, folder)
