#!/usr/bin/env python3
"""Prints the tables of README.md from 1_replication/ to 9_defaults_neighbourhood/ and 10_current/ and writes
status_summary.json, which README.md cites (python3 make_tables.py)."""
import collections
import glob
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)
from tables_lib import BANDWIDTH_TARGET  # noqa: E402

RUNS = ("1_replication", "2_copy_rate", "3_direct_reads", "7_teams_1024")
SWEEPS = ("4_batch_rows_blocks", "5_batch_rows_teams", "6_batch_teams", "8_float_teams", "9_defaults_neighbourhood")
# The batch settings committed before 7_teams_1024 (75666bd) at the paper size on a GPU: 4 exchange rows a
# thread, default_inner_block_chunks (3 at nb = 1, 18 at nb = 2 for complex<double> messages, 12 at nb = 1 for
# complex<float> ones), Lx = 6 pairs a group, teams of 512. 6_batch_teams and 8_float_teams vary the team only.
COMMITTED_BLOCKS = {("double", 1): 3, ("double", 2): 18, ("mixed", 1): 12}


def committed(run, r):
    if run in ("6_batch_teams", "8_float_teams"):
        return r["pass_team_threads"] == 512
    if run == "9_defaults_neighbourhood":  # the defaults of 7_teams_1024: teams of 1024 (its only setting here)
        return (r["inner_block_chunks"], r["pair_warps"], r["exchange_row_warps"], r["frequency_warps"]) == (3, 6, 1, 1)
    return (r["exchange_row_tile"], r["inner_block_chunks"], r["pair_warps"], r["pass_team_threads"]) == (
        4, COMMITTED_BLOCKS[(r["precision"], r["nb"])], 6, 512)


def batch_sweeps(summary):
    """Every batch setting of the sweeps (B = 32) with its time over the committed settings' in the same file
    (those before 7_teams_1024, and its own for 9_defaults_neighbourhood)."""
    print("## Batch sweeps, B = 32: ms per message and its fraction of the committed settings' time")
    for run in SWEEPS:
        for path in sorted(glob.glob(os.path.join(HERE, run, "kb_*.json"))):
            results = json.load(open(path))["results"]
            base = {tables_lib.case(r): r["kernel_seconds"] for r in results if committed(run, r)}
            for r in results:
                record = {"run": run, "file": os.path.basename(path), "nb": r["nb"], "precision": r["precision"],
                          "channel": r["channel"], "rows": r["exchange_row_tile"], "blocks": r["inner_block_chunks"],
                          "pair_warps": r["pair_warps"], "team": r["pass_team_threads"],
                          "row_warps": r["exchange_row_warps"], "frequency_warps": r["frequency_warps"],
                          "ms": round(1e3 * r["kernel_seconds"], 4),
                          "of_committed": round(r["kernel_seconds"] / base[tables_lib.case(r)], 4)}
                summary["batch_sweeps"].append(record)
                print("%-19s %-24s nb=%d %-6s %-13s rows=%d iblk=%-2d pw=%-2d team=%-4d %.3f ms, %.3f of committed" % (
                    run, record["file"], r["nb"], r["precision"], r["channel"], record["rows"], record["blocks"],
                    record["pair_warps"], record["team"], record["ms"], record["of_committed"]))
    print()


# The binary each one is compared with in the same device call.
BEFORE = {"final": "old", "teams": "copyfix"}


def ring_compare(summary):
    """Every ring_compare run, and per case the median time of a binary over the one it is compared with in the
    same run (BEFORE)."""
    times = collections.defaultdict(list)
    for run in RUNS:
        for fields, r in tables_lib.ring_compare_runs(os.path.join(HERE, run), "rc_*.json"):
            record = dict(fields, run=run, fraction_of_floor=round(r["fraction_of_floor"], 4),
                          copy_GBps=round(r["copy_GBps"], 1), ms=round(1e3 * r["seconds_per_measurement"], 4))
            summary["ring_compare"].append(record)
            times[(run, fields["batch"], fields["scalar"], fields["channel"], fields["binary"])].append(record["ms"])
    print("## ring_compare: x floor (ms per measurement, copy GB/s), every round")
    for r in sorted(summary["ring_compare"], key=lambda r: (r["run"], r["batch"], r["scalar"], r["channel"], r["binary"])):
        print("%-14s B=%-2d %-6s %-13s %-7s %.3f (%.3f ms, %.1f GB/s)" % (r["run"], r["batch"], r["scalar"], r["channel"],
                                                                     r["binary"], r["fraction_of_floor"], r["ms"], r["copy_GBps"]))
    print()
    for (run, batch, scalar, channel, binary), ms in sorted(times.items()):
        old = times.get((run, batch, scalar, channel, BEFORE.get(binary)))
        if old:
            summary["ring_compare_ratio"].append({"run": run, "batch": batch, "scalar": scalar, "channel": channel,
                                                  "over_old": round(statistics.median(ms) / statistics.median(old), 4)})
    print("## ring_compare: median ms over the compared binary's (final over old, teams over copyfix)")
    for r in summary["ring_compare_ratio"]:
        print("%-14s B=%-2d %-6s %-13s %.3f" % (r["run"], r["batch"], r["scalar"], r["channel"], r["over_old"]))
    print()


