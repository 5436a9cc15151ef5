#!/usr/bin/env python3
"""Prints the tables of README.md and writes status_summary.json, which README.md cites (python3
make_tables.py), from 1_status/ and 2_repeat/ (two runs of run_1.sh.txt on one H200, the second on the same
machine two minutes later; ranges are over both runs and every round of each), 3_settle_h100/ (run_3.sh.txt
on an H100; 4_settle_h200/ where it exists), 5_rc_length_h100/ (run_5.sh.txt, an H100),
6_batch_direct_h100/ (run_6.sh.txt, run_6b.sh.txt and run_6c.sh.txt, an H100) and 7_batch_direct_nb2_h100/ (run_7.sh.txt and run_7b.sh.txt, an H100)."""
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

RUNS = ("1_status", "2_repeat")


def section(folder, title):
    """The path of `folder` here after printing the title of its section, or None (nothing printed) where
    the folder does not exist."""
    run = os.path.join(HERE, folder)
    if not os.path.isdir(run):
        return None
    print("## %s: %s" % (folder, title))
    return run


def card(summary):
    """The card each run found (nvidia-smi's table)."""
    for run in RUNS:
        text = open(os.path.join(HERE, run, "nvidia-smi.txt")).read()
        name = re.search(r"NVIDIA H\d+\S*(?: \S+)?", text).group(0)
        summary["card"].append({"run": run, "name": name})
        print("## Card of %s: %s" % (run, name))
    print()


def ring_compare(summary):
    """Every ring_compare run, then per batch, scalar and channel the range over its rounds and whether the
    issue's target holds in every round."""
    cases = collections.defaultdict(list)
    for run in RUNS:
        for fields, r in tables_lib.ring_compare_runs(os.path.join(HERE, run), "rc_*.json"):
            record = dict(fields, run=run, fraction_of_floor=round(r["fraction_of_floor"], 4),
                          copy_GBps=round(r["copy_GBps"], 1), ms=round(1e3 * r["seconds_per_measurement"], 4),
                          floor_ms=round(1e3 * r["floor_seconds_per_measurement"], 4))
            summary["ring_compare"].append(record)
            cases[(record["batch"], record["scalar"], record["channel"])].append(record)
    print("## ring_compare: x floor, lowest-highest over rounds (ms per measurement, copy GB/s)")
    for record in tables_lib.ring_compare_targets(cases):
        summary["ring_compare_targets"].append(record)
        runs = cases[(record["batch"], record["scalar"], record["channel"])]
        print("B=%-2d %-6s %-13s %s (%s ms; %s GB/s) target %.2f: %s" % (
            record["batch"], record["scalar"], record["channel"], tables_lib.joined([r["fraction_of_floor"] for r in runs]),
            tables_lib.joined([r["ms"] for r in runs]), tables_lib.joined([r["copy_GBps"] for r in runs], "%.1f"),
            record["target"], "met" if record["met"] else "not met"))
    print()


def kernel_bandwidth(summary):
    """Every kernel_bandwidth case of each run at one message, and per run how many reach the issue's 0.85."""
    print("## kernel_bandwidth at one message: ratio (ms per message)")
    for run, (name, r) in ((run, x) for run in RUNS for x in tables_lib.results(os.path.join(HERE, run), "kb_B1_*.json")):
        name = "%s/%s" % (run, name)
        record = {"file": name, "nb": r["nb"], "precision": r["precision"], "channel": r["channel"], "batch": r["batch"],
                  "ratio": round(r["ratio"], 4), "ms": round(1e3 * r["kernel_seconds"], 4),
                  "copy_GBps": round(r["copy_GBps"], 1)}
        summary["kernel_bandwidth"].append(record)
        print("%-21s nb=%d %-6s %-13s %.3f (%.3f ms, copy %.1f GB/s)" % (
            name, r["nb"], r["precision"], r["channel"], record["ratio"], record["ms"], record["copy_GBps"]))
    by_file = tables_lib.grouped(summary["kernel_bandwidth"], lambda r: r["file"], lambda r: "ratio", lambda r: r["ratio"])
    for name, columns in sorted(by_file.items()):
        ratios = columns["ratio"]
        # The first complex<float> case (pp_up_down) ran kernel and copy slower after the mixed-precision
        # ones (README.md), so its ratio is not comparable: the count without it too.
        comparable = [r["ratio"] for r in summary["kernel_bandwidth"]
                      if r["file"] == name and (r["precision"], r["channel"]) != ("float", "pp_up_down")]
        record = dict(file=name, **tables_lib.bandwidth_met(ratios))
        record["met_without_float_pp_up_down"] = tables_lib.bandwidth_met(comparable)["met"]
        summary["kernel_bandwidth_met"].append(record)
        print("%s: %d of %d cases >= %.2f (%d without float pp_up_down), lowest %.3f" % (
            name, record["met"], record["cases"], BANDWIDTH_TARGET, record["met_without_float_pp_up_down"], record["lowest"]))
    print()


