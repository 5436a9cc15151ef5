#!/usr/bin/env python3
"""Prints the tables of README.md and writes orbit_summary.json, which README.md cites (python3
make_tables.py), from 0_default_clocks/ (run_0.sh.txt), 1_bank_conflicts/ (run_1.sh.txt), 2_timing/ (run_2.sh.txt),
3_same_clocks/ (run_3.sh.txt), 4_halves/ (run_4.sh.txt) and 5_profile/ (run_5.sh.txt), runs on an H100."""
import csv
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)

# orbit_kernel<Msg, kOmegas, kStages, kPaired, kRowsFast, kUnwrapped> -> the probe's variant name
VARIANTS = {(4, 0, 0, 0): "orbits_4", (2, 0, 0, 0): "orbits_2", (4, 0, 1, 0): "rows_4", (2, 0, 1, 0): "rows_2", (4, 0, 1, 1): "unwrapped_4",
            (2, 0, 1, 1): "unwrapped_2", (4, 1, 0, 0): "paired_4"}
ORDER = ["library", "direct"] + list(VARIANTS.values()) + ["halves_4", "halves_2"]
PRECISION = {"double": "double", "float": "mixed"}  # message type -> the probe's name for the case


def kernel_case(name):
    """(precision, variant) of a kernel name in an Nsight Compute print, None for other kernels; the two launches
    of a halves variant are (precision, "halves_N:0") and (precision, "halves_N:1")."""
    # The fourth form (1_bank_conflicts) had no kUnwrapped argument, forms before 4_halves no kHalf: 0 and -1.
    m = re.search(r"orbit_kernel<.*?ProbeComplex<(double|float)>, (\d+), (\d+), (\d), (\d)(?:, (\d))?"
                  r"(?:, (?:\(int\))?(-?\d))?>", name)
    if m:
        omegas, half = int(m.group(2)), int(m.group(7) or -1)
        if half >= 0:
            return PRECISION[m.group(1)], "halves_%d:%d" % (omegas, half)
        return PRECISION[m.group(1)], VARIANTS[(omegas, int(m.group(4)), int(m.group(5)), int(m.group(6) or 0))]
    m = re.search(r"direct_kernel<.*?ProbeComplex<(double|float)>", name)
    if m:
        return PRECISION[m.group(1)], "direct"
    m = re.search(r"ChannelKernel<(?:Kokkos::)?complex<double>, (?:Kokkos::)?complex<(double|float)>", name)
    if m:
        return PRECISION[m.group(1)], "library"
    return None


def ncu_durations(path):
    """{(precision, variant): [ms, ...]} of an `ncu --csv --metrics gpu__time_duration.sum` print; a halves
    variant's two launches of each call are added."""
    out = {}
    rows = [r for r in csv.reader(line for line in open(path) if line.startswith('"'))]
    name, value = rows[0].index("Kernel Name"), rows[0].index("Metric Value")
    for r in rows[1:]:
        key = kernel_case(r[name])
        if key:
            out.setdefault(key, []).append(float(r[value].replace(",", "")) / 1e6)
    for precision, variant in [k for k in out if ":" in k[1]]:
        if variant.endswith(":0"):
            whole = variant[:-2]
            out[(precision, whole)] = [a + b for a, b in zip(out[(precision, variant)], out[(precision, whole + ":1")])]
    return {k: v for k, v in out.items() if ":" not in k[1]}


def timing(summary):
    """2_timing: CUDA-event medians of the probe (5 repetitions, two rounds), ms a B = 32 batch."""
    cells = {}
    for path in sorted(glob.glob(os.path.join(HERE, "2_timing", "orbit_B32_*.json"))):
        round_ = int(re.search(r"_(\d)\.json", path).group(1))
        for r in json.load(open(path))["results"]:
            summary["agreement"].append({"precision": r["precision"], "round": round_,
                                         "relative_difference": r["relative_difference"]})
            for variant in [v for v in ORDER[1:] if v + "_ms" in r]:  # the final probe has no orbits_2
                ms = r[variant + "_ms"]
                record = {"precision": r["precision"], "variant": variant, "round": round_, "ms": ms,
                          "over_direct": ms / r["direct_ms"], "copy_ms": r["copy_ms"]}
                summary["timing"].append(record)
                cells.setdefault((r["precision"], ORDER.index(variant), variant), {}).setdefault("ms", []).append(ms)
    tables_lib.print_table("2_timing: probe kernels, ms a B = 32 batch (CUDA events, rounds)",
                           ("precision", "#", "variant"), ("ms",), cells, sort=lambda k: k)


