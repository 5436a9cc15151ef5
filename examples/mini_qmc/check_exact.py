#!/usr/bin/env python3
"""Compares a mini_qmc run with exact diagonalisation of the same Hubbard cluster.

For clusters of at most 4 sites the full Fock space (4^Nc states) is diagonalised and the thermal
density and double occupancy are printed next to the values of mini_qmc's --summary JSON. The QMC
values differ by the Trotter error, O(dtau^2), and by statistical noise; a walker whose Metropolis
update were wrong would miss by far more. Needs numpy.

Usage: check_exact.py INPUT.json SUMMARY.json
"""
import argparse
import json
import sys

import numpy as np


def hopping_matrix(lx, ly, t, mu):
    """K = sum_k (eps_k - mu) |k><k| in real space, eps_k = -2t sum_d cos k_d (as hubbard_model.cpp)."""
    n = lx * ly
    k_matrix = np.zeros((n, n))
    for k in range(n):
        kx, ky = 2 * np.pi * (k % lx) / lx, 2 * np.pi * (k // lx) / ly
        eps = -2 * t * ((np.cos(kx) if lx > 1 else 0) + (np.cos(ky) if ly > 1 else 0)) - mu
        for i in range(n):
            for j in range(n):
                dx, dy = i % lx - j % lx, i // lx - j // lx
                k_matrix[i, j] += eps * np.cos(kx * dx + ky * dy) / n
    return k_matrix


def exact_observables(lx, ly, t, u, mu, beta):
    sites = lx * ly
    modes = 2 * sites  # mode i: site i spin up, sites + i: spin down
    dim = 2 ** modes
    annihilators = []
    for m in range(modes):
        c = np.zeros((dim, dim))
        for state in range(dim):
            if state >> m & 1:
                c[state ^ (1 << m), state] = (-1) ** bin(state & ((1 << m) - 1)).count("1")  # Jordan-Wigner
        annihilators.append(c)
    number = [c.T @ c for c in annihilators]
    one = np.eye(dim)
    kinetic = hopping_matrix(lx, ly, t, mu)
    h = sum(kinetic[i, j] * annihilators[s * sites + i].T @ annihilators[s * sites + j]
            for s in range(2) for i in range(sites) for j in range(sites))
    h = h + sum(u * (number[i] - one / 2) @ (number[sites + i] - one / 2) for i in range(sites))
    energies, vectors = np.linalg.eigh(h)
    weights = np.exp(-beta * (energies - energies.min()))
    weights /= weights.sum()

    def thermal(op):
        return float(np.sum(weights * np.einsum("ji,jk,ki->i", vectors, op, vectors)))

    density = sum(thermal(n) for n in number) / sites
    double_occupancy = sum(thermal(number[i] @ number[sites + i]) for i in range(sites)) / sites
    return density, double_occupancy


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\nUsage")[0])
    parser.add_argument("input", help="mini_qmc's JSON input file")
    parser.add_argument("summary", help="the JSON summary mini_qmc wrote (--summary)")
    args = parser.parse_args()
    model = json.load(open(args.input))["model"]
    qmc = json.load(open(args.summary))
    lx, ly = model.get("Lx", 2), model.get("Ly", 2)
    if lx * ly > 4:
        sys.exit(f"check_exact.py: a {lx}x{ly} cluster is too large for exact diagonalisation here (at most 4 sites)")
    density, double_occupancy = exact_observables(lx, ly, model.get("t", 1.0), model.get("U", 4.0),
                                                  model.get("mu", 0.0), model.get("beta", 2.0))
    dtau = model.get("beta", 2.0) / model.get("time_slices", 16)
    print(f"{lx}x{ly} cluster, U={model.get('U', 4.0)}, mu={model.get('mu', 0.0)}, beta={model.get('beta', 2.0)}, "
          f"dtau={dtau:g}; {qmc['measurements']} measurements")
    print(f"{'':18}{'exact':>10}{'mini_qmc':>10}{'difference':>12}")
    for name, exact in (("density", density), ("double occupancy", double_occupancy)):
        print(f"{name:18}{exact:10.5f}{qmc[name.replace(' ', '_')]:10.5f}{qmc[name.replace(' ', '_')] - exact:12.5f}")


if __name__ == "__main__":
    main()
