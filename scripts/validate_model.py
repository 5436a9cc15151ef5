#!/usr/bin/env python3
"""Checks ringcomm-model's predictions against ring_compare on this machine.

For each p in --ranks it runs, with p ranks at the same time:
  bench/ring_overhead        -> latency and bandwidth of a ring step (fit_machine.fit_link);
  ring_compare, every S | p  -> measured seconds per measurement, lock-step and overlap; its S = 1
                                run (no exchange) gives the kernel rate and walker time of p ranks
                                sharing the machine (fit_machine.fit_compute).
Then ringcomm-model predicts every (p, S, schedule) from those rates alone, and the error is
(predicted - measured) / measured. S = 1 rows are the compute calibration, not a test of the model.

Writes a Markdown table (--out, default docs/results/model_validation.md) and the raw JSON next to
--work. Not a ctest test: it measures time.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_machine  # noqa: E402

ENV = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
# A VM with fewer cores than ranks: ranks must yield the CPU while they wait, and such containers
# usually forbid the cross-process copies (CMA) Open MPI would use for large messages.
SHARED_CPU_ENV = dict(OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1",
                      OMPI_MCA_btl_vader_single_copy_mechanism="none")


def mpirun(ranks, program, *args):
    command = ["mpirun", "--oversubscribe", "--bind-to", "none", "-np", str(ranks), program, *map(str, args)]
    subprocess.run(command, check=True, env=ENV, stdout=subprocess.DEVNULL)


def fastest_of_repeats(repeats, path, run):
    """Runs run(path) `repeats` times and keeps, for each run in its JSON, the fastest repetition:
    other work on a shared machine only ever adds time."""
    best = None
    for _ in range(repeats):
        run(path + ".try")
        with open(path + ".try") as f:
            attempt = json.load(f)
        if best is None:
            best = attempt
            continue
        for i, candidate in enumerate(attempt["runs"]):
            if candidate["seconds_per_measurement"] < best["runs"][i]["seconds_per_measurement"]:
                best["runs"][i] = candidate
    os.remove(path + ".try")
    with open(path, "w") as f:
        json.dump(best, f, indent=2)


def divisors(n):
    return [d for d in range(1, n + 1) if n % d == 0]


def predict(model, p, S, schedule, rates, message_bytes, entries, work):
    out = os.path.join(work, f"model_p{p}_S{S}_{schedule}.json")
    args = [model, "--ranks", p, "--ring-size", S, "--schedule", schedule, "--message-bytes", message_bytes,
            "--gt-entries", entries, "--kernel-rate", rates["kernel"], "--walker-seconds", rates["walker"],
            "--latency", rates.get("alpha", 0), "--bandwidth", rates.get("beta", 1e12), "--json", out]
    subprocess.run(list(map(str, args)), check=True, env=ENV, stdout=subprocess.DEVNULL)
    with open(out) as f:
        return json.load(f)["predictions"][0]["seconds_per_measurement"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", default="build-model", help="build folder (default build-model)")
    parser.add_argument("--ranks", default="1,2,4", help="rank counts p (default 1,2,4)")
    parser.add_argument("--rounds", type=int, default=24, help="measurements per rank (default 24)")
    parser.add_argument("--repeats", type=int, default=3,
                        help="runs of each ring_compare; the fastest counts (default 3)")
    parser.add_argument("--problem", default="--nb 2 --lx 4 --ly 4 --nfreq 8",
                        help="ring_compare problem options (default: N = 262144, 2 MiB messages)")
    parser.add_argument("--transport", default="mpi", help="transport of every ring (default mpi)")
    parser.add_argument("--link-sizes", default="256K,512K,1M,2M,4M",
                        help="message sizes ring_overhead fits latency and bandwidth over (default 256K,...,4M)")
    parser.add_argument("--kernel-json", help="kernel_bandwidth JSON of the same problem: its kernel rate "
                        "replaces the one from ring_compare's counters, which on GPUs time kernel launches only")
    parser.add_argument("--dedicated", action="store_true",
                        help="one core or GPU per rank: no oversubscription settings for Open MPI")
    parser.add_argument("--machine", default="this 2-core VM", help="what the table says it was measured on")
    parser.add_argument("--work", default="results/model_validation", help="folder for the raw JSON")
    parser.add_argument("--out", default="docs/results/model_validation.md")
    args = parser.parse_args()
    if not args.dedicated:
        ENV.update(SHARED_CPU_ENV)
    os.makedirs(args.work, exist_ok=True)
    ring_compare = os.path.join(args.build, "examples/ring_compare/ring_compare")
    ring_overhead = os.path.join(args.build, "bench/ring_overhead")
    model = os.path.join(args.build, "tools/ringcomm-model")

    rows = []
    for p in map(int, args.ranks.split(",")):
        rates = {}
        if p >= 2:
            link = os.path.join(args.work, f"ring_overhead_p{p}.json")
            mpirun(p, ring_overhead, "--transport", args.transport, "--sizes", args.link_sizes, "--repetitions", 7,
                   "--quiet", "--json", link)
            rates["alpha"], rates["beta"] = fit_machine.fit_link(link)
        for schedule, overlap in (("lock-step", 0), ("overlap", 1)):
            measured_path = os.path.join(args.work, f"ring_compare_p{p}_{schedule}.json")
            fastest_of_repeats(args.repeats, measured_path, lambda path: mpirun(
                p, ring_compare, *args.problem.split(), "--transports", args.transport, "--no-original", "--quiet",
                "--overlap", overlap, "--measurements", args.rounds * p,
                "--ring-size", ",".join(map(str, divisors(p))), "--json", path))
            if schedule == "lock-step":
                if args.kernel_json:
                    rates["kernel"] = fit_machine.kernel_rate(args.kernel_json)
                    rates["walker"] = fit_machine.walker_seconds(measured_path, rates["kernel"])
                else:
                    rates["kernel"], rates["walker"] = fit_machine.fit_compute(measured_path)
            with open(measured_path) as f:
                measured = json.load(f)
            for run in measured["runs"]:
                S = run["ring_size"]
                predicted = predict(model, p, S, schedule, rates, run["message_bytes"], run["gt_entries"], args.work)
                actual = run["seconds_per_measurement"]
                rows.append({"p": p, "S": S, "schedule": schedule, "measured": actual, "predicted": predicted,
                             "error_percent": 100.0 * (predicted - actual) / actual, "rates": dict(rates),
                             "message_bytes": run["message_bytes"], "gt_entries": run["gt_entries"]})
                print(f"p={p} S={S} {schedule}: measured {actual:.4e} s, predicted {predicted:.4e} s, "
                      f"error {rows[-1]['error_percent']:+.1f} %", flush=True)

    with open(os.path.join(args.work, "validation.json"), "w") as f:
        json.dump({"metadata": {"program": "validate_model", "command_line": " ".join(sys.argv)}, "rows": rows}, f,
                  indent=2)
    write_table(args, rows)


def write_table(args, rows):
    tested = [r for r in rows if r["S"] > 1]
    worst = max((abs(r["error_percent"]) for r in tested), default=0.0)
    lines = ["# Performance model validation", "",
             "Generated by `python3 scripts/validate_model.py " + " ".join(sys.argv[1:]) + "` "
             "(see docs/performance_model.md for the model and how the rates are fitted).", "",
             f"Problem: `{args.problem}`, N = {rows[0]['gt_entries']} entries, messages of "
             f"{rows[0]['message_bytes']} bytes, {args.rounds} measurements per rank, transport {args.transport}, "
             f"1 thread, fastest of {args.repeats} runs, on {args.machine}.", "",
             "| p | S | schedule | α (µs) | β (GB/s) | kernel (Mentries/s) | walker (ms) | measured s/meas. | "
             "predicted s/meas. | error |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in rows:
        rates = r["rates"]
        alpha = f"{rates['alpha'] * 1e6:.1f}" if "alpha" in rates else "-"
        beta = f"{rates['beta'] / 1e9:.2f}" if "beta" in rates else "-"
        note = " (calibration)" if r["S"] == 1 else ""
        lines.append(f"| {r['p']} | {r['S']} | {r['schedule']} | {alpha} | {beta} | {rates['kernel'] / 1e6:.1f} | "
                     f"{rates['walker'] * 1e3:.2f} | {r['measured']:.4e} | {r['predicted']:.4e} | "
                     f"{r['error_percent']:+.1f} %{note} |")
    lines += ["", f"Largest error over the S > 1 configurations: {worst:.1f} % "
              f"(target 20 %: {'met' if worst <= 20 else 'NOT met'}). What limits the agreement: "
              "[performance_model.md, Validation](../performance_model.md#validation).", ""]
    with open(args.out, "w") as f:
        f.write("\n".join(lines))
    print(f"table written to {args.out}")


if __name__ == "__main__":
    main()
