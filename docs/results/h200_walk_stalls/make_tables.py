#!/usr/bin/env python3
"""Prints every table of README.md from the files of this folder and writes stalls_summary.json and
batch_summary.json, which README.md cites (python3 make_tables.py)."""
import glob
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tables_lib  # noqa: E402  (docs/results/tables_lib.py)
from tables_lib import CHANNELS, case, grouped, per_message, print_table  # noqa: E402


def results(pattern):
    return [r for _, r in tables_lib.results(HERE, pattern)]


# --- Nsight Compute: where the walk's warps wait (1_profile, 2_cross_ahead) ---------------------------

def registers_written(sass):
    """The registers an instruction writes: its first operand, widened by the access size."""
    m = re.match(r"\s*(@!?P\d\s+)?([A-Z0-9.]+)\s+R(\d+)\b", sass)
    if not m:
        return set()
    op, first = m.group(2), int(m.group(3))
    width = 4 if ".128" in op else 2 if (".64" in op or op.startswith("D") or "F64" in op) else 1
    return set(range(first, first + width))


def registers_read(sass):
    """The registers an instruction reads: every operand after the first, a 64-bit pair for the
    double-precision operations."""
    m = re.match(r"\s*(@!?P\d\s+)?([A-Z0-9.]+)\s+(.*)", sass)
    if not m:
        return set()
    op, operands = m.group(2), m.group(3).split(",")[1:]
    pair = op.startswith("D") or "F64" in op
    regs = set()
    for o in operands:
        for r in re.findall(r"\bR(\d+)\b", o):
            regs.update({int(r), int(r) + 1} if pair else {int(r)})
    return regs


def stall_profile(csv_path):
    samples, executed, sass = tables_lib.ncu_source(csv_path)
    total = sum(samples)
    top = max(range(len(sass)), key=lambda i: samples[i])
    # The instruction that wrote what the top one waits for: the nearest one before it writing one of
    # the registers it reads (loads first).
    producer = None
    for i in range(top - 1, -1, -1):
        if registers_written(sass[i]) & registers_read(sass[top]):
            producer = sass[i].strip()
            break
    name = os.path.basename(csv_path)[len("source_"):-len(".csv")]
    folder = os.path.relpath(os.path.dirname(csv_path), HERE)
    d = tables_lib.ncu_details(os.path.join(os.path.dirname(csv_path), "details_%s.txt" % name))
    entries = 212336640  # nb = 1, the paper size
    return {"file": "%s/source_%s.csv" % (folder, name), "profile": name,
            "stall_samples": total, "top_instruction": sass[top].strip(),
            "top_share_pct": round(100.0 * samples[top] / total, 1), "waits_on": producer,
            "warp_instructions": sum(executed),
            "instructions_per_entry": round(32.0 * sum(executed) / entries, 1),
            "duration_ms": d.get("Duration"), "registers": d.get("Registers Per Thread"),
            "achieved_occupancy_pct": d.get("Achieved Occupancy"),
            "warp_cycles_per_issued_instruction": d.get("Warp Cycles Per Issued Instruction"),
            "long_scoreboard_cycles": d.get("Stall Long Scoreboard"),
            "l2_throughput_pct": d.get("L2 Cache Throughput"), "dram_throughput_pct": d.get("DRAM Throughput")}


def write_stalls_summary():
    profiles = [stall_profile(p) for p in sorted(glob.glob(os.path.join(HERE, "[12]_*/source_*.csv")))]
    with open(os.path.join(HERE, "stalls_summary.json"), "w") as f:
        json.dump({"written_by": "make_tables.py", "profiles": profiles}, f, indent=1)
    print("## Nsight Compute: the instruction with the most stall samples (stalls_summary.json)")
    print("| profile | ms | registers | occupancy % | cycles per issue | top instruction | share | waits on |")
    print("|---|---|---|---|---|---|---|---|")
    for p in profiles:
        print("| %s | %s | %s | %s | %s | `%s` | %.1f %% | `%s` |" % (
            p["file"].split("/")[0] + "/" + p["profile"], p["duration_ms"], p["registers"],
            p["achieved_occupancy_pct"], p["warp_cycles_per_issued_instruction"], p["top_instruction"],
            p["top_share_pct"], p["waits_on"]))
    print()


# --- kernel_bandwidth and ring_compare tables --------------------------------------------------------

def ratio(r):
    return r["ratio"]


def ring_compare(path):
    return tables_lib.ring_compare_cell(HERE, path)


