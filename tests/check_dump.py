#!/usr/bin/env python3
"""Recomputes G_t from a ring_compare --dump folder with numpy and checks the dumped results.

    python3 tests/check_dump.py DIR

Uses only what the dump holds (meta.json and the .npy files) and the channel formulas written out
below, independently of ringcomm's code. Exit status 0 when gt.npy (the ring's G_t) and
gt_original.npy are both there and agree with the recomputation.

Conventions (see meta.json "conventions"): G_sigma's row/column i = b + nb*k + nb*Nc*w on the
extended frequency axis of Nw_ext = 2n + 2E points, where G_t's frequency w sits at w + E; momenta
k = kx + Lx*ky on the periodic cluster; g_up[m, i, j] = G_up[i, j]; gt[iOmega, iQ, w2, k2, w1, k1,
b4, b3, b2, b1]. With s the measurement's sign, for exchange momentum Q and bosonic frequency Omega:

  pp_up_down:    s/2 sum_sigma G_sigma(b1 k1 w1; b3 k2 w2) G_-sigma(b2 Q-k1 Omega-w1; b4 Q-k2 Omega-w2)
  ph_transverse: -s/2 sum_sigma G_sigma(b2 k1 w1; b4 k2 w2) G_-sigma(b3 k2+Q w2+Omega; b1 k1+Q w1+Omega)
  ph_magnetic:   s/2 [ D(b2 k1 w1; b1 k1+Q w1+Omega) D(b3 k2+Q w2+Omega; b4 k2 w2)
                       - sum_sigma G_sigma(b3 k1 w1; b1 k2 w2) G_sigma(b2 k2+Q w2+Omega; b4 k1+Q w1+Omega) ]
  ph_charge:     s/2 [ S(b2 k1 w1; b1 k1+Q w1+Omega) S(b3 k2+Q w2+Omega; b4 k2 w2)
                       - sum_sigma G_sigma(b1 k1 w1; b4 k2 w2) G_sigma(b2 k2+Q w2+Omega; b3 k1+Q w1+Omega) ]

with D = G_up - G_down, S = G_up + G_down, and the fermionic index of Omega - w being
Omega + 2n - 1 - w (frequencies are symmetric about zero).
"""
import json
import os
import sys

import numpy as np


def load(folder, name, meta):
    entry = meta["files"][name]
    array = np.load(os.path.join(folder, entry["file"]))
    if list(array.shape) != entry["shape"] or array.dtype != np.dtype(entry["dtype"]):
        raise SystemExit(f"{entry['file']}: shape {array.shape} dtype {array.dtype}, meta.json says "
                         f"{entry['shape']} {entry['dtype']}")
    return array


def cluster_tables(lx, ly):
    """add[q, k] = k + q and sub[q, k] = q - k, from the coordinates of k and q."""
    k = np.arange(lx * ly)
    kx, ky = k % lx, k // lx
    add = (kx[None, :] + kx[:, None]) % lx + lx * ((ky[None, :] + ky[:, None]) % ly)
    sub = (kx[:, None] - kx[None, :]) % lx + lx * ((ky[:, None] - ky[None, :]) % ly)
    return add, sub


