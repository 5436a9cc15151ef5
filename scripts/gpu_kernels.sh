#!/usr/bin/env bash
# Run ON THE DEVICE (one H200) from the /work/main root with the kernels worktree copied to SRC:
# builds it, runs the kernel suite, measures the kernel variants and prints the tables.
#   bash SRC/scripts/gpu_kernels.sh SRC MODE   (MODE: variants | final)
set -uo pipefail
src=$1 mode=${2:-variants}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 NCCL_NVLS_ENABLE=0 OMPI_MCA_rmaps_base_oversubscribe=1
b=$(bash .gpu/device-build.sh "$src") || exit 1
export LD_LIBRARY_PATH=$PWD/.gpu/ucx/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cd "$OUT"
timeout 120 mpirun -np 1 $b/tests/test_kernels 2>&1 | tail -4 | tee tests.txt
paper=(--nb 1 --lx 6 --ly 6 --nfreq 64 --exchange-momenta 0,1,2,3,4,5,6,7,8,9 --exchange-frequencies 0,1,2,3 --measurements 16 --no-original --quiet)
if [[ $mode == variants ]]; then
  timeout 150 mpirun -np 1 $b/bench/kernel_bandwidth --row-tile 1,2,4,8 --transposed-reads on,off --launches 5 \
    --repetitions 3 --json kb_variants.json > kb_variants.txt 2>&1
  grep -E "^ *[12] " kb_variants.txt | sort -k3,3 -k4,4 -k1,1 -k10,10r | awk '{print $1,$3,$4,$5,$6,$10}' | column -t | head -200 > kb_sorted.txt
  for ch in pp_up_down ph_transverse ph_magnetic ph_charge; do
    timeout 60 mpirun -np 1 $b/examples/ring_compare/ring_compare --transports nccl --channel $ch "${paper[@]}" 2>&1 | grep -E "^nccl" | sed "s/^/$ch /"
  done | tee rc.txt
  timeout 60 /usr/local/cuda/bin/ncu --section SpeedOfLight --section MemoryWorkloadAnalysis \
    mpirun -np 1 $b/bench/kernel_bandwidth --nb 1 --precision double --channel ph_magnetic --launches 1 --repetitions 1 > ncu_magnetic.txt 2>&1
  tail -3 ncu_magnetic.txt
  cat kb_sorted.txt
fi
