#!/usr/bin/env python3
"""Prints the tables of README.md from the JSON files beside it (python3 make_tables.py)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
CHANNELS = ["pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge"]


def results(path):
    with open(os.path.join(HERE, path)) as f:
        return json.load(f)["results"]


def by_key(rows, batch=1):
    return {(r["nb"], r["precision"], r["channel"]): r for r in rows if r["batch"] == batch}


def kernel_table():
    before = by_key(results("final/before_b8594b6.json"))
    defaults = by_key(results("final/defaults.json"))
    again = by_key(results("final/defaults_again.json"))
    walks = results("final/single_walks.json")
    single = {(r["nb"], r["precision"], r["channel"]): r for r in walks if r["exchange_row_walk"] == 0}
    print("kernel_bandwidth, batch 1, ratio to the same-run copy (final/): the previous defaults (git b8594b6),")
    print("the committed kernel (single_walks.json, every row walked), and two runs of the defaults of then,")
    print("which differ from the committed ones only for double pp_up_down (warp tiles):")
    print("| nb | precision | channel | before (b8594b6) | committed kernel | defaults then | again |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for key in defaults:
        tile = " (tiles)" if defaults[key]["warp_tile_kernel"] else ""
        print(f"| {key[0]} | {key[1]} | {key[2]} | {before[key]['ratio']:.3f} | {single[key]['ratio']:.3f} | "
              f"{defaults[key]['ratio']:.3f}{tile} | {again[key]['ratio']:.3f}{tile} |")
    print()
    print("Rows walked per thread, 1 row a step (final/single_walks.json):")
    print("| nb | precision | channel | walk 1 | walk 2 | every row |")
    print("| --- | --- | --- | --- | --- | --- |")
    table = {}
    for r in walks:
        table.setdefault((r["nb"], r["precision"], r["channel"]), {})[r["exchange_row_walk"]] = r["ratio"]
    for key, v in table.items():
        print(f"| {key[0]} | {key[1]} | {key[2]} | {v[1]:.3f} | {v[2]:.3f} | {v[0]:.3f} |")
    print()
    b8 = by_key(results("final/defaults.json"), 8)
    print("Batches of 8 (final/defaults.json, code unchanged): " + "; ".join(
        f"{k[1]} {k[2]} {v['ratio']:.3f}" for k, v in b8.items() if k[0] == 1))
    print()


def rows_table():
    rows = {}
    for name in ["exploration/2_single_message_kernel/walk_nb1.json"]:
        for r in results(name):
            if r["warp_tile_kernel"]:
                continue
            rows.setdefault((r["precision"], r["channel"]), {})[(r["exchange_row_tile"], r["exchange_row_walk"])] = r["ratio"]
    print("Rows a step × rows walked, before next-row loads (exploration/2, nb = 1):")
    cols = [(1, 0), (2, 0), (4, 0), (8, 0), (4, 1), (4, 2)]
    print("| precision | channel | " + " | ".join(f"{a} a step, {'all' if b == 0 else b}" for a, b in cols) + " |")
    print("| --- | --- | " + " | ".join("---" for _ in cols) + " |")
    for key, v in rows.items():
        print(f"| {key[0]} | {key[1]} | " + " | ".join(f"{v[c]:.3f}" for c in cols) + " |")
    print()


def prefetch_table():
    new = results("exploration/3_next_row_loads/single_grid.json")
    old = {}
    for name in ["exploration/2_single_message_kernel/walk_nb1.json", "exploration/2_single_message_kernel/walk_nb2.json"]:
        for r in results(name):
            old[(r["nb"], r["precision"], r["channel"], r["exchange_row_tile"], r["exchange_row_walk"])] = r["ratio"]
    print("Next-row G_t loads (exploration/3_next_row_loads) against none (exploration/2, another machine):")
    print("| nb | precision | channel | rows a step | walk | without | with |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in new:
        key = (r["nb"], r["precision"], r["channel"], r["exchange_row_tile"], r["exchange_row_walk"])
        if key[0] != 1 or key[4] != 0:
            continue
        print(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | all | {old[key]:.3f} | {r['ratio']:.3f} |")
    print()


def ring_compare_table():
    def fraction(path):
        with open(os.path.join(HERE, path)) as f:
            run = json.load(f)["runs"][0]
        return run["fraction_of_floor"], run["seconds_per_measurement"]
    print("ring_compare, one rank, paper size, time per measurement / floor (final/):")
    print("| scalar | channel | B = 1 before (b8594b6) | B = 1 after | default batch (8) |")
    print("| --- | --- | --- | --- | --- |")
    for scalar in ["double", "mixed"]:
        for channel in CHANNELS:
            before = f"final/before_b8594b6_rc_p1_{scalar}_B1_{channel}.json"
            b = f"{fraction(before)[0]:.3f}" if os.path.exists(os.path.join(HERE, before)) else "-"
            print(f"| {scalar} | {channel} | {b} | {fraction(f'final/rc_p1_{scalar}_B1_{channel}.json')[0]:.3f} | "
                  f"{fraction(f'final/rc_p1_{scalar}_Bdefault_{channel}.json')[0]:.3f} |")
    print()


def frequency_first_table():
    def load(path):
        return {(r["nb"], r["precision"], r["channel"], r["frequency_warps"]): r["ratio"] for r in results(path)}
    new = load("exploration/4_frequency_first/fwarps.json")
    previous = load("exploration/4_frequency_first/prev_97b2507.json")
    print("Exchange frequencies fastest, 1, 2 or 4 warps per diagonal, against rows in order (the committed")
    print("kernel, git 97b2507), one run (exploration/4_frequency_first):")
    print("| nb | precision | channel | rows in order | frequencies fastest | 2 warps | 4 warps |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for key in sorted({k[:3] for k in new}):
        print(f"| {key[0]} | {key[1]} | {key[2]} | {previous[key + (1,)]:.3f} | " +
              " | ".join(f"{new[key + (w,)]:.3f}" for w in (1, 2, 4)) + " |")
    print()


def rewrite_table():
    rewrite = {(r["nb"], r["precision"], r["channel"]): r["ratio"]
               for r in results("exploration/5_one_row_rewrite/kernel_bandwidth.json")
               if r["batch"] == 1 and r["kernel"] == "single"}
    tiles = {(r["nb"], r["precision"], r["channel"]): r["ratio"]
             for r in results("exploration/5_one_row_rewrite/kernel_bandwidth.json")
             if r["batch"] == 1 and r["kernel"] == "tiles"}
    committed = {(r["nb"], r["precision"], r["channel"]): r["ratio"]
                 for r in results("final/single_walks.json") if r["exchange_row_walk"] == 0}
    print("The same walk written for one row a step without the row arrays (exploration/5_one_row_rewrite)")
    print("against the committed code (final/single_walks.json, walk all; another machine):")
    print("| nb | precision | channel | committed | rewrite | warp tiles, same run as the rewrite |")
    print("| --- | --- | --- | --- | --- | --- |")
    for key in rewrite:
        t = f"{tiles[key]:.3f}" if key in tiles else "-"
        print(f"| {key[0]} | {key[1]} | {key[2]} | {committed[key]:.3f} | {rewrite[key]:.3f} | {t} |")
    print()


if __name__ == "__main__":
    kernel_table()
    rows_table()
    prefetch_table()
    ring_compare_table()
    frequency_first_table()
    rewrite_table()
