#!/usr/bin/env bash
# The demo on a Debian 12 machine: installs what is missing, builds ringcomm (preset cpu), prints what
# it was built with (ringcomm-info), then accumulates the same G_t on 4 local MPI ranks with the
# original algorithm and with the ring over every usable transport, and prints the comparison.
# Results: results/ring_compare.json. Extra arguments go to ring_compare (see its --help), e.g.
#   scripts/demo.sh --channel ph_magnetic --measurements 256
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/common.sh

install_missing_packages

echo "== configure and build (preset cpu)"
cmake --preset cpu >/dev/null
cmake --build --preset cpu --parallel "$(ringcomm_jobs)" --target ringcomm-info ring_compare

echo "== ringcomm-info"
build/cpu/tools/ringcomm-info

echo "== ring_compare on 4 ranks"
mkdir -p results
mpirun -np 4 build/cpu/examples/ring_compare/ring_compare --json results/ring_compare.json "$@"
