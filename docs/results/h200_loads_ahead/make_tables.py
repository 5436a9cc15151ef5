#!/usr/bin/env python3
"""Prints the tables of README.md from the JSON files beside it (python3 make_tables.py)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load(path):
    with open(os.path.join(HERE, path)) as f:
        return json.load(f)


def ratios(path, ahead=False):
    """{(nb, precision, channel, steps[, loads ahead]): ratio} of one kernel_bandwidth JSON file."""
    out = {}
    for r in load(path)["results"]:
        key = (r["nb"], r["precision"], r["channel"], r["frequency_steps"])
        if ahead:
            key += (r.get("diagonal_loads_ahead", "-"),)
        out[key] = r["ratio"]
    return out


def header(*columns):
    """A markdown table's first two lines."""
    print("| " + " | ".join(columns) + " |")
    print("|" + " --- |" * len(columns))


def runs(paths, key):
    """The runs of one case, "0.758/0.765", or "-" where no run has it."""
    return "/".join(f"{run[key]:.3f}" for run in paths if key in run) or "-"


def launch_bounds_table():
    a = [ratios(f"1_launch_bounds/A{i}.json") for i in (1, 2)]
    x = [ratios(f"1_launch_bounds/X{i}.json") for i in (1, 2)]
    y = [ratios(f"1_launch_bounds/Y{i}.json") for i in (1, 2)]
    print("1. Launch bounds (1_launch_bounds; registers in registers.txt): single-message kernel on, batch 1,")
    print("ratio to the same-run copy, two interleaved runs each. A: no bounds (f015135); X: walk in order")
    print("48 registers, diagonal 72 (2 steps) / 96 (4 steps); Y: 40, 64 / 80.")
    header("nb", "precision", "channel", "steps", "A", "X", "Y")
    for key in a[0]:
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | {runs(a, key)} | {runs(x, key)} | {runs(y, key)} |")
    print()


def diagonal_table():
    r = [ratios(f"2_diagonal/ahead_{i}.json", ahead=True) for i in (1, 2)]
    print("2. The diagonal walk with and without the next momentum's G_t loaded ahead (2_diagonal/ahead_*.json,")
    print("`--frequency-steps 1,2,4 --diagonal-loads-ahead on,off`), two runs; the walk in order (1 step) as")
    print("committed then, with its next-row loads:")
    header("nb", "precision", "channel", "walk in order", "2 steps, ahead", "2 steps, not", "4 steps, ahead", "4 steps, not")
    for key in r[0]:
        if key[3] != 1:
            continue
        nb, precision, channel = key[:3]
        cells = [runs(r, key)]
        for steps in (2, 4):
            for ahead in (True, False):
                cells.append(runs(r, (nb, precision, channel, steps, ahead)))
        print(f"| {nb} | {precision} | {channel} | " + " | ".join(cells) + " |")
    print()


def walk_in_order_table():
    a = [ratios(f"3_walk_in_order/A{i}.json") for i in (1, 2)]
    b = [ratios(f"3_walk_in_order/B{i}.json") for i in (1, 2)]
    print("3. The walk in order (1 step) with (A) and without (B, no_next_row.patch.txt) the next row's G_t")
    print("loaded ahead, runs interleaved A1 B1 A2 B2:")
    header("nb", "precision", "channel", "A: next row ahead", "B: not", "B / A")
    for key in a[0]:
        gain = (b[0][key] + b[1][key]) / (a[0][key] + a[1][key])
        print(f"| {key[0]} | {key[1]} | {key[2]} | {runs(a, key)} | {runs(b, key)} | {gain:.3f} |")
    print()


def defaults(path):
    return {(r["nb"], r["precision"], r["channel"]): r for r in load(path)["results"]}


def defaults_table():
    before = [defaults(f"final/defaults_before_f015135_{i}.json") for i in (1, 2)]
    after = [defaults(f"final/defaults_after_{i}.json") for i in (1, 2)]
    print("4. Defaults at batch 1 (final/defaults_*.json), f015135 built beside the final tree, runs interleaved")
    print("after, before, after, before; kernel: single = walk in order, diagonal = N steps, ahead or not:")
    header("nb", "precision", "channel", "f015135 kernel", "f015135", "kernel now", "now", "now / before")

    def kernel(r):
        if r["kernel"] != "diagonal":
            return r["kernel"]
        # f015135 wrote no diagonal_loads_ahead: its diagonal walk always loaded ahead.
        return f"diagonal {r['frequency_steps']}, {'ahead' if r.get('diagonal_loads_ahead', True) else 'not ahead'}"

    for key in after[0]:
        b = [run[key]["ratio"] for run in before]
        a = [run[key]["ratio"] for run in after]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {kernel(before[0][key])} | {b[0]:.3f}/{b[1]:.3f} | "
              f"{kernel(after[0][key])} | {a[0]:.3f}/{a[1]:.3f} | {sum(a) / sum(b):.3f} |")
    print()


def ring_compare_table():
    print("5. ring_compare, one rank, paper size, RINGCOMM_GT_BATCH=1, f015135 and the final tree interleaved,")
    print("one run each (final/rc_*.json): ms per measurement and its multiple of the same-run floor:")
    header("scalar", "channel", "f015135 ms", "× floor", "now ms", "× floor")
    for scalar in ("double", "mixed"):
        for channel in ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge"):
            cells = []
            for tag in ("before_f015135", "after"):
                run = load(f"final/rc_{tag}_{scalar}_{channel}.json")["runs"][0]
                cells += [f"{run['seconds_per_measurement'] * 1e3:.3f}", f"{run['fraction_of_floor']:.3f}"]
            print(f"| {scalar} | {channel} | " + " | ".join(cells) + " |")
    print()


if __name__ == "__main__":
    launch_bounds_table()
    diagonal_table()
    walk_in_order_table()
    defaults_table()
    ring_compare_table()
