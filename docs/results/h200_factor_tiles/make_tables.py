#!/usr/bin/env python3
"""Prints every table of README.md from the files of this folder and writes tiles_summary.json, which
README.md cites (python3 make_tables.py)."""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)
from tables_lib import print_table  # noqa: E402

# (folder, variant) of each build measured against rule (a77dd19) in its folder, in the order built.
VARIANTS = (("1_first", "fp2"), ("2_pairs", "fpA"), ("2_pairs", "fpB"), ("3_staging", "fpF"),
            ("3_staging", "fpG"), ("4_divisors", "fpH"), ("5_prefetch", "fpI"),
            ("6_final", "final"))
DETAILS = (("duration_ms", "Duration"), ("dram_throughput_pct", "DRAM Throughput"),
           ("sm_throughput_pct", "Compute (SM) Throughput"), ("registers", "Registers Per Thread"),
           ("occupancy_pct", "Achieved Occupancy"), ("cycles_per_instruction", "Warp Cycles Per Issued Instruction"),
           ("long_scoreboard", "Stall Long Scoreboard"))


def present(folder, name):
    return os.path.exists(os.path.join(HERE, folder, name))


def kb_records(folder, variant):
    path = "%s/kb_%s_1.json" % (folder, variant)
    if not present(folder, "kb_%s_1.json" % variant):
        return []
    return [dict(r, folder=folder, variant=variant) for _, r in tables_lib.results(HERE, path)]


def kb_results():
    """Every kernel_bandwidth result, with its time per message over the copy's and over rule's in the
    same folder and run."""
    out = []
    for folder in sorted({f for f, _ in VARIANTS}):
        rule = {(r["nb"], r["precision"], r["channel"], r["batch"]): r for r in kb_records(folder, "rule")}
        for variant in ["rule"] + [v for f, v in VARIANTS if f == folder]:
            for r in kb_records(folder, variant):
                key = (r["nb"], r["precision"], r["channel"], r["batch"])
                base = rule.get(key)
                out.append({"folder": folder, "variant": variant, "nb": r["nb"], "precision": r["precision"],
                            "channel": r["channel"], "batch": r["batch"],
                            "per_message": round(tables_lib.per_message(r), 4),
                            "time_over_rule": round(r["kernel_seconds"] / base["kernel_seconds"], 4) if base else None})
    return out


def profiles(results):
    out = []
    for folder, variant in VARIANTS:
        name = "details_%s_b16_double_ph_magnetic.txt" % variant
        if not present(folder, name):
            continue
        d = tables_lib.ncu_details(os.path.join(HERE, folder, name))
        row = {"folder": folder, "variant": variant, "file": "%s/%s" % (folder, name)}
        row.update({key: d[label] for key, label in DETAILS})
        # G_t copies a batch: the pass against the copy time of the same run (rule's, nb = 1, double).
        copy = [r for r in kb_records(folder, "rule") if r["nb"] == 1 and r["precision"] == "double"
                and r["channel"] == "ph_magnetic" and r["batch"] == 16][0]["copy_seconds"]
        row["copies_per_batch"] = round(d["Duration"] * 1e-3 / copy, 3)
        row.update(phases(folder, variant))
        out.append(row)
    return out


def phases(folder, variant):
    """Shares (%) of the factor pass's stall samples in its three phases, from the SASS source page: before
    the team barrier that ends the staging (staging), up to the last FMA (sums), after it (G_t update)."""
    path = os.path.join(HERE, folder, "source_%s_b16_double_ph_magnetic.csv.gz" % variant)
    samples, executed, sass = tables_lib.ncu_source(path)
    barrier = [i for i in range(len(sass)) if sass[i].startswith("BAR.SYNC") and executed[i] > 0][0]
    last_fma = max(i for i in range(len(sass)) if sass[i].startswith("DFMA"))
    total = float(sum(samples))
    return {"staging_pct": round(100 * sum(samples[:barrier]) / total, 1),
            "sums_pct": round(100 * sum(samples[barrier:last_fma + 1]) / total, 1),
            "update_pct": round(100 * sum(samples[last_fma + 1:]) / total, 1)}


