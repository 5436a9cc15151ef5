#!/usr/bin/env bash
# Builds ringcomm on a Debian 12 machine (installing what is missing) and runs every test:
#   1. configure and build with the `cpu` preset (build/cpu),
#   2. install to a temporary prefix and build and run, against the installation alone:
#      tests/consumer (C++, ringcomm::Session with a consume functor of its own) on 2 MPI ranks, and
#      tests/c_consumer (the same through the C API, in C and in Fortran) on 3,
#      then scripts/test_embedding.sh (examples/mini_qmc and examples/custom_kernel),
#   3. the same tests built with AddressSanitizer and UndefinedBehaviorSanitizer (preset asan,
#      build/asan; RINGCOMM_SKIP_SANITIZERS=1 leaves this out),
#   4. ctest (its summary line "100% tests passed, …" comes last).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/common.sh

install_missing_packages

echo "== configure and build (preset cpu, $(ringcomm_jobs) jobs)"
cmake --preset cpu
cmake --build --preset cpu --parallel "$(ringcomm_jobs)"

echo "== outside consumer: install, find_package(ringcomm), run on 2 ranks"
prefix=$(mktemp -d /tmp/ringcomm-install.XXXXXX)
trap 'rm -rf "$prefix"' EXIT
cmake --install build/cpu --prefix "$prefix/usr" >/dev/null
cmake -S tests/consumer -B "$prefix/consumer-build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix/usr"
cmake --build "$prefix/consumer-build" --parallel "$(ringcomm_jobs)"
mpirun -np 2 "$prefix/consumer-build/byte_histogram"
echo "== outside C and Fortran consumers (ringcomm.h, ringcomm::c) on 3 ranks"
cmake -S tests/c_consumer -B "$prefix/c-consumer-build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix/usr"
cmake --build "$prefix/c-consumer-build" --parallel "$(ringcomm_jobs)"
mpirun -np 3 "$prefix/c-consumer-build/c_byte_histogram"
mpirun -np 3 "$prefix/c-consumer-build/fortran_byte_histogram"  # gfortran is one of the packages above
scripts/test_embedding.sh "$prefix/usr" "$prefix/embedding"  # examples/mini_qmc and custom_kernel against the installation

if [[ ${RINGCOMM_SKIP_SANITIZERS:-0} != 1 ]]; then
  # Every test again, instrumented: memory errors and undefined behaviour fail them. About as long
  # as the build and tests above.
  echo "== sanitizers: configure, build and ctest (preset asan)"
  cmake --preset asan
  cmake --build --preset asan --parallel "$(ringcomm_jobs)"
  ctest --preset asan
fi

echo "== ctest"
ctest --preset cpu
