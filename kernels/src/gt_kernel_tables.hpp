#pragma once
// What a message is turned into before a pass over G_t reads it (gt_kernel.hpp): its G_σ transposed
// (TransposeKernel) and the bubble channels' factor tables (FactorKernel).
#include <Kokkos_Core.hpp>
#include <cstdint>

#include "ringcomm/gt/accumulator.hpp"
#include "gt_kernel_access.hpp"

namespace ringcomm::gt::detail {

// out[j + M·i] = in[i + M·j] for both spins (2M² values, G_up then G_down), through 32 × 32 tiles in
// team scratch memory so that both the reads and the writes are coalesced. Each thread loads kBatch
// values into registers before it stores any of them to scratch, so that they are in flight together.
// On an H200 that made this kernel 2–4 % faster in complex<double> and 1–2 % in complex<float>
// (docs/results/h200_transpose; a plain-CUDA transpose went from 0.81–0.83 of a copy's rate one value
// at a time to 0.95 with four, in complex<float>).
template <class Message>
struct TransposeKernel {
  static constexpr int kTile = 32;
  static constexpr int kBatch = 4;
  using Team = typename Kokkos::TeamPolicy<ExecSpace>::member_type;
  // LayoutRight, so that the padding column keeps the column reads free of bank conflicts: the
  // scratch space's default on CUDA is LayoutLeft, which puts the padding on the other side and the
  // 32 stores of a warp to the tile 32 values apart, all in the same banks (on an H200 the complex<float>
  // copy took 78 µs so, 52 µs with LayoutRight at the paper size: docs/results/h200_transpose).
  using Tile = Kokkos::View<Message**, Kokkos::LayoutRight, typename ExecSpace::scratch_memory_space,
                            Kokkos::MemoryUnmanaged>;

  MessageView<Message> in;
  Kokkos::View<Message*> out;
  // When not empty, the message as it is (G_up, G_down and the sign: 2M² + 1 values, `in` as long):
  // a batch stages its messages here while the transpose reads them anyway, so that a staged ph
  // message is read once, not once more by a copy of its own.
  Kokkos::View<Message*> copy;
  int m;
  int tiles;  // ⌈M / kTile⌉ per side

  static std::size_t scratch_bytes() { return Tile::shmem_size(kTile, kTile + 1); }

  KOKKOS_INLINE_FUNCTION void operator()(const Team& team) const {
    const int league = team.league_rank();
    const int per_matrix = tiles * tiles;
    const std::uint64_t matrix = static_cast<std::uint64_t>(league / per_matrix) * m * m;
    const int tile_row = (league % per_matrix) % tiles * kTile;
    const int tile_col = (league % per_matrix) / tiles * kTile;
    Tile tile(team.team_scratch(0), kTile, kTile + 1);
    // Thread `rank` takes tile positions rank + size·j: with 256 threads (CUDA) one round of kBatch,
    // with one (Serial) 256 rounds.
    const int size = team.team_size(), rank = team.team_rank();
    const bool copies = copy.extent(0) > 0;
    const std::uint64_t sign_at = 2 * static_cast<std::uint64_t>(m) * m;  // the message's last value
    if (copies && league == 0 && rank == 0) copy(sign_at) = in(sign_at);
    for (int first = rank; first < kTile * kTile; first += size * kBatch) {
      Message value[kBatch];
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int j = 0; j < kBatch; ++j) {
        const int t = first + size * j, r = tile_row + t % kTile, c = tile_col + t / kTile;
        if (t < kTile * kTile && r < m && c < m) {
          const std::uint64_t at = matrix + r + static_cast<std::uint64_t>(m) * c;
          value[j] = in(at);
          if (copies) copy(at) = value[j];
        }
      }
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
      for (int j = 0; j < kBatch; ++j) {
        const int t = first + size * j;
        if (t < kTile * kTile) tile(t / kTile, t % kTile) = value[j];
      }
    }
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, kTile * kTile), [&](const int t) {
      const int c = tile_col + t % kTile, r = tile_row + t / kTile;  // out row c, out column r
      if (r < m && c < m) out(matrix + c + static_cast<std::uint64_t>(m) * r) = tile(t % kTile, t / kTile);
    });
  }
};

// The bubble factors: entry j + F·(x + N_X·side), F = nb²·Nc·2n, j = ba + nb·bb + nb²·(k + Nc·w),
// exchange x = iQ + N_Q·iΩ; side 0 is left(b1 = ba, b2 = bb, k1 = k, w1 = w) = F(b2 k1 w1; b1 k1+Q w1+Ω),
// side 1 is right(b3 = ba, b4 = bb, k2 = k, w2 = w) = F(b3 k2+Q w2+Ω; b4 k2 w2), with F = G_up − G_down
// (kDifference) or G_up + G_down.
template <class Scalar, class Message, bool kDifference>
struct FactorKernel {
  Kokkos::View<Scalar*> factors;
  GLayout at;
  DeviceTables tables;
  MessageView<Message> up;
  MessageView<Message> down;
  int n_freq;
  int nq;
  std::int64_t per_side;  // F

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t j = i % per_side;
    const int x = static_cast<int>((i / per_side) % (factors.extent(0) / 2 / per_side));
    const bool right = i >= static_cast<std::int64_t>(factors.extent(0) / 2);
    const int nb = at.nb, nc = at.nc;
    const int ba = static_cast<int>(j % nb), bb = static_cast<int>(j / nb % nb);
    const int k = static_cast<int>(j / (nb * nb) % nc), w = static_cast<int>(j / (nb * nb * nc));
    const int q = tables.exchange_momenta(x % nq);
    const int kp = tables.add(k + nc * q);
    const int wp = w + tables.exchange_frequencies(x / nq);
    const std::uint64_t position = right ? at(ba, kp, wp, bb, k, w) : at(bb, k, w, ba, kp, wp);
    const Scalar u = widen<Scalar>(up(position)), d = widen<Scalar>(down(position));
    factors(i) = kDifference ? u - d : u + d;
  }
};

}  // namespace ringcomm::gt::detail
