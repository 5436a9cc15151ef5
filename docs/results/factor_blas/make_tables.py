#!/usr/bin/env python3
"""Prints the tables of README.md and writes blas_summary.json, which README.md cites (python3
make_tables.py), from 1_first/ (run_1.sh.txt), 2_warm/ (run_2.sh.txt), 3_suites/ (run_3.sh.txt),
4_gemm_probe/ (run_4.sh.txt), 5_lt/ (run_5.sh.txt), 6_final/ (run_6.sh.txt), 7_read_through/ (run_7.sh.txt),
8_plan_cache/ (run_8.sh.txt, run_8_2.sh.txt, run_8_3.sh.txt) and 9_shape_tuple/ (run_9.sh.txt), runs on an H100,
and 10_h200/ (run_10.sh.txt), on an H200."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)

def add_cells(table, key, record, columns):
    """Appends record's `columns` to the table row `key` (one value a round)."""
    cells = table.setdefault(key, {})
    for column in columns:
        cells.setdefault(column, []).append(record[column])


def kernel_bandwidth(summary):
    """--factor-blas on against off in one process: ms per message and their ratio, per round; 1_first with
    cublas[ZC]gemmStridedBatched, 5_lt and 10_h200 (an H200) with cublasLt."""
    for run, pattern in (("1_first", "kb_blas_*.json"), ("5_lt", "kb_lt_*.json"), ("10_h200", "kb_final_*.json")):
        rows = {}
        for name, r in tables_lib.results(os.path.join(HERE, run), pattern):
            round_ = int(re.search(r"_(\d)\.json", name).group(1))
            rows.setdefault((r["precision"], r["channel"], r["batch"], round_), {})["on" if r["factor_blas"] else "off"] = r
        table = {}
        for (precision, channel, batch, round_), pair in sorted(rows.items()):
            on, off = pair["on"], pair["off"]
            record = {"run": run, "precision": precision, "channel": channel, "batch": batch, "round": round_,
                      "blas_ms": 1e3 * on["kernel_seconds"], "pass_ms": 1e3 * off["kernel_seconds"],
                      "blas_over_pass": on["kernel_seconds"] / off["kernel_seconds"]}
            summary["kernel_bandwidth"].append(record)
            add_cells(table, (1, precision, channel, batch), record, ("pass_ms", "blas_ms", "blas_over_pass"))
        tables_lib.print_table("kernel_bandwidth, ms per message (rounds), " + run,
                               ("nb", "precision", "channel", "B"), ("pass_ms", "blas_ms", "blas_over_pass"), table,
                               labels=("factor pass", "cuBLAS", "cuBLAS / factor pass"))


def kernels(summary):
    """Nsight Compute durations of one B = 32 batch's kernels (two batches: the warm-up and the measured one)."""
    print("## Nsight Compute, double ph_magnetic, B = 32 (µs, mean of the launches), 2_warm")
    print("| kernel | blas on: launches | µs | blas off: launches | µs |")
    print("|---|---|---|---|---|")
    durations = {f: tables_lib.ncu_kernel_durations(os.path.join(HERE, "2_warm", "ncu_blas_%s.csv" % f))
                 for f in ("on", "off")}
    lt = tables_lib.ncu_kernel_durations(os.path.join(HERE, "5_lt", "ncu_lt_on.csv"))
    for name, values in lt.items():
        if name.startswith("sm90_xmma_gemm"):
            summary["ncu"].append({"blas": "lt", "kernel": "gemm", "name": name, "launches": len(values),
                                   "mean_us": sum(values) / len(values)})
            print("5_lt: %s, %d launches, %.1f µs" % (name, len(values), sum(values) / len(values)))
    names = list(durations["on"]) + [k for k in durations["off"] if k not in durations["on"]]
    for name in names:
        cells = []
        for f in ("on", "off"):
            values = durations[f].get(name, [])
            cells += [str(len(values)), "%.1f" % (sum(values) / len(values)) if values else "-"]
            if values:
                kernel = "gemm" if name.startswith("void cutlass") else name
                summary["ncu"].append({"blas": f, "kernel": kernel, "launches": len(values),
                                       "mean_us": sum(values) / len(values)})
        print("| %s | %s |" % (name[:60], " | ".join(cells)))
    print()


