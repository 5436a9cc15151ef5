#!/usr/bin/env python3
"""Prints the tables of README.md from h200/ and writes prepare_summary.json, which README.md cites
(python3 make_tables.py)."""
import csv
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)
from tables_lib import print_table  # noqa: E402

KERNELS = ("TransposeKernel", "FactorKernel", "ChannelKernel", "FactorProductKernel")


def kernel_bandwidth(folder):
    """One record per kernel_bandwidth result of h200/<folder>/kb_<binary>_<round>.json: its case, binary,
    round and kernel time per message (ms)."""
    out = []
    for name, r in tables_lib.results(HERE, "h200/%s/kb_*.json" % folder):
        binary, rnd = re.fullmatch(r"kb_(\w+)_(\d+)\.json", name).groups()
        out.append({"nb": r["nb"], "precision": r["precision"], "channel": r["channel"], "batch": r["batch"],
                    "binary": binary, "round": int(rnd), "ms_per_message": 1e3 * r["kernel_seconds"]})
    return out


def ratios(kb, over, under):
    """Per case: the mean time per message of binary `over` over that of `under`."""
    cases = tables_lib.grouped(kb, key=lambda r: (r["nb"], r["precision"], r["channel"], r["batch"]),
                               column=lambda r: r["binary"], value=lambda r: r["ms_per_message"])
    return [{"nb": k[0], "precision": k[1], "channel": k[2], "batch": k[3], "binaries": over + "/" + under,
             "ratio": statistics.mean(v[over]) / statistics.mean(v[under])} for k, v in sorted(cases.items())]


def ring_compare(folder):
    return [dict(fields, fraction_of_floor=run["fraction_of_floor"])
            for fields, run in tables_lib.ring_compare_runs(HERE, "h200/%s/rc_*.json" % folder)]


def durations(path):
    """Per kernel kind: launches, mean and total gpu__time_duration (µs) of an `ncu --csv` print."""
    rows = list(csv.reader(open(path)))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "ID")
    name, value = rows[head].index("Kernel Name"), rows[head].index("Metric Value")
    kinds = {}
    for r in rows[head + 1:]:
        kind = next((k for k in KERNELS if k + "<" in r[name]), None)
        if kind:
            kinds.setdefault(kind, []).append(float(r[value].replace(",", "")) / 1e3)
    return {k: {"launches": len(v), "mean_us": statistics.mean(v), "total_ms": sum(v) / 1e3} for k, v in kinds.items()}


def ncu(path):
    d = tables_lib.ncu_details(path)
    return {"duration": d.get("Duration"), "dram_pct": d.get("DRAM Throughput"), "l2_pct": d.get("L2 Cache Throughput"),
            "issue_busy_pct": d.get("Issue Slots Busy"), "occupancy_pct": d.get("Achieved Occupancy"),
            "registers": d.get("Registers Per Thread")}


def table(title, kb, binaries):
    rows = tables_lib.grouped(kb, key=lambda r: (r["nb"], r["precision"], r["channel"], r["batch"]),
                              column=lambda r: r["binary"], value=lambda r: r["ms_per_message"])
    print_table(title, ("nb", "precision", "channel", "B"), binaries, rows)


def rc_table(title, rc, binaries):
    rows = tables_lib.grouped(rc, key=lambda r: (r["scalar"], r["channel"], r["batch"]), column=lambda r: r["binary"],
                              value=lambda r: r["fraction_of_floor"])
    print_table(title, ("scalar", "channel", "B"), binaries, rows,
                sort=lambda k: (k[0], tables_lib.CHANNELS.index(k[1]), k[2]))


def cpu():
    """cpu/: kernel_bandwidth per case, old and new (three rounds each) and the median's ratio; ring_compare's
    ms per measurement with the CPU defaults."""
    kb = []
    for name, r in tables_lib.results(HERE, "cpu/kb_*.json"):
        binary, rnd = re.fullmatch(r"kb_(old|new)_round(\d)\.json", name).groups()
        kb.append({"precision": r["precision"], "channel": r["channel"], "batch": r["batch"], "binary": binary,
                   "round": int(rnd), "ms_per_message": 1e3 * r["kernel_seconds"]})
    cases = tables_lib.grouped(kb, key=lambda r: (r["precision"], r["channel"], r["batch"]), column=lambda r: r["binary"],
                               value=lambda r: r["ms_per_message"])
    medians = [{"precision": k[0], "channel": k[1], "batch": k[2], "old_ms": v["old"], "new_ms": v["new"],
                "new_over_old": statistics.median(v["new"]) / statistics.median(v["old"]),
                "spread": max(max(x) / min(x) - 1 for x in (v["old"], v["new"]))} for k, v in sorted(cases.items())]
    rc = [dict(fields, ms_per_measurement=1e3 * run["seconds_per_measurement"])
          for fields, run in tables_lib.ring_compare_runs(HERE, "cpu/rc_*.json")]
    return medians, rc


