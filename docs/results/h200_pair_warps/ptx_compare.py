#!/usr/bin/env python3
"""Compares the PTX of two or more builds kernel by kernel (python3 ptx_compare.py NAME=FILE.ptx ...).

The first build is the one compared; for each of its kernels and each other build it says `exact`
(the same text, comments and line markers left out), `offsets` (the same once constant-memory offsets
are masked: a kernel argument struct that grew moves them) or `differs`, and prints how many kernels
of each kind fall in each class.
"""
import collections
import re
import sys


def kernels(path):
    """{entry name: PTX body without comments and line markers} of one .ptx file."""
    found = {}
    for part in re.split(r"(?m)^(?=\.(?:visible|weak)?\s*\.entry|\.entry)", open(path).read()):
        name = re.search(r"\.entry\s+(\S+?)\(", part)
        if name:
            lines = [l for l in part.splitlines() if l.strip() and not l.strip().startswith(("//", ".loc", ".file"))]
            found[name.group(1)] = "\n".join(lines)
    return found


def masked(text):
    return re.sub(r"kokkos_impl_cuda_constant_memory_buffer\+\d+", "CONST", text)


def kind(name):
    """The kernel template and, for the single-message ones, whether the channel is a bubble channel."""
    for template in ("SingleMessageDiagonalKernel", "SingleMessageKernel", "warp_tiles13ChannelKernel",
                     "ChannelKernel", "TransposeKernel", "FactorKernel"):
        if template in name:
            channel = re.search(r"7ChannelE(\d)", name)
            if channel is None:
                return template
            spread = template == "ChannelKernel" and name.split("7ChannelE")[1].split("EENS")[0].endswith("Lb1ELb1E")
            return template + ("/bubble" if channel.group(1) in "23" else "/pp-tr") + ("/spread" if spread else "")
    return "other"


def main(arguments):
    builds = [(a.split("=", 1)[0], kernels(a.split("=", 1)[1])) for a in arguments]
    (name, ptx), others = builds[0], builds[1:]
    counts = collections.Counter()
    for entry, text in ptx.items():
        classes = []
        for other_name, other in others:
            if entry not in other:
                classes.append(f"missing in {other_name}")
            elif other[entry] == text:
                classes.append(f"exact {other_name}")
            elif masked(other[entry]) == masked(text):
                classes.append(f"offsets {other_name}")
            else:
                classes.append(f"differs {other_name}")
        counts[(kind(entry), ", ".join(classes))] += 1
    print(f"# kernels of {name}: {len(ptx)}")
    for (kernel, classes), count in sorted(counts.items()):
        print(f"{kernel:40s} {count:3d}  {classes}")


if __name__ == "__main__":
    main(sys.argv[1:])