def ring_compare(summary):
    """x floor and blas over direct (dfc5e41) per round: 1_first with cuBLAS set up in the first flush (blas0's
    binary, named blas there), 2_warm with the fix, 5_lt with the legacy call and with cublasLt, 6_final,
    7_read_through and 10_h200 (an H200) with the code as committed."""
    for run, binary in (("1_first", "blas"), ("2_warm", "blas"), ("5_lt", "legacy"), ("5_lt", "lt"), ("6_final", "final"),
                        ("7_read_through", "final"), ("10_h200", "final")):
        found = {}
        for fields, r in tables_lib.ring_compare_runs(os.path.join(HERE, run), "rc_*_[12].json"):
            found[(fields["binary"], fields["scalar"], fields["channel"], fields["batch"], fields["round"])] = r
            if binary not in ("lt",):  # 5_lt's records once
                summary["ring_compare"].append(dict(fields, run=run, ms=1e3 * r["seconds_per_measurement"],
                                                    fraction_of_floor=r["fraction_of_floor"], seconds=r["seconds"]))
        table = {}
        for (b, scalar, channel, batch, round_), r in sorted(found.items()):
            if b != binary:
                continue
            direct = found[("direct", scalar, channel, batch, round_)]
            ratio = r["seconds_per_measurement"] / direct["seconds_per_measurement"]
            summary["ratios"].append({"run": run, "binary": binary, "scalar": scalar, "channel": channel,
                                      "batch": batch, "round": round_, "blas_over_direct": ratio})
            if binary == "lt":
                legacy = found[("legacy", scalar, channel, batch, round_)]
                summary["ratios"][-1]["lt_over_legacy"] = r["seconds_per_measurement"] / legacy["seconds_per_measurement"]
            cells = table.setdefault((1, scalar, channel, batch), {})
            cells.setdefault("direct", []).append(direct["fraction_of_floor"])
            cells.setdefault("blas", []).append(r["fraction_of_floor"])
            cells.setdefault("ratio", []).append(ratio)
        tables_lib.print_table("ring_compare, x floor (rounds 1 / 2), %s, %s" % (run, binary), ("nb", "scalar", "channel", "B"),
                               ("direct", "blas", "ratio"), table,
                               labels=("factor pass (dfc5e41)", "cuBLAS", "time: cuBLAS / factor pass"))


def set_up(summary):
    """Run 1's binary with cuBLAS set up in the first flush: its run time at 64, 192 and 384 measurements."""
    print("## cuBLAS set up in the first flush (blas0), double ph_magnetic, B = 32")
    print("| run | measurements | s per run | ms per measurement | direct: s per run |")
    print("|---|---|---|---|---|")
    direct = json.load(open(os.path.join(HERE, "2_warm", "rc_direct_B32_double_ph_magnetic_1.json")))["runs"][0]
    for run, name, tag in (("2_warm", "blas0", "m64"), ("1_first", "blas", "1"), ("2_warm", "blas0", "m384"),
                           ("2_warm", "blas0", "eager")):
        r = json.load(open(os.path.join(HERE, run, "rc_%s_B32_double_ph_magnetic_%s.json" % (name, tag))))["runs"][0]
        record = {"run": run, "tag": tag, "measurements": r["measurements"], "seconds": r["seconds"],
                  "ms": 1e3 * r["seconds_per_measurement"],
                  "over_direct_seconds": r["seconds"] - direct["seconds"] * r["measurements"] / direct["measurements"]}
        summary["set_up"].append(record)
        print("| %s %s | %d | %.3f | %.3f | %.3f |" % (run, tag, r["measurements"], r["seconds"], record["ms"],
                                                     direct["seconds"] * r["measurements"] / direct["measurements"]))
    print()


def gemm_probe(summary):
    """bench/gpu/factor_gemm_probe.cu (4_gemm_probe): cublas[ZC]gemmStridedBatched against cublasLt's heuristic
    candidates at the paper size, ms and ratio to the copy, two rounds."""
    table = {}
    for name, r in tables_lib.results(os.path.join(HERE, "4_gemm_probe"), "probe_*.json"):
        round_ = int(re.search(r"_(\d)\.json", name).group(1))
        summary["gemm_probe"].append(dict(r, round=round_))
        cells = table.setdefault((r["precision"], r["depth"], r["variant"], r["algorithm"]), {})
        for column in ("ms", "ratio"):
            cells.setdefault(column, []).append(r[column])
    tables_lib.print_table("factor_gemm_probe, ms and ratio to the copy (rounds 1 / 2), 4_gemm_probe",
                           ("precision", "K", "variant", "algorithm"), ("ms", "ratio"), table,
                           sort=lambda k: (k[0], k[1], k[2] != "default", k[2]))
    for precision in ("double", "float"):
        for depth in (32, 64):
            rows = [r for r in summary["gemm_probe"] if r["precision"] == precision and r["depth"] == depth]
            for round_ in (1, 2):
                default = next(r for r in rows if r["round"] == round_ and r["variant"] == "default")
                first = next(r for r in rows if r["round"] == round_ and r["variant"] == "lt_0")
                summary["gemm_choice"].append({"precision": precision, "depth": depth, "round": round_,
                                               "lt_first_over_default": first["ms"] / default["ms"]})


def new_and_final(found):
    """(key, new's record, final's record) for every (binary, *key) of `found` whose binary is new."""
    for (binary, *key), r in sorted(found.items()):
        if binary == "new":
            yield tuple(key), r, found[("final", *key)]


