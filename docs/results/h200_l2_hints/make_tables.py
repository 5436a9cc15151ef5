#!/usr/bin/env python3
"""Prints the tables of README.md from the files beside it (python3 make_tables.py)."""
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
CHANNELS = ["pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge"]


def load(path):
    with open(os.path.join(HERE, path)) as f:
        return json.load(f)


def results(path):
    """{(nb, precision, channel): result} of one kernel_bandwidth JSON file."""
    return {(r["nb"], r["precision"], r["channel"]): r for r in load(path)["results"]}


def header(*columns):
    print("| " + " | ".join(columns) + " |")
    print("|" + " --- |" * len(columns))


def spread(files, key):
    """The ratios of one case over several runs: "0.757" or "0.757–0.761"; "-" where none has it."""
    values = [f[key]["ratio"] for f in files if key in f]
    if not values:
        return "-"
    low, high = min(values), max(values)
    return f"{low:.3f}" if f"{low:.3f}" == f"{high:.3f}" else f"{low:.3f}–{high:.3f}"


def walk(result):
    return f"{result['kernel']}, {result['frequency_steps']} step" + ("s" if result["frequency_steps"] > 1 else "")


def hints_table():
    variants = ["base", "P1", "P2", "S", "P2S", "K"]
    runs = {v: [results(f"1_hints/kb_{v}_{i}.json") for i in (1, 2)] for v in variants}
    print("1. Exploration 1 (1_hints): kernel_bandwidth defaults at batch 1, one build per variant, two rounds")
    print("(second in reverse order); ratio to the same-run copy, lowest–highest of the two runs.")
    header("nb", "precision", "channel", "walk", *variants)
    for key, r in runs["base"][0].items():
        print(f"| {key[0]} | {key[1]} | {key[2]} | {walk(r)} | " + " | ".join(spread(runs[v], key) for v in variants) + " |")
    print()


def keep_and_prefetch_tables():
    columns = [("base", 0), ("base", 1), ("R", 0), ("R", 1), ("R", 2), ("RF", 0), ("RF", 1), ("RF", 2)]
    runs = {c: [results(f"2_keep_and_prefetch/kb_{c[0]}_p{c[1]}_b1_{i}.json") for i in (1, 2)] for c in columns}
    print("2. Exploration 2 (2_keep_and_prefetch): batch 1, prefetch distance p at run time")
    print("(RINGCOMM_X_PREFETCH), two rounds; lowest–highest.")
    header("nb", "precision", "channel", "walk", *[f"{v} p{p}" for v, p in columns])
    for key, r in runs[("base", 0)][0].items():
        print(f"| {key[0]} | {key[1]} | {key[2]} | {walk(r)} | " + " | ".join(spread(runs[c], key) for c in columns) + " |")
    print()
    batch = {v: [results(f"2_keep_and_prefetch/kb_{v}_p0_b8_1.json")] for v in ["base", "R", "RF"]}
    print("3. Exploration 2, batch 8 (one run each): counted bytes per second / copy rate.")
    header("nb", "precision", "channel", "base", "R", "RF", "R / base", "RF / R")
    for key in batch["base"][0]:
        b, r, rf = (batch[v][0][key]["ratio"] for v in ["base", "R", "RF"])
        print(f"| {key[0]} | {key[1]} | {key[2]} | {b:.3f} | {r:.3f} | {rf:.3f} | {r / b:.3f} | {rf / r:.3f} |")
    print()


def final_kernel_tables():
    before = [results(f"final/before_e55f7e2_b1_{i}.json") for i in (1, 2)]
    after = [results(f"final/after_b1_{i}.json") for i in (1, 2)]
    print("4. Final (final/): kernel_bandwidth defaults at batch 1, HEAD e55f7e2 and the commit built side by")
    print("side, interleaved (after, before, before, after); after / before is the ratio of the two runs' sums.")
    header("nb", "precision", "channel", "walk", "before", "after", "after / before")
    for key, r in after[0].items():
        gain = sum(f[key]["ratio"] for f in after) / sum(f[key]["ratio"] for f in before)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {walk(r)} | {spread(before, key)} | {spread(after, key)} | {gain:.3f} |")
    print()
    before8, after8 = results("final/before_e55f7e2_b8.json"), results("final/after_b8.json")
    print("5. Final, batch 8 (one run each):")
    header("nb", "precision", "channel", "before", "after", "after / before")
    for key in after8:
        b, a = before8[key]["ratio"], after8[key]["ratio"]
        print(f"| {key[0]} | {key[1]} | {key[2]} | {b:.3f} | {a:.3f} | {a / b:.3f} |")
    print()


def ring_compare_table():
    def run(name):
        return load(f"final/{name}.json")["runs"][0]
    print("6. Final: ring_compare, one rank, paper size (212,336,640 entries), nccl, 32 measurements; time per")
    print("measurement / floor (G_t bytes read and written once per message at the same-run copy rate), and ms.")
    header("batch", "scalar", "channel", "before × floor", "after × floor", "before ms", "after ms")
    for batch in ["B1", "Bdefault"]:
        for scalar in ["double", "mixed"]:
            for channel in CHANNELS:
                b = run(f"rc_before_e55f7e2_{batch}_{scalar}_{channel}")
                a = run(f"rc_after_{batch}_{scalar}_{channel}")
                label = "1" if batch == "B1" else f"default ({a['gt_batch']})"
                print(f"| {label} | {scalar} | {channel} | {b['fraction_of_floor']:.3f} | {a['fraction_of_floor']:.3f} | "
                      f"{b['seconds_per_measurement'] * 1e3:.3f} | {a['seconds_per_measurement'] * 1e3:.3f} |")
    print()


def ncu_lines():
    wanted = ["Duration", "DRAM Throughput", "L2 Cache Throughput", "L1/TEX Cache Throughput", "Achieved Occupancy",
              "Registers Per Thread"]
    print("7. Nsight Compute, double ph_magnetic, nb = 1, one launch (final/ncu_*):")
    header("metric", "before", "after")
    values = {}
    for side in ["before", "after"]:
        with open(os.path.join(HERE, f"final/ncu_{side}_ph_magnetic_double.txt")) as f:
            for line in f:
                for name in wanted:
                    m = re.match(rf"\s+{re.escape(name)}\s+(\S+)\s+([\d.,]+)\s*$", line)
                    if m:
                        values.setdefault(name, {})[side] = f"{m.group(2)} {m.group(1)}"
    for name in wanted:
        print(f"| {name} | {values[name].get('before', '-')} | {values[name].get('after', '-')} |")
    print()


if __name__ == "__main__":
    hints_table()
    keep_and_prefetch_tables()
    final_kernel_tables()
    ring_compare_table()
    ncu_lines()
