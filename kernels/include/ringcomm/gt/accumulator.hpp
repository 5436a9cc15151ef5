#pragma once
// Adds one measurement's contribution to this rank's slice of G_t: the Ring's consume functor.
//
//   GtAccumulator<Scalar> accumulate(dims, channel, gt.local(), gt.range());
//   ring.circulate(accumulate);
//
// Each call launches one kernel on the accumulator's execution space instance and returns at once;
// the kernel reads the sign from the message itself, so nothing waits for the device. A message
// whose sign is 0 (padding) adds nothing, whatever its G_σ slots hold.
//
// Instantiated for Kokkos::complex<double> and Kokkos::complex<float>.
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <string>

#include "ringcomm/distributed_array.hpp"
#include "ringcomm/gt/dims.hpp"
#include "ringcomm/ring.hpp"

namespace ringcomm::gt {

// The G_t shape and lookup tables a kernel needs, resident in device memory.
struct DeviceTables {
  Kokkos::View<const int*> add;  // ClusterTables::add
  Kokkos::View<const int*> sub;  // ClusterTables::sub
  Kokkos::View<const int*> exchange_momenta;
  Kokkos::View<const int*> exchange_frequencies;
};

// Whether other kernels may update the same slice at the same time (walker threads of one rank).
// Concurrent updates add the real and imaginary parts atomically, which costs speed, so exclusive
// is the default.
enum class Updates { exclusive, concurrent };

template <class Scalar>
class GtAccumulator {
 public:
  using SliceView = Kokkos::View<Scalar*>;

  // `slice` holds G_t entries [range.begin, range.end). Throws ringcomm::Error when dims are invalid
  // or the slice does not match the range.
  GtAccumulator(const Dims& dims, Channel channel, SliceView slice, SliceRange range,
                const ExecSpace& exec = ExecSpace(), Updates updates = Updates::exclusive);

  // `message`: Dims::message_entries() scalars in ExecSpace memory. `origin` (the ring position that
  // made it) is not needed: every message carries its own G_σ and sign.
  void operator()(const void* message, int origin = 0) const;

  // How many exchange rows (Q,Ω) the warps of one thread block cover for the same 32 inner entries
  // (see SliceOrder in gt_kernel.hpp): the G_σ values those entries share are then read from memory
  // once per block instead of once per row. 1 walks one row after another. Throws ringcomm::Error
  // outside [1, kMaxExchangeRowTile].
  static constexpr int kMaxExchangeRowTile = 64;
#ifdef KOKKOS_ENABLE_CUDA
  // On an H200 tiles of 4 rows make the ph channels 1.35–1.42 × faster and leave pp as it was.
  static constexpr int kDefaultExchangeRowTile = 4;
#else
  static constexpr int kDefaultExchangeRowTile = 1;  // no gain on CPUs
#endif
  void set_exchange_row_tile(int rows);
  int exchange_row_tile() const { return row_tile_; }

  Channel channel() const { return channel_; }
  SliceRange range() const { return range_; }
  const Dims& dims() const { return dims_; }

 private:
  template <Channel kChannel>
  void launch(const Scalar* message) const;
  template <Channel kChannel, bool kAtomic>
  void launch_with(const Scalar* message) const;

  Dims dims_;
  Channel channel_;
  SliceView slice_;
  SliceRange range_;
  ExecSpace exec_;
  Updates updates_;
  DeviceTables tables_;
  std::string label_;  // kernel name for profilers
  int row_tile_ = kDefaultExchangeRowTile;
};

}  // namespace ringcomm::gt
