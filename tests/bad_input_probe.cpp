// Walks through a ringcomm program's start-up — thread level, walker schedule, ring size, transport,
// rings, G_t slice —
// with sizes from the command line and settings from the environment, so that expect_failure.cmake
// can provoke each kind of bad input and check how every rank reports it. Its options: kUsage below
// (`bad_input_probe --help`).
#include <cstdio>
#include <cstring>
#include <string>

#include "ringcomm/ringcomm.hpp"

namespace {

struct Options {
  std::size_t message_bytes = 1024;
  std::size_t gt_entries = 1000;
  int thread_level = MPI_THREAD_FUNNELED;
  bool need_thread_multiple = false;
};

int parse_thread_level(const std::string& text) {
  const std::string level =
      ringcomm::settings::parse_choice(text, "--thread-level", {"single", "funneled", "multiple"});
  if (level == "single") return MPI_THREAD_SINGLE;
  return level == "funneled" ? MPI_THREAD_FUNNELED : MPI_THREAD_MULTIPLE;
}

// Runs before MPI exists (the thread level is an input of MPI_Init_thread), so it cannot report
// errors itself; they are handed to the collective check inside run_main.
Options parse(int argc, char** argv, std::string& error) {
  Options options;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string name = argv[i];
      if (name == "--need-thread-multiple") {
        options.need_thread_multiple = true;
        continue;
      }
      if (i + 1 >= argc) throw ringcomm::Error("option " + name + " needs a value");
      const std::string value = argv[++i];
      if (name == "--message-bytes") options.message_bytes = ringcomm::settings::parse_bytes(value, name);
      else if (name == "--gt-entries")
        options.gt_entries =
            static_cast<std::size_t>(ringcomm::settings::parse_integer(value, name, 0, 1ll << 62));
      else if (name == "--thread-level") options.thread_level = parse_thread_level(value);
      else throw ringcomm::Error("unknown option " + name);
    }
  } catch (const ringcomm::Error& e) {
    error = e.what();
  }
  return options;
}

int probe(const Options& options) {
  using namespace ringcomm;
  if (options.need_thread_multiple) require_thread_level(MPI_COMM_WORLD, MPI_THREAD_MULTIPLE, "bad_input_probe");
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const WalkerSchedule schedule = requested_schedule(MPI_COMM_WORLD);
  RingMemoryNeeds needs;
  needs.gt_entries = options.gt_entries;
  needs.scalar_bytes = sizeof(Kokkos::complex<double>);
  needs.message_bytes = options.message_bytes;
  needs.rings_per_rank = static_cast<std::size_t>(schedule.threads) * directions_of_thread(schedule, 0).size();
  const Topology topology(MPI_COMM_WORLD, resolve_ring_size(MPI_COMM_WORLD, ranks, needs));
  TransportContext ctx;
  ctx.memory = data_memory_kind();
  const Selection selection = select_transport(requested_transport(), ctx);
  RingTeam team(*selection.transport, topology, options.message_bytes, schedule);
  team.run([&](int thread) { team.ring(thread, 0).circulate([](const void*, int) {}, team.exec(thread)); });
  const DistributedArray<Kokkos::complex<double>> gt(topology, options.gt_entries);
  if (topology.world_rank() == 0)
    std::printf("bad_input_probe: %s, transport %s, %zu-byte messages, %zu G_t entries: all ranks fine\n",
                topology.describe().c_str(), selection.transport->name().c_str(), options.message_bytes,
                gt.total());
  return 0;
}

constexpr const char* kUsage =
    "usage: bad_input_probe [--message-bytes B] [--gt-entries N] [--thread-level single|funneled|multiple]\n"
    "                       [--need-thread-multiple]\n"
    "Starts a ring as a ringcomm program does (thread level, walker schedule, ring size, transport, rings,\n"
    "G_t slice) with the RINGCOMM_* settings of the environment, so that tests/expect_failure.cmake can\n"
    "provoke each kind of bad input. Run under mpirun.\n";

}  // namespace

int main(int argc, char** argv) {
  // Answered before MPI and Kokkos start: Kokkos would take --help for its own.
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
      std::fputs(kUsage, stdout);
      return 0;
    }
  }
  std::string error;
  const Options options = parse(argc, argv, error);
  return ringcomm::run_main(
      argc, argv,
      [&] {
        ringcomm::agree(MPI_COMM_WORLD, error.empty(), error);
        return probe(options);
      },
      options.thread_level);
}
