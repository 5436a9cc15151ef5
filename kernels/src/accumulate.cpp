#include "ringcomm/gt/accumulate.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <type_traits>

#include "ringcomm/collective.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/gt/walker.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/ring_team.hpp"
#include "ringcomm/trace.hpp"

namespace ringcomm::gt {

namespace {

// Collective: every rank must run the same, valid problem.
void check_problem(const Problem& problem, MPI_Comm world) {
  collectively(world, [&] { problem.dims.validate(); });
  check_identical(world,
                  {{"G_t dimensions", problem.dims.describe()},
                   {"channel", to_string(problem.channel)},
                   {"seed", std::to_string(problem.seed)},
                   {"measurements", std::to_string(problem.measurements)}},
                  "the G_t problem");
}

// Brackets a timed region: all ranks start together and the slowest rank's time counts.
class CollectiveTimer {
 public:
  explicit CollectiveTimer(MPI_Comm world) : world_(world) {
    Kokkos::fence();
    barrier(world_);
    start_ = MPI_Wtime();
  }
  double stop() const {
    Kokkos::fence();
    const double mine = MPI_Wtime() - start_;
    return allreduce_value(mine, MPI_MAX, world_);
  }

 private:
  MPI_Comm world_;
  double start_ = 0;
};

// Sums `count` scalars of every rank's device array into `out` (host, `count` scalars) on rank 0.
template <class Scalar>
void reduce_to_rank0(const Scalar* device_data, std::size_t count, Scalar* out, MPI_Comm world) {
  using Layout = ScalarLayout<Scalar>;
  constexpr std::size_t kChunkBytes = std::size_t(64) << 20;  // keeps MPI counts in int range
  const std::size_t chunk = std::max<std::size_t>(1, kChunkBytes / sizeof(Scalar));
  const PhaseScope phase("reduction");
  const bool root = comm_rank(world) == 0;
  std::vector<Scalar> staging(root ? 0 : std::min(count, chunk));
  for (std::size_t first = 0; first < count; first += chunk) {
    const std::size_t n = std::min(chunk, count - first);
    Scalar* host = root ? out + first : staging.data();
    copy_bytes(host, MemoryKind::host, device_data + first, data_memory_kind(), n * sizeof(Scalar));
    const int values = static_cast<int>(n * Layout::components);
    bounded("MPI_Ireduce", world, [&](MPI_Request* r) {
      return MPI_Ireduce(root ? MPI_IN_PLACE : host, root ? host : nullptr, values, Layout::mpi_type(), MPI_SUM, 0,
                         world, r);
    });
  }
}

}  // namespace

// Rounds between checkpoints when the user left it to us: about ten per run.
std::uint64_t checkpoint_interval(const CheckpointSettings& checkpoint, std::size_t total_rounds) {
  if (checkpoint.every_rounds != 0) return checkpoint.every_rounds;
  return std::max<std::uint64_t>(1, (total_rounds + 9) / 10);
}

std::size_t rounds(const Problem& problem, int ranks, int threads) {
  if (ranks < 1) throw Error("rounds: the number of ranks must be >= 1, not " + std::to_string(ranks));
  if (threads < 1) throw Error("rounds: the number of threads must be >= 1, not " + std::to_string(threads));
  const auto walkers = static_cast<std::size_t>(ranks) * static_cast<std::size_t>(threads);
  return (problem.measurements + walkers - 1) / walkers;
}

template <class Scalar, class MessageScalar>
std::vector<Field> checkpoint_shape(const Problem& problem, const Topology& topology, const SliceRange& slice,
                                   int threads) {
  std::vector<Field> shape{{"p", std::to_string(topology.world_size())},
          {"S", std::to_string(topology.ring_size())},
          {"threads", std::to_string(threads)},
          {"N", std::to_string(problem.dims.entries())},
          {"scalar", ScalarLayout<Scalar>::name},
          {"channel", to_string(problem.channel)},
          {"dims", problem.dims.describe()},
          {"seed", std::to_string(problem.seed)},
          {"measurements", std::to_string(problem.measurements)},
          {"slice", "[" + std::to_string(slice.begin) + ", " + std::to_string(slice.end) + ")"}};
  // Only where it differs, so that checkpoints of one precision keep the shape they always had.
  if (!std::is_same_v<Scalar, MessageScalar>) shape.push_back({"message scalar", ScalarLayout<MessageScalar>::name});
  return shape;
}

template <class Scalar, class MessageScalar>
RunStats accumulate_with_ring(const Problem& problem, const Topology& topology, RingTeam& team,
                              DistributedArray<Scalar>& gt, const Progress& progress,
                              const CheckpointSettings& checkpoint) {
  const MPI_Comm world = topology.world();
  check_problem(problem, world);
  const Dims& dims = problem.dims;
  const std::size_t message_bytes = dims.message_entries() * sizeof(MessageScalar);
  const std::size_t ring_bytes = team.ring(0, 0).message_bytes();
  agree(world, ring_bytes == message_bytes,
        "the ring carries messages of " + std::to_string(ring_bytes) + " bytes but G_t's (" + dims.describe() +
            ") need " + std::to_string(message_bytes));
  agree(world, gt.total() == dims.entries(),
        "the distributed G_t has " + std::to_string(gt.total()) + " entries but " + dims.describe());
  const int p = topology.world_size();
  const int me = topology.world_rank();
  const int threads = team.threads();

  const SyntheticWalker walker(dims, problem.seed, problem.measurements);
  // Threads share the slice; with one thread the faster non-atomic kernel is safe.
  const Updates updates = threads > 1 ? Updates::concurrent : Updates::exclusive;
  std::vector<GtAccumulator<Scalar, MessageScalar>> accumulators;
  RunStats stats;
  collectively(world, [&] {
    stats.batch = GtAccumulator<Scalar, MessageScalar>::batch_setting(dims, problem.channel, threads);
    for (int thread = 0; thread < threads; ++thread) {
      accumulators.emplace_back(dims, problem.channel, gt.local(), gt.range(), team.exec(thread), updates);
      accumulators.back().set_batch(stats.batch);
      stats.work_bytes += accumulators.back().scratch_bytes();
    }
  });
  stats.rounds = rounds(problem, p, threads);
  stats.threads = threads;

  std::optional<Checkpoint> store;
  if (checkpoint.enabled()) {
    const Phase restore("ringcomm::checkpoint::restore");
    store.emplace(world, checkpoint.directory,
                  checkpoint_shape<Scalar, MessageScalar>(problem, topology, gt.range(), threads));
    Kokkos::fence();
    if (const auto saved = store->restore(gt.local().data(), gt.bytes_per_rank()))
      stats.first_round = static_cast<std::size_t>(std::min<std::uint64_t>(*saved, stats.rounds));
  }
  const std::uint64_t interval = checkpoint_interval(checkpoint, stats.rounds);
  // A checkpoint holds whole rounds: every thread must have finished the round before it is saved.
  ThreadBarrier round_done(threads);

  const CollectiveTimer timer(world);
  team.run(
      [&](int thread) {
        const ExecSpace& exec = team.exec(thread);
        const GtAccumulator<Scalar, MessageScalar>& accumulate = accumulators[static_cast<std::size_t>(thread)];
        const auto consume = [&](const void* message, int origin) {
          const auto launching = team.kernel_lock();
          accumulate(message, origin);
        };
        for (std::size_t round = stats.first_round; round < stats.rounds; ++round) {
          Ring& ring = team.ring(thread, round);
          // Ordered on `exec` after the kernels that last read this slot (see Ring::circulate).
          {
            const Phase generate("ringcomm::walker::generate");
            const auto launching = team.kernel_lock();
            walker.write<MessageScalar>((round * threads + thread) * p + me, ring.outgoing(), exec);
          }
          ring.circulate(consume, exec);
          const std::size_t done = round + 1;
          if (store && (done % interval == 0 || done == stats.rounds)) {
            {
              const auto launching = team.kernel_lock();
              Ring::flush(accumulate);  // a checkpoint holds every message of its rounds
            }
            exec.fence();
            round_done.arrive_and_wait();
            if (thread == 0) {
              const Phase save("ringcomm::checkpoint::save");
              const std::size_t measured =
                  std::min(problem.measurements, done * static_cast<std::size_t>(p) * threads);
              store->save(done,
                          {{"measurements_done", std::to_string(measured)},
                           {"rounds_total", std::to_string(stats.rounds)}},
                          gt.local().data(), gt.bytes_per_rank());
            }
            round_done.arrive_and_wait();
          }
          if (progress && me == 0 && thread == 0) progress(done, stats.rounds);
        }
        const auto launching = team.kernel_lock();
        Ring::flush(accumulate);
      },
      &round_done);
  stats.seconds = timer.stop();
  return stats;
}

template <class Scalar, class MessageScalar>
RunStats accumulate_with_ring(const Problem& problem, const Topology& topology, Ring& ring,
                              DistributedArray<Scalar>& gt, const Progress& progress,
                              const CheckpointSettings& checkpoint) {
  RingTeam one_thread(ring);
  return accumulate_with_ring<Scalar, MessageScalar>(problem, topology, one_thread, gt, progress, checkpoint);
}

template <class Scalar, class MessageScalar>
std::vector<Scalar> accumulate_original(const Problem& problem, MPI_Comm world, RunStats* stats,
                                        const Progress& progress) {
  check_problem(problem, world);
  const Dims& dims = problem.dims;
  const std::size_t n = dims.entries();
  const int p = comm_size(world);
  const int me = comm_rank(world);

  Kokkos::View<Scalar*> gt;
  TrackedBytes gt_counted;  // gt in allocation_stats()
  Buffer message;
  collectively(world, [&] {
    const std::size_t gt_bytes = n * sizeof(Scalar);
    if (gt_bytes / sizeof(Scalar) != n) throw Error("a full G_t of " + std::to_string(n) + " entries overflows a byte count");
    require_fits(data_memory_kind(), gt_bytes + dims.message_entries() * sizeof(MessageScalar),
                 "the original algorithm's full G_t (" + std::to_string(n) + " entries) and one message");
    gt = Kokkos::View<Scalar*>("ringcomm::gt::full G_t", n);
    gt_counted = TrackedBytes(gt_bytes);
    message = Buffer(data_memory_kind(), dims.message_entries() * sizeof(MessageScalar), "ringcomm::gt::message");
  });

  const ExecSpace exec;
  const SyntheticWalker walker(dims, problem.seed, problem.measurements);
  GtAccumulator<Scalar, MessageScalar> accumulate(dims, problem.channel, gt, SliceRange{0, n}, exec);
  collectively(world, [&] { accumulate.set_batch(GtAccumulator<Scalar, MessageScalar>::batch_setting(dims, problem.channel)); });
  const std::size_t total_rounds = rounds(problem, p);

  // The reduction belongs to the algorithm being measured, so it is inside the timed region.
  const CollectiveTimer timer(world);
  for (std::size_t round = 0; round < total_rounds; ++round) {
    // One buffer suffices: `exec` runs the next fill after the previous accumulation.
    {
      const Phase generate("ringcomm::walker::generate");
      walker.write<MessageScalar>(round * p + me, message.data(), exec);
    }
    const Phase consume("ringcomm::consume");
    accumulate(message.data(), 0);
    if (progress && me == 0) progress(round + 1, total_rounds);
  }
  Ring::flush(accumulate);
  exec.fence();
  std::vector<Scalar> full(me == 0 ? n : 0);
  {
    const Phase reduce("ringcomm::reduce_to_rank0");
    reduce_to_rank0(gt.data(), n, full.data(), world);
  }
  const double seconds = timer.stop();
  if (stats != nullptr) {
    *stats = RunStats{seconds, total_rounds};
    stats->batch = accumulate.batch();
    stats->work_bytes = accumulate.scratch_bytes();
  }
  return full;
}

#define RINGCOMM_GT_INSTANTIATE(Scalar, MessageScalar)                                                      \
  template RunStats accumulate_with_ring<Scalar, MessageScalar>(const Problem&, const Topology&, Ring&,       \
                                                                DistributedArray<Scalar>&, const Progress&,   \
                                                                const CheckpointSettings&);                   \
  template RunStats accumulate_with_ring<Scalar, MessageScalar>(const Problem&, const Topology&, RingTeam&,   \
                                                                DistributedArray<Scalar>&, const Progress&,   \
                                                                const CheckpointSettings&);                   \
  template std::vector<Field> checkpoint_shape<Scalar, MessageScalar>(const Problem&, const Topology&,        \
                                                                      const SliceRange&, int);                \
  template std::vector<Scalar> accumulate_original<Scalar, MessageScalar>(const Problem&, MPI_Comm, RunStats*, \
                                                                          const Progress&);

RINGCOMM_GT_INSTANTIATE(Kokkos::complex<double>, Kokkos::complex<double>)
RINGCOMM_GT_INSTANTIATE(Kokkos::complex<float>, Kokkos::complex<float>)
RINGCOMM_GT_INSTANTIATE(Kokkos::complex<double>, Kokkos::complex<float>)
#undef RINGCOMM_GT_INSTANTIATE

}  // namespace ringcomm::gt
