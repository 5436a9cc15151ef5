#!/usr/bin/env python3
"""Collects the cells that the fault_phase_* tests (tests/fault_phases.cmake) left in
<build>/tests/fault_phases/ into the phase table: JSON and Markdown.

    ctest --test-dir build/cpu -L fault_phase
    python3 tests/fault_phase_table.py build/cpu/tests/fault_phases docs/results/fault_phases_cpu
"""
import glob
import json
import os
import sys

PHASES = ["start-up", "set-up", "ring-step", "reduction", "gather", "checkpoint-restore", "checkpoint-save",
          "mpi-io-write"]
TRANSPORTS = ["mpi", "host", "ucx"]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    cells_dir, out = sys.argv[1], sys.argv[2]
    cells = {}
    for path in sorted(glob.glob(os.path.join(cells_dir, "*.json"))):
        with open(path) as f:
            cell = json.load(f)
        cells[(cell["phase"], cell["transport"])] = cell
    if not cells:
        sys.exit(f"no cells in {cells_dir}: run ctest -L fault_phase first")
    timeout = next(iter(cells.values()))["timeout_s"]
    rows = []
    lines = [
        "# Phase table: a rank stopped in each phase, per CPU transport",
        "",
        "One rank (world rank 1) stops on entering the phase (its thread blocks for good, its watchdog stands "
        f"down); RINGCOMM_TIMEOUT={timeout} s. "
        "Each cell: seconds from the stop to the end of the job, and whether ringcomm detected it (every "
        "other rank reported, at least one timing out in that phase). Limit: timeout + 5 s.",
        "",
        "Made by: `ctest --test-dir build/cpu -L fault_phase && python3 tests/fault_phase_table.py "
        "build/cpu/tests/fault_phases docs/results/fault_phases_cpu` (cpu preset, 2-core machine, "
        "Open MPI 4.1.4, UCX 1.13).",
        "",
        "| phase | " + " | ".join(TRANSPORTS) + " |",
        "| --- |" + " --- |" * len(TRANSPORTS),
    ]
    for phase in PHASES:
        cols = []
        for transport in TRANSPORTS:
            cell = cells.get((phase, transport))
            if cell is None:
                cols.append("not run")
                continue
            rows.append(cell)
            ok = cell["verdict"] == "detected by ringcomm"
            cols.append(f"{'detected' if ok else 'NOT detected'} in {cell['job_ended_after_s']} s")
        lines.append(f"| {phase} | " + " | ".join(cols) + " |")
    lines += ["", "Commands of each cell: fault_phases_cpu.json (`command`)."]
    with open(out + ".json", "w") as f:
        json.dump({"command": "ctest --test-dir build/cpu -L fault_phase && python3 tests/fault_phase_table.py "
                              "build/cpu/tests/fault_phases docs/results/fault_phases_cpu",
                   "cells": rows}, f, indent=1)
        f.write("\n")
    with open(out + ".md", "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
