#!/usr/bin/env bash
# Copies the programs scripts/gpu_suite.sh runs out of a CUDA build tree into a small folder of the
# same layout, stripped, so that it can travel to a GPU machine without the build's object files:
#
#   scripts/gpu_stage.sh BUILD_DIR DEST_DIR      e.g. scripts/gpu_stage.sh .gpu/build .gpu/dist
set -euo pipefail
[[ $# -eq 2 && -d $1 ]] || { echo "usage: $0 BUILD_DIR DEST_DIR" >&2; exit 2; }
programs=(tools/ringcomm-info tools/ringcomm-model tests/test_conformance tests/test_kernels tests/fault_probe bench/pingpong bench/ring_bandwidth bench/ring_overhead
          bench/kernel_bandwidth bench/overlap examples/ring_compare/ring_compare)
rm -rf "$2"
for p in "${programs[@]}"; do
  if [[ ! -x $1/$p ]]; then
    echo "gpu_stage: $1/$p is missing (build it first)" >&2
    exit 1
  fi
  mkdir -p "$2/$(dirname "$p")"
  strip -o "$2/$p" "$1/$p"
done
du -sh "$2"
