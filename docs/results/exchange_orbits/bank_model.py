#!/usr/bin/env python3
"""A model of the exchange-orbit probe's shared-memory loads of cross values (bench/gpu/exchange_orbit_probe.cu):
for each warp of a block and each exchange momentum, the request of its 32 threads is served in phases of
128 / size threads (8 for 16-byte complex<double> values, 16 for 8-byte complex<float>); within a phase, the
distinct slots that fall in the same group of banks take one wavefront each. Prints, and writes to
bank_model.json, the mean wavefronts a phase (1 = no conflict) of the layouts the probe has:

  wrapped   cross table of a spin: 6 columns × 36 rows, row a = k1 + q wrapped around the 6 × 6 torus;
  unwrapped rows at ax = k1x + qx (0..10), ay = k1y + qy (0..6), pitch P per ay, C per column, T per table;

with threads in the probe's two orders ("orbit": k1x, k2x, k1y; "rows": k1, k2x) and 4 exchange frequencies a
block (216 threads each). python3 bank_model.py"""
import json
import os

L, NQ, THREADS = 6, 10, 4 * 216
PITCHES = {16: (14, 100, 600), 8: (22, 164, 984)}  # the probe's UnwrappedPitch


def thread_indices(t, order):
    if order == "rows":
        k1, k2x = t % 36, t // 36 % 6
        return k1 % 6, k1 // 6, k2x, t // 216
    return t % 6, t // 36 % 6, t // 6 % 6, t // 216


def slot(layout, size, k1x, k1y, k2x, omega, iq):
    qx, qy = iq % L, iq // L
    bx = (k2x + qx) % L
    if layout == "wrapped":
        return 432 * (1 + omega) + bx * 36 + (k1x + qx) % L + L * ((k1y + qy) % L)
    p, c, t = PITCHES[size]
    return 432 + 2 * omega * t + bx * c + (k1y + qy) * p + k1x + qx


def wavefronts(layout, order, size):
    lanes = groups = 128 // size
    total = phases = 0
    for warp in range(0, THREADS, 32):
        for iq in range(NQ):
            slots = [slot(layout, size, *thread_indices(t, order), iq) for t in range(warp, min(warp + 32, THREADS))]
            for first in range(0, len(slots), lanes):
                by_group = {}
                for s in set(slots[first:first + lanes]):
                    by_group.setdefault(s % groups, set()).add(s)
                total += max(len(v) for v in by_group.values())
                phases += 1
    return total / phases


if __name__ == "__main__":
    rows = []
    for size, precision in ((16, "double"), (8, "mixed")):
        for layout, order in (("wrapped", "orbit"), ("wrapped", "rows"), ("unwrapped", "rows")):
            rows.append({"precision": precision, "layout": layout, "order": order,
                         "wavefronts_per_phase": round(wavefronts(layout, order, size), 4)})
            print("%-6s %-9s threads in %-5s order: %.3f wavefronts a phase" % (precision, layout, order,
                                                                                rows[-1]["wavefronts_per_phase"]))
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bank_model.json"), "w") as out:
        json.dump({"results": rows}, out, indent=1)
        out.write("\n")
