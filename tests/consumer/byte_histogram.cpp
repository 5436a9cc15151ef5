// A program that embeds ringcomm with a consume functor of its own: a histogram of the byte values
// of every message of every walker thread of every rank. The 256 bins are a distributed array cut
// over the ring; each rank counts only the bytes falling into its own bins, and the ring brings it
// every message. Every RINGCOMM_* setting applies (ringcomm::Session); the first line printed is the
// schedule that ran. Exit status 0 when the gathered histogram equals the one computed serially.
//
//   byte_histogram [--rounds N] [--message-bytes B]
#include <ringcomm/ringcomm.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kBins = 256;

struct Options {
  std::size_t rounds = 3;
  std::size_t message_bytes = 10000;
};

// Byte i of the message of measurement m (unique over the job: ringcomm::ProduceContext).
KOKKOS_INLINE_FUNCTION unsigned char pattern(std::uint64_t m, std::size_t i) {
  return static_cast<unsigned char>((i * (m + 1) + 31u * (m / 7) + i / 97) % 251);
}

struct WriteMessage {
  void operator()(const Kokkos::View<unsigned char*, Kokkos::MemoryUnmanaged>& message,
                  const ringcomm::ProduceContext& context) const {
    const std::uint64_t m = context.measurement;
    Kokkos::parallel_for("write message", Kokkos::RangePolicy<ringcomm::ExecSpace>(context.exec, 0, message.extent(0)),
                         KOKKOS_LAMBDA(const std::size_t i) { message(i) = pattern(m, i); });
  }
};

struct CountBytesInMySlice {
  Kokkos::View<double*> bins;  // this rank's slice of the histogram
  std::size_t first_bin;

  void operator()(const Kokkos::View<const unsigned char*, Kokkos::MemoryUnmanaged>& message,
                  const ringcomm::ConsumeContext& context) const {
    const auto slice = bins;
    const std::size_t first = first_bin;
    const std::size_t end = first_bin + bins.extent(0);
    Kokkos::parallel_for("count bytes", Kokkos::RangePolicy<ringcomm::ExecSpace>(context.exec, 0, message.extent(0)),
                         KOKKOS_LAMBDA(const std::size_t i) {
                           const std::size_t value = message(i);
                           if (value >= first && value < end) Kokkos::atomic_add(&slice(value - first), 1.0);
                         });
  }
};

std::vector<double> expected_histogram(std::uint64_t measurements, std::size_t message_bytes) {
  std::vector<double> bins(kBins, 0.0);
  for (std::uint64_t m = 0; m < measurements; ++m)
    for (std::size_t i = 0; i < message_bytes; ++i) bins[pattern(m, i)] += 1.0;
  return bins;
}

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (i + 1 >= argc) throw ringcomm::Error("option " + name + " needs a value (see --help)");
    const std::string value = argv[++i];
    if (name == "--rounds") o.rounds = ringcomm::settings::parse_integer(value, name, 1, 1000);
    else if (name == "--message-bytes") o.message_bytes = ringcomm::settings::parse_integer(value, name, 1, 1 << 24);
    else throw ringcomm::Error("unknown option " + name + " (see --help)");
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::printf("byte_histogram [--rounds N] [--message-bytes B]: histogram of every message's bytes over a ring;\n"
                  "every RINGCOMM_* setting applies (docs/environment.md). Run under mpirun.\n");
      return 0;
    }
  return ringcomm::run(argc, argv, [&](ringcomm::Session& session) {
    const Options o = ringcomm::collectively(MPI_COMM_WORLD, [&] { return parse(argc, argv); });
    auto& histogram = session.array<double>(kBins, "byte histogram");
    auto& messages = session.messages<unsigned char>(o.message_bytes);
    if (session.rank() == 0) std::printf("byte_histogram: %s\n", session.describe().c_str());
    messages.run(o.rounds, WriteMessage{}, CountBytesInMySlice{histogram.local(), histogram.range().begin});
    histogram.sum_across_rings();
    const std::vector<double> gathered = histogram.gather();

    const std::uint64_t measurements = o.rounds * session.ranks() * session.schedule().threads;
    const bool ok = session.rank() != 0 || gathered == expected_histogram(measurements, o.message_bytes);
    ringcomm::agree(MPI_COMM_WORLD, ok, "the gathered histogram differs from the serial one");
    if (session.rank() == 0)
      std::printf("byte_histogram: histogram of %llu messages x %zu bytes matches\n",
                  static_cast<unsigned long long>(measurements), o.message_bytes);
    return 0;
  });
}
