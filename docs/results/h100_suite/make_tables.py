#!/usr/bin/env python3
"""Prints the tables of README.md from 1_suite/, 2_rest/ and 3_ring_compare/ (scripts/gpu_suite.sh on one H100,
the tree built on the device) and writes suite_summary.json, which README.md cites (python3 make_tables.py)."""
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)

PARTS = ("1_suite", "2_rest", "3_ring_compare")
# "name: verdict in Ns" and "name: verdict" lines of a suite's summary.txt; indented lines are notes.
STEP = re.compile(r"^([a-z0-9_]+): (ok|FAILED \(status \d+\)|TIMEOUT|not run[^:]*|needs \d GPUs[^:]*)(?: in (\d+)s)?")


def steps(summary):
    """Every step of every part's summary.txt with its verdict ("not selected" left out)."""
    print("## Steps of scripts/gpu_suite.sh")
    for part in PARTS:
        for line in open(os.path.join(HERE, part, "summary.txt")):
            m = STEP.match(line)
            if not m:
                continue
            record = {"part": part, "step": m.group(1), "verdict": m.group(2).split(" (")[0],
                      "seconds": int(m.group(3)) if m.group(3) else None,
                      "expected_failure": "failed as expected" in line}
            summary["steps"].append(record)
            print("%-15s %-28s %-12s %s%s" % (part, record["step"], record["verdict"],
                                               "" if record["seconds"] is None else "%ds" % record["seconds"],
                                               ", failed as expected" if record["expected_failure"] else ""))
    print()


def tests(summary):
    """Passed, failed and skipped counts of every GoogleTest log."""
    print("## GoogleTest logs")
    for path in sorted(glob.glob(os.path.join(HERE, "*", "*.log"))):
        text = open(path).read()
        if "[==========]" not in text:
            continue
        record = dict(tables_lib.gtest_counts(path, ("PASSED", "FAILED", "SKIPPED")),
                      part=os.path.basename(os.path.dirname(path)), file=os.path.basename(path))
        summary["tests"].append(record)
        print("%-15s %-34s %3d passed, %d failed, %2d skipped" % (
            record["part"], record["file"], record["passed"], record["failed"], record["skipped"]))
    print()


def ring_compare(summary):
    """Every run of the ring_compare JSON files: time per measurement, × floor, errors."""
    print("## ring_compare at the paper size (B = the default batch)")
    for path in sorted(glob.glob(os.path.join(HERE, "*", "ring_compare*.json"))):
        for r in json.load(open(path))["runs"]:
            record = {"part": os.path.basename(os.path.dirname(path)), "file": os.path.basename(path),
                      "transport": r["transport"], "ranks": r["ranks"], "batch": r["gt_batch"],
                      "ms_per_measurement": round(1e3 * r["seconds_per_measurement"], 3),
                      "fraction_of_floor": round(r["fraction_of_floor"], 3), "linf_error": r["linf_error"],
                      "sample_max_relative_error": r["sample_max_relative_error"]}
            summary["ring_compare"].append(record)
            print("%-15s %-20s %-9s p=%d B=%d %9.3f ms %8.3f x floor, linf %s, sample %s" % (
                record["part"], record["file"], record["transport"], record["ranks"], record["batch"],
                record["ms_per_measurement"], record["fraction_of_floor"], record["linf_error"],
                record["sample_max_relative_error"]))
    print()


def kernel_bandwidth(summary):
    """The suite's kernel_bandwidth (its defaults: every channel x precision x nb, one message)."""
    print("## kernel_bandwidth, one message, ratio to the copy")
    for _, r in tables_lib.results(HERE, "1_suite/kernel_bandwidth.json"):
        record = {"nb": r["nb"], "precision": r["precision"], "channel": r["channel"], "ratio": round(r["ratio"], 3)}
        summary["kernel_bandwidth"].append(record)
        print("nb=%d %-6s %-13s %.3f" % (r["nb"], r["precision"], r["channel"], r["ratio"]))
    met = sum(r["ratio"] >= 0.85 for r in summary["kernel_bandwidth"])
    summary["kernel_bandwidth_met"].append({"met": met, "cases": len(summary["kernel_bandwidth"])})
    print("%d of %d at least 0.85" % (met, len(summary["kernel_bandwidth"])))
    print()


def main():
    tables_lib.summarize(HERE, "suite_summary.json",
                         ("steps", "tests", "ring_compare", "kernel_bandwidth", "kernel_bandwidth_met"),
                         (steps, tests, ring_compare, kernel_bandwidth))


if __name__ == "__main__":
    main()
