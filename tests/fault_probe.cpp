// Runs one ring over all ranks for a number of rounds, and lets one rank fail on purpose in the
// middle, so that tests/fault_injection.cmake can check that every other rank notices, reports it
// and ends within RINGCOMM_TIMEOUT. The failure is chosen on the command line of this test program;
// the library has no hook for it.
//
//   fault_probe [--rounds N] [--message-bytes B] [--fault none|stop|sleep|kill] [--fault-rank R]
//               [--fault-after-round K]
//
// stop: raise(SIGSTOP), the process is frozen (as under a debugger or a hung driver); sleep: it
// sleeps forever, still alive; kill: raise(SIGKILL), it dies. Before that, the failing rank prints
// "fault_probe: rank R injects <fault> after round K at unix time T" with T in seconds; a rank whose
// ring fails prints "fault_probe: rank R detected the failure at unix time T" before run_main reports
// the error, so that the test can tell how long detection took.
#include <unistd.h>

#include <chrono>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>

#include "command_line.hpp"
#include "ringcomm/ringcomm.hpp"

namespace {

using namespace ringcomm;

struct Options {
  long long rounds = 50;
  std::size_t message_bytes = 64 * 1024;
  std::string fault = "none";
  int fault_rank = 1;
  long long fault_after_round = 3;
};

cli::CommandLine command_line(Options& o) {
  cli::CommandLine cli("fault_probe", "A ring over all ranks in which one rank may fail on purpose (tests only).");
  cli.option("--rounds", "N", "rounds to run (default 50)",
             [&](const std::string& v) { o.rounds = settings::parse_integer(v, "--rounds", 1, 1000000); });
  cli.option("--message-bytes", "B", "message size (default 64K)",
             [&](const std::string& v) { o.message_bytes = settings::parse_bytes(v, "--message-bytes"); });
  cli.option("--fault", "KIND", "none | stop | sleep | kill (default none)", [&](const std::string& v) {
    o.fault = settings::parse_choice(v, "--fault", {"none", "stop", "sleep", "kill"});
  });
  cli.option("--fault-rank", "R", "the rank that fails (default 1)",
             [&](const std::string& v) { o.fault_rank = static_cast<int>(settings::parse_integer(v, "--fault-rank", 0, INT_MAX)); });
  cli.option("--fault-after-round", "K", "it fails after this many rounds (default 3)", [&](const std::string& v) {
    o.fault_after_round = settings::parse_integer(v, "--fault-after-round", 0, 1000000);
  });
  return cli;
}

double unix_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

void inject(const std::string& fault, int rank, long long round) {
  std::printf("fault_probe: rank %d injects %s after round %lld at unix time %.6f\n", rank, fault.c_str(), round,
              unix_seconds());
  std::fflush(stdout);
  if (fault == "stop") std::raise(SIGSTOP);
  if (fault == "kill") std::raise(SIGKILL);
  for (;;) sleep(1000);  // "sleep", and "stop" once the process is continued
}

int probe(const Options& o) {
  const int ranks = comm_size(MPI_COMM_WORLD);
  const Topology topology(MPI_COMM_WORLD, ranks);
  TransportContext ctx;
  ctx.memory = data_memory_kind();
  const Selection selection = select_transport(requested_transport(), ctx);
  Ring ring(*selection.transport, topology, o.message_bytes);
  std::vector<unsigned char> own(o.message_bytes);
  for (long long round = 0; round < o.rounds; ++round) {
    if (o.fault != "none" && topology.world_rank() == o.fault_rank && round == o.fault_after_round)
      inject(o.fault, o.fault_rank, round);
    std::memset(own.data(), static_cast<int>(round + topology.world_rank()) & 0xff, own.size());
    copy_bytes(ring.outgoing(), data_memory_kind(), own.data(), MemoryKind::host, own.size());
    try {
      ring.circulate([](const void*, int) {});
    } catch (const Error&) {
      std::fprintf(stderr, "fault_probe: rank %d detected the failure at unix time %.6f\n", topology.world_rank(),
                   unix_seconds());
      throw;
    }
  }
  if (topology.world_rank() == 0)
    std::printf("fault_probe: %lld rounds of %zu bytes over %s with %s: all ranks fine\n", o.rounds, o.message_bytes,
                topology.describe().c_str(), selection.transport->name().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  const cli::CommandLine cli = command_line(options);
  return cli::run_program(argc, argv, cli, [&] { return probe(options); });
}
