#!/usr/bin/env python3
"""Prints every table of README.md from the files of this folder and writes loads_summary.json, which
README.md cites (python3 make_tables.py)."""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)
from tables_lib import case, grouped, per_message, print_table, scalar_channel_table  # noqa: E402

ENTRIES = 212336640  # nb = 1, the paper size


def shape(r):
    """(rows, frequency warps, row warps) of a kernel_bandwidth result."""
    return (r["exchange_row_tile"], r["frequency_warps"], r["exchange_row_warps"])


# --- Nsight Compute: the batched pass of one launch (1_profile, 2_loads) -------------------------------

PROFILES = (("1_profile", "b8_double_ph_magnetic", 8), ("1_profile", "b8_double_pp_up_down", 8),
            ("1_profile", "b8_mixed_ph_magnetic", 8), ("2_loads", "loads_b8_double_ph_magnetic", 8),
            ("2_loads", "loads_b8_double_pp_up_down", 8), ("6_factor_pass", "fp_b16_double_ph_magnetic", 16),
            ("7_factor_pass_loads", "fp_b16_double_ph_magnetic", 16),
            ("8_factor_pass_order", "fp_b16_double_ph_magnetic", 16))
DETAILS = (("duration_ms", "Duration"), ("l1_throughput_pct", "L1/TEX Cache Throughput"),
           ("l2_throughput_pct", "L2 Cache Throughput"), ("dram_throughput_pct", "DRAM Throughput"),
           ("sm_throughput_pct", "Compute (SM) Throughput"), ("l1_hit_pct", "L1/TEX Hit Rate"),
           ("registers", "Registers Per Thread"), ("occupancy_pct", "Achieved Occupancy"),
           ("cycles_per_instruction", "Warp Cycles Per Issued Instruction"))


def stall_rounds(folder, name, messages):
    """The per-message loop of the pass (the instructions executed most often) from the source page:
    its warp instructions per message, its loads per message, and the three instructions with the most
    stall samples, each as (share of all samples in %, SASS)."""
    samples, executed, sass = tables_lib.ncu_source(os.path.join(HERE, folder, "source_%s.csv.gz" % name))
    most = max(executed)
    loop = [i for i in range(len(sass)) if executed[i] == most]
    total = sum(samples)
    top = sorted(loop, key=lambda i: -samples[i])[:3]
    return {"loop_instructions": len(loop), "loop_loads": sum(1 for i in loop if sass[i].startswith("LDG")),
            "top_stalls": [(round(100.0 * samples[i] / total, 1), sass[i]) for i in sorted(top)],
            "top_stall_pct": round(100.0 * max(samples[i] for i in loop) / total, 1),
            "loop_stall_pct": round(100.0 * sum(samples[i] for i in loop) / total, 1),
            "instructions_per_entry_message": round(sum(executed) * 32.0 / (ENTRIES * messages), 3)}


def profiles():
    out = []
    for folder, name, messages in PROFILES:
        d = tables_lib.ncu_details(os.path.join(HERE, folder, "details_%s.txt" % name))
        row = {"profile": "%s/%s" % (folder, name) if folder.startswith(("6", "7", "8")) else name,
               "file": "%s/details_%s.txt" % (folder, name)}
        row.update({key: d[label] for key, label in DETAILS})
        row.update(stall_rounds(folder, name, messages))
        out.append(row)
    return out


def profile_tables(rows):
    keys = [k for k, _ in DETAILS] + ["instructions_per_entry_message"]
    print("## Nsight Compute, one launch at nb = 1: the batched pass at B = 8 (1_profile: b1e4f59, 2_loads: loads first), "
          "the factor pass at B = 16 (6_factor_pass)")
    print("| profile | " + " | ".join(keys) + " |")
    print("|---|" + "---|" * len(keys))
    for p in rows:
        print("| %s | " % p["profile"] + " | ".join("%g" % p[k] for k in keys) + " |")
    print()
    print("## The loop over messages: its length, its loads and where its warps wait (share of all stall samples)")
    print("| profile | instructions | loads | stall samples in the loop, % | top three |")
    print("|---|---|---|---|---|")
    for p in rows:
        top = "; ".join("%.1f %% `%s`" % t for t in p["top_stalls"])
        print("| %s | %d | %d | %.1f | %s |" % (p["profile"], p["loop_instructions"], p["loop_loads"],
                                                  p["loop_stall_pct"], top))
    print()


# --- kernel_bandwidth: variants side by side, sweeps --------------------------------------------------

def records(pattern):
    for name, r in tables_lib.results(HERE, pattern):
        r = dict(r)
        r["file"] = os.path.dirname(pattern) + "/" + name
        yield r


def variant_of(r):
    """"base_1" of 2_loads/kb_base_1.json."""
    return os.path.basename(r["file"])[3:-5]


