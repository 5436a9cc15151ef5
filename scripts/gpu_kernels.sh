#!/usr/bin/env bash
# G_t kernel measurements on one GPU, in one device call (docs/results/README.md shows the commands
# that made the files). Run from a tree with .gpu/device-build.sh (see /work/coord/device.md):
#   bash SRC/scripts/gpu_kernels.sh SRC variants|final
# variants: kernel variants side by side (rows per thread, transposed reads, batch sizes);
# final: the default kernels, every channel x precision x shape, ring_compare at the paper size, ncu.
set -uo pipefail
src=$1 mode=${2:-variants}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 NCCL_NVLS_ENABLE=0 OMPI_MCA_rmaps_base_oversubscribe=1
t0=$SECONDS
b=$(bash .gpu/device-build.sh "$src") || exit 1
export LD_LIBRARY_PATH=$PWD/.gpu/ucx/lib:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
cd "$OUT"
echo "== built at $((SECONDS - t0)) s"
for t in test_kernels test_kernel_variants; do
  echo "== $t"; timeout 60 mpirun -np 1 $b/tests/$t 2>&1 | tail -4
done > tests.txt 2>&1
echo "== test_conformance (G_t)" >> tests.txt
timeout 90 mpirun -np 1 $b/tests/test_conformance --gtest_filter='*Gt*' >> tests.txt 2>&1
grep -E "PASSED|FAILED|tests ran|==" tests.txt | tail -12
echo "== tests done at $((SECONDS - t0)) s"
paper=(--nb 1 --lx 6 --ly 6 --nfreq 64 --exchange-momenta 0,1,2,3,4,5,6,7,8,9 --exchange-frequencies 0,1,2,3 --no-original --transports nccl)
# $OUT takes at most 8 files: each stage's files go into results.tar as soon as they are written.
keep() { tar rf results.tar "$@" && rm -f "$@"; }
compact() { grep -E "^ *[12] +[0-9]+ " "$1" | awk '{printf "%s %s %s r%s w%s T%s B%s %s %s %s\n", $1, $3, $4, $5, $6, $7, $8, $9, $10, $13}'; }
# ring_compare on one rank at the paper size, double and mixed, every channel, for each batch in $1,
# $2 measurements: rc_<scalar>_B<batch>_<channel>.json and a line each on stdout.
ring_compare_p1() {
  for scalar in double mixed; do
    for batch in $1; do
      for ch in pp_up_down ph_transverse ph_magnetic ph_charge; do
        RINGCOMM_GT_BATCH=$batch timeout 20 mpirun -np 1 $b/examples/ring_compare/ring_compare --channel $ch \
          --scalar $scalar --measurements $2 "${paper[@]}" --json rc_${scalar}_B${batch}_$ch.json --quiet 2>&1 \
          | grep -E "^nccl" | sed "s/^/$ch $scalar B=$batch /"
      done
    done
  done
}
if [[ $mode == variants ]]; then
  timeout 70 mpirun -np 1 $b/bench/kernel_bandwidth --nb 1 --row-tile 1,2,4,8 --row-warps 1,4 --transposed-reads on,off --launches 5 \
    --repetitions 3 --json kb_variants_nb1.json > kb_variants_nb1.txt 2>&1
  timeout 60 mpirun -np 1 $b/bench/kernel_bandwidth --nb 2 --row-tile 1,2,4,8 --row-warps 1,4 --launches 3 \
    --repetitions 3 --json kb_variants_nb2.json > kb_variants_nb2.txt 2>&1
  cat kb_variants_nb1.txt kb_variants_nb2.txt > kb_variants.txt
  keep kb_variants_nb1.json kb_variants_nb2.json kb_variants_nb1.txt kb_variants_nb2.txt
  echo "== variants done at $((SECONDS - t0)) s"
  timeout 45 mpirun -np 1 $b/bench/kernel_bandwidth --nb 1 --batch 1,2,4,8,16 --launches 3 --repetitions 3 \
    --json kb_batches.json > kb_batches.txt 2>&1
  keep kb_batches.json
  echo "== batches done at $((SECONDS - t0)) s"
  ring_compare_p1 "1 8" 8 > rc.txt
  keep rc_*.json
  echo "== ring_compare done at $((SECONDS - t0)) s"
  timeout 50 mpirun -np 1 /usr/local/cuda/bin/ncu --kernel-name-base demangled -k regex:"ChannelKernel|TransposeKernel" --launch-count 2 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis $b/bench/kernel_bandwidth --nb 1 --precision double \
    --channel ph_magnetic --launches 1 --repetitions 1 > ncu_ph_magnetic.txt 2>&1
  echo "== ncu done at $((SECONDS - t0)) s"
  awk '{print $1, $2, $3, $8, $9, $10}' rc.txt
  compact kb_variants.txt
  compact kb_batches.txt
fi
if [[ $mode == final ]]; then
  timeout 60 mpirun -np 1 $b/bench/kernel_bandwidth --launches 5 --repetitions 5 --json kb_final.json > kb_final.txt 2>&1
  echo "== defaults done at $((SECONDS - t0)) s"
  timeout 40 mpirun -np 1 $b/bench/kernel_bandwidth --nb 1 --row-tile 1,2,4,8 --launches 5 --repetitions 3 \
    --json kb_rows.json > kb_rows.txt 2>&1
  timeout 40 mpirun -np 1 $b/bench/kernel_bandwidth --nb 1 --batch 1,2,4,8 --launches 3 --repetitions 3 \
    --json kb_batches.json > kb_batches.txt 2>&1
  keep kb_final.json kb_rows.json kb_batches.json
  echo "== variants done at $((SECONDS - t0)) s"
  ring_compare_p1 "1 4" 16 > rc.txt
  keep rc_*.json
  echo "== ring_compare done at $((SECONDS - t0)) s"
  for ch in pp_up_down ph_magnetic; do
    timeout 30 mpirun -np 1 /usr/local/cuda/bin/ncu --kernel-name-base demangled -k regex:"ChannelKernel|TransposeKernel|FactorKernel" \
      --launch-count 3 --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
      $b/bench/kernel_bandwidth --nb 1 --precision double --channel $ch --launches 1 --repetitions 1
  done > ncu.txt 2>&1
  echo "== ncu done at $((SECONDS - t0)) s"
  grep -E "^[a-z_]+ [a-z]+ B=[0-9] nccl" rc.txt | awk '{print $1, $2, $3, $8, $9, $10}'
  compact kb_final.txt; compact kb_rows.txt; compact kb_batches.txt
fi