def ncu(summary):
    """Every kernel of the profiled ring_compare run (4 measurements, B = 1): launches and mean duration, and
    the kernels that run once per measurement added up."""
    for run in RUNS:
        path = os.path.join(HERE, run, "ncu_rc_B1_double_ph_magnetic.csv")
        if not os.path.exists(path):
            continue
        print("## Nsight Compute, %s: kernels of ring_compare double ph_magnetic at B = 1 (4 measurements), "
              "mean us each" % run)
        durations = tables_lib.ncu_kernel_durations(path)
        per_measurement = 0.0
        for name, us in durations.items():
            summary["ncu"].append({"run": run, "kernel": name, "launches": len(us), "us": round(statistics.mean(us), 1)})
            if len(us) == 4:
                per_measurement += statistics.mean(us)
            print("%-28s x%d %.1f" % (name, len(us), statistics.mean(us)))
        summary["ncu_per_measurement"].append({"run": run, "us": round(per_measurement, 1)})
        print("every measurement's kernels together: %.1f us\n" % per_measurement)


SETTLE_RUNS = ("3_settle_h100", "4_settle_h200")


def settle(summary):
    """3_settle_h100 (an H100) and, where it exists, 4_settle_h200: kernel_bandwidth in run56's order (double,
    mixed, float) with 47ef225's binary (teams) and with one that settles each array set's copy rate first
    (settle), alternately, and complex<float> alone with teams: the complex<float> pp_up_down case of each
    file, and per file how many of the 24 cases reach 0.85."""
    for run in SETTLE_RUNS:
        if not os.path.isdir(os.path.join(HERE, run)):
            continue
        print("## %s: complex<float> pp_up_down by binary and order (kernel ms, copy GB/s, ratio)" % run)
        for name, r in tables_lib.results(os.path.join(HERE, run), "kb_[fo]*.json"):
            binary = "settle" if "settle" in name else "teams"
            order = "alone" if "alone" in name else "double,mixed,float"
            record = {"run": run, "file": name, "binary": binary, "order": order, "nb": r["nb"],
                      "precision": r["precision"], "channel": r["channel"], "ms": round(1e3 * r["kernel_seconds"], 4),
                      "copy_GBps": round(r["copy_GBps"], 1), "ratio": round(r["ratio"], 4),
                      "settle_copies": r.get("settle_copies", 0)}
            summary["settle"].append(record)
            if (r["precision"], r["channel"]) == ("float", "pp_up_down"):
                print("%-24s nb=%d %-6s %.3f ms, copy %.1f, ratio %.3f%s" % (
                    name, r["nb"], binary, record["ms"], record["copy_GBps"], record["ratio"],
                    ", %d settling copies" % record["settle_copies"] if record["settle_copies"] else ""))
        by_file = tables_lib.grouped([r for r in summary["settle"] if r["run"] == run and r["order"] != "alone"],
                                     lambda r: r["file"], lambda r: "ratio", lambda r: r["ratio"])
        for name, columns in sorted(by_file.items()):
            ratios = columns["ratio"]
            record = dict(run=run, file=name, binary="settle" if "settle" in name else "teams",
                          **tables_lib.bandwidth_met(ratios))
            summary["settle_met"].append(record)
            print("%s: %d of %d cases >= %.2f, lowest %.3f" % (name, record["met"], record["cases"],
                                                              BANDWIDTH_TARGET, record["lowest"]))
        print()


