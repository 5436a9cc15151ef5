#!/usr/bin/env bash
# ringcomm's checks and benchmarks on a machine with one GPU or more, from programs built elsewhere:
# this script never builds anything (Kokkos least of all).
#
#   scripts/gpu_suite.sh BUILD_DIR [OUT_DIR]
#
# BUILD_DIR holds the programs in the build tree's layout (tools/ringcomm-info, tests/test_conformance,
# tests/test_kernels, tests/fault_probe, bench/{pingpong,ring_bandwidth,kernel_bandwidth,overlap},
# examples/ring_compare/ring_compare): a CUDA build, or the stripped copy scripts/gpu_stage.sh makes.
# OUT_DIR (default $OUT, else ./gpu-results) receives summary.txt and results.tgz (every log and JSON
# file), rewritten after each step so that a run cut short still returns what it did.
#
# Order, checks before benchmarks so that a run short of time still checks what matters: what the
# machine is, ringcomm-info, the conformance suite per transport on 1 rank and on 2 ranks — transports
# that fail it are left out of everything after — the G_t kernel tests, ring_compare at the paper's
# size, the mpi transport through Open MPI's UCX layer with the CUDA-enabled UCX, two bad placements
# (two ranks on one GPU, one rank more than GPUs), a stalled peer (SIGSTOP) for cuda_ipc and ucx and a
# forced NCCL error, each of which must end every rank in bounded time; then the benchmarks
# (kernel_bandwidth, ring_bandwidth, pingpong, overlap with GPU_SUITE_OVERLAP_TRANSPORTS, default all
# that passed).
#
# Two ranks run on two GPUs where the machine has them and share its GPU where it has one; a
# transport that needs a GPU per rank (nccl) then runs on 1 rank only, and every step that cannot
# run says "needs 2 GPUs" instead of failing. GPU_SUITE_GPUS overrides the count nvidia-smi gives.
#
# Environment: GPU_SUITE_SECONDS (default 480) bounds the whole run; each step also has its own limit.
# GPU_SUITE_ONLY="conformance ring_bandwidth …" runs only the steps whose names start with one of the
# words (then GPU_SUITE_TRANSPORTS, default those ringcomm-info calls usable on as many ranks, stands in
# for the conformance verdicts of transports not tested). RINGCOMM_UCX_LIB (default <repo>/.gpu/ucx/lib)
# is put first on LD_LIBRARY_PATH.
set -uo pipefail

