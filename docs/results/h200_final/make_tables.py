#!/usr/bin/env python3
"""Prints the tables of docs/results/h200_final/README.md from the JSON files beside it."""
import glob
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
# The previous session's kernel, measured in this session's first device call (baseline/run.sh.txt).
baseline = {}
for precision, nb in (("double", 1), ("float", 1), ("double", 2)):
    for r in json.load(open(os.path.join(here, "baseline", f"kb_nb{nb}_{precision}.json")))["results"]:
        baseline.setdefault((precision, nb), {})[r["channel"]] = round(r["ratio"], 3)
kernel = json.load(open(os.path.join(here, "h200_kernel_bandwidth_final.json")))
print("| nb | precision | channel | ratio before | ratio now | kernel GB/s | copy GB/s |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for r in kernel["results"]:
    before = baseline.get((r["precision"], r["nb"]), {}).get(r["channel"])
    print(f"| {r['nb']} | {r['precision']} | {r['channel']} | {before if before is not None else '-'} | "
          f"{r['ratio']:.3f} | {r['kernel_GBps']:.0f} | {r['copy_GBps']:.0f} |")
print()
print("| scalar | B | channel | ms / measurement | × floor |")
print("| --- | --- | --- | --- | --- |")
for scalar in ("double", "mixed"):
    for batch in (1, 4, 8):
        for channel in ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge"):
            path = os.path.join(here, f"rc_p1_{scalar}_B{batch}_{channel}.json")
            run = json.load(open(path))["runs"][0]
            print(f"| {scalar} | {run['gt_batch']} | {channel} | {run['seconds_per_measurement'] * 1e3:.3f} | "
                  f"{run['fraction_of_floor']:.3f} |")
