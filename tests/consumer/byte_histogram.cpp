// A program that embeds ringcomm with a consume functor of its own: a histogram of the byte values
// of every rank's messages. The 256 bins are a DistributedArray<double> cut over the ring; each rank
// counts only the bytes falling into its own bins, and the ring brings it every message.
// Exit status 0 when the gathered histogram equals the one computed serially.
#include <ringcomm/ringcomm.hpp>

#include <cstdio>
#include <vector>

namespace {

constexpr std::size_t kMessageBytes = 10000;
constexpr std::size_t kBins = 256;
constexpr int kRounds = 3;

// Byte i of the message that world rank `rank` sends in round `round`.
KOKKOS_INLINE_FUNCTION unsigned char pattern(int rank, int round, std::size_t i) {
  return static_cast<unsigned char>((i * (rank + 1) + 31u * round + i / 97) % 251);
}

struct CountBytesInMySlice {
  Kokkos::View<double*> bins;  // this rank's slice of the histogram
  std::size_t first_bin;

  void operator()(const void* message, int /*origin*/) const {
    const auto* bytes = static_cast<const unsigned char*>(message);
    const auto slice = bins;
    const std::size_t first = first_bin;
    const std::size_t end = first_bin + bins.extent(0);
    Kokkos::parallel_for("count bytes", Kokkos::RangePolicy<ringcomm::ExecSpace>(0, kMessageBytes),
                         KOKKOS_LAMBDA(const std::size_t i) {
                           const std::size_t value = bytes[i];
                           if (value >= first && value < end) Kokkos::atomic_add(&slice(value - first), 1.0);
                         });
  }
};

void write_message(void* outgoing, int rank, int round) {
  auto* bytes = static_cast<unsigned char*>(outgoing);
  Kokkos::parallel_for("write message", Kokkos::RangePolicy<ringcomm::ExecSpace>(0, kMessageBytes),
                       KOKKOS_LAMBDA(const std::size_t i) { bytes[i] = pattern(rank, round, i); });
  Kokkos::fence();
}

std::vector<double> expected_histogram(int ranks) {
  std::vector<double> bins(kBins, 0.0);
  for (int round = 0; round < kRounds; ++round)
    for (int rank = 0; rank < ranks; ++rank)
      for (std::size_t i = 0; i < kMessageBytes; ++i) bins[pattern(rank, round, i)] += 1.0;
  return bins;
}

}  // namespace

int main(int argc, char** argv) {
  return ringcomm::run_main(argc, argv, [] {
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);

    ringcomm::Topology topology(MPI_COMM_WORLD, ringcomm::requested_ring_size(ranks));
    ringcomm::TransportContext context;
    context.memory = ringcomm::data_memory_kind();
    auto selection = ringcomm::select_transport(ringcomm::requested_transport(), context);
    ringcomm::Ring ring(*selection.transport, topology, kMessageBytes);
    ringcomm::DistributedArray<double> histogram(topology, kBins, "byte histogram");
    Kokkos::deep_copy(histogram.local(), 0.0);

    const CountBytesInMySlice count{histogram.local(), histogram.range().begin};
    for (int round = 0; round < kRounds; ++round) {
      write_message(ring.outgoing(), rank, round);
      ring.circulate(count);
    }
    histogram.sum_across_rings();
    const std::vector<double> gathered = histogram.gather();

    bool ok = true;
    if (rank == 0) ok = gathered == expected_histogram(ranks);
    ringcomm::agree(MPI_COMM_WORLD, ok, "the gathered histogram differs from the serial one");
    if (rank == 0)
      std::printf("byte_histogram: %s, transport %s: histogram of %d x %zu bytes matches\n",
                  topology.describe().c_str(), selection.transport->name().c_str(), ranks * kRounds, kMessageBytes);
    return 0;
  });
}
