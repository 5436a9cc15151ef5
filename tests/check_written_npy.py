#!/usr/bin/env python3
"""check_written_npy.py WRITTEN GATHERED [ORIGINAL]: the G_t that ring_compare --write wrote with MPI-IO
must load with numpy and equal, bit for bit, the one --dump wrote after gathering it on rank 0, and, as
an independent check, agree with ORIGINAL (the original algorithm's G_t, --dump's gt_original.npy)
within the tolerance of its type (1e-12 relative for complex128, 5e-6 for complex64)."""
import sys

import numpy as np


def main(written_path, gathered_path, original_path=None):
    written = np.load(written_path)
    gathered = np.load(gathered_path)
    problems = []
    if original_path:
        original = np.load(original_path).astype(np.complex128)
        tolerance = 1e-12 if written.dtype == np.complex128 else 5e-6
        scale = np.abs(original).max()
        error = np.abs(written.astype(np.complex128) - original).max() / (scale if scale > 0 else 1.0)
        if not error <= tolerance:  # NaN fails
            problems.append(f"max|written - original| / max|original| = {error:.3e} exceeds {tolerance:g}")
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
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
