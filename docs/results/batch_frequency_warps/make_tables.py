#!/usr/bin/env python3
"""Prints the tables of README.md from h200/ and writes warps_summary.json, which README.md cites
(python3 make_tables.py)."""
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)
from tables_lib import print_table  # noqa: E402


def kernel_bandwidth():
    """One record per (nb, channel, batch): each binary's kernel time per message in its three rounds, its
    frequency warps, fw2's mean over base's, and fw2's time per message over the copy's."""
    by_case = tables_lib.grouped(
        (dict(r, binary=name.split("_")[1]) for name, r in tables_lib.results(HERE, "h200/kb_*.json")),
        key=lambda r: (r["nb"], r["precision"], r["channel"], r["batch"]), column=lambda r: r["binary"],
        value=lambda r: r)
    out = []
    for (nb, precision, channel, batch), by in sorted(by_case.items(), key=lambda kv: tables_lib.order(kv[0])):
        base = [1e3 * r["kernel_seconds"] for r in by["base"]]
        fw2 = [1e3 * r["kernel_seconds"] for r in by["fw2"]]
        out.append({"nb": nb, "precision": precision, "channel": channel, "batch": batch, "base_ms": base,
                    "fw2_ms": fw2, "base_warps": by["base"][0]["frequency_warps"],
                    "fw2_warps": by["fw2"][0]["frequency_warps"],
                    "fw2_over_base": statistics.mean(fw2) / statistics.mean(base),
                    "base_per_message": statistics.mean(tables_lib.per_message(r) for r in by["base"])})
    return out


def ring_compare():
    """Every h200/rc_<binary>_B<batch>_<scalar>_<channel>_<round>.json: time per measurement over the floor."""
    return [dict(fields, fraction_of_floor=run["fraction_of_floor"])
            for fields, run in tables_lib.ring_compare_runs(HERE, "h200/rc_*.json")]


def main():
    kb, rc = kernel_bandwidth(), ring_compare()
    checks = tables_lib.verify_errors(HERE, "h200/verify_*.json")
    rows = {(c["nb"], c["precision"], c["channel"], c["batch"]):
            {"base ms": c["base_ms"], "fw2 ms": c["fw2_ms"], "fw2 / base": [c["fw2_over_base"]]} for c in kb}
    print_table("kernel_bandwidth, kernel time per message (three rounds), base 1 frequency warp, fw2 2",
                ("nb", "precision", "channel", "batch"), ("base ms", "fw2 ms", "fw2 / base"), rows)
    rows = tables_lib.grouped(rc, key=lambda r: (r["scalar"], r["channel"], r["batch"]), column=lambda r: r["binary"],
                              value=lambda r: r["fraction_of_floor"])
    print_table("ring_compare, paper size, x floor (two rounds)", ("scalar", "channel", "B"), ("base", "fw2"), rows,
                sort=lambda k: k)
    print(checks)
    with open(os.path.join(HERE, "warps_summary.json"), "w") as f:
        json.dump({"kernel_bandwidth": kb, "ring_compare": rc, "checks": checks}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
