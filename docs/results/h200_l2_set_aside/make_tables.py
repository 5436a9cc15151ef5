#!/usr/bin/env python3
"""Prints this folder's tables from its JSON and CSV files: python3 make_tables.py"""
import collections
import csv
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def kernel_table(folder, prefix, value, variants=None):
    rows = collections.defaultdict(dict)
    aside = {}
    for path in sorted(glob.glob(os.path.join(HERE, folder, prefix + "*.json"))):
        variant = os.path.basename(path)[len(prefix):-5].rsplit("_", 1)[0]
        data = json.load(open(path))
        aside.setdefault(variant, set()).add(round(data["l2_persisting_bytes"] / 2**20, 2))
        for r in data["results"]:
            rows[(r["nb"], r["precision"], r["channel"])].setdefault(variant, []).append(value(r))
    variants = variants or sorted({v for row in rows.values() for v in row})
    print(f"\n{folder}: " + ", ".join(f"{v}: set-aside {sorted(aside[v])} MiB" for v in variants))
    print("| nb | precision | channel | " + " | ".join(variants) + " |")
    print("| --- " * (3 + len(variants)) + "|")
    for key, row in sorted(rows.items()):
        cells = ["/".join(f"{x:.3f}" for x in row.get(v, [])) for v in variants]
        print(f"| {key[0]} | {key[1]} | {key[2]} | " + " | ".join(cells) + " |")


def ncu_table():
    print("\n1_frequency_major, Nsight Compute (two launches each):")
    print("| file | duration µs | DRAM read GB | DRAM written GB | L2 % | DRAM % | L1 hit % |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for path in sorted(glob.glob(os.path.join(HERE, "1_frequency_major", "ncu_*.csv"))):
        lines = [l for l in open(path) if l.startswith('"')]
        m = collections.defaultdict(list)
        for r in csv.DictReader(lines):
            m[r["Metric Name"]].append(float(r["Metric Value"].replace(",", "")))
        fmt = lambda name, scale=1.0, digits=1: "/".join(f"{x * scale:.{digits}f}" for x in m[name])
        print(f"| {os.path.basename(path)} | {fmt('gpu__time_duration.sum', 1e-3)} | "
              f"{fmt('dram__bytes_read.sum', 1e-9, 2)} | {fmt('dram__bytes_write.sum', 1e-9, 2)} | "
              f"{fmt('lts__throughput.avg.pct_of_peak_sustained_elapsed')} | "
              f"{fmt('dram__throughput.avg.pct_of_peak_sustained_elapsed')} | {fmt('l1tex__t_sector_hit_rate.pct')} |")


if __name__ == "__main__":
    kernel_table("1_frequency_major", "kb_", lambda r: r["ratio"], ["w0", "w1", "w2"])
    ncu_table()
    ms = lambda r: r["kernel_seconds"] * 1e3
    kernel_table("2_set_aside_sweep", "kb_", ms, ["sdefault", "s0", "s16", "s24", "s32"])
    kernel_table("3_library", "kb_", ms, ["lib", "lib_from0", "off_from0", "off_4", "off_8", "off_15"])
