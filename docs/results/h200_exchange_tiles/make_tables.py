#!/usr/bin/env python3
"""Prints the tables of README.md from the kernel_bandwidth JSON files of this folder.

Each row is one precision and channel at the paper size (nb = 1, batch 1); "walk" is the kernel the
commit runs (exchange tiles off: kernel "single" or "diagonal"), the other columns the exchange-tile
kernel ("xtiles") in each run. Ratios are kernel GB/s over the copy GB/s of the same run.
"""
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
RUNS = {
    "1_no_prefetch": ["onoff_b1_1", "onoff_b1_2", "warps4_nb1", "warps8_nb1", "warps14_nb1", "warps16_nb1"],
    "2_prefetch": ["onoff_1", "onoff_2", "noprefetch", "warps7", "warps8", "warps10"],
}
CASES = [(p, c) for p in ("double", "mixed", "float") for c in ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge")]


def ratios(path):
    """(precision, channel, kernel) -> ratio for the nb = 1 rows of one JSON file."""
    data = json.loads(path.read_text())
    return {(r["precision"], r["channel"], r["kernel"]): r["ratio"] for r in data["results"] if r["nb"] == 1}


def main():
    for folder, names in RUNS.items():
        runs = {name: ratios(HERE / folder / f"{name}.json") for name in names}
        walks = [name for name in names if any(k[2] != "xtiles" for k in runs[name])]
        print(f"\n{folder}: kernel_bandwidth --batch 1 --nb 1, ratio of the copy rate")
        header = ["precision", "channel"] + [f"walk ({n})" for n in walks] + [f"xtiles ({n})" for n in names]
        print(" | ".join(header))
        print(" | ".join("---" for _ in header))
        for precision, channel in CASES:
            row = [precision, channel]
            for name in walks:
                row += [f"{v:.3f}" for (p, c, k), v in runs[name].items() if (p, c) == (precision, channel) and k != "xtiles"]
            for name in names:
                row.append(f"{runs[name].get((precision, channel, 'xtiles'), float('nan')):.3f}")
            print(" | ".join(row))


if __name__ == "__main__":
    main()
