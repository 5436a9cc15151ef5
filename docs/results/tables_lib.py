"""Helpers shared by the make_tables.py scripts of the h200_* folders: reading kernel_bandwidth-style
JSON files and printing grouped values as markdown tables."""
import collections
import csv
import glob
import gzip
import json
import os
import re

PREC = ("double", "float", "mixed")
CHANNELS = ("pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge")
# Issue 10's targets: ring_compare time per measurement over the floor at one message and with batches;
# kernel_bandwidth's ratio at one message.
SINGLE_MESSAGE_TARGET, BATCH_TARGET, BANDWIDTH_TARGET = 1.15, 0.6, 0.85


def order(key):
    """Sort key of (nb, precision, channel, ...) tuples: nb, then precision and channel as listed above."""
    return (key[0], PREC.index(key[1]), CHANNELS.index(key[2])) + tuple(str(k) for k in key[3:])


def results(here, pattern):
    """(file name, result) for every element of "results" in the JSON files of `here` matching `pattern`."""
    for f in sorted(glob.glob(os.path.join(here, pattern))):
        for r in json.load(open(f))["results"]:
            yield os.path.basename(f), r


def case(r):
    """(nb, precision, channel) of a kernel_bandwidth result."""
    return (r["nb"], r["precision"], r["channel"])


def per_message(r):
    """A kernel_bandwidth result's kernel time per message over the copy's: for a batch, the fraction of
    the one-pass-per-message floor."""
    return r["kernel_seconds"] / r["copy_seconds"]


def ring_compare_cell(here, path):
    """"x floor (ms)" of the first run of the ring_compare JSON at `path` under `here`."""
    run = json.load(open(os.path.join(here, path)))["runs"][0]
    return "%.3f (%.3f ms)" % (run["fraction_of_floor"], 1e3 * run["seconds_per_measurement"])


RING_COMPARE_NAME = re.compile(r"rc_(?P<binary>\w+?)_B(?P<batch>\d+)_(?P<scalar>%s)(?:_(?P<channel>%s))?(?:_(?P<round>\d+))?\.json"
                               % ("|".join(PREC), "|".join(CHANNELS)))


def ring_compare_runs(here, pattern):
    """(fields, run) of every ring_compare JSON under `here` matching `pattern` and named
    rc_<binary>_B<batch>_<scalar>[_<channel>][_<round>].json: fields holds those parts (batch, and round where
    there is one, as numbers; the channel from the file where its name leaves it out), run the file's first run."""
    for f in sorted(glob.glob(os.path.join(here, pattern))):
        fields = RING_COMPARE_NAME.fullmatch(os.path.basename(f)).groupdict()
        fields["batch"] = int(fields["batch"])
        if fields["round"] is None:
            del fields["round"]
        else:
            fields["round"] = int(fields["round"])
        document = json.load(open(f))
        if fields["channel"] is None:
            fields["channel"] = document["channel"]
        yield fields, document["runs"][0]


def ring_compare_targets(cases):
    """Per (batch, scalar, channel) key of `cases` ({key: [ring_compare record, ...]}, each record with its
    "fraction_of_floor"), in table order: the rounds, lowest and highest x floor, and whether issue 10's target
    for that batch (SINGLE_MESSAGE_TARGET at one message, BATCH_TARGET with batches) holds in every round."""
    rows = []
    for (batch, scalar, channel), runs in sorted(cases.items(), key=lambda kv: order(kv[0])):
        fractions = [r["fraction_of_floor"] for r in runs]
        target = SINGLE_MESSAGE_TARGET if batch == 1 else BATCH_TARGET
        rows.append({"batch": batch, "scalar": scalar, "channel": channel, "rounds": len(runs),
                     "lowest": min(fractions), "highest": max(fractions), "target": target,
                     "met": int(max(fractions) <= target)})
    return rows


def bandwidth_met(ratios):
    """How many of the kernel_bandwidth `ratios` reach issue 10's BANDWIDTH_TARGET, of how many, and the lowest."""
    return {"cases": len(ratios), "met": sum(x >= BANDWIDTH_TARGET for x in ratios), "lowest": min(ratios)}


