#!/usr/bin/env python3
"""Prints the tables of README.md from h100/ and writes defaults_summary.json, which README.md cites
(python3 make_tables.py)."""
import glob
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)

RUNS = ("1_defaults", "2_double", "3_final")
# GtAccumulator::default_inner_block_chunks(nb) for messages in complex<double> and in complex<float>.
DEFAULT_CHUNKS = {("double", 1): 3, ("double", 2): 18, ("float", 1): 12, ("float", 2): 36, ("mixed", 1): 12,
                  ("mixed", 2): 36}


def committed(r):
    """Whether a B = 32 kernel_bandwidth result ran what dd37fa2 (the code before this change) took by default
    on a GPU: no pair groups, a RangePolicy, 4 frequency warps for messages in complex<double> (else 1), the
    default inner blocks."""
    return (r["pass_team_threads"] == 0 and r["pair_warps"] == 1 and r["inner_block_chunks"] ==
            DEFAULT_CHUNKS[(r["precision"], r["nb"])] and r["frequency_warps"] == (4 if r["precision"] == "double" else 1))


def settings(r):
    return (r["pass_team_threads"], r["pair_warps"], r["frequency_warps"], r["inner_block_chunks"])


def kernel_bandwidth(summary):
    """Every sweep's ms per message, and its fraction of the committed settings' time in the same file where
    that file holds them."""
    print("## kernel_bandwidth, B = 32: ms per message and its fraction of the committed settings' time")
    for run in RUNS:
        for path in sorted(glob.glob(os.path.join(HERE, "h100", run, "kb_*.json"))):
            results = json.load(open(path))["results"]
            base = {tables_lib.case(r): r for r in results if committed(r)}
            for r in results:
                ref = base.get(tables_lib.case(r))
                ms = 1e3 * r["kernel_seconds"]
                record = {"run": run, "file": os.path.basename(path), "nb": r["nb"], "precision": r["precision"],
                          "channel": r["channel"], "team_threads": r["pass_team_threads"],
                          "pair_warps": r["pair_warps"], "frequency_warps": r["frequency_warps"],
                          "inner_block_chunks": r["inner_block_chunks"], "ms": round(ms, 4),
                          "of_committed": round(r["kernel_seconds"] / ref["kernel_seconds"], 4) if ref else None,
                          "of_copy": round(r["kernel_seconds"] / r["copy_seconds"], 4)}
                summary["kernel_bandwidth"].append(record)
                print("%-10s %-22s nb=%d %-6s %-13s team=%-3d pw=%d fw=%d iblk=%-2d %.3f ms, %.3f of the copy, %s of "
                      "committed" % (run, record["file"], r["nb"], r["precision"], r["channel"], *settings(r), ms,
                                     record["of_copy"], record["of_committed"]))
    print()


def ring_compare(summary):
    """Every run, and per case the median time of the new binary over the old one's (same device call)."""
    times = {}
    for run in RUNS:
        for fields, r in tables_lib.ring_compare_runs(os.path.join(HERE, "h100", run), "rc_*.json"):
            fields = dict(fields, run=run)
            summary["ring_compare"].append(dict(fields, fraction_of_floor=round(r["fraction_of_floor"], 4),
                                                copy_GBps=round(r["copy_GBps"], 1),
                                                ms=round(1e3 * r["seconds_per_measurement"], 4)))
            key = (run, fields["batch"], fields["scalar"], fields["channel"])
            times.setdefault(key, {}).setdefault(fields["binary"], []).append(r["seconds_per_measurement"])
    print("## ring_compare, one rank, paper size: median ms per measurement, new over old")
    for (run, batch, scalar, channel), binaries in sorted(times.items()):
        old = statistics.median(binaries["old"])
        for binary, values in sorted(binaries.items()):
            if binary == "old":
                continue
            ratio = statistics.median(values) / old
            summary["ring_compare_ratio"].append({"run": run, "batch": batch, "scalar": scalar, "channel": channel,
                                                  "binary": binary, "over_old": round(ratio, 4)})
            print("%-10s B=%-2d %-6s %-13s %s/old %.3f (%.3f / %.3f ms)"
                  % (run, batch, scalar, channel, binary, ratio, 1e3 * statistics.median(values), 1e3 * old))
    print()


def tests_and_checks(summary):
    for run in RUNS:
        for path in sorted(glob.glob(os.path.join(HERE, "h100", run, "tests_*.txt"))):
            summary["tests"].append(dict({"run": run, "suite": os.path.basename(path)[:-4]},
                                         **tables_lib.gtest_counts(path)))
        for name, error in tables_lib.verify_errors(os.path.join(HERE, "h100", run), "verify_*.json").items():
            summary["verify"].append({"run": run, "name": name, "max_relative_error": error})
        for path in sorted(glob.glob(os.path.join(HERE, "h100", run, "details_*.txt"))):
            d = tables_lib.ncu_details(path)
            summary["ncu"].append({"run": run, "profile": os.path.basename(path)[len("details_"):-4],
                                   "duration_ms": d["Duration"], "l1_hit_pct": d["L1/TEX Hit Rate"],
                                   "l2_hit_pct": d["L2 Hit Rate"], "block_size": d["Block Size"],
                                   "occupancy_pct": d["Achieved Occupancy"], "registers": d["Registers Per Thread"]})
    for key in ("tests", "verify", "ncu"):
        print("## %s" % key)
        for record in summary[key]:
            print(record)
        print()


def main():
    tables_lib.summarize(HERE, "defaults_summary.json",
                         ("kernel_bandwidth", "ring_compare", "ring_compare_ratio", "tests", "verify", "ncu"),
                         (kernel_bandwidth, ring_compare, tests_and_checks))


if __name__ == "__main__":
    main()
