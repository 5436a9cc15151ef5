#!/usr/bin/env python3
"""Turns the JSON written by ringcomm's benchmarks into PNG plots.

    python3 bench/plot.py --out docs/results pingpong.json ring_bandwidth.json kernel_bandwidth.json overlap.json

Each file is recognised by its metadata.program and gives, named after the file (NAME.json):
  pingpong          -> NAME_latency.png, NAME_bandwidth.png
  ring_bandwidth    -> NAME.png (GB/s), NAME_ratio.png (x raw NCCL)
  kernel_bandwidth  -> NAME.png
  overlap           -> NAME.png: overlap efficiency (compute, comm, their max, overlap and lock-step per
                       transport) and the walker threads' speed-up
Needs matplotlib (pip install matplotlib).
"""
import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")  # files only; no display needed
import matplotlib.pyplot as plt  # noqa: E402

MIB = 1 << 20


def size_label(nbytes):
    for unit, scale in (("GiB", 1 << 30), ("MiB", MIB), ("KiB", 1 << 10)):
        if nbytes >= scale:
            value = nbytes / scale
            return f"{value:g} {unit}"
    return f"{nbytes} B"


def subtitle(data):
    meta = data.get("metadata", {})
    hosts = meta.get("hosts") or meta.get("host") or ""
    if isinstance(hosts, list):
        hosts = ", ".join(sorted(set(hosts)))
    return f"{meta.get('utc') or meta.get('date') or ''} {hosts}".strip()


