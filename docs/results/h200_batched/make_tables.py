#!/usr/bin/env python3
"""Prints the tables of docs/results/h200_batched/README.md from the JSON files beside it and the
previous run's (docs/results/h200_final)."""
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
previous = os.path.join(here, "..", "h200_final")
CHANNELS = ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge")


def load(*parts):
    return json.load(open(os.path.join(*parts)))


# Kernel: ratio to the same-run copy, one message and batches of 4 and 8, against the previous run.
before = {(r["nb"], r["precision"], r["channel"]): r["ratio"]
          for r in load(previous, "h200_kernel_bandwidth_final.json")["results"]}
now = {}
for r in load(here, "final", "kernel_bandwidth.json")["results"]:
    now[(r["nb"], r["precision"], r["channel"], r["batch"])] = r
print("| nb | precision | channel | B = 1 before | B = 1 now | rows (B = 1) | B = 4 | B = 8 | rows (B > 1) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for nb in (1, 2):
    for precision in ("double", "float", "mixed"):
        for channel in CHANNELS:
            one, four, eight = (now[(nb, precision, channel, b)] for b in (1, 4, 8))
            rows_one = "warp tiles" if one["warp_tile_kernel"] else str(one["exchange_row_tile"])
            print(f"| {nb} | {precision} | {channel} | {before[(nb, precision, channel)]:.3f} | {one['ratio']:.3f} | "
                  f"{rows_one} | {four['ratio']:.3f} | {eight['ratio']:.3f} | {eight['exchange_row_tile']} |")
print()

# ring_compare on one rank at the paper size, × the floor: B = 1 and the default batch, against the
# previous run (its B = 1 and its default: B = 4 for double, B = 8 for mixed, the best it measured).
print("| scalar | channel | B = 1 before | B = 1 now | default B before | × floor before | default B now | × floor now | ms now | work space GiB |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for scalar, old_default in (("double", 4), ("mixed", 8)):
    for channel in CHANNELS:
        b1_old = load(previous, f"rc_p1_{scalar}_B1_{channel}.json")["runs"][0]
        bd_old = load(previous, f"rc_p1_{scalar}_B{old_default}_{channel}.json")["runs"][0]
        b1 = load(here, "final", f"rc_p1_{scalar}_B1_{channel}.json")["runs"][0]
        bd = load(here, "final", f"rc_p1_{scalar}_Bdefault_{channel}.json")["runs"][0]
        print(f"| {scalar} | {channel} | {b1_old['fraction_of_floor']:.3f} | {b1['fraction_of_floor']:.3f} | "
              f"{bd_old['gt_batch']} | {bd_old['fraction_of_floor']:.3f} | {bd['gt_batch']} | "
              f"{bd['fraction_of_floor']:.3f} | {bd['seconds_per_measurement'] * 1e3:.3f} | "
              f"{bd['gt_work_bytes_per_rank'] / 2**30:.2f} |")
print()

# The earlier run (kernel grouping momenta by frequency): every batch, and --verify-sample.
print("| scalar | channel | B = 1 | B = 4 | B = 8 |")
print("| --- | --- | --- | --- | --- |")
for scalar in ("double", "mixed"):
    for channel in CHANNELS:
        cells = [load(here, "earlier_run", f"rc_p1_{scalar}_B{b}_{channel}.json")["runs"][0]["fraction_of_floor"]
                 for b in (1, 4, 8)]
        print(f"| {scalar} | {channel} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
print()
print("| file | transport | ranks | sampled entries | largest relative error | × floor |")
print("| --- | --- | --- | --- | --- | --- |")
for name in ("rc_p1_verify_double", "rc_p1_verify_mixed", "rc_p2_verify_double", "rc_p2_verify_mixed"):
    for run in load(here, "earlier_run", name + ".json")["runs"]:
        print(f"| earlier_run/{name}.json | {run['transport']} | {run['ranks']} | {run['sample_entries']} | "
              f"{run['sample_max_relative_error']:.3g} | {run['fraction_of_floor']:.3f} |")
