#!/usr/bin/env python3
"""Prints the table of README.md from the files of cpu/ and writes chunks_summary.json, which README.md
cites (python3 make_tables.py)."""
import json
import os
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


def main():
    cases = cpu_cases()
    rows = {(c["nb"], c["precision"], c["channel"], c["batch"]):
            {"old ms (rounds)": c["old_ms"], "new ms (rounds)": c["new_ms"], "new / old (medians)": [c["new_over_old"]]}
            for c in cases}
    print_table("CPU (Kokkos Serial), kernel time per message, old = babcadc, new = one factor pass in chunks",
                ("nb", "precision", "channel", "batch"), ("old ms (rounds)", "new ms (rounds)", "new / old (medians)"),
                rows, fmt="%.2f")
    with open(os.path.join(HERE, "chunks_summary.json"), "w") as f:
        json.dump({"cpu": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
