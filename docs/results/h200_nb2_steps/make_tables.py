#!/usr/bin/env python3
"""Prints every table of README.md from the JSON files of this folder (and the defaults before it,
../h200_tma_walk/2_defaults)."""
import collections
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
PREC = ("double", "float", "mixed")
CHANNELS = ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge")


def order(key):
    return (key[0], PREC.index(key[1]), CHANNELS.index(key[2])) + tuple(str(k) for k in key[3:])


def collect(pattern, key_of):
    """key_of(file name, result) -> key; returns key -> [ratio per file, in file order]."""
    rows = collections.defaultdict(list)
    for f in sorted(glob.glob(os.path.join(HERE, pattern))):
        for r in json.load(open(f))["results"]:
            rows[key_of(os.path.basename(f), r)].append(r["ratio"])
    return rows


def joined(values):
    return " / ".join("%.3f" % v for v in values)


def setting(r):
    """The walk a result ran: kernel, frequency steps, pair warps, loads ahead."""
    ahead = r.get("diagonal_loads_ahead", r.get("walk_loads_ahead"))
    return (r["kernel"], r["frequency_steps"], r["pair_warps"], "ahead" if ahead else "not ahead")


def sweep_table(title, pattern):
    print("## " + title)
    print("| nb | precision | channel | walk | steps | pairs | G_t loads | ratio (rounds 1 / 2) |")
    print("|---|---|---|---|---|---|---|---|")
    rows = collect(pattern, lambda f, r: (r["nb"], r["precision"], r["channel"]) + setting(r))
    for key in sorted(rows, key=order):
        print("| " + " | ".join(str(k) for k in key) + " | %s |" % joined(rows[key]))
    print()


def defaults_table():
    print("## 2_defaults: every case with the library's defaults, before (h200_tma_walk/2_defaults) and now")
    print("| nb | precision | channel | before | now | walk now | >= 0.85 now |")
    print("|---|---|---|---|---|---|---|")
    by_case = lambda f, r: (r["nb"], r["precision"], r["channel"])
    before = collect("../h200_tma_walk/2_defaults/kb_defaults_*.json", by_case)
    now = collect("2_defaults/kb_defaults_*.json", by_case)
    walks = {}
    for f in glob.glob(os.path.join(HERE, "2_defaults/kb_defaults_1.json")):
        for r in json.load(open(f))["results"]:
            walks[by_case(f, r)] = "%s, %d steps, %d pairs" % setting(r)[:3]
    met = 0
    for key in sorted(now, key=order):
        ok = min(now[key]) >= 0.85
        met += ok
        print("| %s | %s | %s | " % key + "%s | %s | %s | %s |" % (joined(before[key]), joined(now[key]), walks[key], "yes" if ok else "no"))
    print("\n%d of %d cases at or above 0.85 in both runs\n" % (met, len(now)))


def prefetch_table():
    print("## 3_prefetch: the L2 prefetch distance, four binaries (rounds 1 / 2)")
    print("| nb | precision | channel | walk | base | d2 | f1 | m2 |")
    print("|---|---|---|---|---|---|---|---|")
    rows = collect("3_prefetch/kb_*.json", lambda f, r: (r["nb"], r["precision"], r["channel"], r["kernel"], f.split("_")[1]))
    cases = sorted({k[:4] for k in rows}, key=order)
    for case in cases:
        print("| " + " | ".join(str(k) for k in case) + " | " +
              " | ".join(joined(rows[case + (v,)]) for v in ("base", "d2", "f1", "m2")) + " |")
    print()


def checks_table():
    print("## 4_checks: ring_compare at nb = 2, B = 1, against the original and the serial formula")
    print("| scalar | channel | l1 error against the original | largest relative error, 500 sampled entries | tolerance |")
    print("|---|---|---|---|---|")
    for f in sorted(glob.glob(os.path.join(HERE, "4_checks/rc_nb2_*.json"))):
        d = json.load(open(f))
        ring = d["runs"][1]
        print("| %s | %s | %g | %.3g | %g |" % (d["scalar"], d["channel"], ring["l1_error"], ring["sample_max_relative_error"], ring["tolerance"]))
    print()


if __name__ == "__main__":
    sweep_table("1_sweep: nb = 2, single messages, walks and settings", "1_sweep/kb_*.json")
    defaults_table()
    sweep_table("2_defaults: sweeps next to the new defaults", "2_defaults/kb_[ps]*.json")
    prefetch_table()
    checks_table()
