#pragma once
// The GPU's L2 set-aside for persisting accesses, which the G_t kernels' G_σ reads rely on.
//
// The single-message kernels read G_σ with L2's "evict last" policy (kernels/src/l2_hints.hpp), so
// that the G_t lines streaming through L2 are evicted before the G_σ lines other threads read again.
// How much L2 those reads may keep is the device's set-aside for persisting accesses
// (cudaLimitPersistingL2CacheSize), a per-process setting whose starting value depends on the machine.
// On an H200 the ph_magnetic and ph_charge kernels ran 2–15 % slower with none than with 11.25 MiB
// set aside (the others within 3 % either way), and every kernel slower with 18.75 MiB or more
// (docs/results/h200_l2_set_aside), so GtAccumulator raises a smaller set-aside to
// kDefaultL2SetAsideMiB and never lowers one.
#include <cstdint>
#include <string>

namespace ringcomm::gt {

inline constexpr int kDefaultL2SetAsideMiB = 11;

// What raise_l2_set_aside found and left; bytes, -1 where there is no CUDA device (CPU builds).
struct L2SetAside {
  std::int64_t wanted = 0;   // asked for, clamped to the device's maximum; 0: leave it as it is
  std::int64_t before = -1;  // the set-aside found
  std::int64_t after = -1;   // the set-aside left (the device rounds to its own granularity)
  std::string problem;       // why it could not be raised (e.g. under MPS or MIG); empty otherwise
};

// RINGCOMM_GT_L2_SET_ASIDE_MIB (an integer in [0, 1024]), else kDefaultL2SetAsideMiB; 0 leaves the
// device's set-aside as it is. ringcomm::Error for any other value.
int l2_set_aside_setting();

// Sets the current CUDA device's set-aside to `mib` MiB (at most the device's maximum) where it is
// smaller, or also where it is larger when `may_lower`; never throws for the device (a failure is
// only reported in `problem`: the setting is a performance hint). Off CUDA it does nothing and
// reports -1. With mib = 0 and !may_lower it only reads the set-aside (before == after).
L2SetAside change_l2_set_aside(int mib, bool may_lower);

// change_l2_set_aside(mib, false): what the accumulator does.
inline L2SetAside raise_l2_set_aside(int mib) { return change_l2_set_aside(mib, false); }

// raise_l2_set_aside(l2_set_aside_setting()) the first time it is called in a process; later calls
// return what that first call did. GtAccumulator's constructor calls it.
const L2SetAside& l2_set_aside_once();

}  // namespace ringcomm::gt
