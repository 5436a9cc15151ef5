#!/usr/bin/env python3
"""check_written_npy.py WRITTEN GATHERED: the G_t that ring_compare --write wrote with MPI-IO must
load with numpy and equal, bit for bit, the one --dump wrote after gathering it on rank 0."""
import sys

import numpy as np


def main(written_path, gathered_path):
    written = np.load(written_path)
    gathered = np.load(gathered_path)
    problems = []
    if written.dtype != gathered.dtype:
        problems.append(f"dtype {written.dtype} != {gathered.dtype}")
    if written.shape != gathered.shape:
        problems.append(f"shape {written.shape} != {gathered.shape}")
    elif not np.array_equal(written.view(np.uint8), gathered.view(np.uint8)):
        differing = np.count_nonzero(written != gathered)
        problems.append(f"{differing} of {written.size} entries differ")
    if not np.any(written):
        problems.append("the written G_t is all zeros")
    if problems:
        print(f"{written_path}: " + "; ".join(problems))
        return 1
    print(f"{written_path}: {written.dtype} {written.shape} equals {gathered_path} exactly")
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1], sys.argv[2]))