[[ $# -ge 1 && -d $1 ]] || { echo "usage: $0 BUILD_DIR [OUT_DIR]" >&2; exit 2; }
BUILD=$(cd "$1" && pwd)
OUT_DIR=${2:-${OUT:-$PWD/gpu-results}}
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=$(mktemp -d /tmp/gpu_suite.XXXXXX)
DEADLINE=$((SECONDS + ${GPU_SUITE_SECONDS:-480}))
mkdir -p "$OUT_DIR"

# NVLink multicast (NVLS) can put a shared host's GPUs out of service: it stays off, always.
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Our UCX (CUDA-enabled, 1.22) comes first for the ucx transport. Open MPI's own transports are pinned
# to ob1 (shared memory) so that its UCX layer, built against another UCX, is not handed ours by
# accident; the one step that tests MPI over UCX asks for it explicitly.
UCX_LIB=${RINGCOMM_UCX_LIB:-$REPO/.gpu/ucx/lib}
export LD_LIBRARY_PATH=$UCX_LIB:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_MCA_pml=ob1

if ! command -v mpirun >/dev/null; then
  for dir in /usr/lib/x86_64-linux-gnu/openmpi/bin /usr/local/mpi/bin /opt/openmpi/bin; do
    [[ -x $dir/mpirun ]] && { export PATH=$dir:$PATH; break; }
  done
fi

GPUS=${GPU_SUITE_GPUS:-$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')}
# Transports that refuse two ranks on one GPU (their probes say so); the others take ranks sharing one.
OWN_GPU_TRANSPORTS=" nccl "

summary() { echo "$*" | tee -a "$WORK/summary.txt"; }
pack() {
  cp "$WORK/summary.txt" "$OUT_DIR/summary.txt"
  tar czf "$OUT_DIR/results.tgz" -C "$WORK" .
}

# step NAME LIMIT_SECONDS COMMAND… : runs COMMAND with its output in NAME.log, within LIMIT and the
# time left; records "NAME: ok|FAILED (status)|TIMEOUT" and returns the command's status.
selected() {
  [[ -z ${GPU_SUITE_ONLY:-} ]] && return 0
  local word
  for word in $GPU_SUITE_ONLY; do [[ $1 == "$word"* ]] && return 0; done
  return 1
}

step() {
  local name=$1 limit=$2 left=$((DEADLINE - SECONDS))
  shift 2
  if ! selected "$name"; then
    summary "$name: not selected"
    return 125
  fi
  if ((left < 10)); then
    summary "$name: not run (suite time used up)"
    STEP_SECONDS=-1
    return 124
  fi
  ((limit > left)) && limit=$left
  local start=$SECONDS status
  echo "== $name (limit ${limit}s): $*" >"$WORK/$name.log"
  timeout --kill-after=10 "$limit" "$@" >>"$WORK/$name.log" 2>&1
  status=$?
  local verdict=ok
  ((status == 124 || status == 137)) && verdict=TIMEOUT
  ((status != 0 && status != 124 && status != 137)) && verdict="FAILED (status $status)"
  STEP_SECONDS=$((SECONDS - start))
  # expect_failure words the verdict of its steps itself.
  [[ -z ${STEP_EXPECTS_FAILURE:-} ]] && summary "$name: $verdict in ${STEP_SECONDS}s"
  pack
  return "$status"
}

# expect_failure NAME PATTERN LIMIT COMMAND… : the command must fail and its output match PATTERN.
expect_failure() {
  local name=$1 pattern=$2 limit=$3
  shift 3
  STEP_EXPECTS_FAILURE=1 step "$name" "$limit" "$@"
  local status=$?
  ((status == 125 || STEP_SECONDS < 0)) && return 0
  if ((status != 0 && status != 124 && status != 137)) && grep -Eq "$pattern" "$WORK/$name.log"; then
    summary "$name: ok in ${STEP_SECONDS}s, failed as expected (status $status): $(grep -Em1 "$pattern" "$WORK/$name.log" | cut -c1-300)"
  else
    summary "$name: UNEXPECTED (status $status after ${STEP_SECONDS}s; wanted a failure matching '$pattern')"
  fi
  pack
}

# needs_gpus NAME N : true when the machine has N GPUs; otherwise records "NAME: needs N GPUs".
needs_gpus() {
  ((GPUS >= $2)) && return 0
  selected "$1" && summary "$1: needs $2 GPUs (this machine has $GPUS)"
  return 1
}

# joined WORD… : "a,b,c"
joined() { local IFS=,; echo "$*"; }

run1=(mpirun -np 1 --bind-to none)
run2=(mpirun -np 2 --bind-to none)

summary "ringcomm GPU suite: build $BUILD, $(date -u +%FT%TZ), host $(hostname), $GPUS GPU(s)"

# Libraries the programs need that the dynamic loader does not know about here.
if ldd "$BUILD/bench/ring_bandwidth" 2>/dev/null | grep -q 'libnccl.so.2 => not found'; then
  for dir in /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/lib/x86_64-linux-gnu \
             $(python3 -c 'import nvidia.nccl, os; print(os.path.join(nvidia.nccl.__path__[0], "lib"))' 2>/dev/null); do
    if [[ -e $dir/libnccl.so.2 ]]; then export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$dir; break; fi
  done
fi

step system 30 bash -c "nvidia-smi; nvidia-smi topo -m; nvidia-smi nvlink -s 2>/dev/null | head -40;
  mpirun --version; ompi_info | grep -Ei 'pml|btl: |ucx|cuda' ; ldd '$BUILD/bench/ring_bandwidth';
  echo LD_LIBRARY_PATH=\$LD_LIBRARY_PATH; env | grep -E '^(NCCL|OMPI|UCX)_' | sort"

step ringcomm_info 40 bash -c "mpirun -np 2 --bind-to none '$BUILD/tools/ringcomm-info' &&
  mpirun -np 2 --bind-to none '$BUILD/tools/ringcomm-info' --json > '$WORK/ringcomm_info.json' &&
  mpirun -np 1 --bind-to none '$BUILD/tools/ringcomm-info' --json > '$WORK/ringcomm_info_p1.json'"

# Transports that pass conformance take part in everything below: passed1 on 1 rank (a ring of one,
# messages up to 256 MiB), passed2 on 2 ranks. nccl runs the suite whole: its walker-thread tests
# check that RingTeam refuses T > 1 for it (GPU kernels of several threads' exchanges can wait on
# each other across ranks). Its channel-level threads test (one channel per thread, no RingTeam)
# passed in every GPU run so far and stays in.
# Every compiled backend, in `auto` order, as ringcomm-info reported them: no list is kept here. (A
# run limited by GPU_SUITE_ONLY that skipped ringcomm-info takes GPU_SUITE_TRANSPORTS instead.)
compiled=$(python3 -c '
import json, sys
for t in sorted(json.load(open(sys.argv[1]))["transports"], key=lambda t: t["auto_preference"]): print(t["name"])
' "$WORK/ringcomm_info.json" 2>/dev/null)
[[ -n $compiled ]] || compiled=$(echo "${GPU_SUITE_TRANSPORTS:-}" | tr , ' ')
[[ -n $compiled ]] || summary "  ringcomm-info listed no transports: no conformance runs"
passed1=()
passed2=()
# reported_usable INFO_JSON TRANSPORT : whether ringcomm-info, run on that many ranks, called it usable.
reported_usable() {
  python3 -c '
import json, sys
usable = {t["name"]: t["usable"] for t in json.load(open(sys.argv[1]))["transports"]}
sys.exit(0 if usable.get(sys.argv[2]) else 1)
' "$1" "$2" 2>/dev/null
}
# conformance_verdict NAME TRANSPORT STATUS INFO_JSON : whether the step's transport passed (0), was
# skipped as not usable (1, said in the summary) or failed. A step not selected stands in with
# GPU_SUITE_TRANSPORTS where that is set, else with what ringcomm-info said on the same number of ranks
# (every compiled transport would hand later steps ones that refuse this machine, e.g. mpi without
# CUDA-aware MPI).
conformance_verdict() {
  local name=$1 t=$2 status=$3 info=$4
  if ((status == 125)); then
    if [[ -n ${GPU_SUITE_TRANSPORTS:-} ]]; then
      [[ ,$GPU_SUITE_TRANSPORTS, == *,$t,* ]]
      return
    fi
    reported_usable "$info" "$t"
    return
  fi
  ((status == 0)) || return 2
  if grep -q "\[  SKIPPED \]" "$WORK/$name.log" && ! grep -q "\[  PASSED  \] [1-9]" "$WORK/$name.log"; then
    summary "  $t: skipped (not usable here): $(grep -m1 -A1 'not usable\|Skipped' "$WORK/$name.log" | tail -1 | cut -c1-300)"
    return 1
  fi
  return 0
}
for t in $compiled; do
  filter="*/$t"
  step "conformance_p1_$t" 90 "${run1[@]}" "$BUILD/tests/test_conformance" --gtest_color=no --gtest_filter="$filter"
  conformance_verdict "conformance_p1_$t" "$t" $? "$WORK/ringcomm_info_p1.json" && passed1+=("$t")
  if [[ $OWN_GPU_TRANSPORTS == *" $t "* ]] && ! needs_gpus "conformance_$t" 2; then continue; fi
  step "conformance_$t" 90 "${run2[@]}" "$BUILD/tests/test_conformance" --gtest_color=no --gtest_filter="$filter"
  conformance_verdict "conformance_$t" "$t" $? "$WORK/ringcomm_info.json" && passed2+=("$t")
done
step conformance_other 60 "${run2[@]}" "$BUILD/tests/test_conformance" --gtest_color=no --gtest_filter='-EveryTransport/*'
step kernels 90 "${run2[@]}" "$BUILD/tests/test_kernels" --gtest_color=no
summary "transports passing conformance: on 1 rank: ${passed1[*]:-none}; on 2 ranks: ${passed2[*]:-none}"
list=$(joined "${passed2[@]}")
# Those that passed on 1 rank only (a transport needing a GPU per rank, on one GPU) run the
# single-rank steps below.
only1=()
for t in "${passed1[@]}"; do [[ " ${passed2[*]} " == *" $t "* ]] || only1+=("$t"); done
list1=$(joined "${only1[@]}")

# The ring end to end at the paper's size: on 2 ranks, then on 1 rank for the transports that could
# not take 2 here.
if [[ -n $list ]]; then
  # The paper's size: Nc = 36 (6x6), 2n = 64, 10 exchange momenta x 4 exchange frequencies:
  # 212,336,640 G_t entries, 3.4 GB of complex<double>, on 2 ranks; errors against the original, and
  # (as ring and original share the kernel) 1000 entries against the serial formula (--verify-sample).
  step ring_compare 180 "${run2[@]}" "$BUILD/examples/ring_compare/ring_compare" --transports "$list" --nb 1 --lx 6 --ly 6 \
    --nfreq 64 --exchange-momenta 0,1,2,3,4,5,6,7,8,9 --exchange-frequencies 0,1,2,3 --measurements 8 \
    --compare-limit 212336640 --verify-sample 1000 --json "$WORK/ring_compare.json"
fi

if [[ -n $list1 ]]; then
  step ring_compare_p1 180 "${run1[@]}" "$BUILD/examples/ring_compare/ring_compare" --transports "$list1" --nb 1 --lx 6 \
    --ly 6 --nfreq 64 --exchange-momenta 0,1,2,3,4,5,6,7,8,9 --exchange-frequencies 0,1,2,3 --measurements 8 \
    --compare-limit 212336640 --json "$WORK/ring_compare_p1.json"
fi

# Open MPI's UCX layer over the CUDA-enabled UCX moving device buffers, vouched for by hand. Open MPI
# does not tell UCX that the buffers are GPU memory, so UCX must find out for itself; its memory-type
# cache does not see Kokkos' cudaMalloc (docs/troubleshooting.md, "ucx: registering … Invalid
# parameter"), so it asks CUDA about every buffer instead.
mpi_over_ucx=(env RINGCOMM_MPI_GPU_AWARE=1 OMPI_MCA_pml=ucx "UCX_TLS=${UCX_TLS:-cuda_copy,cuda_ipc,sm,self}" UCX_MEMTYPE_CACHE=n)
step mpi_over_ucx_conformance 60 "${mpi_over_ucx[@]}" "${run2[@]}" "$BUILD/tests/test_conformance" --gtest_color=no --gtest_filter='*/mpi'
step mpi_over_ucx_pingpong 60 "${mpi_over_ucx[@]}" "${run2[@]}" "$BUILD/bench/pingpong" --transports mpi --max-bytes 256M \
  --factor 4 --json "$WORK/pingpong_mpi_over_ucx.json"

# nccl's probe refuses ranks that share a GPU, the same way on every rank; a program that was told to
# use it then fails with that reason.
expect_failure shared_gpu "share GPU" 40 env CUDA_VISIBLE_DEVICES=0 mpirun -np 2 --bind-to none \
  "$BUILD/examples/ring_compare/ring_compare" --transports nccl --no-original --measurements 2 --nb 1 --lx 2 --ly 2 --nfreq 4
expect_failure more_ranks_than_gpus "has only $GPUS GPU" 40 mpirun -np $((GPUS + 1)) --bind-to none --oversubscribe \
  "$BUILD/examples/ring_compare/ring_compare" --transports nccl --no-original --measurements 3

# A stalled peer: rank 1 stops (SIGSTOP) mid-ring; every other rank must report the timeout and the
# job end within RINGCOMM_TIMEOUT (3 s) + 4 s (tests/fault_injection.cmake checks both). cuda_ipc and
# ucx take two ranks on one GPU.
for t in cuda_ipc ucx; do
  [[ " ${passed2[*]} " == *" $t "* ]] || continue
  step "fault_${t}_stop" 60 cmake -DMPIEXEC=mpirun -DNUMPROC_FLAG=-np -DPROBE="$BUILD/tests/fault_probe" -DRANKS=2 \
    -DTRANSPORT="$t" -DFAULT=stop -DFAULT_RANK=1 -DAFTER_ROUND=3 -DTIMEOUT=3 -DMARGIN=4 -P "$REPO/tests/fault_injection.cmake"
done
# A forced NCCL error: rank 1 aborts its communicator at its 3rd ring step (the library's test hook)
# and fails; rank 0 must end too, well within the step's limit, with the failure named. nccl refuses
# two ranks on one GPU, so this needs two.
if needs_gpus fault_nccl_abort 2; then
  expect_failure fault_nccl_abort "ncclCommAbort by the test hook" 40 env RINGCOMM_TEST_NCCL_ABORT=1:3 RINGCOMM_TIMEOUT=5 \
    RINGCOMM_TRANSPORT=nccl "${run2[@]}" "$BUILD/tests/fault_probe" --rounds 50
fi

# Benchmarks last: they take the longest and check nothing the steps above have not.
step kernel_bandwidth 60 mpirun -np 1 "$BUILD/bench/kernel_bandwidth" --channel all --json "$WORK/kernel_bandwidth.json"
if [[ -n $list ]]; then
  # Sizes by fours, and the paper's message: the host transport's large steps take long.
  step ring_bandwidth 240 "${run2[@]}" "$BUILD/bench/ring_bandwidth" --transports "$list" \
    --sizes 1M,4M,16M,64M,170M,256M,1G --json "$WORK/ring_bandwidth.json"
  step pingpong 150 "${run2[@]}" "$BUILD/bench/pingpong" --transports "$list" --json "$WORK/pingpong.json"
  # Issue #4's overlap and walker-thread targets: compute, communication, lock-step and overlap rings
  # and 1, 2, 4 threads side by side. The paper's G_σ (194 MiB messages) with 3 of its 10 exchange
  # momenta (510 MiB of G_t per rank), so that a step's kernel and exchange take about as long over NVLink.
  # nccl measures one thread only (RingTeam refuses more for it). The paper's size, where compute
  # dominates, is measured too (docs/results/README.md).
  overlap_list=$(for t in ${GPU_SUITE_OVERLAP_TRANSPORTS:-${passed2[*]}}; do
    [[ " ${passed2[*]} " == *" $t "* ]] && echo "$t"; done | paste -sd,)
  # Two ranks sharing one GPU also share its SMs: what overlap measures means nothing there.
  if [[ -n $overlap_list ]] && needs_gpus overlap 2 && needs_gpus overlap_paper 2; then
    step overlap 240 "${run2[@]}" "$BUILD/bench/overlap" --transports "$overlap_list" --threads 1,2,4 --nb 1 --lx 6 \
      --ly 6 --nfreq 64 --exchange-momenta 0,1,2 --exchange-frequencies 0,1,2,3 --measurements 16 --samples 5 \
      --json "$WORK/overlap.json"
    step overlap_paper 240 "${run2[@]}" "$BUILD/bench/overlap" --transports "$overlap_list" --threads 1,2,4 --nb 1 \
      --lx 6 --ly 6 --nfreq 64 --exchange-momenta 0,1,2,3,4,5,6,7,8,9 --exchange-frequencies 0,1,2,3 \
      --measurements 16 --samples 5 --json "$WORK/overlap_paper.json"
  fi
fi

summary "suite done in ${SECONDS}s"
pack
