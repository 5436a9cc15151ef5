#!/usr/bin/env python3
"""Checks that the numbers in result documents match the JSON files they come from.

    python3 scripts/check_results_docs.py [--results DIR] FILE.md...
    python3 scripts/check_results_docs.py --self-test

A number in the markdown is tied to its source by an HTML comment right after it:

    **0.740–0.746**<!-- h200_kernel_bandwidth.json: results[channel=pp_up_down][exchange_row_tile<=8].ratio -->

The file is looked up in --results (default: docs/results next to this script's repository). The
path after the colon walks the JSON: `.key` takes a member (of every element, on a list), `[key=v]`,
`[key<=v]`, `[key>=v]`, `[key!=v]` keep the list elements whose member compares so (numbers as numbers), `[*]`
keeps them all, `[3]` takes one. The number before the comment (bold, signs and thousands commas
allowed) must equal the value rounded to as many decimals as it shows; a range "a–b" must equal the
smallest and largest of the values. A number written as 1.2e-16 is compared to its significant digits.
A path may end in " * 1000" (seconds shown as ms) or another factor.

Exit status 1 when any annotated number differs, any file or path is missing, or a FILE.md holds
no annotation at all (a table that lost its annotations would otherwise pass).
"""
import json
import math
import os
import re
import sys
import tempfile

ANNOTATION = re.compile(r"<!--\s*([\w.\-/]+\.json)\s*:\s*(.*?)\s*-->")
NUMBER = r"[-−+]?\d[\d,]*(?:\.\d+)?(?:[eE][-−+]?\d+)?"
SHOWN = re.compile(rf"({NUMBER})(?:\s*[–-]\s*({NUMBER}))?\s*(?:\*\*|%|×)?\s*$")
STEP = re.compile(r"\.([A-Za-z_][\w]*)|\[(\*|-?\d+|[A-Za-z_][\w]*\s*(?:<=|>=|!=|=)\s*[^\]]+)\]")


def parse_number(text):
    return float(text.replace("−", "-").replace(",", ""))


def compare_value(value, target, op):
    if op == "!=":
        return not compare_value(value, target, "=")
    if op == "=":
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                return value == float(target)
            except ValueError:
                return False
        return str(value) == target
    try:
        number, bound = float(value), float(target)
    except (TypeError, ValueError):
        return False
    return number <= bound if op == "<=" else number >= bound


def walk(data, path):
    """The values `path` selects in `data`, always as a list."""
    values = [data]
    position = 0
    path = path if path.startswith((".", "[")) else "." + path
    while position < len(path):
        match = STEP.match(path, position)
        if not match:
            raise ValueError(f"cannot read the path at {path[position:]!r}")
        position = match.end()
        key, selector = match.group(1), match.group(2)
        if key is not None:
            out = []
            for v in values:
                items = v if isinstance(v, list) else [v]
                for item in items:
                    if not isinstance(item, dict) or key not in item:
                        raise ValueError(f"no member {key!r}")
                    out.append(item[key])
            values = out
        elif selector == "*":
            values = [item for v in values for item in (v if isinstance(v, list) else [v])]
        elif re.fullmatch(r"-?\d+", selector):
            values = [v[int(selector)] for v in values]
        else:
            name, op, target = re.fullmatch(r"(\w+)\s*(<=|>=|!=|=)\s*(.+)", selector).groups()
            values = [item for v in values for item in (v if isinstance(v, list) else [v])
                      if isinstance(item, dict) and name in item and compare_value(item[name], target.strip(), op)]
        if not values:
            raise ValueError(f"nothing matches {match.group(0)!r}")
    return values


def matches(shown, value):
    """Whether the number as written equals value at the precision it is written with."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return False
    text = shown.replace("−", "-").replace(",", "")
    if "e" in text.lower():
        mantissa = text.lower().split("e")[0]
        digits = len(mantissa.replace("-", "").replace("+", "").replace(".", "").lstrip("0")) or 1
        return float(f"{value:.{digits - 1}e}") == float(text)
    decimals = len(text.split(".")[1]) if "." in text else 0
    return abs(float(value) - float(text)) <= 0.5 * 10 ** -decimals + 1e-12


def check_file(markdown, results_dir):
    problems, checked = [], 0
    cache = {}
    with open(markdown, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        for match in ANNOTATION.finditer(line):
            where = f"{markdown}:{number}"
            before = re.sub(r"<!--.*?-->", "", line[:match.start()])
            shown = SHOWN.search(before.rstrip())
            if not shown:
                problems.append(f"{where}: no number right before the annotation {match.group(0)}")
                continue
            name, path = match.group(1), match.group(2)
            factor = 1.0
            if " * " in path:  # "path * 1000": seconds shown as ms
                path, scale = path.rsplit(" * ", 1)
                factor = float(scale)
            try:
                if name not in cache:
                    with open(os.path.join(results_dir, name), encoding="utf-8") as f:
                        cache[name] = json.load(f)
                values = walk(cache[name], path)
                numbers = [float(v) * factor for v in values]
            except (OSError, ValueError, TypeError, KeyError, IndexError) as e:
                problems.append(f"{where}: {name}: {path}: {e}")
                continue
            low, high = shown.group(1), shown.group(2)
            checked += 1
            if high is None:
                if not all(matches(low, v) for v in numbers):
                    problems.append(f"{where}: the text says {low}, {name} {path} holds {numbers}")
            elif not (matches(low, min(numbers)) and matches(high, max(numbers))):
                problems.append(f"{where}: the text says {low}–{high}, {name} {path} holds "
                                f"{min(numbers):.6g}–{max(numbers):.6g}")
    if checked == 0 and not problems:
        problems.append(f"{markdown}: no annotated number (<!-- FILE.json: path -->) at all")
    return checked, problems


def self_test():
    """The checker must pass a right number and fail a wrong one, a wrong range and a missing path."""
    with tempfile.TemporaryDirectory() as folder:
        with open(os.path.join(folder, "r.json"), "w") as f:
            json.dump({"rows": [{"kind": "a", "v": 0.7398}, {"kind": "a", "v": 0.746}, {"kind": "b", "v": 2.5}]}, f)
        cases = {
            "| x | **0.740–0.746**<!-- r.json: rows[kind=a].v --> |": True,
            "| x | 0.746–0.754<!-- r.json: rows[kind=a].v --> |": False,
            "| x | 2.5<!-- r.json: rows[kind=b].v --> |": True,
            "| x | 2.6<!-- r.json: rows[kind=b].v --> |": False,
            "| x | 2.5<!-- r.json: rows[kind=c].v --> |": False,
            "| x | 2.5 |": False,  # no annotation at all
        }
        failures = []
        for text, should_pass in cases.items():
            path = os.path.join(folder, "doc.md")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text + "\n")
            _, problems = check_file(path, folder)
            if (not problems) != should_pass:
                failures.append(f"{text!r}: expected {'pass' if should_pass else 'failure'}, got {problems}")
    for failure in failures:
        print("self-test FAILED:", failure)
    print(f"self-test: {len(cases) - len(failures)} of {len(cases)} cases as expected")
    return 1 if failures else 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    results_dir = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "results")
    if argv[0] == "--results":
        results_dir, argv = argv[1], argv[2:]
    failed = False
    for markdown in argv:
        checked, problems = check_file(markdown, results_dir)
        for problem in problems:
            print(problem)
        failed |= bool(problems)
        print(f"{markdown}: {checked} annotated numbers checked, {len(problems)} problems")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