def batch_sweep(summary):
    """4_settle_h200 where it exists: kernel_bandwidth at B = 32, double, nb = 1: every channel with its
    defaults, and ph_magnetic over team threads, inner-block chunks, frequency warps and row tiles, each
    configuration's time per message over the defaults' (below 1: faster), the ten fastest printed."""
    run = os.path.join(HERE, "4_settle_h200")
    if not os.path.isdir(run):
        return
    defaults = {r["channel"]: r for _, r in tables_lib.results(run, "kb_defaults_*.json")}
    if "ph_magnetic" not in defaults:
        return
    base = defaults["ph_magnetic"]
    print("## 4_settle_h200: B = 32, double, nb = 1 (ms per message, x floor = kernel over copy time)")
    for channel, r in defaults.items():
        summary["batch_defaults"].append({"channel": channel, "ms": round(1e3 * r["kernel_seconds"], 4),
                                          "of_floor": round(tables_lib.per_message(r), 4),
                                          "team": r["pass_team_threads"], "iblk": r["inner_block_chunks"],
                                          "fwarps": r["frequency_warps"], "rows": r["exchange_row_tile"]})
        print("defaults %-13s %.3f ms, %.3f x floor" % (channel, 1e3 * r["kernel_seconds"], tables_lib.per_message(r)))
    rows = []
    for _, r in tables_lib.results(run, "kb_sweep_*.json"):
        record = {"team": r["pass_team_threads"], "iblk": r["inner_block_chunks"], "fwarps": r["frequency_warps"],
                  "rows": r["exchange_row_tile"], "ms": round(1e3 * r["kernel_seconds"], 4),
                  "of_floor": round(tables_lib.per_message(r), 4),
                  "of_defaults": round(r["kernel_seconds"] / base["kernel_seconds"], 4)}
        summary["batch_sweep"].append(record)
        rows.append(record)
    for r in sorted(rows, key=lambda r: r["of_defaults"])[:10]:
        print("team %4d iblk %d fwarps %d rows %d: %.3f ms, %.3f x floor, %.3f of the defaults' time" % (
            r["team"], r["iblk"], r["fwarps"], r["rows"], r["ms"], r["of_floor"], r["of_defaults"]))
    print()


def run_length(summary):
    """5_rc_length_h100 (an H100): ring_compare at B = 1, double, with 192 and 768 measurements; per channel
    and length the time per measurement and its fraction of the floor over both rounds."""
    run = section("5_rc_length_h100", "ring_compare B = 1 double by run length (ms per measurement, x floor)")
    if run is None:
        return
    cases = collections.defaultdict(list)
    for path in sorted(glob.glob(os.path.join(run, "rc_m*.json"))):
        data = json.load(open(path))
        r = data["runs"][0]
        record = {"file": os.path.basename(path), "channel": r["channel"], "measurements": data["measurements"],
                  "ms": round(1e3 * r["seconds_per_measurement"], 4),
                  "fraction_of_floor": round(r["fraction_of_floor"], 4), "copy_GBps": round(r["copy_GBps"], 1)}
        summary["run_length"].append(record)
        cases[(record["channel"], record["measurements"])].append(record)
    for (channel, measurements), runs in sorted(cases.items()):
        print("%-13s %4d measurements: %s ms, %s x floor" % (
            channel, measurements, tables_lib.joined([r["ms"] for r in runs], "%.4f"),
            tables_lib.joined([r["fraction_of_floor"] for r in runs])))
    print()


def batch_direct_reads(summary):
    """6_batch_direct_h100 (an H100): kernel_bandwidth with batches of the ph channels, cross values read
    through G_sigma^T (as committed) or directly from the staged messages, by pair group; per case the
    time per message over both rounds and direct's median time over transposed's with the same pairs."""
    run = section("6_batch_direct_h100", "batches, cross values through G^T or direct (ms per message)")
    if run is None:
        return
    times = collections.defaultdict(list)
    for _, r in tables_lib.results(run, "kb_*.json"):
        times[(r["precision"], r["channel"], r["nb"], r["batch"], r["pair_warps"], r["transposed_reads"])].append(
            1e3 * r["kernel_seconds"])
    for key in sorted(k for k in times if k[-1]):
        precision, channel, nb, batch, pairs, _ = key
        through, direct = times[key], times[key[:-1] + (False,)]
        record = {"precision": precision, "channel": channel, "nb": nb, "batch": batch, "pair_warps": pairs,
                  "transposed_ms": [round(t, 4) for t in through], "direct_ms": [round(t, 4) for t in direct],
                  "direct_over_transposed": round(statistics.median(direct) / statistics.median(through), 3)}
        summary["batch_direct"].append(record)
        print("%-6s %-13s nb %d B %2d pairs %2d: G^T %s ms, direct %s ms, direct/G^T %.3f" % (
            precision, channel, nb, batch, pairs, tables_lib.joined(through), tables_lib.joined(direct),
            record["direct_over_transposed"]))
    print()