def main():
    kb1, rc1 = kernel_bandwidth("1_compare"), ring_compare("1_compare")
    kb3, rc3 = kernel_bandwidth("3_prefetch"), ring_compare("3_prefetch")
    table("1_compare: kernel_bandwidth, kernel ms per message (two rounds)", kb1, ("base", "stage", "mma"))
    rc_table("1_compare: ring_compare, paper size, x floor (two rounds)", rc1, ("base", "stage", "mma"))
    transposes = {b: ncu(os.path.join(HERE, "h200/1_compare/details_%s_b32_double_ph_magnetic.txt" % b))
                  for b in ("base", "stage", "mma")}
    print("1_compare: the first TransposeKernel launch (Nsight Compute):",
          {b: (t["duration"], t["registers"], t["occupancy_pct"]) for b, t in transposes.items()})
    profiles = {b: durations(os.path.join(HERE, "h200/2_profiles/durations_%s_b32_double_ph_magnetic.csv" % b))
                for b in ("stage", "mma")}
    for b, kinds in profiles.items():
        print("2_profiles, %s, one batch of 32 (double ph_magnetic):" % b,
              {k: "%d x %.1f us = %.2f ms" % (v["launches"], v["mean_us"], v["total_ms"]) for k, v in kinds.items()})
    print()
    table("3_prefetch: kernel_bandwidth, kernel ms per message (two rounds)", kb3, ("stage", "pf"))
    rc_table("3_prefetch: ring_compare, paper size, x floor (two rounds)", rc3, ("stage", "pf"))
    factor_pass = {b: ncu(os.path.join(HERE, "h200/3_prefetch/details_%s_b32_double_ph_magnetic.txt" % b))
                   for b in ("stage", "pf")}
    print("3_prefetch: factor pass (Nsight Compute):", factor_pass)
    cpu_kb, cpu_rc = cpu()
    rows = {(c["precision"], c["channel"], c["batch"]): {"old": c["old_ms"], "new": c["new_ms"],
                                                         "new / old": [c["new_over_old"]]} for c in cpu_kb}
    print_table("cpu: kernel_bandwidth, kernel ms per message (three rounds), median ratio", ("precision", "channel", "B"),
                ("old", "new", "new / old"), rows, sort=lambda k: k, fmt="%.2f")
    rows = tables_lib.grouped(cpu_rc, key=lambda r: (r["scalar"], r["channel"], r["batch"]),
                              column=lambda r: r["binary"], value=lambda r: r["ms_per_measurement"])
    print_table("cpu: ring_compare ms per measurement (CPU defaults, three rounds)", ("scalar", "channel", "B"),
                ("old", "new"), rows, sort=lambda k: k, fmt="%.2f")
    checks = {"compare": tables_lib.verify_errors(HERE, "h200/1_compare/verify_*.json"),
              "prefetch": tables_lib.verify_errors(HERE, "h200/3_prefetch/verify_*.json")}
    print(checks)
    summary = {"kernel_bandwidth": [dict(r, run="1_compare") for r in kb1] + [dict(r, run="3_prefetch") for r in kb3],
               "ratios": [dict(r, run="1_compare") for r in ratios(kb1, "stage", "base") + ratios(kb1, "mma", "stage")]
               + [dict(r, run="3_prefetch") for r in ratios(kb3, "pf", "stage")],
               "ring_compare": [dict(r, run="1_compare") for r in rc1] + [dict(r, run="3_prefetch") for r in rc3],
               "transposes": [dict(t, binary=b) for b, t in transposes.items()],
               "batch_kernels": [dict(v, binary=b, kernel=k) for b, kinds in profiles.items() for k, v in kinds.items()],
               "factor_pass": [dict(t, binary=b) for b, t in factor_pass.items()], "checks": checks,
               "cpu_kernel_bandwidth": cpu_kb, "cpu_ring_compare": cpu_rc}
    with open(os.path.join(HERE, "prepare_summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
