#!/usr/bin/env python3
"""Prints the tables of README.md from h200/ and writes sizes_summary.json, which README.md cites
(python3 make_tables.py)."""
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

# The device script named its ring_compare files rc_B<batch>_<scalar>_<channel>_<round>.json (one binary).
NAME = re.compile(r"rc_B(\d+)_(%s)_(%s)_(\d+)\.json" % ("|".join(tables_lib.PREC), "|".join(tables_lib.CHANNELS)))


def ring_compare():
    """One record per ring_compare run: batch, scalar, channel, round, x floor, ms per measurement and the
    batch's work space per rank (GiB)."""
    out = []
    for f in sorted(glob.glob(os.path.join(HERE, "h200/rc_B*.json"))):
        batch, scalar, channel, rnd = NAME.fullmatch(os.path.basename(f)).groups()
        run = json.load(open(f))["runs"][0]
        out.append({"batch": int(batch), "scalar": scalar, "channel": channel, "round": int(rnd),
                    "fraction_of_floor": run["fraction_of_floor"],
                    "ms_per_measurement": 1e3 * run["seconds_per_measurement"],
                    "work_GiB": run["gt_work_bytes_per_rank"] / 2**30})
    return out


def per_case(rc):
    """Per (scalar, channel, batch): the mean x floor of the rounds, their largest, and the work space."""
    cases = tables_lib.grouped(rc, key=lambda r: (r["scalar"], r["channel"], r["batch"]), column=lambda r: 0,
                               value=lambda r: r)
    return [{"scalar": s, "channel": c, "batch": b,
             "mean_fraction": statistics.mean(r["fraction_of_floor"] for r in v[0]),
             "max_fraction": max(r["fraction_of_floor"] for r in v[0]), "work_GiB": v[0][0]["work_GiB"]}
            for (s, c, b), v in sorted(cases.items())]


def steps_sweep():
    """kernel_bandwidth at B = 32: every shape of kb_steps_* and the defaults of kb_defaults_*, per round."""
    out = []
    for name, r in tables_lib.results(HERE, "h200/kb_*.json"):
        out.append({"file": name, "set": "defaults" if "defaults" in name else "steps", "round": int(name[-6]),
                    "precision": r["precision"], "channel": r["channel"], "rows": r["exchange_row_tile"],
                    "steps": r["frequency_steps"], "fwarps": r["frequency_warps"],
                    "ms_per_message": 1e3 * r["kernel_seconds"]})
    return out


def main():
    rc, sweep = ring_compare(), steps_sweep()
    cases = per_case(rc)
    rows = tables_lib.grouped(rc, key=lambda r: (r["scalar"], r["channel"]), column=lambda r: r["batch"],
                              value=lambda r: r["fraction_of_floor"])
    print_table("ring_compare, paper size, x floor (two rounds)", ("scalar", "channel"), (32, 48, 64), rows,
                sort=lambda k: (k[0], tables_lib.CHANNELS.index(k[1])), labels=("B = 32", "B = 48", "B = 64"))
    rows = tables_lib.grouped(cases, key=lambda c: (c["scalar"], c["channel"]), column=lambda c: c["batch"],
                              value=lambda c: c["work_GiB"])
    print_table("work space per rank (GiB)", ("scalar", "channel"), (32, 48, 64), rows,
                sort=lambda k: (k[0], tables_lib.CHANNELS.index(k[1])), fmt="%.2f", labels=("B = 32", "B = 48", "B = 64"))
    rows = tables_lib.grouped(sweep, key=lambda r: (r["precision"], r["channel"], r["rows"], r["steps"], r["fwarps"]),
                              column=lambda r: r["round"], value=lambda r: r["ms_per_message"])
    print_table("kernel_bandwidth B = 32, nb = 1: kernel ms per message", ("precision", "channel", "rows", "steps",
                "fwarps"), (1, 2), rows, sort=lambda k: (k[0], tables_lib.CHANNELS.index(k[1])) + k[2:],
                labels=("round 1", "round 2"))
    checks = tables_lib.verify_errors(HERE, "h200/verify_*.json")
    print(checks)
    with open(os.path.join(HERE, "sizes_summary.json"), "w") as f:
        json.dump({"ring_compare": rc, "cases": cases, "kernel_bandwidth": sweep, "checks": checks}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
