#!/usr/bin/env python3
"""PNG plots of ring_compare, ring_overhead and model-validation JSON; every other benchmark's JSON goes
to bench/plot.py's plotters.

    python3 scripts/plot_results.py --out docs/results rc.json ring_overhead.json results/model_validation/validation.json

  ring_compare     -> NAME_time_vs_S.png: seconds per measurement against S per transport, split into
                      compute and communication (the "counters" of each run) to show what the ring costs
  ring_overhead    -> NAME_bandwidth.png: GB/s of a ring step and of the same persistent MPI requests by hand against size
  validation.json  -> NAME.png: measured and predicted seconds per measurement (scripts/validate_model.py)
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import plot as bench_plot  # noqa: E402  (sets the Agg backend)

plt = bench_plot.plt


def plot_ring_compare(data, out_dir, stem):
    runs = [r for r in data["runs"] if r["transport"] != "original"]
    fig, ax = plt.subplots(figsize=(8, 5))
    for transport in sorted({r["transport"] for r in runs}):
        mine = sorted((r for r in runs if r["transport"] == transport), key=lambda r: r["ring_size"])
        sizes = [r["ring_size"] for r in mine]
        ax.plot(sizes, [r["seconds_per_measurement"] for r in mine], marker="o", label=f"{transport}: total")
        if all(r.get("counters") for r in mine):
            for key, style in (("compute_seconds_max", "--"), ("communication_seconds_max", ":")):
                per_measurement = [max(t[key] for t in r["counters"]) / max(1, r["counters"][0]["rounds"]) for r in mine]
                ax.plot(sizes, per_measurement, linestyle=style, marker=".", label=f"{transport}: {key.split('_')[0]}")
    for r in data["runs"]:
        if r["transport"] == "original":
            ax.axhline(r["seconds_per_measurement"], color="black", linewidth=0.8, label="original algorithm")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("ring size S")
    ax.set_ylabel("seconds per measurement (slowest rank)")
    ax.set_title(f"ring_compare, {data['runs'][0]['ranks']} ranks, N = {data['dims']['entries']}\n"
                 f"{bench_plot.subtitle(data)}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    bench_plot.save(fig, out_dir, f"{stem}_time_vs_S.png")


def plot_ring_overhead(data, out_dir, stem):
    rows = data["results"]
    sizes = [r["bytes"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 5))
    ax.plot(sizes, [r["ring_GBps"] for r in rows], marker="o", label=f"ring step ({data.get('transport', '')})")
    # Files from before the persistent baseline hold MPI_Sendrecv times as "raw" and name no baseline.
    ax.plot(sizes, [r["raw_GBps"] for r in rows], marker="x", linestyle="--",
            label=data.get("baseline", "blocking MPI_Sendrecv"))
    if all("blocking_GBps" in r for r in rows):
        ax.plot(sizes, [r["blocking_GBps"] for r in rows], marker="+", linestyle=":", label="blocking MPI_Sendrecv")
    bench_plot.size_axis(ax, sizes)
    ax.set_ylabel("GB/s sent per rank and step")
    ax.set_title(f"ring_overhead, S = {data.get('ring_size', 2)}\n{bench_plot.subtitle(data)}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    bench_plot.save(fig, out_dir, f"{stem}_bandwidth.png")


def plot_validation(data, out_dir, stem):
    rows = data["rows"]
    labels = [f"p={r['p']} S={r['S']}\n{r['schedule']}" for r in rows]
    xs = range(len(rows))
    width = 0.4
    fig, ax = plt.subplots(figsize=(max(8, len(rows) * 0.9), 5))
    ax.bar([x - width / 2 for x in xs], [r["measured"] * 1e3 for r in rows], width, label="measured")
    ax.bar([x + width / 2 for x in xs], [r["predicted"] * 1e3 for r in rows], width, label="model")
    for x, r in zip(xs, rows):
        ax.text(x, max(r["measured"], r["predicted"]) * 1e3, f"{r['error_percent']:+.0f}%", ha="center",
                va="bottom", fontsize=8)
    ax.set_xticks(list(xs))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("ms per measurement")
    ax.set_title("ringcomm-model against ring_compare (S = 1: calibration)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend()
    bench_plot.save(fig, out_dir, f"{stem}.png")


PLOTTERS = dict(bench_plot.PLOTTERS, ring_compare=plot_ring_compare, ring_overhead=plot_ring_overhead,
                validate_model=plot_validation)


if __name__ == "__main__":
    sys.exit(bench_plot.main(PLOTTERS, __doc__))
