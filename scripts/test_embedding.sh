#!/usr/bin/env bash
# Builds the embedding examples against an installed ringcomm, as outside projects would
# (find_package(ringcomm)), and runs them on 4 MPI ranks:
#   - examples/mini_qmc once per transport usable here (ringcomm-info): the G_t files must agree within 5e-7
#     (relative l1, l2 and linf), and the half-filled run must show density 1;
#   - examples/custom_kernel once per transport: its own check against serial references.
# A transport that the installed ringcomm reports unusable here is skipped with its reason.
#
# Usage: scripts/test_embedding.sh <ringcomm install prefix> [work folder]
# (scripts/test.sh calls it with the prefix it installs to.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/common.sh

if [[ $# -lt 1 || $1 == -h || $1 == --help ]]; then
  sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  [[ $# -ge 1 ]] && exit 0 || exit 2
fi
prefix=$(realpath "$1")
work=${2:-$(mktemp -d /tmp/ringcomm-embedding.XXXXXX)}
mkdir -p "$work"
work=$(realpath "$work")
tolerance=5e-7
passed=0 failed=0
pass() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAILED: $*"; failed=$((failed + 1)); }

echo "== embedding: build examples/mini_qmc and examples/custom_kernel against $prefix"
for example in mini_qmc custom_kernel; do
  cmake -S "examples/$example" -B "$work/$example" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" >"$work/$example.configure.log" || { cat "$work/$example.configure.log"; exit 1; }
  cmake --build "$work/$example" --parallel "$(ringcomm_jobs)"
done

# Every transport the installed ringcomm reports usable here (ringcomm-info --json, probed on 4 ranks
# as the runs below use), in its `auto` order; the others are reported with their reasons and skipped.
transports=()
while IFS=$'\t' read -r transport reason; do
  if [[ -z $reason ]]; then transports+=("$transport"); else echo "skipped: transport $transport: $reason"; fi
done < <(mpirun -np 4 "$prefix/bin/ringcomm-info" --json | python3 -c '
import json, sys
found = sorted(json.load(sys.stdin)["transports"], key=lambda t: t["auto_preference"])
for t in found:
    print(t["name"] + "\t" + ("" if t["usable"] else t["reason"].replace("\t", " ").replace("\n", " ")))')
((${#transports[@]} > 0)) || { echo "FAILED: ringcomm-info reports no usable transport"; exit 1; }

echo "== embedding: mini_qmc on 4 ranks with ${transports[*]}"
cd "$work"
for transport in "${transports[@]}"; do
  if RINGCOMM_TRANSPORT=$transport mpirun -np 4 "$work/mini_qmc/mini_qmc" --input "$OLDPWD/examples/mini_qmc/input.json" \
       --output "gt_$transport.npy" --summary "summary_$transport.json"; then
    pass "mini_qmc with $transport"
  else
    fail "mini_qmc with $transport"
  fi
done
reference=${transports[0]}
for transport in "${transports[@]:1}"; do
  if "$work/mini_qmc/mini_qmc" --compare "gt_$transport.npy" --against "gt_$reference.npy" --tolerance "$tolerance"; then
    pass "G_t of $transport equals G_t of $reference within $tolerance"
  else
    fail "G_t of $transport differs from G_t of $reference"
  fi
done
# At mu = 0 particle-hole symmetry fixes the density at exactly one electron per site, whatever the fields.
if python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
ok = abs(s["density"] - 1) < 1e-9 and s["average_sign"] == 1 and 0 < s["acceptance_rate"] < 1
print("mini_qmc physics: density %.12f, average sign %g, acceptance rate %.4f" % (s["density"], s["average_sign"], s["acceptance_rate"]))
sys.exit(0 if ok else 1)' "summary_$reference.json"; then
  pass "mini_qmc at half filling: density 1, sign 1"
else
  fail "mini_qmc at half filling: density, sign or acceptance rate out of range"
fi

echo "== embedding: custom_kernel on 4 ranks with ${transports[*]}"
for transport in "${transports[@]}"; do
  if RINGCOMM_TRANSPORT=$transport mpirun -np 4 "$work/custom_kernel/custom_kernel"; then
    pass "custom_kernel with $transport"
  else
    fail "custom_kernel with $transport"
  fi
done

echo "embedding: $passed passed, $failed failed"
((failed == 0))