def batch_direct_nb2(summary):
    """7_batch_direct_nb2_h100 (an H100): ring_compare at nb = 2, B = 32, 47ef225 (teams, cross values through
    G_sigma^T) against the commit that reads them directly in batches at nb >= 2 (direct), alternately, two
    rounds; per case the time per measurement, x floor, the work space, and direct's median time over teams';
    then the GPU kernel suites and --verify-sample of direct."""
    run = section("7_batch_direct_nb2_h100", "ring_compare nb = 2, B = 32 (ms per measurement, x floor, work GB)")
    if run is None:
        return
    cases = collections.defaultdict(list)
    for fields, r in tables_lib.ring_compare_runs(run, "rc_*.json"):
        record = {"binary": fields["binary"].replace("_nb2", ""), "scalar": fields["scalar"],
                  "channel": fields["channel"], "round": fields["round"],
                  "ms": round(1e3 * r["seconds_per_measurement"], 4),
                  "fraction_of_floor": round(r["fraction_of_floor"], 4),
                  "work_GB": round(r["gt_work_bytes_per_rank"] / 1e9, 2)}
        summary["direct_nb2"].append(record)
        cases[(record["scalar"], record["channel"])].append(record)
    for (scalar, channel), runs in sorted(cases.items(), key=lambda kv: (
            tables_lib.PREC.index(kv[0][0]), tables_lib.CHANNELS.index(kv[0][1]))):
        by = {b: [r for r in runs if r["binary"] == b] for b in ("teams", "direct")}
        over = statistics.median(r["ms"] for r in by["direct"]) / statistics.median(r["ms"] for r in by["teams"])
        summary["direct_nb2_ratio"].append({"scalar": scalar, "channel": channel, "direct_over_teams": round(over, 3)})
        print("%-6s %-13s teams %s ms (%s x floor, %s GB), direct %s ms (%s x floor, %s GB), direct/teams %.3f" % (
            scalar, channel, tables_lib.joined([r["ms"] for r in by["teams"]], "%.4f"),
            tables_lib.joined([r["fraction_of_floor"] for r in by["teams"]]),
            tables_lib.joined([r["work_GB"] for r in by["teams"]], "%.2f"),
            tables_lib.joined([r["ms"] for r in by["direct"]], "%.4f"),
            tables_lib.joined([r["fraction_of_floor"] for r in by["direct"]]),
            tables_lib.joined([r["work_GB"] for r in by["direct"]], "%.2f"), over))
    suites_and_verify(summary, os.path.basename(run))
    for _, r in tables_lib.results(run, "kb_direct_defaults_*.json"):
        summary["direct_nb2_defaults"].append({"precision": r["precision"], "channel": r["channel"],
                                               "transposed_reads": r["transposed_reads"]})
    print("kernel_bandwidth defaults at nb = 2, B = 32: G^T %s" % sorted(
        {r["transposed_reads"] for r in summary["direct_nb2_defaults"]}))
    print()


def direct_nb2_neighbourhood(summary):
    """7_batch_direct_nb2_h100's kernel_bandwidth sweep (run_7b.sh.txt): with direct reads at nb = 2, B = 32,
    every setting of team threads, inner-block chunks and row tiles against the defaults, time over theirs
    (medians over both rounds)."""
    run = section("7_batch_direct_nb2_h100", "settings around the defaults with direct reads (nb = 2, B = 32)")
    if run is None:
        return
    def settings(r):  # (team threads, inner-block chunks, row tile) of a result
        return r["pass_team_threads"], r["inner_block_chunks"], r["exchange_row_tile"]

    times = collections.defaultdict(list)
    for _, r in tables_lib.results(run, "kb_nb2_sweep_*.json"):
        times[(r["precision"], r["channel"]) + settings(r)].append(r["kernel_seconds"])
    # The defaults as kb_direct_defaults_nb2.json (the same binary, nb = 2, B = 32) recorded them.
    chosen = {(r["precision"], r["channel"]): settings(r)
              for _, r in tables_lib.results(run, "kb_direct_defaults_nb2.json")}
    for precision, channel in sorted({key[:2] for key in times}):
        defaults = chosen[(precision, channel)]
        base = statistics.median(times[(precision, channel) + defaults])
        others = []
        for key, seconds in sorted(times.items()):
            if key[:2] != (precision, channel) or key[2:] == defaults:
                continue
            others.append(round(statistics.median(seconds) / base, 3))
            summary["direct_nb2_sweep"].append({"precision": precision, "channel": channel, "team": key[2],
                                                "iblk": key[3], "rows": key[4], "of_defaults": others[-1]})
        print("%-6s %-13s defaults (team, iblk, rows) %s: %.3f ms; the others %.3f-%.3f of that" % (
            precision, channel, defaults, 1e3 * base, min(others), max(others)))
    print()