def kernel_bandwidth(summary):
    """Every kernel_bandwidth result, and per file how many cases reach the issue's 0.85."""
    print("## kernel_bandwidth: ratio (kernel GB/s over copy GB/s) and ms per message")
    for run in RUNS:
        for path in sorted(glob.glob(os.path.join(HERE, run, "kb_*.json"))):
            name = os.path.basename(path)
            results = json.load(open(path))["results"]
            for r in results:
                record = {"run": run, "file": name, "nb": r["nb"], "precision": r["precision"], "channel": r["channel"],
                          "batch": r["batch"], "pair_warps": r["pair_warps"], "transposed_reads": r["transposed_reads"],
                          "team": r["pass_team_threads"],
                          "ratio": round(r["ratio"], 4), "ms": round(1e3 * r["kernel_seconds"], 4),
                          "copy_GBps": round(r["copy_GBps"], 1)}
                summary["kernel_bandwidth"].append(record)
                print("%-14s %-21s nb=%d B=%-2d %-6s %-13s pw=%-2d G^T=%-5s %.3f (%.3f ms)" % (
                    run, name, r["nb"], r["batch"], r["precision"], r["channel"], r["pair_warps"], r["transposed_reads"],
                    record["ratio"], record["ms"]))
            if all(r["batch"] == 1 for r in results) and len(results) == 24:
                summary["kernel_bandwidth_met"].append(
                    dict(run=run, file=name, **tables_lib.bandwidth_met([round(r["ratio"], 4) for r in results])))
    print()
    for r in summary["kernel_bandwidth_met"]:
        print("%s/%s: %d of %d cases >= %.2f, lowest %.3f" % (r["run"], r["file"], r["met"], r["cases"], BANDWIDTH_TARGET,
                                                          r["lowest"]))
    print()


def ncu(summary):
    """Every kernel of the profiled ring_compare runs (4 measurements at B = 1), by name: launches and mean
    duration, and per case the kernels that run once per measurement added up."""
    print("## Nsight Compute: kernels of ring_compare at B = 1 (4 measurements), mean us each")
    for path in sorted(glob.glob(os.path.join(HERE, "2_copy_rate", "ncu_rc_B1_*.csv"))):
        scalar, channel = re.fullmatch(r"ncu_rc_B1_(double|mixed)_(\w+)\.csv", os.path.basename(path)).groups()
        durations = tables_lib.ncu_kernel_durations(path)
        per_measurement = 0.0
        for name, us in durations.items():
            record = {"scalar": scalar, "channel": channel, "kernel": name, "launches": len(us),
                      "us": round(statistics.mean(us), 1)}
            summary["ncu"].append(record)
            if len(us) == 4:
                per_measurement += statistics.mean(us)
            print("%-6s %-13s %-28s x%d %.1f" % (scalar, channel, name, len(us), record["us"]))
        summary["ncu_per_measurement"].append({"scalar": scalar, "channel": channel, "us": round(per_measurement, 1)})
        print("%-6s %-13s every measurement's kernels together: %.1f us" % (scalar, channel, per_measurement))
    print()


def copy_rates(summary):
    """The copy rates the floors and ratios rest on: ring_compare's at B = 1 with one copy a sample (final, both
    runs) and four (copyfix), kernel_bandwidth's in 2_copy_rate."""
    groups = {"ring_compare_one_copy": [r["copy_GBps"] for r in summary["ring_compare"]
                                        if r["binary"] == "final" and r["batch"] == 1],
              "ring_compare_four_copies": [r["copy_GBps"] for r in summary["ring_compare"]
                                           if r["binary"] == "copyfix" and r["run"] == "2_copy_rate"],
              "kernel_bandwidth": [r["copy_GBps"] for r in summary["kernel_bandwidth"] if r["run"] == "2_copy_rate"]}
    print("## Copy rates (GB/s): runs, lowest, median, highest")
    for name, rates in groups.items():
        record = {"source": name, "runs": len(rates), "min": min(rates), "median": round(statistics.median(rates), 1),
                  "max": max(rates)}
        summary["copy_rates"].append(record)
        print("%-26s %3d %.1f %.1f %.1f" % (name, len(rates), record["min"], record["median"], record["max"]))
    one, four = (statistics.median(groups[k]) for k in ("ring_compare_one_copy", "ring_compare_four_copies"))
    summary["floor_one_copy_over_four"] = round(four / one, 4)
    print("floor with one copy a sample over the floor with four (medians): %.3f" % (four / one))
    print()


def checks(summary):
    """The GPU kernel suites and --verify-sample of 7_teams_1024's binary, and the suite with the default planted
    back at 512 (run_7_planted.sh.txt)."""
    here = os.path.join(HERE, "7_teams_1024")
    print("## Checks of 7_teams_1024")
    for path in sorted(glob.glob(os.path.join(here, "tests_*.txt")) + glob.glob(os.path.join(here, "planted_*.txt"))):
        record = dict(tables_lib.gtest_counts(path), file=os.path.basename(path))
        summary["tests"].append(record)
        print("%s: %d passed, %d failed" % (record["file"], record["passed"], record["failed"]))
    for name, error in tables_lib.verify_errors(here, "verify_*.json").items():
        summary["verify"].append({"file": name, "max_relative_error": error})
        print("%s: largest relative error %.2e" % (name, error))
    print()


CURRENT = "10_current"  # every target with 5b8c781's binaries, two runs (run_10.sh.txt)


def current(summary):
    """10_current: every target with 5b8c781's binaries, both runs (tables_lib.current_status)."""
    tables_lib.current_status(summary, os.path.join(HERE, CURRENT), CURRENT)


def main():
    tables_lib.summarize(HERE, "status_summary.json",
                         ("ring_compare", "ring_compare_ratio", "kernel_bandwidth", "kernel_bandwidth_met", "ncu",
                          "ncu_per_measurement", "copy_rates", "batch_sweeps", "tests", "verify", "current_ring_compare",
                          "current_targets", "current_kernel_bandwidth", "current_kernel_bandwidth_met"),
                         (ring_compare, kernel_bandwidth, ncu, copy_rates, batch_sweeps, checks, current))

if __name__ == "__main__":
    main()
