#!/usr/bin/env python3
"""Prints the tables of docs/results/h200_diagonal_warps/README.md from the JSON files beside it and
the previous run's (docs/results/h200_batched/final):

    python3 docs/results/h200_diagonal_warps/make_tables.py
"""
import collections
import json
import os

here = os.path.dirname(os.path.abspath(__file__))
previous = os.path.join(here, "..", "h200_batched", "final")
CHANNELS = ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge")


def load(*parts):
    return json.load(open(os.path.join(*parts)))


def kernel_rows(*parts):
    return {(r["nb"], r["precision"], r["channel"], r["batch"]): r for r in load(*parts)["results"]}


# The variants of exploration/2_frequency_warps: the best row tile with 1 frequency warp (as before)
# against the best with 2 or 4, batches of 8.
print("| nb | precision | channel | best, 1 warp | best, 2 or 4 warps | gain |")
print("| --- | --- | --- | --- | --- | --- |")
best = collections.defaultdict(dict)
for precision in ("double", "mixed", "float"):
    for warps in (1, 2, 4):
        for r in load(here, "exploration", "2_frequency_warps", f"s{warps}_{precision}.json")["results"]:
            if r["batch"] != 8:
                continue
            key = (r["nb"], precision, r["channel"])
            group = 1 if warps == 1 else 2
            if r["ratio"] > best[key].get(group, (0,))[0]:
                best[key][group] = (r["ratio"], r["exchange_row_tile"], warps)
for key in sorted(best, key=lambda k: (k[0], ("double", "mixed", "float").index(k[1]), CHANNELS.index(k[2]))):
    (a, ra, _), (b, rb, wb) = best[key][1], best[key][2]
    print(f"| {key[0]} | {key[1]} | {key[2]} | {a:.3f} ({ra} rows) | {b:.3f} ({rb} rows, {wb} warps) | "
          f"{100 * (b / a - 1):+.0f} % |")
print()

# kernel_bandwidth with the committed defaults (committed/), against the previous run.
before = kernel_rows(previous, "kernel_bandwidth.json")
now = kernel_rows(here, "committed", "kernel_bandwidth.json")
print("| nb | precision | channel | B = 1 before | B = 1 now | rows (B = 1) | B = 8 before | B = 8 now | rows, warps (B = 8) |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for nb in (1, 2):
    for precision in ("double", "float", "mixed"):
        for channel in CHANNELS:
            k = (nb, precision, channel)
            one, eight = now[k + (1,)], now[k + (8,)]
            rows_one = "warp tiles" if one["warp_tile_kernel"] else str(one["exchange_row_tile"])
            print(f"| {nb} | {precision} | {channel} | {before[k + (1,)]['ratio']:.3f} | {one['ratio']:.3f} | "
                  f"{rows_one} | {before[k + (8,)]['ratio']:.3f} | {eight['ratio']:.3f} | "
                  f"{eight['exchange_row_tile']}, {eight['frequency_warps']} |")
print()

def ring_compare(folder, scalar, batch, channel):
    """The one run of a ring_compare JSON file rc_p1_<scalar>_B<batch>_<channel>.json in `folder`."""
    return load(folder, f"rc_p1_{scalar}_B{batch}_{channel}.json")["runs"][0]


def gib(run):
    return f"{run['gt_work_bytes_per_rank'] / 2**30:.2f}"


SCALAR_CHANNELS = [(scalar, channel) for scalar in ("double", "mixed") for channel in CHANNELS]

# ring_compare, one rank, paper size, × floor: B = 1 (final/: the single-message kernel is the same
# code as committed/) and the default batch (committed/), before and now.
print("| scalar | channel | B = 1 before | B = 1 now | default B before | × floor before | default B now | × floor now | ms now | work space GiB |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for scalar, channel in SCALAR_CHANNELS:
    old = [ring_compare(previous, scalar, b, channel) for b in ("1", "default")]
    one = ring_compare(os.path.join(here, "final"), scalar, "1", channel)
    default = ring_compare(os.path.join(here, "committed"), scalar, "default", channel)
    print(f"| {scalar} | {channel} | {old[0]['fraction_of_floor']:.3f} | {one['fraction_of_floor']:.3f} | "
          f"{old[1]['gt_batch']} | {old[1]['fraction_of_floor']:.3f} | {default['gt_batch']} | "
          f"{default['fraction_of_floor']:.3f} | {default['seconds_per_measurement'] * 1e3:.3f} | {gib(default)} |")
print()

# The batch sweep that chose the default (batches/; see the README for which code ran there).
print("| scalar | channel | B = 4 | B = 8 | B = 16 | work space GiB at 8 | at 16 |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for scalar, channel in SCALAR_CHANNELS:
    sweep = [ring_compare(os.path.join(here, "batches"), scalar, b, channel) for b in (4, 8, 16)]
    cells = [f"{run['fraction_of_floor']:.3f}" for run in sweep] + [gib(sweep[1]), gib(sweep[2])]
    print(f"| {scalar} | {channel} | " + " | ".join(cells) + " |")
print()

print("| file | ranks | batch | sampled entries | largest relative error | × floor |")
print("| --- | --- | --- | --- | --- | --- |")
for name in ("rc_p1_verify_double", "rc_p1_verify_mixed"):
    for run in load(here, "final", name + ".json")["runs"]:
        if run["transport"] == "original":
            continue
        print(f"| final/{name}.json | {run['ranks']} | {run['gt_batch']} | {run['sample_entries']} | "
              f"{run['sample_max_relative_error']:.3g} | {run['fraction_of_floor']:.3f} |")
print()

# exploration/1_loads_first: G_t loaded before the G_σ reads, best row tile of each.
print("| nb | precision | channel | B | best, terms first | best, loads first |")
print("| --- | --- | --- | --- | --- | --- |")
for precision in ("double", "mixed", "float"):
    cells = collections.defaultdict(dict)
    for order in ("off", "on"):
        for r in load(here, "exploration", "1_loads_first", f"{order}_{precision}.json")["results"]:
            key = (r["nb"], r["channel"], r["batch"])
            if r["ratio"] > cells[key].get(order, (0,))[0]:
                cells[key][order] = (r["ratio"], r["exchange_row_tile"])
    for nb in (1, 2):
        for channel in CHANNELS:
            for batch in (1, 8):
                (a, ra), (b, rb) = cells[(nb, channel, batch)]["off"], cells[(nb, channel, batch)]["on"]
                print(f"| {nb} | {precision} | {channel} | {batch} | {a:.3f} ({ra} rows) | {b:.3f} ({rb} rows) |")
