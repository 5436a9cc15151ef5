#!/usr/bin/env python3
"""Prints the tables of README.md from the files of cpu/ and h200/ and writes chunks_summary.json, which
README.md cites (python3 make_tables.py)."""
import glob
import json
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)
from tables_lib import print_table  # noqa: E402


def cpu_cases():
    """One record per (nb, precision, channel, batch): the kernel time per message of every round of the
    code before (old) and after (new), the ratio of their medians, and the larger of the two binaries'
    spreads between rounds (largest over smallest, less 1)."""
    times = tables_lib.grouped(
        (dict(r, binary=name.split("_")[1]) for name, r in tables_lib.results(HERE, "cpu/kb_*.json")),
        key=lambda r: tables_lib.case(r) + (r["batch"],), column=lambda r: r["binary"],
        value=lambda r: 1e3 * r["kernel_seconds"])
    out = []
    for (nb, precision, channel, batch), by in sorted(times.items(), key=lambda kv: tables_lib.order(kv[0])):
        old, new = statistics.median(by["old"]), statistics.median(by["new"])
        out.append({"nb": nb, "precision": precision, "channel": channel, "batch": batch,
                    "old_ms": by["old"], "new_ms": by["new"], "old_median_ms": old, "new_median_ms": new,
                    "new_over_old": new / old,
                    "round_spread": max(max(v) / min(v) - 1 for v in (by["old"], by["new"]))})
    return out


def h200_kernel_bandwidth():
    """One record per (nb, precision, channel, batch) of h200/kb_*.json: the kernel time per message of both
    rounds of final (aa42c75) and chunks (ce92630), chunks over final (means), and chunks' time per message
    over the copy's (the mean of its rounds)."""
    times = tables_lib.grouped(
        (dict(r, binary=name.split("_")[1]) for name, r in tables_lib.results(HERE, "h200/kb_*.json")),
        key=lambda r: tables_lib.case(r) + (r["batch"],), column=lambda r: r["binary"], value=lambda r: r)
    out = []
    for (nb, precision, channel, batch), by in sorted(times.items(), key=lambda kv: tables_lib.order(kv[0])):
        final = [1e3 * r["kernel_seconds"] for r in by["final"]]
        chunks = [1e3 * r["kernel_seconds"] for r in by["chunks"]]
        out.append({"nb": nb, "precision": precision, "channel": channel, "batch": batch, "final_ms": final,
                    "chunks_ms": chunks, "chunks_over_final": statistics.mean(chunks) / statistics.mean(final),
                    "chunks_per_message": statistics.mean(tables_lib.per_message(r) for r in by["chunks"])})
    return out


def h200_ring_compare():
    """One record per h200/rc_<binary>_B<batch>_<scalar>_<channel>.json: its time per measurement over the
    floor, in ms, and the work space of the batch."""
    return [dict(fields, fraction_of_floor=run["fraction_of_floor"], ms=1e3 * run["seconds_per_measurement"],
                 work_gb=1e-9 * run["gt_work_bytes_per_rank"])
            for fields, run in tables_lib.ring_compare_runs(HERE, "h200/rc_*.json")]


def h200_factor_pass():
    """Nsight Compute's launches of FactorProductKernel at B = 32 (h200/details_<binary>_*.txt, two each):
    their durations, and the binary's time for one batch (final: both launches, chunks: one)."""
    out = []
    for binary in ("final", "chunks"):
        path = os.path.join(HERE, "h200/details_%s_b32_double_ph_magnetic.txt" % binary)
        durations = [float(m.group(1)) for m in re.finditer(r"^\s{4}Duration\s+ms\s+([\d.]+)", open(path).read(), re.M)]
        out.append({"binary": binary, "launch_ms": durations,
                    "batch_ms": sum(durations) if binary == "final" else durations[0]})
    return out


def h200_checks():
    """The GPU kernel suites' passed counts and --verify-sample's largest relative error."""
    out = {os.path.basename(f)[:-4]: tables_lib.gtest_counts(f)["passed"]
           for f in sorted(glob.glob(os.path.join(HERE, "h200/tests_chunks_*.txt")))}
    out.update(tables_lib.verify_errors(HERE, "h200/verify_*.json"))
    return out


def main():
    kb, rc, factor, checks = h200_kernel_bandwidth(), h200_ring_compare(), h200_factor_pass(), h200_checks()
    rows = {(c["nb"], c["precision"], c["channel"], c["batch"]):
            {"final ms": c["final_ms"], "chunks ms": c["chunks_ms"], "chunks / final": [c["chunks_over_final"]],
             "chunks x copy": [c["chunks_per_message"]]} for c in kb}
    print_table("H200 kernel_bandwidth, kernel time per message (two rounds), final = aa42c75, chunks = ce92630",
                ("nb", "precision", "channel", "batch"), ("final ms", "chunks ms", "chunks / final", "chunks x copy"),
                rows)
    rows = {(r["scalar"], r["channel"], r["batch"]): {} for r in rc}
    for r in rc:
        rows[(r["scalar"], r["channel"], r["batch"])][r["binary"]] = [r["fraction_of_floor"]]
    print_table("H200 ring_compare, paper size, x floor", ("scalar", "channel", "batch"), ("final", "chunks"), rows,
                sort=lambda k: k)
    for f in factor:
        print("factor pass at B = 32, %s: launches %s ms, a batch %.2f ms" % (f["binary"], f["launch_ms"], f["batch_ms"]))
    print(checks)
    cases = cpu_cases()
    rows = {(c["nb"], c["precision"], c["channel"], c["batch"]):
            {"old ms (rounds)": c["old_ms"], "new ms (rounds)": c["new_ms"], "new / old (medians)": [c["new_over_old"]]}
            for c in cases}
    print_table("CPU (Kokkos Serial), kernel time per message, old = babcadc, new = one factor pass in chunks",
                ("nb", "precision", "channel", "batch"), ("old ms (rounds)", "new ms (rounds)", "new / old (medians)"),
                rows, fmt="%.2f")
    with open(os.path.join(HERE, "chunks_summary.json"), "w") as f:
        json.dump({"cpu": cases, "h200_kernel_bandwidth": kb, "h200_ring_compare": rc, "h200_factor_pass": factor,
                   "h200_checks": checks}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
