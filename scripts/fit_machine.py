#!/usr/bin/env python3
"""Machine rates for ringcomm-model from benchmark JSON.

  latency and bandwidth: least-squares fit of t = alpha + bytes / beta to the ring step times of
                         bench/ring_overhead (ring_seconds) or bench/ring_bandwidth (seconds_per_step
                         of the "ring" variant) over message sizes;
  kernel rate, walker:   from a ring_compare run with S = 1 (no exchange): its counters give the
                         G_t entries updated per second of compute, the rest of a round is the walker.

Prints ringcomm-model options (or --json), e.g.
  ringcomm-model $(python3 scripts/fit_machine.py --link ring_overhead.json --compute rc.json) \\
      --message-bytes 2097168 --gt-entries 262144
"""
import argparse
import json
import sys


def fit_link(path, min_bytes=0):
    """(alpha seconds, beta bytes/s) from a ring_overhead or ring_bandwidth JSON file."""
    with open(path) as f:
        data = json.load(f)
    points = []
    for row in data.get("results", []):
        if row["bytes"] < min_bytes:
            continue
        if "ring_seconds" in row:
            points.append((row["bytes"], row["ring_seconds"]))
        elif "variants" in row:
            for variant in row["variants"].values():
                if variant.get("role") == "ring":
                    points.append((row["bytes"], variant["seconds_per_step"]))
    if len(points) < 2:
        raise SystemExit(f"{path}: fewer than two message sizes to fit latency and bandwidth")
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sum((x - mean_x) ** 2 for x, _ in points)
    alpha = max(0.0, mean_y - slope * mean_x)
    return alpha, 1.0 / slope


def fit_compute(path):
    """(kernel entries/s, walker seconds) from a ring_compare JSON file's S = 1 ring run."""
    with open(path) as f:
        data = json.load(f)
    for run in data["runs"]:
        if run["transport"] == "original" or run["ring_size"] != 1 or not run.get("counters"):
            continue
        threads = run["counters"]
        compute = max(t["compute_seconds_mean"] for t in threads)
        entries = sum(t["rounds"] for t in threads) * run["gt_entries"]
        rounds = max(t["rounds"] for t in threads)
        walker = max(0.0, run["seconds"] / rounds - compute / rounds) / len(threads)
        return entries / compute, walker
    raise SystemExit(f"{path}: no ring run with ring_size 1 and counters")


def kernel_rate(path, channel="pp_up_down", row_tile=None):
    """G_t entries per second of one kernel launch over the whole G_t, from a kernel_bandwidth JSON file
    (the fastest exchange row tile unless row_tile is given). Where kernels run asynchronously (GPUs),
    ring_compare's host-side counters see only their launch, so this is the rate to use there."""
    with open(path) as f:
        data = json.load(f)
    # Newer files give each result its own shape ("entries") and batch; one message per pass only.
    rows = [r for r in data["results"] if r["channel"] == channel and r.get("batch", 1) == 1 and
            (row_tile is None or r.get("exchange_row_tile", 1) == row_tile)]
    if not rows:
        raise SystemExit(f"{path}: no {channel} result")
    return max(r.get("entries", data.get("entries")) / r["kernel_seconds"] for r in rows)


def walker_seconds(path, rate):
    """t_walker of a ring_compare S = 1 run given the kernel rate: its time per measurement less one
    consume of the whole G_t."""
    with open(path) as f:
        data = json.load(f)
    for run in data["runs"]:
        if run["transport"] != "original" and run["ring_size"] == 1:
            return max(0.0, run["seconds_per_measurement"] - run["gt_entries"] / rate)
    raise SystemExit(f"{path}: no ring run with ring_size 1")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--link", help="ring_overhead or ring_bandwidth JSON")
    parser.add_argument("--min-bytes", type=int, default=0, help="fit only message sizes >= this")
    parser.add_argument("--compute", help="ring_compare JSON with an S = 1 ring run")
    parser.add_argument("--json", action="store_true", help="print the rates as JSON instead of options")
    args = parser.parse_args()
    rates = {}
    if args.link:
        rates["latency"], rates["bandwidth"] = fit_link(args.link, args.min_bytes)
    if args.compute:
        rates["kernel-rate"], rates["walker-seconds"] = fit_compute(args.compute)
    if not rates:
        parser.error("give --link and/or --compute")
    if args.json:
        print(json.dumps(rates, indent=2))
    else:
        print(" ".join(f"--{k} {v:.6g}" for k, v in rates.items()))


if __name__ == "__main__":
    sys.exit(main())