def compare_table(folder, variants):
    columns = ["%s_%d" % (v, k) for v in variants for k in (1, 2)]
    print_table("%s: kernel time per message / copy time, B = 8, with each shape's defaults" % folder,
                ("nb", "precision", "channel"), columns,
                grouped(records(folder + "/kb_[a-z]*_[12].json"), case, variant_of, per_message))


def time_ratios(folder, variant):
    """{case: kernel time of `variant` over the base's, both rounds together}."""
    sums = grouped(records(folder + "/kb_[a-z]*_[12].json"), case, lambda r: variant_of(r)[:-2], per_message)
    return {k: sum(v[variant]) / sum(v["base"]) for k, v in sums.items()}


def ratio_table(folder, variants):
    rows = {k: {} for k in time_ratios(folder, variants[0])}
    for v in variants:
        for k, x in time_ratios(folder, v).items():
            rows[k][v] = [x]
    print_table("%s: kernel time against the committed build's (both rounds)" % folder, ("nb", "precision", "channel"),
                variants, rows)


def sweep_table(title, pattern):
    recs = list(records(pattern))
    shapes = sorted({shape(r) for r in recs})
    print_table(title, ("nb", "precision", "channel"), shapes, grouped(recs, case, shape, per_message),
                labels=["%d/%d/%d" % s for s in shapes])


# --- ring_compare ---------------------------------------------------------------------------------------

def ring_compare(path):
    return tables_lib.ring_compare_cell(HERE, path)


def work_gb(path):
    return json.load(open(os.path.join(HERE, path)))["runs"][0]["gt_work_bytes_per_rank"] / 1e9


def large_batches(scalar, channel):
    cells = []
    for b in (24, 32):
        path = "1_profile/rc_B%d_%s_%s.json" % (b, scalar, channel)
        if not os.path.exists(os.path.join(HERE, path)):
            return None
        cells.append("%s, %.2f GB" % (ring_compare(path), work_gb(path)))
    return cells


def loads_ring_compare(scalar, channel):
    return [ring_compare("2_loads/rc_%s_%s_%s.json" % (v, scalar, channel)) for v in ("base", "loads")]


def rule_ring_compare(scalar, channel):
    cells = []
    for v in ("base", "rule"):
        runs = [k for k in (1, 2) if os.path.exists(os.path.join(HERE, "3_rule/rc_%s_%s_%s_%d.json" % (v, scalar, channel, k)))]
        cells.append(" / ".join(ring_compare("3_rule/rc_%s_%s_%s_%d.json" % (v, scalar, channel, k)) for k in runs))
    return cells


def verify(scalar, channel):
    run = json.load(open(os.path.join(HERE, "3_rule/verify_%s_%s.json" % (scalar, channel))))["runs"][1]
    return ["%.2e" % run["sample_max_relative_error"], "%g" % run["tolerance"]]