def current_status(summary, here, title):
    """A folder `here` of runs (one subfolder each) of every issue-10 target with one build: ring_compare per
    batch, scalar and channel over all runs and rounds with whether the target holds in every one, and
    kernel_bandwidth's cases at one message per file with how many reach BANDWIDTH_TARGET. Adds records to
    summary's current_ring_compare, current_targets, current_kernel_bandwidth and current_kernel_bandwidth_met
    and prints them under `title`."""
    cases = collections.defaultdict(list)
    for run in sorted(os.listdir(here)):
        for fields, r in ring_compare_runs(os.path.join(here, run), "rc_*.json"):
            record = dict(fields, run=run, fraction_of_floor=round(r["fraction_of_floor"], 4),
                          copy_GBps=round(r["copy_GBps"], 1), ms=round(1e3 * r["seconds_per_measurement"], 4))
            summary["current_ring_compare"].append(record)
            cases[(record["batch"], record["scalar"], record["channel"])].append(record)
        for name, r in results(os.path.join(here, run), "kb_B1_*.json"):
            summary["current_kernel_bandwidth"].append(
                {"file": "%s/%s" % (run, name), "nb": r["nb"], "precision": r["precision"], "channel": r["channel"],
                 "ratio": round(r["ratio"], 4), "ms": round(1e3 * r["kernel_seconds"], 4),
                 "copy_GBps": round(r["copy_GBps"], 1)})
    print("## %s: ring_compare x floor, every run and round" % title)
    for record in ring_compare_targets(cases):
        summary["current_targets"].append(record)
        fractions = [r["fraction_of_floor"] for r in cases[(record["batch"], record["scalar"], record["channel"])]]
        print("B=%-2d %-6s %-13s %s target %.2f: %s" % (record["batch"], record["scalar"], record["channel"],
                                                      joined(fractions), record["target"],
                                                      "met" if record["met"] else "not met"))
    print("\n## %s: kernel_bandwidth at one message, ratio" % title)
    by_file = grouped(summary["current_kernel_bandwidth"], lambda r: r["file"], lambda r: "ratio", lambda r: r["ratio"])
    for r in summary["current_kernel_bandwidth"]:
        print("%-16s nb=%d %-6s %-13s %.3f (%.3f ms, copy %.1f GB/s)" % (
            r["file"], r["nb"], r["precision"], r["channel"], r["ratio"], r["ms"], r["copy_GBps"]))
    for name, columns in sorted(by_file.items()):
        record = dict(file=name, **bandwidth_met(columns["ratio"]))
        summary["current_kernel_bandwidth_met"].append(record)
        print("%s: %d of %d cases >= %.2f, lowest %.3f" % (name, record["met"], record["cases"], BANDWIDTH_TARGET,
                                                          record["lowest"]))
    print()


def verify_errors(here, pattern):
    """{file name without .json: largest relative error of --verify-sample} of every ring_compare JSON under
    `here` matching `pattern` (its first run)."""
    return {os.path.basename(f)[:-5]: json.load(open(f))["runs"][0]["sample_max_relative_error"]
            for f in sorted(glob.glob(os.path.join(here, pattern)))}


def summarize(here, name, keys, sections):
    """Runs each of `sections` (functions that print their tables and add records to the summary) on a
    summary holding an empty list under each of `keys`, then writes it as the JSON file `name` in `here`,
    which that folder's README.md cites."""
    summary = {key: [] for key in keys}
    for section in sections:
        section(summary)
    with open(os.path.join(here, name), "w") as out:
        json.dump(summary, out, indent=1)
        out.write("\n")


def gtest_counts(path, words=("PASSED", "FAILED")):
    """{"passed": n, "failed": m} of a GoogleTest log (0 where its summary line is missing); `words` may add
    "SKIPPED"."""
    text = open(path).read()
    counts = {}
    for word in words:
        m = re.search(r"\[ *%s *\] (\d+) test" % word, text)  # "[  PASSED  ]", "[  SKIPPED ]"
        counts[word.lower()] = int(m.group(1)) if m else 0
    return counts


