#!/usr/bin/env python3
"""Prints every table of README.md from the files of this folder and writes blocks_summary.json, which
README.md cites (python3 make_tables.py)."""
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)
from tables_lib import case, grouped, per_message, print_table, scalar_channel_table  # noqa: E402


def results(pattern):
    return [r for _, r in tables_lib.results(HERE, pattern)]


def ring_compare(path):
    return tables_lib.ring_compare_cell(HERE, path)


def chunks(r):
    return r.get("inner_block_chunks")


# --- 1_sweep: the experiment patch, one binary per setting of RINGCOMM_X_BATCH_INNER_CHUNKS --------------

SWEEP1 = ("before", "c0", "c4", "c9", "c18", "c36")  # the committed build, then C = 0 (one block) ... 36


def sweep1_setting(name):
    """"before" or the C of kb_cC_N.json."""
    m = re.match(r"kb_(before|c\d+)_\d\.json", name)
    return m.group(1)


def sweep1_records():
    for name, r in tables_lib.results(HERE, "1_sweep/kb_*.json"):
        r = dict(r)
        r["setting"] = sweep1_setting(name)
        r["file"] = "1_sweep/" + name
        yield r


def ncu_profiles():
    rows = []
    for precision in ("mixed", "double"):
        for setting in ("before", "9"):
            name = "1_sweep/ncu_%s_%s.txt" % (precision, setting)
            m = {metric: value for metric, (_, value) in tables_lib.ncu_metrics(os.path.join(HERE, name)).items()}
            rows.append({"file": name, "precision": precision, "setting": setting,
                         "duration_ms": m["gpu__time_duration.sum"], "dram_read_GB": m["dram__bytes_read.sum"],
                         "dram_write_GB": m["dram__bytes_write.sum"],
                         "l2_hit_pct": m["lts__t_sector_hit_rate.pct"],
                         "l1_hit_pct": m["l1tex__t_sector_hit_rate.pct"],
                         "l2_throughput_pct": m["lts__throughput.avg.pct_of_peak_sustained_elapsed"],
                         "dram_throughput_pct": m["dram__throughput.avg.pct_of_peak_sustained_elapsed"],
                         "sm_throughput_pct": m["sm__throughput.avg.pct_of_peak_sustained_elapsed"],
                         "warps_active_pct": m["sm__warps_active.avg.pct_of_peak_sustained_active"],
                         "registers": m["launch__registers_per_thread"],
                         "warp_instructions": m["smsp__inst_executed.sum"]})
    return rows


def sweep1_tables(profiles):
    print_table("1_sweep: kernel time per message / copy time, B = 8, nb = 1 (rounds 1 / 2): the committed build, "
                "then the patch with C chunks per inner block (c0: one block)", ("nb", "precision", "channel"),
                SWEEP1, grouped(sweep1_records(), case, lambda r: r["setting"], per_message))
    print("## 1_sweep: Nsight Compute, the batched pass of pp_up_down, B = 8, nb = 1 (one launch)")
    keys = ("duration_ms", "dram_read_GB", "dram_write_GB", "l2_hit_pct", "l1_hit_pct", "l2_throughput_pct",
            "dram_throughput_pct", "sm_throughput_pct", "warps_active_pct", "registers")
    print("| precision | order | " + " | ".join(keys) + " |")
    print("|---|---|" + "---|" * len(keys))
    for p in profiles:
        order = "one block (committed)" if p["setting"] == "before" else "C = %s" % p["setting"]
        print("| %s | %s | " % (p["precision"], order) + " | ".join("%g" % p[k] for k in keys) + " |")
    print()


# --- 2_sweep: the library setting, every precision, nb = 1 and 2 ---------------------------------------

def sweep2_tables():
    for nb, values in ((1, (0, 2, 3, 4, 6, 9, 12, 18)), (2, (0, 4, 9, 18, 36, 72))):
        print_table("2_sweep: kernel time per message / copy time, B = 8, nb = %d, by chunks per inner block "
                    "(rounds 1 / 2; 0: one block, the order before)" % nb, ("nb", "precision", "channel"), values,
                    grouped(results("2_sweep/kb_nb%d_*.json" % nb), case, chunks, per_message))


# --- 3_ring_compare and 4_batch_sizes ------------------------------------------------------------------

def before_after(scalar, channel):
    return [" / ".join(ring_compare("3_ring_compare/rc_%s_%s_%s_%d.json" % (who, scalar, channel, k)) for k in (1, 2))
            for who in ("before", "after")]


def by_batch(scalar, channel):
    cells = []
    for b in (8, 12, 16):
        path = "4_batch_sizes/rc_B%d_%s_%s.json" % (b, scalar, channel)
        work = json.load(open(os.path.join(HERE, path)))["runs"][0]["gt_work_bytes_per_rank"]
        cells.append("%s, %.2f GB" % (ring_compare(path), work / 1e9))
    return cells


def ring_compare_tables():
    scalar_channel_table("3_ring_compare: one rank, paper size, B = 8, 240 measurements: x floor (ms per "
                         "measurement), rounds 1 / 2", ("before (one block)", "after (inner blocks by default)"),
                         before_after)
    print_table("3_ring_compare: kernel_bandwidth with inner blocks by default, kernel time per message / copy "
                "time by batch (kb_batches.json)", ("nb", "precision", "channel"), (8, 12, 16),
                grouped(results("3_ring_compare/kb_batches.json"), case, lambda r: r["batch"], per_message))
    scalar_channel_table("4_batch_sizes: ring_compare with inner blocks by default: x floor (ms per measurement) "
                         "and the accumulator's work space per rank (GB)", ("B = 8", "12", "16"), by_batch)


def write_summary(profiles):
    """blocks_summary.json: every kernel_bandwidth case with its kernel time per message over the copy's
    (per_message), its chunks per inner block (1_sweep: its setting) and batch; the Nsight Compute metrics."""
    rows = []
    for r in sweep1_records():
        rows.append({"file": r["file"], "nb": r["nb"], "precision": r["precision"], "channel": r["channel"],
                     "setting": r["setting"], "batch": r["batch"], "per_message": round(per_message(r), 4)})
    for pattern in ("2_sweep/kb_*.json", "3_ring_compare/kb_batches.json"):
        for name, r in tables_lib.results(HERE, pattern):
            rows.append({"file": os.path.dirname(pattern) + "/" + name, "nb": r["nb"], "precision": r["precision"],
                         "channel": r["channel"], "chunks": chunks(r), "batch": r["batch"],
                         "per_message": round(per_message(r), 4)})
    with open(os.path.join(HERE, "blocks_summary.json"), "w") as out:
        json.dump({"written_by": "make_tables.py", "results": rows, "profiles": profiles}, out, indent=1)


if __name__ == "__main__":
    profiles = ncu_profiles()
    write_summary(profiles)
    sweep1_tables(profiles)
    sweep2_tables()
    ring_compare_tables()
