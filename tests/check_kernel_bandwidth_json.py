#!/usr/bin/env python3
"""Checks what bench/kernel_bandwidth wrote (the program_kernel_bandwidth test): one result per case asked
for (nb x precision x channel x batch), each with its times, rates and ratio finite and positive, a
ratio that is its kernel rate over its copy rate, a verdict that follows the target, and a copy rate
settled on its arrays before the first case (settle_copy_rate: at least three copies). How fast anything
ran is not judged: a loaded test machine must not fail it.

  check_kernel_bandwidth_json.py <kb.json> --nb 1,2 --precision double,mixed,float --channel all --batch 1,2
"""
import argparse
import itertools
import json
import math
import sys

CHANNELS = ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge")
POSITIVE = ("kernel_seconds", "copy_seconds", "kernel_GBps", "copy_GBps", "ratio", "kernel_bytes", "copy_bytes")


def problems_of(data, wanted):
    """Every way `data` falls short of one good result per case of `wanted`."""
    problems = []
    seen = {}
    for i, r in enumerate(data.get("results", [])):
        case = (r.get("nb"), r.get("precision"), r.get("channel"), r.get("batch"))
        seen[case] = seen.get(case, 0) + 1
        for field in POSITIVE:
            value = r.get(field)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value <= 0:
                problems.append("results[%d] %s: %s is %r, not a positive number" % (i, case, field, value))
        if all(isinstance(r.get(f), (int, float)) and r.get(f) for f in ("kernel_GBps", "copy_GBps", "ratio")):
            if not math.isclose(r["ratio"], r["kernel_GBps"] / r["copy_GBps"], rel_tol=1e-9):
                problems.append("results[%d] %s: ratio %r is not kernel_GBps / copy_GBps" % (i, case, r["ratio"]))
            if r.get("met") is not (r["ratio"] >= r.get("target", float("nan"))):
                problems.append("results[%d] %s: met is %r for ratio %r against target %r"
                                % (i, case, r.get("met"), r["ratio"], r.get("target")))
        settled = r.get("settle_copies")
        if not isinstance(settled, int) or isinstance(settled, bool) or settled < 3:
            problems.append("results[%d] %s: settle_copies is %r, expected at least 3" % (i, case, settled))
    for case in wanted:
        if case not in seen:
            problems.append("no result for nb=%s %s %s batch=%s" % case)
    for case, count in seen.items():
        if case not in wanted:
            problems.append("a result for a case not asked for: %s" % (case,))
        elif count != 1:
            problems.append("%d results for %s, expected 1 (no variant lists were given)" % (count, case))
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json")
    parser.add_argument("--nb", required=True)
    parser.add_argument("--precision", required=True)
    parser.add_argument("--channel", required=True)
    parser.add_argument("--batch", required=True)
    args = parser.parse_args()
    channels = CHANNELS if args.channel == "all" else args.channel.split(",")
    wanted = set(itertools.product([int(x) for x in args.nb.split(",")], args.precision.split(","), channels,
                                   [int(x) for x in args.batch.split(",")]))
    with open(args.json) as f:
        data = json.load(f)
    problems = problems_of(data, wanted)
    for p in problems:
        print("- " + p)
    if problems:
        return 1
    print("%d results, one per case asked for, each complete" % len(data["results"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
