#!/usr/bin/env python3
"""Prints this folder's tables from its files (python3 make_table.py)."""
import glob
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))


def breakdown():
    """0_breakdown/ncu_table.txt: per-kernel durations of kernel_bandwidth --launches 1 --repetitions 1
    (a warm-up launch, then the timed one, per channel in the order pp, tr, magnetic, charge)."""
    print("## Time per message by kernel (ncu Duration, timed launch; 0_breakdown)\n")
    print("| nb | precision | channel | transpose µs | factors µs | channel kernel µs | transpose share |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    per_file = {}
    for line in open(os.path.join(HERE, "0_breakdown", "ncu_table.txt")):
        f, kernel = line.split()[:2]
        if not kernel.startswith("ringcomm::") or "FillMessage" in kernel:
            continue
        value, unit = line.split()[-2:]
        us = float(value) * (1000 if unit == "ms" else 1)
        per_file.setdefault(f, []).append((kernel.split("::")[1], us))
    channels = ["pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge"]
    for f, kernels in sorted(per_file.items()):
        nb, precision = re.match(r"ncu_(\d)_(\w+)\.txt", f).groups()
        # Each launch is [Transpose] [Factor] main; split after every main kernel, keep every second.
        launches, current = [], {}
        for name, us in kernels:
            current[name] = us
            if "SingleMessage" in name:
                launches.append(current)
                current = {}
        for c, launch in zip(channels, launches[1::2]):
            main = sum(us for name, us in launch.items() if "SingleMessage" in name)
            t, fk = launch.get("TransposeKernel", 0.0), launch.get("FactorKernel", 0.0)
            print(f"| {nb} | {precision} | {c} | {t:.1f} | {fk:.1f} | {main:.1f} | {t / (t + fk + main):.3f} |")
    print()


def transposes(folder):
    """ncu Durations of the transpose: per precision, nb = 1 (warm-up, timed) then nb = 2."""
    rows = {}
    for line in open(os.path.join(HERE, folder, "ncu_transpose.txt")):
        v, p = line.split()[:2]
        if "Duration" in line:
            rows.setdefault((v, p), []).append(float(line.split()[-1]))
    return rows


def transpose_table():
    for folder in sorted(glob.glob(os.path.join(HERE, "[12]_*"))):
        name = os.path.basename(folder)
        rows = transposes(name)
        print(f"## TransposeKernel durations, µs (ncu, both launches; {name})\n")
        print("| precision | nb = 1 before | nb = 1 after | nb = 2 before | nb = 2 after |")
        print("| --- | --- | --- | --- | --- |")
        for p in ["double", "float", "mixed"]:
            b, n = rows[("base", p)], rows[("new", p)]
            print(f"| {p} | {b[0]:.1f}, {b[1]:.1f} | {n[0]:.1f}, {n[1]:.1f} | {b[2]:.1f}, {b[3]:.1f} | {n[2]:.1f}, {n[3]:.1f} |")
        print()


def kernel_bandwidth():
    for folder in sorted(glob.glob(os.path.join(HERE, "[12]_*"))):
        name = os.path.basename(folder)
        rows = {}
        for side in ["base", "new"]:
            for f in sorted(glob.glob(os.path.join(folder, f"kb_{side}_*.json"))):
                for r in json.load(open(f))["results"]:
                    rows.setdefault((r["nb"], r["precision"], r["channel"]), {}).setdefault(side, []).append(r["ratio"])
        print(f"## kernel_bandwidth ratios, before (2cd5954) and after, interleaved runs ({name})\n")
        print("| nb | precision | channel | before | after | after / before |")
        print("| --- | --- | --- | --- | --- | --- |")
        for k, v in sorted(rows.items()):
            b, n = v["base"], v["new"]
            print(f"| {k[0]} | {k[1]} | {k[2]} | {min(b):.3f}–{max(b):.3f} | {min(n):.3f}–{max(n):.3f} | "
                  f"{(sum(n) / len(n)) / (sum(b) / len(b)):.3f} |")
        print()


def transposed_reads_nb2():
    rows = {}
    for f in sorted(glob.glob(os.path.join(HERE, "1_batched_loads", "kb_nb2_tr_*.json"))):
        for r in json.load(open(f))["results"]:
            rows.setdefault((r["precision"], r["channel"]), {}).setdefault(r["transposed_reads"], []).append(r["ratio"])
    print("## nb = 2 bubble channels with and without the transposed copy (1_batched_loads, both orders)\n")
    print("| precision | channel | G^T | G | G / G^T |")
    print("| --- | --- | --- | --- | --- |")
    for k, v in sorted(rows.items()):
        on, off = v[True], v[False]
        print(f"| {k[0]} | {k[1]} | {min(on):.3f}–{max(on):.3f} | {min(off):.3f}–{max(off):.3f} | "
              f"{(sum(off) / len(off)) / (sum(on) / len(on)):.3f} |")
    print()


def ring_compare():
    for folder in sorted(glob.glob(os.path.join(HERE, "[12]_*"))):
        files = sorted(glob.glob(os.path.join(folder, "rc", "rc_*.json")))
        if not files:
            continue
        print(f"## ring_compare, one rank, paper size ({os.path.basename(folder)})\n")
        print("| scalar | channel | B | ms / measurement | floor ms | × floor | G_t work space MB |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for f in files:
            d = json.load(open(f))
            r = d["runs"][0]
            print(f"| {d['scalar']} | {d['channel']} | {r['gt_batch']} | {1e3 * r['seconds_per_measurement']:.3f} | "
                  f"{1e3 * r['floor_seconds_per_measurement']:.3f} | {r['fraction_of_floor']:.3f} | "
                  f"{r['gt_work_bytes_per_rank'] / 1e6:.0f} |")
        print()


def probe():
    d = json.load(open(os.path.join(HERE, "1_batched_loads", "transpose_probe.json")))
    print("## transpose_probe (plain CUDA, 1_batched_loads)\n")
    print("| scalar | M | kernel | values per thread | ms | copy ms | copy / kernel | mismatches |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in d["results"]:
        print(f"| {r['scalar']} | {r['m']} | {r['kernel']} | {r['per_thread']} | {r['ms']:.4f} | {r['copy_ms']:.4f} | "
              f"{r['copy_over_kernel']:.3f} | {r['mismatches']} |")
    print()


if __name__ == "__main__":
    breakdown()
    probe()
    transpose_table()
    kernel_bandwidth()
    transposed_reads_nb2()
    ring_compare()