def write_summary(profile_rows):
    """loads_summary.json: every kernel_bandwidth case (kernel time per message over the copy's, its shape);
    each variant's kernel time over the committed build's per case (2_loads, 3_rule); the profiles."""
    rows = []
    for pattern in ("1_profile/kb_*.json", "2_loads/kb_*.json", "3_rule/kb_*.json", "5_exchange_only/kb_*.json",
                    "6_factor_pass/kb_*.json", "7_factor_pass_loads/kb_*.json", "8_factor_pass_order/kb_*.json"):
        for r in records(pattern):
            rows.append({"file": r["file"], "nb": r["nb"], "precision": r["precision"], "channel": r["channel"],
                         "rows": r["exchange_row_tile"], "fwarps": r["frequency_warps"],
                         "warps": r["exchange_row_warps"], "batch": r["batch"],
                         "per_message": round(per_message(r), 4)})
    ratios = []
    for folder, variants in (("2_loads", ("loads", "unroll")), ("3_rule", ("rule",))):
        for v in variants:
            for (nb, precision, channel), x in sorted(time_ratios(folder, v).items(), key=lambda i: tables_lib.order(i[0])):
                ratios.append({"folder": folder, "variant": v, "nb": nb, "precision": precision, "channel": channel,
                               "time_ratio": round(x, 3)})
    for folder in ("6_factor_pass", "7_factor_pass_loads", "8_factor_pass_order"):
        sums = grouped(records(folder + "/kb_[rf]*_[12].json"), lambda r: case(r) + (r["batch"],),
                       lambda r: variant_of(r)[:-2], per_message)
        for nb, precision, channel in sorted({k[:3] for k in sums}, key=tables_lib.order):
            row = {"folder": folder, "variant": "fp", "nb": nb, "precision": precision, "channel": channel}
            for b in (8, 16):
                v = sums[(nb, precision, channel, b)]
                row["time_ratio_%d" % b] = round(sum(v["fp"]) / sum(v["rule"]), 3)
            ratios.append(row)
    summary = {"results": rows, "time_ratios": ratios, "profiles": profile_rows}
    with open(os.path.join(HERE, "loads_summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")


def main():
    rows = profiles()
    profile_tables(rows)
    sweep_table("1_profile: ph_magnetic, B = 8, nb = 1, kernel time per message / copy time by rows / frequency "
                "warps / row warps (committed build)", "1_profile/kb_sweep.json")
    scalar_channel_table("1_profile: ring_compare at B = 24 and 32 (x floor (ms per measurement), work space)",
                         ("B = 24", "B = 32"), large_batches)
    compare_table("2_loads", ("base", "loads", "unroll"))
    ratio_table("2_loads", ("loads", "unroll"))
    sweep_table("2_loads: loads first in every batch, B = 8, nb = 1, by rows / frequency warps / row warps",
                "2_loads/kb_sweep_loads.json")
    scalar_channel_table("2_loads: ring_compare, B = 8, x floor (ms per measurement)", ("base", "loads"),
                         loads_ring_compare)
    compare_table("3_rule", ("base", "rule"))
    ratio_table("3_rule", ("rule",))
    for nb in (1, 2):
        sweep_table("3_rule: ph_magnetic with complex<float> messages, B = 8, nb = %d, by rows / frequency warps / "
                    "row warps" % nb, "3_rule/kb_sweep_nb%d.json" % nb)
    print_table("3_rule: mixed precision by batch, kernel time per message / copy time", ("nb", "precision", "channel"),
                (8, 12, 16), grouped(records("3_rule/kb_rule_batches.json"), case, lambda r: r["batch"], per_message))
    scalar_channel_table("3_rule: ring_compare, B = 8, 240 measurements, x floor (ms per measurement), rounds 1 / 2",
                         ("base", "rule"), rule_ring_compare, scalars=("mixed", "double"))
    scalar_channel_table("3_rule: --verify-sample 4000, B = 8, 48 measurements: largest error relative to the "
                         "sample's largest entry, the ring", ("error", "tolerance"), verify)
    exchange_only_tables()
    factor_pass_tables("6_factor_pass")
    factor_pass_tables("7_factor_pass_loads")
    factor_pass_tables("8_factor_pass_order")
    write_summary(rows)


def exchange_only_tables():
    """5_exchange_only: the committed kernels ("rule") against the bubble channels' batches without the factor
    product ("exch"), by batch."""
    recs = list(records("5_exchange_only/kb_[re]*_[12].json"))
    print_table("5_exchange_only: kernel time per message / copy time with the defaults, by binary_round and batch",
                ("nb", "precision", "channel"), [(v, b) for v in ("rule_1", "rule_2", "exch_1", "exch_2") for b in (8, 16)],
                grouped(recs, case, lambda r: (variant_of(r), r["batch"]), per_message),
                labels=["%s B=%d" % c for c in [(v, b) for v in ("rule_1", "rule_2", "exch_1", "exch_2") for b in (8, 16)]])
    sweep = list(records("5_exchange_only/kb_exch_sweep.json"))
    print_table("5_exchange_only: the bubble exchange term alone by rows / frequency warps / batch",
                ("nb", "precision", "channel"), sorted({(shape(r)[:2], r["batch"]) for r in sweep}),
                grouped(sweep, case, lambda r: (shape(r)[:2], r["batch"]), per_message),
                labels=["%d/%d B=%d" % (s[0], s[1], b) for s, b in sorted({(shape(r)[:2], r["batch"]) for r in sweep})])


def factor_pass_tables(folder):
    """6_factor_pass, 7_factor_pass_loads: a77dd19 ("rule") against the factor product in a pass of its own
    ("fp", not taken)."""
    recs = list(records(folder + "/kb_[rf]*_[12].json"))
    columns = [(v, b) for v in ("rule_1", "rule_2", "fp_1", "fp_2") for b in (8, 16)]
    print_table("%s: kernel time per message / copy time with the defaults, by binary_round and batch" % folder,
                ("nb", "precision", "channel"), columns, grouped(recs, case, lambda r: (variant_of(r), r["batch"]), per_message),
                labels=["%s B=%d" % c for c in columns])

    def cells(scalar, channel):
        out = []
        for b in (8, 16):
            for v in ("rule", "fp"):
                out.append(ring_compare("%s/rc_%s_B%d_%s_%s.json" % (folder, v, b, scalar, channel)))
        return out
    print("(ph_magnetic and ph_charge only)")
    scalar_channel_table("%s: ring_compare, x floor (ms per measurement)" % folder,
                         ("rule B=8", "fp B=8", "rule B=16", "fp B=16"),
                         lambda s, c: cells(s, c) if c in ("ph_magnetic", "ph_charge") else None)


if __name__ == "__main__":
    main()
