#!/usr/bin/env python3
"""Prints the tables of README.md from the files beside it (python3 make_tables.py)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def ratios(path):
    """{(nb, precision, channel): ratio} of one kernel_bandwidth JSON file (its first result per case)."""
    with open(os.path.join(HERE, path)) as f:
        out = {}
        for r in json.load(f)["results"]:
            out.setdefault((r["nb"], r["precision"], r["channel"]), r["ratio"])
        return out


def cell(runs, key):
    """One case over several runs: "0.757" or "0.757/0.761" in run order."""
    return "/".join(f"{run[key]:.3f}" for run in runs)


def table(title, columns):
    """A markdown table with one row per case and one column per (name, [files])."""
    print(title)
    names = [name for name, _ in columns]
    print("| nb | precision | channel | " + " | ".join(names) + " |")
    print("|" + " --- |" * (3 + len(names)))
    loaded = {name: [ratios(f) for f in files] for name, files in columns}
    for key in loaded[names[0]][0]:
        print(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cell(loaded[n], key) for n in names) + " |")
    print()


def exploration_1():
    def runs(variant, batch, rounds):
        return [f"1_prefetch_fraction_fixed/kb_{variant}_b{batch}_{i}.json" for i in rounds]
    table("1. Exploration 1: kernel_bandwidth defaults at batch 1, two rounds (second in another order)",
          [(v, runs(v, 1, (1, 2))) for v in ("base", "F50", "KF", "DP1")])
    table("2. Exploration 1, batch 8, one run each",
          [(v, runs(v, 8, (1,))) for v in ("base", "F50")])


def exploration_2():
    def runs(pw, kf, batch, rounds):
        return [f"2_pair_warps/kb_pw{pw}_kf{kf}_b{batch}_{i}.json" for i in rounds]
    columns = [(f"pw{pw}" + (" KF" if kf else ""), runs(pw, kf, 1, (1, 2)))
               for pw, kf in ((1, 0), (4, 0), (16, 0), (64, 0), (0, 0), (1, 1), (4, 1))]
    table("3. Exploration 2: batch 1, pair warps at run time (pw0: every pair of a chunk), two rounds", columns)
    table("4. Exploration 2, batch 8, one run each",
          [(f"pw{pw}", runs(pw, 0, 8, (1,))) for pw in (1, 4, 16, 0)])


def final():
    before = [f"final/before_f4afe0a_b1_{i}.json" for i in (1, 2)]
    after = [f"final/after_b1_{i}.json" for i in (1, 2)]
    b, a = [ratios(f) for f in before], [ratios(f) for f in after]
    print("5. Final: batch 1, f4afe0a and the working tree side by side, interleaved (after, before, before, after);")
    print("gain: the two after runs' sum over the two before runs'.")
    with open(os.path.join(HERE, after[0])) as f:
        pairs = {(r["nb"], r["precision"], r["channel"]): r["pair_warps"] for r in json.load(f)["results"]}
    print("| nb | precision | channel | before | after | gain | pair warps (after) |")
    print("|" + " --- |" * 7)
    for key in a[0]:
        gain = sum(r[key] for r in a) / sum(r[key] for r in b) - 1
        print(f"| {key[0]} | {key[1]} | {key[2]} | {cell(b, key)} | {cell(a, key)} | {100 * gain:+.1f} % | {pairs[key]} |")
    print()
    table("6. Final, batch 8, one run each",
          [("before", ["final/before_f4afe0a_b8.json"]), ("after", ["final/after_b8.json"])])
    with open(os.path.join(HERE, "final/sweep_pair_warps_ph_magnetic_b1.json")) as f:
        sweep = json.load(f)["results"]
    print("7. Final, ph_magnetic at batch 1, pair warps set (one process)")
    print("| nb | precision | 1 | 4 | 16 | 64 |")
    print("|" + " --- |" * 6)
    for nb in (1, 2):
        for precision in ("double", "float", "mixed"):
            by = {r["pair_warps"]: r["ratio"] for r in sweep if r["nb"] == nb and r["precision"] == precision}
            print(f"| {nb} | {precision} | " + " | ".join(f"{by[p]:.3f}" for p in (1, 4, 16, 64)) + " |")
    print()
    print("8. Final, ring_compare on one rank at the paper size, one run each: ms per measurement and × floor")
    print("| batch | scalar | channel | before ms | after ms | before × floor | after × floor |")
    print("|" + " --- |" * 7)
    for case in ("B1_double_ph_magnetic", "B1_double_ph_charge", "B1_mixed_ph_magnetic", "B1_mixed_ph_charge",
                 "B1_double_pp_up_down", "Bdefault_double_ph_magnetic"):
        runs = []
        for side in ("before_f4afe0a", "after"):
            with open(os.path.join(HERE, f"final/rc_{side}_{case}.json")) as f:
                runs.append(json.load(f)["runs"][0])
        batch, scalar, channel = case.split("_", 2)
        print(f"| {runs[1]['gt_batch']} | {scalar} | {channel} | "
              + " | ".join(f"{r['seconds_per_measurement'] * 1e3:.3f}" for r in runs) + " | "
              + " | ".join(f"{r['fraction_of_floor']:.3f}" for r in runs) + " |")
    print()


if __name__ == "__main__":
    exploration_1()
    exploration_2()
    final()