def scalar_name(run):
    """kernel_bandwidth's name of a ring_compare run's scalar ("complex<double>" there is "double")."""
    return {"complex<double>": "double"}.get(run["scalar"], run["scalar"])


def ring_compare():
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, "*", "rc_*_B*.json"))):
        folder = os.path.basename(os.path.dirname(path))
        run = json.load(open(path))["runs"][0]
        variant = os.path.basename(path).split("_")[1]
        scalar = scalar_name(run)
        out.append({"folder": folder, "variant": variant, "batch": run["gt_batch"], "scalar": scalar,
                    "channel": run["channel"], "fraction_of_floor": round(run["fraction_of_floor"], 4),
                    "ms_per_measurement": round(1e3 * run["seconds_per_measurement"], 4),
                    "work_gb": round(run["gt_work_bytes_per_rank"] / 1e9, 2)})
    return out


def verify():
    out = []
    for path in sorted(glob.glob(os.path.join(HERE, "*", "verify_*.json"))):
        run = json.load(open(path))["runs"][0]
        scalar = scalar_name(run)
        out.append({"file": os.path.relpath(path, HERE), "batch": run["gt_batch"], "scalar": scalar,
                    "channel": run["channel"], "sample_max_relative_error": run["sample_max_relative_error"]})
    return out


def by_batch(key):
    """(nb, precision, channel, B) in tables_lib's order, batches by size."""
    return tables_lib.order(key[:3]) + (key[3],)


def main():
    results, rc = kb_results(), ring_compare()
    prof = profiles(results)
    keys = [k for k, _ in DETAILS] + ["copies_per_batch", "staging_pct", "sums_pct", "update_pct"]
    print("## Nsight Compute: the factor pass alone, nb = 1, double ph_magnetic, B = 16 (one launch)")
    print("| folder | variant | " + " | ".join(keys) + " |")
    print("|---|---|" + "---|" * len(keys))
    for p in prof:
        print("| %s | %s | " % (p["folder"], p["variant"]) + " | ".join("%g" % p[k] for k in keys) + " |")
    print()
    for folder in sorted({f for f, _ in VARIANTS}):
        rows = tables_lib.grouped([r for r in results if r["folder"] == folder],
                                  lambda r: (r["nb"], r["precision"], r["channel"], r["batch"]),
                                  lambda r: r["variant"], lambda r: r["per_message"])
        if rows:
            columns = ["rule"] + [v for f, v in VARIANTS if f == folder]
            print_table("%s: kernel time per message / copy time (kernel_bandwidth, one run)" % folder,
                        ("nb", "precision", "channel", "B"), columns, rows, sort=by_batch)
    for folder in sorted({r["folder"] for r in rc}):
        rows = tables_lib.grouped([r for r in rc if r["folder"] == folder],
                                  lambda r: (1, r["scalar"], r["channel"], r["batch"]), lambda r: r["variant"],
                                  lambda r: r["fraction_of_floor"])
        columns = sorted({r["variant"] for r in rc if r["folder"] == folder}, key=lambda v: (v != "rule", v))
        print_table("%s: ring_compare, one rank, paper size: time per measurement / floor" % folder,
                    ("nb", "scalar", "channel", "B"), columns, rows, sort=by_batch)
    ver = verify()
    print("## --verify-sample 4000 (largest relative error of the sampled entries against the double original)")
    print("| file | B | scalar | channel | error |")
    print("|---|---|---|---|---|")
    for v in ver:
        print("| %s | %d | %s | %s | %.3g |" % (v["file"], v["batch"], v["scalar"], v["channel"],
                                               v["sample_max_relative_error"]))
    print()
    with open(os.path.join(HERE, "tiles_summary.json"), "w") as f:
        json.dump({"profiles": prof, "results": results, "ring_compare": rc, "verify": ver}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
