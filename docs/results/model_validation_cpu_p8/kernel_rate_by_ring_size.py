#!/usr/bin/env python3
"""Kernel rate per G_t entry at each ring size of a ring_compare JSON (host time in consumes, from the
run's counters): the model uses one rate, fitted at S = 1.
Usage: kernel_rate_by_ring_size.py ring_compare_p8_lock-step.json"""
import json
import sys

for run in json.load(open(sys.argv[1]))["runs"]:
    counters = run["counters"][0] if isinstance(run["counters"], list) else run["counters"]
    S, rounds = run["ring_size"], run["rounds"]
    per_consume = counters["compute_seconds_max"] / rounds / S
    entries = run["gt_entries"] / S
    print(f"S={S}: {entries:.0f} entries per slice, {per_consume * 1e3:.3f} ms per consume, "
          f"{entries / per_consume / 1e6:.1f} Mentries/s")
