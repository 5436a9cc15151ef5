#!/usr/bin/env python3
"""Prints the tables of README.md from the files of this folder and writes ncu_summary.json (python3 make_tables.py)."""
import collections
import glob
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)

KEY_ORDER = {"pp_up_down": 0, "ph_transverse": 1, "ph_magnetic": 2, "ph_charge": 3}


def kb_runs(pattern):
    """{(nb, precision, channel): {variant: [(ratio, kernel seconds), ...]}} from kb_<variant>_<round>.json."""
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in sorted(glob.glob(os.path.join(HERE, pattern))):
        variant = os.path.basename(path)[3:-5].rsplit("_", 1)[0]
        for r in json.load(open(path))["results"]:
            rows[(r["nb"], r["precision"], r["channel"])][variant].append((r["ratio"], r["kernel_seconds"]))
    return dict(sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][1], KEY_ORDER[kv[0][2]])))


def span(values):
    lo, hi = min(values), max(values)
    return f"{lo:.3f}" if f"{lo:.3f}" == f"{hi:.3f}" else f"{lo:.3f}–{hi:.3f}"


def variants_table():
    rows = kb_runs("2_variants/kb/kb_*.json")
    others = ["lean2on", "lean5on", "lean5off", "lean3on", "lean4on", "lean1p2", "lean1p3"]
    print("## 2_variants: kernel_bandwidth ratio, two runs each (old: the walk before; new: this commit's walk)")
    print("| nb | precision | channel | old | new | new time / old | " + " | ".join(others) + " |")
    print("| --- " * (6 + len(others)) + "|")
    faster, within = [], []
    for (nb, precision, channel), v in rows.items():
        time_ratio = statistics.mean(s for _, s in v["new"]) / statistics.mean(s for _, s in v["old"])
        (faster if time_ratio <= 0.99 else within).append(time_ratio)
        cells = [span([r for r, _ in v[o]]) for o in others]
        print(f"| {nb} | {precision} | {channel} | {span([r for r, _ in v['old']])} | {span([r for r, _ in v['new']])} "
              f"| {time_ratio:.3f} | " + " | ".join(cells) + " |")
    print(f"\nnew at least 1 % faster in {len(faster)} of {len(rows)} cases ({1 - max(faster):.1%} to "
          f"{1 - min(faster):.1%}); the other {len(within)} within {min(within):.3f}–{max(within):.3f} of old's time")


def first_table():
    rows = kb_runs("1_first/kb_*.json")
    order = ["old", "lean", "lean_ahead_on", "lean_ahead_off", "old_from0"]
    print("\n## 1_first: kernel_bandwidth ratio (lean: loads ahead as GtAccumulator's default then)")
    print("| nb | precision | channel | " + " | ".join(order) + " |")
    print("| --- " * (3 + len(order)) + "|")
    for (nb, precision, channel), v in rows.items():
        print(f"| {nb} | {precision} | {channel} | " + " | ".join(span([r for r, _ in v[o]]) for o in order) + " |")


def ncu_metrics(path):
    return {name: value for name, (_, value) in tables_lib.ncu_metrics(path).items()}


def write_ncu_summary():
    """ncu_summary.json: the Nsight Compute metrics of every ncu_*.txt here, and instructions per entry."""
    rows = []
    for path in sorted(glob.glob(os.path.join(HERE, "*/ncu_*.txt"))):
        m = ncu_metrics(path)
        rows.append({"file": os.path.relpath(path, HERE), "metrics": m,
                     "instructions_per_entry": m["sm__inst_executed.sum"] * 32 / 212336640})
    with open(os.path.join(HERE, "ncu_summary.json"), "w") as f:
        json.dump({"written_by": "make_tables.py", "entries": 212336640, "profiles": rows}, f, indent=1)


def ncu_table(pattern, label):
    print(f"\n## Nsight Compute, {label} (nb = 1, paper size: 212,336,640 entries; profiler clocks)")
    print("| file | duration ms | instructions per entry (warp instructions × 32 / entries) | issue active % | DRAM % | L2 % | registers | warps active % |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in sorted(glob.glob(os.path.join(HERE, pattern))):
        m = ncu_metrics(path)
        duration = m["gpu__time_duration.sum"]
        duration = duration / 1000 if duration > 100 else duration  # ncu prints µs below 1 ms
        per_entry = m["sm__inst_executed.sum"] * 32 / 212336640
        print(f"| {os.path.relpath(path, HERE)} | {duration:.3f} | {per_entry:.1f} | "
              f"{m['smsp__issue_active.avg.pct_of_peak_sustained_active']:.1f} | "
              f"{m['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.1f} | "
              f"{m['lts__t_sectors.avg.pct_of_peak_sustained_elapsed']:.1f} | {m['launch__registers_per_thread']:.0f} | "
              f"{m['sm__warps_active.avg.pct_of_peak_sustained_active']:.1f} |")


def ring_compare_table():
    print("\n## ring_compare, one rank, paper size, B = 1, 32 measurements (ms per measurement, fraction of floor)")
    cells = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(HERE, "2_variants/rc/rc_*.json"))):
        variant, _, scalar, channel = os.path.basename(path)[3:-5].split("_", 3)
        r = json.load(open(path))["runs"][0]
        cells[(scalar, channel)][variant] = f"{r['seconds_per_measurement'] * 1e3:.3f} ({r['fraction_of_floor']:.3f})"
    for path in sorted(glob.glob(os.path.join(HERE, "3_final/rc_B1_*.json"))):
        scalar, channel = re.match(r"rc_B1_(\w+?)_(.+)\.json", os.path.basename(path)).groups()
        r = json.load(open(path))["runs"][0]
        cells[(scalar, channel)]["final"] = f"{r['seconds_per_measurement'] * 1e3:.3f} ({r['fraction_of_floor']:.3f})"
    print("| scalar | channel | old (2_variants) | new (2_variants) | two pairs (2_variants) | committed (3_final) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for (scalar, channel), v in sorted(cells.items(), key=lambda kv: (kv[0][0], KEY_ORDER[kv[0][1]])):
        print(f"| {scalar} | {channel} | {v.get('old', '')} | {v.get('new', '')} | {v.get('lean5', '')} | {v.get('final', '')} |")


def final_table():
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in sorted(glob.glob(os.path.join(HERE, "3_final/kb_*.json"))):
        for r in json.load(open(path))["results"]:
            rows[(r["nb"], r["precision"], r["channel"])]["kb"].append((r["ratio"], r["kernel_seconds"]))
    rows = dict(sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][1], KEY_ORDER[kv[0][2]])))
    print("\n## 3_final: kernel_bandwidth ratio of the committed code, three runs")
    print("| nb | precision | channel | ratio |")
    print("| --- | --- | --- | --- |")
    for (nb, precision, channel), v in rows.items():
        print(f"| {nb} | {precision} | {channel} | {span([r for r, _ in v['kb']])} |")
    print(f"\nlowest: {min(r for v in rows.values() for r, _ in v['kb']):.3f}")


write_ncu_summary()
variants_table()
first_table()
ncu_table("1_first/ncu_*.txt", "1_first: lean0 the walk before, lean1 the lean walk")
ncu_table("3_final/ncu_*.txt", "3_final: the committed walk")
ring_compare_table()
final_table()
