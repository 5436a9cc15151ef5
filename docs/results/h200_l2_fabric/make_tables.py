#!/usr/bin/env python3
"""Prints the tables of README.md from the files of this folder and writes ncu_summary.json (every
Nsight Compute file's metrics, which docs/results.md cites): python3 make_tables.py"""
import collections
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)

ENTRIES = 212336640  # paper size, nb = 1 (the profiles ran nb = 1 only)


def ratios(folder, pattern, name_of):
    """(nb, precision, channel) -> {variant: [ratio, ...]} from the kernel_bandwidth JSON files of a folder;
    name_of(file name, result) gives a result's variant."""
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for path in sorted(glob.glob(os.path.join(HERE, folder, pattern))):
        for r in json.load(open(path))["results"]:
            rows[(r["nb"], r["precision"], r["channel"])][name_of(os.path.basename(path), r)].append(r["ratio"])
    return rows


def variant_of_file(name, _):
    """kb_<variant>_<round>.json -> <variant>"""
    return re.match(r"kb_(.+)_\d+\.json", name).group(1)


def span(values):
    if not values:
        return "-"
    lo, hi = "%.3f" % min(values), "%.3f" % max(values)
    return lo if lo == hi else lo + "–" + hi


def table(title, rows, columns):
    print(title)
    print("| nb | precision | channel | " + " | ".join(label for _, label in columns) + " |")
    print("|" + " --- |" * (3 + len(columns)))
    for key in sorted(rows):
        print("| %d | %s | %s | " % key + " | ".join(span(rows[key].get(c, [])) for c, _ in columns) + " |")
    print()


def ncu(path):
    """The metrics of one Nsight Compute file (--metrics output: name, unit, value)."""
    metrics = {}
    for name, (unit, value) in tables_lib.ncu_metrics(path).items():
        if name == "gpu__time_duration.sum" and unit == "us":
            value /= 1000  # always ms
        if name.startswith("dram__bytes") and unit == "Mbyte":
            value /= 1000  # always GB
        metrics[name] = value
    return metrics


def main():
    table("1_survey: kernel_bandwidth ratio, walk in order (1 step) against the diagonal walk (2, 4 steps) and "
          "the walk with two L2 prefetches a row (p3); two runs each",
          ratios("1_survey", "kb_*_[12].json",
                 lambda name, r: "p3" if name.startswith("kb_p3") else "s%d" % r["frequency_steps"]),
          [("s1", "1 step"), ("s2", "2 steps"), ("s4", "4 steps"), ("p3", "two prefetches")])

    print("L2 set-aside for persisting accesses (RINGCOMM_GT_L2_SET_ASIDE_MIB=0, kernel_bandwidth --l2-persisting MIB,"
          " nb = 1): kernel ms / copy ms, in the order run")
    # kb_aside<MiB>_<seconds since the script began>.json: ordered by folder, then by when it ran
    runs = sorted(glob.glob(os.path.join(HERE, "[12]_*", "kb_aside*.json")),
                  key=lambda p: (os.path.dirname(p), int(re.search(r"_(\d+)\.json", p).group(1))))
    header = None
    for path in runs:
        j = json.load(open(path))
        if header is None:
            header = ["%s %s" % (r["precision"], r["channel"]) for r in j["results"]]
            print("| folder | set-aside MiB | " + " | ".join(header) + " |")
            print("|" + " --- |" * (2 + len(header)))
        print("| %s | %.2f | " % (os.path.basename(os.path.dirname(path)), j["l2_persisting_bytes"] / 2**20) +
              " | ".join("%.3f / %.3f" % (r["kernel_seconds"] * 1e3, r["copy_seconds"] * 1e3) for r in j["results"]) +
              " |")
    print()

    table("2_fabric: the walk's G_t prefetch: into L2 (p0, committed), into L1 at the same distance (p4), one (p5) "
          "and two rows further (p6), none (p1); two runs each",
          ratios("2_fabric", "kb_p*_[12].json", variant_of_file),
          [("p0", "L2 (committed)"), ("p4", "L1"), ("p5", "L1 +1"), ("p6", "L1 +2"), ("p1", "none")])

    table("3_tma_walk: the walk in order (p0) against G_t rows copied 2, 4 or 8 rows ahead by the TMA (p12, p14, "
          "p18; p24: 4 and the L2 prefetch; p14t128: 4, teams of 128); two runs each but p14t128",
          ratios("3_tma_walk", "kb_p*_[12].json", variant_of_file),
          [("p0", "walk"), ("p12", "TMA 2"), ("p14", "TMA 4"), ("p18", "TMA 8"), ("p24", "TMA 4 + L2 prefetch"),
           ("p14t128", "TMA 4, teams of 128")])

    table("4_tma_walk_factors_first: the same with the bubble factors loaded before the wait (p14, p18) and stages "
          "of two rows (p42: 2 stages, p44: 4); two runs each",
          ratios("4_tma_walk_factors_first", "kb_p*_[12].json", variant_of_file),
          [("p0", "walk"), ("p14", "TMA 4"), ("p18", "TMA 8"), ("p42", "TMA 2 × 2 rows"), ("p44", "TMA 4 × 2 rows")])

    summary = []
    print("Nsight Compute (--clock-control none, nb = 1, one launch; instructions per entry = warp instructions × 32"
          " / entries; the probe's copy moves the same bytes as a complex<double> G_t)")
    print("| file | ms | L2 fabric busy % | fabric sectors (M) | sectors from L1 (M) | instructions per entry "
          "| issue active % | warps active % | DRAM read GB |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for path in sorted(glob.glob(os.path.join(HERE, "*", "ncu_*.txt"))):
        m = ncu(path)
        if "lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed" not in m:
            continue
        name = os.path.relpath(path, HERE)
        row = {
            "file": name,
            "ms": m.get("gpu__time_duration.sum"),
            "fabric_busy_pct": m["lts__ltcfabric2ltc_cycles_active.avg.pct_of_peak_sustained_elapsed"],
            "fabric_sectors": m.get("lts__t_sectors_srcunit_ltcfabric.sum"),
            "l1_sectors": m.get("lts__t_sectors_srcunit_tex.sum"),
            "instructions_per_entry": m["smsp__inst_executed.sum"] * 32 / ENTRIES if "smsp__inst_executed.sum" in m else None,
            "issue_active_pct": m.get("smsp__issue_active.avg.pct_of_peak_sustained_active"),
            "warps_active_pct": m.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
            "dram_read_GB": m.get("dram__bytes_read.sum"),
            "l2_sectors_pct": m.get("lts__t_sectors.avg.pct_of_peak_sustained_elapsed"),
        }
        summary.append(row)
        cell = lambda v, f: "-" if v is None else f % v
        print("| %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            name, cell(row["ms"], "%.3f"), cell(row["fabric_busy_pct"], "%.1f"),
            cell(row["fabric_sectors"] and row["fabric_sectors"] / 1e6, "%.1f"),
            cell(row["l1_sectors"] and row["l1_sectors"] / 1e6, "%.1f"),
            "-" if "probe" in name else cell(row["instructions_per_entry"], "%.1f"),
            cell(row["issue_active_pct"], "%.1f"), cell(row["warps_active_pct"], "%.1f"),
            cell(row["dram_read_GB"], "%.2f")))
    with open(os.path.join(HERE, "ncu_summary.json"), "w") as out:
        json.dump({"command": "python3 docs/results/h200_l2_fabric/make_tables.py", "profiles": summary}, out, indent=1,
                  sort_keys=True)


if __name__ == "__main__":
    main()
