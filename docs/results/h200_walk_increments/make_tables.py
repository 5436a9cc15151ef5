#!/usr/bin/env python3
"""Prints the tables of README.md from the JSON files of final/ and committed/.

kernel_bandwidth: ratio of the copy rate per shape, precision and channel; "before" is 96e533a, "measured"
the tree of final/measured_tree.patch.txt (increments in every walk), "committed" the commit (increments
but in the bubble channels' walk in order with complex<double> messages, whose code is 96e533a's).
ring_compare: ms per measurement and the fraction of the floor, one run each.
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
CASES = [(nb, p, c) for nb in (1, 2) for p in ("double", "mixed", "float")
         for c in ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge")]


def ratios(path):
    data = json.loads(path.read_text())
    return {(r["nb"], r["precision"], r["channel"]): r["ratio"] for r in data["results"]}


def span(values):
    low, high = f"{min(values):.3f}", f"{max(values):.3f}"
    return low if low == high else f"{low}–{high}"


def kernel_bandwidth():
    groups = {
        "before (96e533a)": ["final/before_96e533a_b1_1.json", "final/before_96e533a_b1_2.json"],
        "measured tree": ["final/after_b1_1.json", "final/after_b1_2.json"],
        "committed": ["committed/committed_b1_1.json", "committed/committed_b1_2.json"],
    }
    runs = {name: [ratios(HERE / f) for f in files] for name, files in groups.items()}
    print("kernel_bandwidth --batch 1, ratio of the copy rate (two runs each)")
    print("nb | precision | channel | " + " | ".join(groups) + " | committed / before")
    print(" | ".join("---" for _ in range(4 + len(groups))))
    for case in CASES:
        before = [r[case] for r in runs["before (96e533a)"]]
        committed = [r[case] for r in runs["committed"]]
        gain = (sum(committed) / len(committed)) / (sum(before) / len(before))
        cells = [span([r[case] for r in runs[name]]) for name in groups]
        print(f"{case[0]} | {case[1]} | {case[2]} | " + " | ".join(cells) + f" | {gain:.3f}")
    b8_before, b8_after = ratios(HERE / "final/before_96e533a_b8.json"), ratios(HERE / "final/after_b8.json")
    changes = [b8_after[c] / b8_before[c] for c in CASES]
    print(f"\nkernel_bandwidth --batch 8 (one run each), measured tree / before: {min(changes):.3f}–{max(changes):.3f}")


def ring_compare():
    print("\nring_compare, one rank, paper size (one run each): ms per measurement (x floor)")
    print("batch | precision | channel | before (96e533a) | measured tree")
    print("--- | --- | --- | --- | ---")
    for after in sorted((HERE / "final").glob("rc_after_*.json")):
        before = after.with_name(after.name.replace("rc_after_", "rc_before_96e533a_"))
        _, _, batch, precision, *channel = after.stem.split("_")
        cells = []
        for path in (before, after):
            run = json.loads(path.read_text())["runs"][0]
            cells.append(f"{run['seconds_per_measurement'] * 1e3:.3f} ({run['fraction_of_floor']:.3f})")
        print(f"{batch[1:]} | {precision} | {'_'.join(channel)} | " + " | ".join(cells))


if __name__ == "__main__":
    kernel_bandwidth()
    ring_compare()