def cross_ahead_tables():
    # nb = 2 pp_up_down and ph_transverse in double and mixed take the diagonal walk: left out.
    walks = [r for r in results("2_cross_ahead/kb_ahead_*.json") if r["kernel"] == "single"]
    print_table("2_cross_ahead: ratio to the copy by rows read ahead (rounds 1 / 2; the walk in order, defaults)",
                ("nb", "precision", "channel"), (0, 1, 2, 3),
                grouped(walks, case, lambda r: r["walk_cross_ahead"], ratio))
    print_table("2_cross_ahead: without the TMA (kb_notma.json, nb = 1)", ("nb", "precision", "channel"), (0, 1, 2),
                grouped(results("2_cross_ahead/kb_notma.json"), case, lambda r: r["walk_cross_ahead"], ratio))
    print_table("3_float_confirm: complex<float>, rounds 1-4 (0 and 1 row ahead in one process each)",
                ("nb", "precision", "channel"), (0, 1),
                grouped(results("3_float_confirm/kb_float_*.json"), case, lambda r: r["walk_cross_ahead"], ratio))


def batches_tables():
    print_table("4_batches: kernel time per message / copy time, batch 8, nb = 1, by row tile (rows) and "
                "frequency warps (columns)", ("nb", "precision", "channel", "rows"), (1, 2, 4),
                grouped(results("4_batches/kb_shapes.json"), lambda r: case(r) + (r["exchange_row_tile"],),
                        lambda r: r["frequency_warps"], per_message))
    print_table("4_batches: the same by batch (columns), default shapes", ("nb", "precision", "channel"),
                (6, 8, 10, 12, 16), grouped(results("4_batches/kb_batches.json"), case, lambda r: r["batch"], per_message))
    print("## 4_batches: ring_compare, one rank, paper size, 240 measurements: x floor (ms per measurement)")
    print("| scalar | channel | B = 8 | 10 | 12 | 16 |")
    print("|---|---|---|---|---|---|")
    for scalar in ("double", "mixed"):
        for channel in ("pp_up_down", "ph_transverse"):
            cells = [ring_compare("4_batches/rc_%s_%s_B%d.json" % (scalar, channel, b)) for b in (8, 10, 12, 16)]
            print("| %s | %s | " % (scalar, channel) + " | ".join(cells) + " |")
    print()


def batch_rows_tables():
    rows = grouped(results("5_batch_rows/kb_rows_*.json"), lambda r: case(r) + (r["frequency_warps"],),
                   lambda r: r["exchange_row_tile"], per_message)
    for key in rows:
        rows[key]["change"] = [100 * (sum(rows[key][4]) / sum(rows[key][2]) - 1)]
    print_table("5_batch_rows: kernel time per message / copy time, batch 8, row tile 2 and 4 (rounds 1 / 2), "
                "and the change in % (4 against 2)", ("nb", "precision", "channel", "warps"), (2, 4, "change"), rows)
    print("## 5_batch_rows: ring_compare, double, B = 8: x floor (ms per measurement), rounds 1 / 2")
    print("| channel | before (2 rows) | after (rows4.patch: 4 rows) |")
    print("|---|---|---|")
    for channel in CHANNELS:
        cells = [" / ".join(ring_compare("5_batch_rows/rc_%s_%s_%d.json" % (who, channel, k)) for k in (1, 2))
                 for who in ("before", "after")]
        print("| %s | %s | %s |" % (channel, cells[0], cells[1]))
    print()


def write_batch_summary():
    """batch_summary.json: every batched kernel_bandwidth case of 4_batches and 5_batch_rows with its kernel
    time per message over the copy's (per_message), the fraction of the one-pass floor."""
    rows = []
    for pattern in ("4_batches/kb_*.json", "5_batch_rows/kb_rows_*.json"):
        for name, r in tables_lib.results(HERE, pattern):
            rows.append({"file": os.path.dirname(pattern) + "/" + name, "nb": r["nb"], "precision": r["precision"],
                         "channel": r["channel"], "rows": r["exchange_row_tile"], "warps": r["frequency_warps"],
                         "batch": r["batch"], "per_message": round(per_message(r), 4)})
    with open(os.path.join(HERE, "batch_summary.json"), "w") as out:
        json.dump({"written_by": "make_tables.py", "results": rows}, out, indent=1)


if __name__ == "__main__":
    write_stalls_summary()
    write_batch_summary()
    cross_ahead_tables()
    batches_tables()
    batch_rows_tables()
