#!/usr/bin/env python3
"""Prints every table of README.md from the JSON and Nsight Compute files of this folder."""
import collections
import glob
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
PREC = ("double", "float", "mixed")
CHANNELS = ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge")


def ratios(pattern):
    """(nb, precision, channel) -> {walk_tma_stages or '-': [ratio per file, in file order]}."""
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(glob.glob(os.path.join(HERE, pattern))):
        for r in json.load(open(f))["results"]:
            rows[(r["nb"], r["precision"], r["channel"])][str(r.get("walk_tma_stages", "-"))].append(r["ratio"])
    return rows


def joined(values):
    return " / ".join("%.3f" % v for v in values)


def stage_table(title, pattern, stages):
    print("## " + title)
    print("| nb | precision | channel | " + " | ".join("tma %s" % s for s in stages) + " |")
    print("|---|---|---|" + "---|" * len(stages))
    for key, by_stage in sorted(ratios(pattern).items(), key=lambda kv: (kv[0][0], PREC.index(kv[0][1]), CHANNELS.index(kv[0][2]))):
        if set(by_stage) == {"-"}:
            cells = ["%s (diagonal walk, no TMA)" % joined(by_stage["-"][:2])] + [""] * (len(stages) - 1)
        elif set(by_stage) == {"0"} and len(by_stage["0"]) > 2:  # every setting asked for ran without the TMA
            cells = ["%s (each setting; TMA not taken)" % joined(by_stage["0"])] + [""] * (len(stages) - 1)
        else:
            cells = [joined(by_stage[s]) if s in by_stage else "" for s in stages]
        print("| %s | %s | %s | " % key + " | ".join(cells) + " |")
    print()


def defaults_table():
    print("## 2_defaults: the library's defaults, kernel_bandwidth ratio (runs 1 / 2) and the TMA stages taken")
    print("| nb | precision | channel | ratio | tma | >= 0.85 |")
    print("|---|---|---|---|---|---|")
    met = 0
    rows = ratios("2_defaults/kb_defaults_*.json")
    for key, by_stage in sorted(rows.items(), key=lambda kv: (kv[0][0], PREC.index(kv[0][1]), CHANNELS.index(kv[0][2]))):
        (stage, values), = by_stage.items()
        ok = min(values) >= 0.85
        met += ok
        print("| %s | %s | %s | " % key + "%s | %s | %s |" % (joined(values), stage, "yes" if ok else "no"))
    print("\n%d of %d cases at or above 0.85 in both runs\n" % (met, len(rows)))


def ring_compare_table():
    print("## 2_defaults: ring_compare, one rank, paper size, 8 measurements")
    print("| scalar | channel | B = 1 ms | B = 1 / floor | default B | ms | / floor | batch work bytes |")
    print("|---|---|---|---|---|---|---|---|")
    for scalar in ("double", "mixed"):
        for ch in CHANNELS:
            one = json.load(open(os.path.join(HERE, "2_defaults/rc_B1_%s_%s.json" % (scalar, ch))))["runs"][0]
            dflt = json.load(open(os.path.join(HERE, "2_defaults/rc_Bdefault_%s_%s.json" % (scalar, ch))))["runs"][0]
            print("| %s | %s | %.3f | %.3f | %d | %.3f | %.3f | %.1f MiB |" % (
                scalar, ch, one["seconds_per_measurement"] * 1e3, one["fraction_of_floor"], dflt["gt_batch"],
                dflt["seconds_per_measurement"] * 1e3, dflt["fraction_of_floor"], dflt["gt_work_bytes_per_rank"] / 2**20))
    print()


def ncu_table(folder, metrics):
    print("## %s: Nsight Compute, one launch at the paper size (nb = 1)" % folder)
    print("| profile | " + " | ".join(metrics) + " |")
    print("|---|" + "---|" * len(metrics))
    for f in sorted(glob.glob(os.path.join(HERE, folder, "ncu_*.txt"))):
        text = open(f).read()
        cells = [re.search(m + r"\s+\S+\s+([\d,.]+)", text).group(1) for m in metrics]
        print("| %s | " % os.path.basename(f)[4:-4] + " | ".join(cells) + " |")
    print()


def hint_table():
    print("## 4_wait_hint: kernel_bandwidth ratio, nb = 1, by TMA stages (s) and suspendTimeHint in ns (h), rounds 1 / 2")
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for f in sorted(glob.glob(os.path.join(HERE, "4_wait_hint/kb_hint*.json"))):
        hint = os.path.basename(f)[7:].split("_")[0]
        for r in json.load(open(f))["results"]:
            rows[(r["precision"], r["channel"])][(r["walk_tma_stages"], int(hint))].append(r["ratio"])
    cols = sorted({c for v in rows.values() for c in v})
    print("| precision | channel | " + " | ".join("s%d h%d" % c for c in cols) + " |")
    print("|---|---|" + "---|" * len(cols))
    for key, v in sorted(rows.items(), key=lambda kv: (PREC.index(kv[0][0]), CHANNELS.index(kv[0][1]))):
        print("| %s | %s | " % key + " | ".join(joined(v[c]) for c in cols) + " |")
    print()


def near_miss_table():
    print("## 5_near_misses: the library's run-time settings, rounds 1 / 2, best first")
    print("| nb | precision | channel | kernel | frequency steps | frequency warps | pair warps | loads ahead | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    rows = collections.defaultdict(list)
    for f in sorted(glob.glob(os.path.join(HERE, "5_near_misses/kb_*.json"))):
        for r in json.load(open(f))["results"]:
            ahead = r.get("walk_loads_ahead", r.get("diagonal_loads_ahead", "-"))
            rows[(r["nb"], r["precision"], r["channel"], r["kernel"], r["frequency_steps"], r["frequency_warps"],
                  r["pair_warps"], ahead)].append(r["ratio"])
    for key, v in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][1], kv[0][2], -min(kv[1]))):
        print("| " + " | ".join(str(x) for x in key) + " | %s |" % joined(v))
    print()


if __name__ == "__main__":
    stage_table("1_setting: kernel_bandwidth ratio by TMA stages in use (runs 1 / 2; 0 = the walk with registers)",
                "1_setting/kb_tma_*.json", ("0", "4", "8"))
    defaults_table()
    ring_compare_table()
    stage_table("3_rows_per_wait: every channel with the TMA, 42 = 4 stages of 2 rows (rounds 1 / 2)",
                "3_rows_per_wait/kb_rows_*.json", ("0", "4", "8", "42"))
    ncu_table("3_rows_per_wait", ("smsp__inst_executed.sum", "gpu__time_duration.sum", "lts__t_sectors_srcunit_ltcfabric.sum"))
    hint_table()
    ncu_table("4_wait_hint", ("smsp__inst_executed.sum", "gpu__time_duration.sum"))
    near_miss_table()