def plan_cache(summary):
    """8_plan_cache: the product's descriptors and algorithm kept per shape (new) against made at every flush
    (final, ea9b3b7), in one process each, alternately on one machine: kernel_bandwidth (rounds 1-3) and
    ring_compare ph_magnetic at B = 32 (rounds 1-3), new / final per round."""
    here = os.path.join(HERE, "8_plan_cache")
    kb = {}
    for name, r in tables_lib.results(here, "kb_*.json"):
        binary, round_ = re.fullmatch(r"kb_(\w+?)_(\d)\.json", name).groups()
        kb[(binary, r["precision"], r["channel"], r["batch"], int(round_))] = r
    table = {}
    for (precision, channel, batch, round_), r, final in new_and_final(kb):
        record = {"precision": precision, "channel": channel, "batch": batch, "round": round_,
                  "final_ms": 1e3 * final["kernel_seconds"], "new_ms": 1e3 * r["kernel_seconds"],
                  "new_over_final": r["kernel_seconds"] / final["kernel_seconds"]}
        summary["plan_cache_kb"].append(record)
        add_cells(table, (1, precision, channel, batch), record, ("final_ms", "new_ms", "new_over_final"))
    tables_lib.print_table("kernel_bandwidth, ms per message (rounds), 8_plan_cache", ("nb", "precision", "channel", "B"),
                           ("final_ms", "new_ms", "new_over_final"), table,
                           labels=("plan made every flush", "plan kept", "kept / made"))
    rc = {(fields["binary"], fields["scalar"], fields["channel"], fields["batch"], fields["round"]): r
          for fields, r in tables_lib.ring_compare_runs(here, "rc_*.json")}
    table = {}
    for (scalar, channel, batch, round_), r, final in new_and_final(rc):
        record = {"scalar": scalar, "channel": channel, "batch": batch, "round": round_,
                  "final_fraction_of_floor": final["fraction_of_floor"], "new_fraction_of_floor": r["fraction_of_floor"],
                  "new_over_final": r["seconds_per_measurement"] / final["seconds_per_measurement"]}
        summary["plan_cache_rc"].append(record)
        add_cells(table, (1, scalar, channel, batch), record,
                  ("final_fraction_of_floor", "new_fraction_of_floor", "new_over_final"))
    tables_lib.print_table("ring_compare, x floor (rounds), 8_plan_cache", ("nb", "scalar", "channel", "B"),
                           ("final_fraction_of_floor", "new_fraction_of_floor", "new_over_final"), table,
                           labels=("plan made every flush", "plan kept", "time: kept / made"))


def checks(summary):
    """The GPU suites of 1_first (run 1's binaries) and 3_suites (the code as committed, and with each planted
    bug of planted.patch.txt turned on: Batches.* only), and --verify-sample."""
    for run, pattern in (("1_first", "tests_blas_%s.txt"), ("3_suites", "tests_%s.txt"), ("5_lt", "tests_lt_%s.txt"),
                         ("6_final", "tests_final_%s.txt"), ("7_read_through", "tests_final_%s.txt"),
                         ("8_plan_cache", "tests_new_%s.txt"), ("9_shape_tuple", "tests_final_%s.txt"),
                         ("10_h200", "tests_final_%s.txt")):
        for name in ("test_kernel_variants", "test_kernels"):
            counts = tables_lib.gtest_counts(os.path.join(HERE, run, pattern % name))
            summary["tests"].append(dict(counts, run=run, suite=name, planted="none"))
    for planted in ("padding", "tail"):
        counts = tables_lib.gtest_counts(os.path.join(HERE, "3_suites", "planted_%s_test_kernel_variants.txt" % planted))
        summary["tests"].append(dict(counts, run="3_suites", suite="test_kernel_variants", planted=planted))
    counts = tables_lib.gtest_counts(os.path.join(HERE, "8_plan_cache", "tests_planted_factor_product.txt"))
    summary["tests"].append(dict(counts, run="8_plan_cache", suite="test_kernel_variants", planted="plan_depth"))
    for run in ("1_first", "2_warm", "5_lt", "6_final", "7_read_through", "10_h200"):
        for name, error in tables_lib.verify_errors(os.path.join(HERE, run), "verify_*.json").items():
            summary["verify"].append({"run": run, "scalar": name.split("_")[3], "max_relative_error": error})
    print("## checks")
    print(json.dumps({"tests": summary["tests"], "verify": summary["verify"]}, indent=1))


tables_lib.summarize(HERE, "blas_summary.json",
                     ("kernel_bandwidth", "ncu", "ring_compare", "ratios", "set_up", "gemm_probe", "gemm_choice",
                      "plan_cache_kb", "plan_cache_rc", "tests", "verify"),
                     (kernel_bandwidth, kernels, ring_compare, set_up, gemm_probe, plan_cache, checks))