def recompute(meta, g_up, g_down, signs):
    d = meta["dims"]
    nb, nc, n, e, nw_ext = d["nb"], d["Nc"], d["n_freq"], d["E"], d["Nw_ext"]
    momenta = np.array(d["exchange_momenta"])
    frequencies = np.array(d["exchange_frequencies"])
    add, sub = cluster_tables(d["Lx"], d["Ly"])

    # One index array per G_t axis, broadcast against each other: gt[iW, iQ, w2, k2, w1, k1, b4, b3, b2, b1].
    shape = (len(frequencies), len(momenta), n, nc, n, nc, nb, nb, nb, nb)
    iw, iq, w2, k2, w1, k1, b4, b3, b2, b1 = np.ix_(*[np.arange(extent) for extent in shape])
    big_w, q = frequencies[iw], momenta[iq]

    def at(g, b, k, w, bp, kp, wp):
        """G[(b,k,w), (b',k',w')] of matrices g[..., M, M] (rows i), w on G_t's frequency axis."""
        return g[..., w + e, k, b, wp + e, kp, bp]

    gt = np.zeros(shape, dtype=np.complex128)
    for up, down, sign in zip(g_up, g_down, signs):
        # Row i = b + nb*k + nb*Nc*w, so in C order a row splits into (w, k, b).
        up = up.astype(np.complex128).reshape(nw_ext, nc, nb, nw_ext, nc, nb)
        down = down.astype(np.complex128).reshape(nw_ext, nc, nb, nw_ext, nc, nb)
        channel = meta["channel"]
        if channel == "pp_up_down":
            k1c, k2c = sub[q, k1], sub[q, k2]
            w1c, w2c = big_w + n - 1 - w1, big_w + n - 1 - w2
            term = sum(at(a, b1, k1, w1, b3, k2, w2) * at(c, b2, k1c, w1c, b4, k2c, w2c)
                       for a, c in ((up, down), (down, up)))
        else:
            k1p, k2p = add[q, k1], add[q, k2]
            w1p, w2p = w1 + big_w, w2 + big_w
            if channel == "ph_transverse":
                term = -sum(at(a, b2, k1, w1, b4, k2, w2) * at(c, b3, k2p, w2p, b1, k1p, w1p)
                            for a, c in ((up, down), (down, up)))
            elif channel in ("ph_magnetic", "ph_charge"):
                combined = up - down if channel == "ph_magnetic" else up + down
                bubble = at(combined, b2, k1, w1, b1, k1p, w1p) * at(combined, b3, k2p, w2p, b4, k2, w2)
                if channel == "ph_magnetic":
                    exchange = sum(at(g, b3, k1, w1, b1, k2, w2) * at(g, b2, k2p, w2p, b4, k1p, w1p) for g in (up, down))
                else:
                    exchange = sum(at(g, b1, k1, w1, b4, k2, w2) * at(g, b2, k2p, w2p, b3, k1p, w1p) for g in (up, down))
                term = bubble - exchange
            else:
                raise SystemExit(f"unknown channel {channel!r}")
        gt += 0.5 * sign * term
    return gt


def relative_max_error(result, reference):
    scale = np.abs(reference).max()
    return np.abs(result.astype(np.complex128) - reference).max() / (scale if scale > 0 else 1.0)


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(sys.argv) == 2 else 2
    folder = sys.argv[1]
    with open(os.path.join(folder, "meta.json")) as f:
        meta = json.load(f)
    d = meta["dims"]
    g_up, g_down = load(folder, "g_up", meta), load(folder, "g_down", meta)
    signs = load(folder, "signs", meta)
    if not np.all(np.isin(signs, (-1.0, 1.0))):
        raise SystemExit(f"signs must be +1 or -1: {signs}")
    add, sub = cluster_tables(d["Lx"], d["Ly"])
    if not (np.array_equal(load(folder, "add", meta), add) and np.array_equal(load(folder, "sub", meta), sub)):
        raise SystemExit("add.npy / sub.npy differ from the cluster's k + q / q - k")

    expected = recompute(meta, g_up, g_down, signs)
    # The tolerances of ringcomm/gt/tolerance.hpp, keyed by the type G_t is summed in: complex<double>
    # (double, and mixed precision whose dumped G_sigma are the rounded ones the ring carried) 1e-12,
    # complex<float> 5e-6.
    tolerance = 1e-12 if np.dtype(meta["files"]["gt_original"]["dtype"]) == np.complex128 else 5e-6
    failed = False
    for name in ("gt", "gt_original"):
        if name not in meta["files"]:  # a dump without a result checks nothing: that is a failure
            print(f"{name}: missing from the dump (meta.json lists {sorted(meta['files'])}): FAILED")
            failed = True
            continue
        error = relative_max_error(load(folder, name, meta), expected)
        ok = bool(error <= tolerance)  # NaN fails
        failed |= not ok
        print(f"{name}: max|diff| / max|G_t| = {error:.3e} ({'ok' if ok else 'FAILED'}, tolerance {tolerance:g}); "
              f"channel {meta['channel']}, {len(signs)} measurements, G_t shape {expected.shape}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
