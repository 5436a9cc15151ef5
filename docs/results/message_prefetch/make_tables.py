#!/usr/bin/env python3
"""Prints the tables of README.md from the runs in h200/ and writes prefetch_summary.json, which README.md
cites (python3 make_tables.py)."""
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)
from tables_lib import print_table  # noqa: E402

RUNS = ("1_every_lane", "2_lanes", "3_lanes")
# Nsight Compute details kept per profile: (name in the print, key in the summary).
PROFILE = (("Duration", "duration_ms"), ("L1/TEX Cache Throughput", "l1_throughput_pct"),
           ("L2 Cache Throughput", "l2_throughput_pct"), ("DRAM Throughput", "dram_throughput_pct"),
           ("L1/TEX Hit Rate", "l1_hit_pct"), ("Registers Per Thread", "registers"),
           ("Achieved Occupancy", "occupancy_pct"), ("Warp Cycles Per Issued Instruction", "cycles_per_instruction"),
           ("Stall Long Scoreboard", "long_scoreboard_cycles"))


def kernel_bandwidth(run):
    """One record per (variant, precision, channel) of h200/<run>/kb_<variant>_<round>.json at B = 16: the
    kernel time per message of each round, and the variant's mean over base's."""
    times = tables_lib.grouped(
        (dict(r, variant=name.split("_")[1]) for name, r in tables_lib.results(HERE, "h200/%s/kb_*_[12].json" % run)),
        key=lambda r: (r["precision"], r["channel"]), column=lambda r: r["variant"],
        value=lambda r: 1e3 * r["kernel_seconds"])
    out = []
    for (precision, channel), by in times.items():
        base = statistics.mean(by["base"])
        for variant, ms in by.items():
            out.append({"run": run, "variant": variant, "precision": precision, "channel": channel, "ms": ms,
                        "over_base": statistics.mean(ms) / base})
    return out


def ring_compare(run):
    """Time per measurement over the floor of every h200/<run>/rc_<variant>_B<batch>_<scalar>_<channel>.json."""
    return [{"run": run, "variant": fields["binary"], "batch": fields["batch"], "scalar": fields["scalar"],
             "channel": fields["channel"], "fraction_of_floor": rc["fraction_of_floor"]}
            for fields, rc in tables_lib.ring_compare_runs(HERE, "h200/%s/rc_*.json" % run)]


def checks(run):
    """--verify-sample's largest relative error per prefetching variant."""
    return [{"run": run, "variant": os.path.basename(f).split("_")[1],
             "sample_max_relative_error": json.load(open(f))["runs"][0]["sample_max_relative_error"]}
            for f in sorted(glob.glob(os.path.join(HERE, "h200", run, "verify_*.json")))]


def profiles(run):
    """The Nsight Compute details of the batched exchange pass (double ph_magnetic, B = 16) per variant."""
    out = []
    for f in sorted(glob.glob(os.path.join(HERE, "h200", run, "details_*_b16_double_ph_magnetic.txt"))):
        details = tables_lib.ncu_details(f)
        record = {"run": run, "variant": os.path.basename(f).split("_")[1]}
        record.update({key: details[name] for name, key in PROFILE})
        out.append(record)
    return out


def main():
    summary = {"kernel_bandwidth": [], "ring_compare": [], "checks": [], "profiles": []}
    for run in RUNS:
        if not os.path.isdir(os.path.join(HERE, "h200", run)):
            continue
        kb, rc, ck, pr = kernel_bandwidth(run), ring_compare(run), checks(run), profiles(run)
        summary["kernel_bandwidth"] += kb
        summary["ring_compare"] += rc
        summary["checks"] += ck
        summary["profiles"] += pr
        variants = sorted({r["variant"] for r in kb}, key=lambda v: (v != "base", v))
        rows = {}
        for r in kb:
            rows.setdefault((r["precision"], r["channel"]), {})[r["variant"]] = [r["over_base"]]
        print_table("%s: kernel_bandwidth at B = 16, nb = 1, kernel time over base's (means of two rounds)" % run,
                    ("precision", "channel"), variants, rows,
                    sort=lambda k: (k[0], tables_lib.CHANNELS.index(k[1])))
        rows = {}
        for r in rc:
            rows.setdefault((r["scalar"], r["channel"], r["batch"]), {})[r["variant"]] = [r["fraction_of_floor"]]
        print_table("%s: ring_compare at the paper size, x floor" % run, ("scalar", "channel", "B"), variants, rows,
                    sort=lambda k: k)
        rows = {(p["variant"],): {key: [p[key]] for _, key in PROFILE} for p in pr}
        print_table("%s: Nsight Compute, batched exchange pass, double ph_magnetic, B = 16" % run, ("variant",),
                    [key for _, key in PROFILE], rows, sort=lambda k: k, fmt="%.2f")
        print("%s: --verify-sample, largest relative error: %s\n" % (
            run, ", ".join("%s %.2e" % (c["variant"], c["sample_max_relative_error"]) for c in ck)))
    with open(os.path.join(HERE, "prefetch_summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
