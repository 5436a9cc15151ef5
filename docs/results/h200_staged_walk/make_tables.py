#!/usr/bin/env python3
"""Prints the tables of README.md from the files of this folder: python3 make_tables.py"""
import collections
import glob
import json
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
ENTRIES = 212336640  # paper size, nb = 1 (the profiles ran nb = 1 only)


def kernel_bandwidth(folder):
    """(nb, precision, channel) -> {(team, walk_stages): [ratio, ...]} from kb_t<team>_<round>.json."""
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in sorted(glob.glob(os.path.join(HERE, folder, "kb_t*_*.json"))):
        team = re.search(r"kb_t(\d+)_", path).group(1)
        for r in json.load(open(path))["results"]:
            stages = r.get("walk_stages", "-")  # absent where the walk in order does not run
            rows[(r["nb"], r["precision"], r["channel"])][(team, stages)].append(r["ratio"])
    return rows


def span(values):
    if not values:
        return "-"
    lo, hi = "%.3f" % min(values), "%.3f" % max(values)
    return lo if lo == hi else lo + "–" + hi


def ncu(path):
    metrics = {}
    for line in open(path):
        parts = line.split()
        if len(parts) >= 3 and "__" in parts[0]:
            metrics[parts[0]] = parts[-1].replace(",", "")
            if parts[0] == "gpu__time_duration.sum":
                metrics[parts[0]] += " " + parts[-2]  # its unit: us or ms
    return metrics


def main():
    rows = kernel_bandwidth("2_measured")
    columns = [("256", 0), ("256", 2), ("256", 4), ("256", 8), ("128", 0), ("128", 4)]
    print("kernel_bandwidth ratio, 2_measured (two runs each; team = threads per block of the staged walk)")
    print("| nb | precision | channel | " + " | ".join("stages %d (team %s)" % (s, t) for t, s in columns) + " |")
    print("|" + " --- |" * (3 + len(columns)))
    for key in sorted(rows):
        cells = rows[key]
        if ("256", 0) not in cells:  # the diagonal walk runs here: stages do not apply
            continue
        print("| %d | %s | %s | " % key + " | ".join(span(cells.get(c, [])) for c in columns) + " |")
    print()
    print("ring_compare, one rank, paper size, B = 1, ms per measurement (fraction of the floor), 2_measured")
    print("| precision | channel | stages 0 | stages 4 |")
    print("| --- | --- | --- | --- |")
    for precision in ("double", "mixed"):
        for channel in ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge"):
            cells = []
            for stages in (0, 4):
                run = json.load(open(os.path.join(HERE, "2_measured", "rc_s%d_%s_%s.json" % (stages, precision, channel))))["runs"][0]
                cells.append("%.3f (%.3f)" % (run["seconds_per_measurement"] * 1e3, run["fraction_of_floor"]))
            print("| %s | %s | %s |" % (precision, channel, " | ".join(cells)))
    print()
    print("Nsight Compute, nb = 1 (instructions per entry = sm__inst_executed.sum x 32 / entries)")
    print("| file | kernel time | registers | warps active % | issue active % | DRAM % | L2 sectors % | instructions per entry |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in sorted(glob.glob(os.path.join(HERE, "*", "ncu_*.txt"))):
        m = ncu(path)
        per_entry = float(m["sm__inst_executed.sum"]) * 32 / ENTRIES
        print("| %s | %s | %s | %s | %s | %s | %s | %.1f |" % (
            os.path.relpath(path, HERE), m["gpu__time_duration.sum"], m["launch__registers_per_thread"],
            m["sm__warps_active.avg.pct_of_peak_sustained_active"], m["smsp__issue_active.avg.pct_of_peak_sustained_active"],
            m["dram__throughput.avg.pct_of_peak_sustained_elapsed"], m["lts__t_sectors.avg.pct_of_peak_sustained_elapsed"],
            per_entry))


def prefetch_distance():
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in sorted(glob.glob(os.path.join(HERE, "3_prefetch_distance", "kb_p*_*.json"))):
        mode = os.path.basename(path)[3:5]
        for r in json.load(open(path))["results"]:
            if r["kernel"] == "single":  # the walk in order: the only kernel the setting changes
                rows[(r["nb"], r["precision"], r["channel"])][mode].append(r["ratio"])
    print("kernel_bandwidth ratio, 3_prefetch_distance (two runs each), walk in order only")
    print("| nb | precision | channel | committed (p0) | no G_t prefetch (p1) | one row further (p2) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for key in sorted(rows):
        print("| %d | %s | %s | " % key + " | ".join(span(rows[key][m]) for m in ("p0", "p1", "p2")) + " |")


if __name__ == "__main__":
    main()
    print()
    prefetch_distance()
