#!/usr/bin/env python3
"""Fails when library or program code calls a blocking MPI collective or exchange directly.

Every collective ringcomm issues must be bounded by RINGCOMM_TIMEOUT (ringcomm::bounded polls the
non-blocking form against the deadline; core/include/ringcomm/collective.hpp), or a stalled rank hangs
every other one with nothing printed. Benchmarks (bench/) and tests are exempt: they time or provoke
exactly these calls. Usage: check_bounded_collectives.py SOURCE_DIR
"""
import pathlib
import re
import sys

BLOCKING = re.compile(r"\bMPI_(Allreduce|Reduce|Bcast|Barrier|Gather|Gatherv|Allgather|Allgatherv|Alltoall|"
                      r"Alltoallv|Scatter|Scatterv|Sendrecv|Sendrecv_replace|Reduce_scatter|Scan|Exscan)\s*\(")
CHECKED = ("core", "backends", "kernels", "capi", "examples", "tools")


def main():
    root = pathlib.Path(sys.argv[1])
    problems = []
    for folder in CHECKED:
        for path in sorted((root / folder).rglob("*")):
            if path.suffix not in (".cpp", ".hpp", ".h", ".cu") or not path.is_file():
                continue
            for number, line in enumerate(path.read_text(errors="replace").splitlines(), 1):
                code = line.split("//")[0]
                if BLOCKING.search(code):
                    problems.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    for problem in problems:
        print(f"unbounded blocking MPI call (use ringcomm::bounded with the non-blocking form): {problem}")
    print(f"{len(problems)} unbounded blocking MPI calls in {', '.join(CHECKED)}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