def ncu_metrics(path):
    """{metric: (unit, value)} of an `ncu --metrics` print (lines "name unit value", value with thousands
    separators)."""
    metrics = {}
    for line in open(path):
        parts = line.split()
        if len(parts) >= 3 and "__" in parts[0]:
            metrics[parts[0]] = (parts[-2], float(parts[-1].replace(",", "")))
    return metrics


NCU_KERNEL = re.compile(r"ParallelFor<(?:ringcomm::)?(\w+)")


def ncu_kernel_durations(path):
    """{kernel: [µs, ...]} in launch order of an `ncu --metrics gpu__time_duration.sum --csv` print: a Kokkos
    kernel by its functor's name, any other by its name up to "(", each launch's duration in µs."""
    durations = collections.OrderedDict()
    rows = list(csv.reader(open(path)))
    head = next((i for i, r in enumerate(rows) if r and r[0] == "ID"), len(rows))
    if head == len(rows):
        return durations
    name, metric, value = (rows[head].index(c) for c in ("Kernel Name", "Metric Name", "Metric Value"))
    for row in rows[head + 1:]:
        if len(row) != len(rows[head]) or row[metric] != "gpu__time_duration.sum":
            continue
        match = NCU_KERNEL.search(row[name])
        durations.setdefault(match.group(1) if match else row[name].split("(")[0], []).append(
            float(row[value].replace(",", "")) / 1e3)
    return durations


def ncu_details(path):
    """{metric: value} of an `ncu --page details --print-details all` print (the first value of each name)."""
    out = {}
    for line in open(path):
        m = re.match(r"\s{4}(\S.*?)\s{2,}(\S+)?\s+([\d.,]+)\s*$", line)
        if m and m.group(1) not in out:
            out[m.group(1)] = float(m.group(3).replace(",", ""))
    return out


def ncu_source(path):
    """(stall samples, instructions executed, SASS text) per instruction of an `ncu --page source
    --print-source sass --csv` print (gzip-compressed where the name ends in .gz)."""
    rows = list(csv.reader(gzip.open(path, "rt") if path.endswith(".gz") else open(path)))
    head, data = rows[1], rows[2:]
    col = head.index
    samples = [int(r[col("Warp Stall Sampling (All Samples)")] or 0) for r in data]
    executed = [int(r[col("Instructions Executed")] or 0) for r in data]
    return samples, executed, [r[col("Source")].strip() for r in data]


def joined(values, fmt="%.3f"):
    return " / ".join(fmt % v for v in values)


def grouped(records, key, column, value):
    """{key(r): {column(r): [value(r), ...]}} over `records`."""
    rows = collections.defaultdict(lambda: collections.defaultdict(list))
    for r in records:
        rows[key(r)][column(r)].append(value(r))
    return rows


def scalar_channel_table(title, columns, cells, scalars=("double", "mixed")):
    """A markdown table with a row per scalar and channel: cells(scalar, channel) under `columns`; a row
    whose cells are None is left out."""
    print("## " + title)
    print("| scalar | channel | " + " | ".join(columns) + " |")
    print("|" + "---|" * (2 + len(columns)))
    for scalar in scalars:
        for channel in CHANNELS:
            row = cells(scalar, channel)
            if row:
                print("| %s | %s | " % (scalar, channel) + " | ".join(row) + " |")
    print()


def print_table(title, key_names, columns, rows, sort=order, fmt="%.3f", labels=None):
    """A markdown table: one row per key of `rows` (its parts first), one cell per column, each cell the
    values of that key and column joined by " / " ("-" where there are none); the columns are headed by
    `labels` where given, else by themselves."""
    print("## " + title)
    print("| " + " | ".join(list(key_names) + [str(c) for c in (labels or columns)]) + " |")
    print("|" + "---|" * (len(key_names) + len(columns)))
    for key in sorted(rows, key=sort):
        cells = [joined(rows[key][c], fmt) if rows[key].get(c) else "-" for c in columns]
        print("| " + " | ".join(str(k) for k in key) + " | " + " | ".join(cells) + " |")
    print()