def size_axis(ax, sizes):
    ax.set_xscale("log", base=2)
    ticks = sizes if len(sizes) <= 12 else sizes[:: max(1, len(sizes) // 10)]
    ax.set_xticks(ticks)
    ax.set_xticklabels([size_label(s) for s in ticks], rotation=45, ha="right")
    ax.set_xlabel("message size")


def save(fig, out_dir, name):
    path = os.path.join(out_dir, name)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    print(f"wrote {path}")


def plot_pingpong(data, out_dir, stem):
    measured = [t for t in data["transports"] if "results" in t]
    for key, ylabel, name, log_y in (
        ("latency_us", "latency (us, half round trip)", f"{stem}_latency.png", True),
        ("bandwidth_GBps", "bandwidth (GB/s, one direction)", f"{stem}_bandwidth.png", False),
    ):
        fig, ax = plt.subplots(figsize=(8, 5))
        sizes = []
        for t in measured:
            xs = [r["bytes"] for r in t["results"]]
            sizes = sorted(set(sizes) | set(xs))
            ax.plot(xs, [r[key] for r in t["results"]], marker="o", markersize=3, label=t["transport"])
        size_axis(ax, sizes)
        if log_y:
            ax.set_yscale("log")
        ax.set_ylabel(ylabel)
        ax.set_title(f"pingpong ({data.get('memory', '')} to {data.get('memory', '')})\n{subtitle(data)}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
        save(fig, out_dir, name)


def plot_ring_bandwidth(data, out_dir, stem):
    if "results" not in data:
        print(f"ring_bandwidth: nothing to plot ({data.get('skipped', 'no results')})", file=sys.stderr)
        return
    rows = data["results"]
    sizes = [r["bytes"] for r in rows]
    names = list(rows[0]["variants"].keys())
    styles = {"baseline": dict(linewidth=3, color="black"), "transport": dict(linewidth=2), "ceiling": dict(linestyle="--", linewidth=1)}
    for key, ylabel, name in (("GBps", "GB/s per rank and direction", f"{stem}.png"),
                              ("ratio_to_raw_nccl", "bandwidth / raw NCCL ring", f"{stem}_ratio.png")):
        fig, ax = plt.subplots(figsize=(9, 5.5))
        for n in names:
            role = rows[0]["variants"][n]["role"]
            ys = [r["variants"][n][key] for r in rows]
            ax.plot(sizes, ys, marker="o", markersize=3, label=f"{n} ({role})", **styles.get(role, {}))
        if key == "ratio_to_raw_nccl":
            for level, text in ((0.95, "nccl target 0.95"), (1.2, "1.2x target")):
                ax.axhline(level, color="grey", linewidth=0.8, linestyle=":")
                ax.text(sizes[0], level, text, fontsize=7, va="bottom")
        ax.axvline(170 * MIB, color="grey", linewidth=0.8, linestyle=":")
        size_axis(ax, sizes)
        ax.set_ylabel(ylabel)
        ax.set_title(f"one ring step ({data.get('ring', '')})\n{subtitle(data)}")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        save(fig, out_dir, name)


def plot_kernel_bandwidth(data, out_dir, stem):
    rows = data["results"]
    channels = [r["channel"] for r in rows]
    xs = range(len(rows))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    width = 0.38
    ax.bar([x - width / 2 for x in xs], [r["kernel_GBps"] for r in rows], width, label="G_t kernel (counted bytes)")
    ax.bar([x + width / 2 for x in xs], [r["copy_GBps"] for r in rows], width, label="device-to-device copy")
    for x, r in zip(xs, rows):
        ax.text(x - width / 2, r["kernel_GBps"], f"{r['ratio']:.2f}x", ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(xs))
    ax.set_xticklabels(channels)
    ax.set_ylabel("GB/s")
    ax.set_title(f"G_t kernel vs HBM copy ({data.get('precision', '')}, {data.get('entries', '')} entries)\n{subtitle(data)}")
    ax.legend()
    ax.grid(True, axis="y", alpha=0.3)
    save(fig, out_dir, f"{stem}.png")


def plot_overlap(data, out_dir, stem):
    runs = data.get("transports", [])
    if not runs:
        print(f"overlap: nothing to plot (skipped: {data.get('skipped')})", file=sys.stderr)
        return
    fig, (times, threads) = plt.subplots(1, 2, figsize=(12, 5), gridspec_kw={"width_ratios": [3, 2]})
    bars = (("compute", "compute only"), ("communication", "communication only"),
            ("max_compute_communication", "max(compute, comm)"), ("overlap", "overlap ring"),
            ("lock_step", "lock-step ring"))
    width = 0.8 / len(bars)
    for i, (key, label) in enumerate(bars):
        xs = [t + (i - (len(bars) - 1) / 2) * width for t in range(len(runs))]
        times.bar(xs, [r["seconds_per_measurement"][key] * 1e3 for r in runs], width, label=label)
    overlap_offset = ([key for key, _ in bars].index("overlap") - (len(bars) - 1) / 2) * width
    for t, r in enumerate(runs):
        bound = r["seconds_per_measurement"]["max_compute_communication"] * 1e3
        times.hlines(bound * r["target"], t - 0.45, t + 0.45, colors="black", linestyles="--", linewidth=0.8)
        times.text(t + overlap_offset, r["seconds_per_measurement"]["overlap"] * 1e3, f"{r['overlap_over_max']:.2f}x",
                   ha="center", va="bottom", fontsize=8)
    times.set_xticks(list(range(len(runs))))
    times.set_xticklabels([f"{r['transport']}\n({r['overlap_schedule']})" for r in runs])
    times.set_ylabel("ms per measurement (median)")
    times.set_title(f"overlap efficiency (dashed: target {runs[0]['target']} x max; label: overlap / max)")
    times.grid(True, axis="y", alpha=0.3)
    times.legend(fontsize=8)
    for r in runs:
        counts = [row["threads"] for row in r["threads"]]
        threads.plot(counts, [row["speedup_over_1"] for row in r["threads"]], marker="o", label=r["transport"])
    threads.plot([7], [1.3], marker="*", markersize=12, linestyle="none", color="black", label="paper (7 threads)")
    threads.axhline(1.0, color="grey", linewidth=0.8, linestyle=":")
    threads.set_xlabel("walker threads T")
    threads.set_ylabel("throughput / throughput at T = 1")
    threads.set_title("walker threads on the overlap ring")
    threads.grid(True, alpha=0.3)
    threads.legend(fontsize=8)
    dims = data.get("dims", {})
    fig.suptitle(f"overlap: S = {data.get('ring_size')}, {dims.get('entries')} G_t entries, messages of "
                 f"{size_label(data.get('message_bytes', 0))}, {data.get('channel')}\n{subtitle(data)}", fontsize=10)
    save(fig, out_dir, f"{stem}.png")


PLOTTERS = {"pingpong": plot_pingpong, "ring_bandwidth": plot_ring_bandwidth, "kernel_bandwidth": plot_kernel_bandwidth,
            "overlap": plot_overlap}


def main(plotters=None, description=__doc__):
    """Plots each file named on the command line with plotters[metadata.program] (default PLOTTERS)."""
    plotters = plotters or PLOTTERS
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("files", nargs="+", help="JSON files written by the benchmarks' --json option")
    parser.add_argument("--out", default=".", help="folder for the PNG files (default: the current one)")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    status = 0
    for path in args.files:
        with open(path) as f:
            data = json.load(f)
        program = data.get("metadata", {}).get("program")
        plotter = plotters.get(program)
        if plotter is None:
            print(f"{path}: not a benchmark file this script knows (metadata.program = {program!r})", file=sys.stderr)
            status = 1
            continue
        plotter(data, args.out, os.path.splitext(os.path.basename(path))[0])
    return status


if __name__ == "__main__":
    sys.exit(main())
