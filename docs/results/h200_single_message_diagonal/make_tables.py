#!/usr/bin/env python3
"""Prints the tables of README.md from the JSON files beside it (python3 make_tables.py)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def ratios(path):
    """{(nb, precision, channel, frequency steps): ratio} of one kernel_bandwidth JSON file."""
    with open(os.path.join(HERE, path)) as f:
        rows = json.load(f)["results"]
    return {(r["nb"], r["precision"], r["channel"], r["frequency_steps"]): r["ratio"] for r in rows}


def both(a, b, key):
    """The two runs of one case, "0.758/0.765", or "-" where a run lacks it."""
    return "/".join(f"{run[key]:.3f}" for run in (a, b) if key in run) or "-"


def walk_table():
    before = (ratios("1_no_load_ahead/diag.json"), ratios("1_no_load_ahead/diag_again.json"))
    ahead = (ratios("2_load_ahead/A1.json"), ratios("2_load_ahead/A2.json"))
    cross = (ratios("2_load_ahead/B1.json"), ratios("2_load_ahead/B2.json"))
    print("kernel_bandwidth, batch 1, single-message kernel on; ratio to the same-run copy, two runs each.")
    print("steps 1: the walk in order (2_load_ahead/A*.json); 2 and 4: the diagonal walk without next-momentum")
    print("loads (1_no_load_ahead, git 1a3614e), with them (2_load_ahead/A*, committed), and with the next")
    print("cross value loaded ahead too (2_load_ahead/B*, cross_ahead.patch.txt):")
    print("| nb | precision | channel | 1 step | 2, no loads ahead | 2, G_t ahead | 2, + cross ahead "
          "| 4, no loads ahead | 4, G_t ahead | 4, + cross ahead |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key in ahead[0]:
        if key[3] != 1:
            continue
        cells = [both(*ahead, key)]
        for steps in (2, 4):
            k = key[:3] + (steps,)
            cells += [both(*before, k), both(*ahead, k), both(*cross, k)]
        print(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cells) + " |")
    print()


def defaults_table():
    defaults = (ratios("final/defaults.json"), ratios("final/defaults_again.json"))
    steps = ratios("final/float_steps.json")
    print("The defaults after this change (final/defaults*.json, batch 1, two runs), and complex<float> with")
    print("1 and 4 steps in one run (final/float_steps.json):")
    print("| nb | precision | channel | default steps | defaults | float, 1 step | float, 4 steps |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for key in defaults[0]:
        nb, precision, channel, chosen = key
        one = steps.get((nb, precision, channel, 1))
        four = steps.get((nb, precision, channel, 4))
        print(f"| {nb} | {precision} | {channel} | {chosen} | {both(*defaults, key)} | "
              f"{'-' if one is None else f'{one:.3f}'} | {'-' if four is None else f'{four:.3f}'} |")
    print()


def ring_compare_table():
    print("ring_compare, one rank, paper size, complex<float>, RINGCOMM_GT_BATCH=1, runs interleaved")
    print("(final/ring_compare.sh.txt): time per measurement and × floor, 1a3614e (1 step) and this commit (4):")
    print("| channel | round | 1a3614e ms | × floor | this commit ms | × floor |")
    print("| --- | --- | --- | --- | --- | --- |")
    for channel in ("pp_up_down", "ph_transverse"):
        for round_ in (1, 2):
            cells = []
            for name in (f"before_1a3614e_{channel}_{round_}", f"after_{channel}_{round_}"):
                with open(os.path.join(HERE, "final", name + ".json")) as f:
                    run = json.load(f)["runs"][0]
                cells += [f"{run['seconds_per_measurement'] * 1000:.3f}", f"{run['fraction_of_floor']:.3f}"]
            print(f"| {channel} | {round_} | " + " | ".join(cells) + " |")
    print()


if __name__ == "__main__":
    walk_table()
    defaults_table()
    ring_compare_table()
