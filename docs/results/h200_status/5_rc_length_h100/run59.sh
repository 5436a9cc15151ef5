# Device script of docs/results/h200_status/3_batch_sweep (one H200): `bash .gpu/run59.sh` from the root, carrying
# .gpu/bin/teams.tar.xz (as run_1.sh.txt) and .gpu/bin/settle.tar.xz. Part 1 runs on any card, part 2 on an H200 only. The double bubble channels at
# B = 32 are the one batched target not met on the H200 (0.62-0.63 x floor): kernel_bandwidth at B = 32 over
# team threads, inner-block chunks, frequency warps and row tiles, two rounds, with the defaults of every
# double channel beside it. Then kernel_bandwidth at one message for complex<float> alone: after double and mixed
# (run56's order) its first case, pp_up_down, ran kernel and copy 9-10 % slower than h200_nb2_steps's run did:
# that order with 47ef225's kernel_bandwidth and with one that settles the copy rate first (.gpu/bin/settle.tar.xz).
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_pml=ob1 NCCL_NVLS_ENABLE=0
export PATH=/usr/local/cuda/bin:$PATH LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$SECONDS
NAME=$(nvidia-smi --query-gpu=name --format=csv,noheader); echo "$NAME"
case "$NAME" in *H200*) ;; *) [ -n "${ANY_CARD:-}" ] || { echo "not an H200: stopping (ANY_CARD=1 runs part 1)"; exit 3; };; esac
mkdir -p /tmp/bin && tar xJf .gpu/bin/teams.tar.xz -C /tmp/bin
D=$OUT/d59; mkdir -p $D
nvidia-smi > $D/nvidia-smi.txt 2>&1
KB=/tmp/bin/teams/kernel_bandwidth
# 1. The slow first complex<float> case: run56's order with teams and with settle (kernel_bandwidth that copies
# freshly allocated arrays until their copy rate is steady), alternately; then complex<float> alone.
[ -f .gpu/bin/settle.tar.xz ] && tar xJf .gpu/bin/settle.tar.xz -C /tmp/bin
for round in 1 2; do for b in teams settle; do
  [ -x /tmp/bin/$b/kernel_bandwidth ] || continue
  timeout 60 /tmp/bin/$b/kernel_bandwidth --nb 1,2 --precision double,mixed,float --channel all --batch 1 --launches 2 \
    --repetitions 3 --json $D/kb_order_${b}_$round.json > $D/kb_order_${b}_$round.txt 2>&1
  echo -n "order $b $round rc=$?; "
done; done; echo " at $((SECONDS-T0))s"
for round in 1 2; do
  timeout 60 $KB --nb 1,2 --precision float --channel all --batch 1 --launches 2 --repetitions 3 \
    --json $D/kb_float_alone_$round.json > $D/kb_float_alone_$round.txt 2>&1
  echo -n "float alone $round rc=$?; "
done; echo " at $((SECONDS-T0))s"
# 2. The batch sweep, on an H200 only.
case "$NAME" in *H200*) ;; *) echo "not an H200: no sweep"; cd $OUT && tar czf d59.tgz d59 && rm -r d59; exit 3;; esac
for round in 1; do
  timeout 100 $KB --nb 1 --precision double --channel all --batch 32 --launches 2 --repetitions 3 \
    --json $D/kb_defaults_$round.json > $D/kb_defaults_$round.txt 2>&1
  echo "defaults $round rc=$? at $((SECONDS-T0))s"
  timeout 200 $KB --nb 1 --precision double --channel ph_magnetic --batch 32 --team-threads 0,256,512,1024 \
    --inner-block-chunks 1,3,6 --frequency-warps 1,2,4 --row-tile 2,4 --launches 2 --repetitions 3 \
    --json $D/kb_sweep_$round.json > $D/kb_sweep_$round.txt 2>&1
  echo "sweep $round rc=$? at $((SECONDS-T0))s"
done
cd $OUT && tar czf d59.tgz d59 && rm -r d59
echo "done at $((SECONDS-T0))s"