def suites_and_verify(summary, run):
    """The GPU kernel suites' counts (tests_*.txt) and --verify-sample's largest errors (verify_*.json) in
    the folder `run`."""
    for path in sorted(glob.glob(os.path.join(HERE, run, "tests_*.txt"))):
        record = dict(tables_lib.gtest_counts(path, ("PASSED", "FAILED", "SKIPPED")), run=run,
                      file=os.path.basename(path))
        summary["tests"].append(record)
        print("%s/%s: %d passed, %d failed, %d skipped" % (run, record["file"], record["passed"], record["failed"],
                                                           record["skipped"]))
    for name, error in tables_lib.verify_errors(os.path.join(HERE, run), "verify_*.json").items():
        summary["verify"].append({"run": run, "file": name, "max_relative_error": error})
        print("%s/%s: largest relative error %.2e" % (run, name, error))


def checks(summary):
    """The GPU kernel suites and --verify-sample at B = 32 of the H200 runs."""
    print("## Checks")
    for run in RUNS:
        suites_and_verify(summary, run)
    print()


def cell(values, path, fmt="%.3f"):
    """A README cell: the values shown as one number or their range, annotated with their source."""
    low, high = fmt % min(values), fmt % max(values)
    shown = low if low == high else "%s–%s" % (low, high)
    return "**%s**<!-- h200_status/status_summary.json: %s -->" % (shown, path)


def readme_tables(summary):
    """README.md's tables, annotated (paste them; the docs checker compares every number with the summary)."""
    print("## README tables")
    print("| scalar | channel | B = 1: x floor | ms per measurement | B = 32: x floor | B = 64: x floor |")
    print("| --- | --- | --- | --- | --- | --- |")
    for scalar in ("double", "mixed", "float"):
        for channel in tables_lib.CHANNELS:
            cells = []
            for batch, field in ((1, "fraction_of_floor"), (1, "ms"), (32, "fraction_of_floor"), (64, "fraction_of_floor")):
                values = [r[field] for r in summary["ring_compare"]
                          if (r["batch"], r["scalar"], r["channel"]) == (batch, scalar, channel)]
                where = "ring_compare[batch=%d][scalar=%s][channel=%s].%s" % (batch, scalar, channel, field)
                cells.append(cell(values, where) if values else "–")
            if any(c != "–" for c in cells):
                print("| %s | %s | %s |" % (scalar, channel, " | ".join(cells)))
    print()
    print("| precision | nb = 1: " + " | ".join(tables_lib.CHANNELS) + " | nb = 2: " + " | ".join(tables_lib.CHANNELS) + " |")
    print("| --- |" + " --- |" * 8)
    for precision in ("double", "mixed", "float"):
        cells = []
        for nb in (1, 2):
            for channel in tables_lib.CHANNELS:
                values = [r["ratio"] for r in summary["kernel_bandwidth"]
                          if (r["nb"], r["precision"], r["channel"]) == (nb, precision, channel)]
                where = "kernel_bandwidth[nb=%d][precision=%s][channel=%s].ratio" % (nb, precision, channel)
                cells.append(cell(values, where) if values else "–")
        print("| %s | %s |" % (precision, " | ".join(cells)))
    print()


def main():
    tables_lib.summarize(HERE, "status_summary.json",
                         ("card", "ring_compare", "ring_compare_targets", "kernel_bandwidth", "kernel_bandwidth_met",
                          "ncu", "ncu_per_measurement", "tests", "verify", "settle", "settle_met", "batch_defaults", "batch_sweep", "run_length",
                          "batch_direct", "direct_nb2", "direct_nb2_ratio", "direct_nb2_defaults",
                          "direct_nb2_sweep"),
                         (card, ring_compare, kernel_bandwidth, ncu, settle, batch_sweep, run_length, batch_direct_reads, batch_direct_nb2,
                          direct_nb2_neighbourhood,
                          checks,
                          readme_tables))


if __name__ == "__main__":
    main()