def same_clocks(summary):
    """3_same_clocks (88bf9be's probe) and 4_halves (the probe with halves): Nsight Compute durations at the
    card's own clocks (--clock-control none), the library's exchange pass and the probe's kernels in one call."""
    for run in ("3_same_clocks", "4_halves"):
        durations = ncu_durations(os.path.join(HERE, run, "ncu_library_exchange.csv"))
        durations.update(ncu_durations(os.path.join(HERE, run, "ncu_probe.csv")))
        cells = {}
        for (precision, variant), values in durations.items():
            library = durations[(precision, "library")]
            mean = sum(library) / len(library)
            for launch, ms in enumerate(values):
                summary["same_clocks"].append({"run": run, "precision": precision, "variant": variant, "launch": launch,
                                               "ms": ms, "over_library": ms / mean})
            cells[(precision, ORDER.index(variant), variant)] = {"ms": values, "over_library": [v / mean for v in values]}
        tables_lib.print_table(run + ": ms a B = 32 batch (Nsight Compute, --clock-control none, launches)",
                               ("precision", "#", "variant"), ("ms", "over_library"), cells, sort=lambda k: k,
                               labels=("ms", "over the library's pass (its mean)"))


def default_clocks(summary):
    """0_default_clocks: the library's exchange pass under Nsight Compute's default clock control (base clocks),
    the same binary and command as 3_same_clocks."""
    for (precision, variant), values in ncu_durations(os.path.join(HERE, "0_default_clocks",
                                                                   "ncu_library_exchange.csv")).items():
        for launch, ms in enumerate(values):
            summary["default_clocks"].append({"precision": precision, "variant": variant, "launch": launch, "ms": ms})
        print("0_default_clocks: %s %s: %s ms" % (precision, variant, tables_lib.joined(values)))
    print()


def bank_conflicts(summary):
    """1_bank_conflicts: Nsight Compute's shared-load conflict ways and durations (default clock control:
    base clocks) of the fourth form's orbit kernels in double."""
    text = open(os.path.join(HERE, "1_bank_conflicts", "ncu_orbit_double.txt")).read()
    print("## 1_bank_conflicts: double, B = 32 (ncu, base clocks)")
    print("| variant | ms | L1/TEX throughput % | shared-load conflict ways |")
    print("|---|---|---|---|")
    for block in re.split(r"\n(?=  void )", text)[1:]:
        key = kernel_case(block.splitlines()[0])
        if not key:
            continue
        ms = float(re.search(r"Duration\s+ms\s+([\d.]+)", block).group(1))
        l1 = float(re.search(r"L1/TEX Cache Throughput\s+%\s+([\d.]+)", block).group(1))
        ways = float(re.search(r"on average a ([\d.]+) - way bank", block).group(1))
        summary["bank_conflicts"].append({"variant": key[1], "ms": ms, "l1_percent": l1, "ways": ways})
        print("| %s | %.2f | %.1f | %.1f |" % (key[1], ms, l1, ways))
    print()


def profile(summary):
    """5_profile: Nsight Compute sections (--clock-control none) of one unwrapped_2 launch in double."""
    text = open(os.path.join(HERE, "5_profile", "ncu_unwrapped_2_double.txt")).read()
    record = {"variant": "unwrapped_2", "precision": "double"}
    for key, pattern in (("ms", r"Duration\s+ms\s+([\d.]+)"), ("dram_percent", r"DRAM Throughput\s+%\s+([\d.]+)"),
                         ("l1_percent", r"L1/TEX Cache Throughput\s+%\s+([\d.]+)"),
                         ("l2_percent", r"L2 Cache Throughput\s+%\s+([\d.]+)"),
                         ("issue_percent", r"Issue Slots Busy\s+%\s+([\d.]+)"),
                         ("warps_per_sm", r"Achieved Active Warps Per SM\s+warp\s+([\d.]+)"),
                         ("load_sector_bytes_used", r"only ([\d.]+) of the 32\s+bytes transmitted per sector are utilized by each thread. This applies")):
        record[key] = float(re.search(pattern, text).group(1))
    summary["profile"].append(record)
    print("## 5_profile: unwrapped_2, double\n" + ", ".join("%s %s" % kv for kv in record.items()) + "\n")


if __name__ == "__main__":
    tables_lib.summarize(HERE, "orbit_summary.json",
                         ("timing", "agreement", "same_clocks", "default_clocks", "bank_conflicts", "profile"),
                         (timing, same_clocks, default_clocks, bank_conflicts, profile))
