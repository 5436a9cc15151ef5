// pingpong: OSU-style latency and bandwidth between two ranks through ringcomm Channels, for every
// transport; device to device on GPU builds, host to host on CPU builds.
//
// A Channel moves messages only as exchanges: in a step both ranks send one slot and receive into the
// other. Rank 0's message is back at rank 0 after two steps, so one step is half a round trip, which is
// what OSU's osu_latency reports. osu_bw sends a window of messages back to back and then waits for an
// acknowledgement; here a window of exchanges is issued back to back, every rank then waits for its
// device, and a barrier stands in for the acknowledgement. Stream-ordered transports (nccl) keep the
// whole window queued; host-completing ones finish each exchange inside finish(), as a ring step does.
// As in OSU, warm-up iterations run first and are not timed.
//
// Latency waits for every step to be complete on the device (drain) before the next one starts, for
// every transport alike, so stream-ordered and host-completing transports are compared on the same
// terms. The same steps issued back to back and drained once are reported separately as the
// pipelined step time: what a stream-ordered transport gains by queueing, not a latency.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "command_line.hpp"
#include "report.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/ring.hpp"
#include "ringcomm/settings.hpp"

namespace {

using namespace ringcomm;

struct Options {
  std::vector<std::string> transports;  // empty: all compiled
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t(1) << 30;
  std::size_t factor = 2;
  int window = 64;
  int latency_iterations = 1000;
  int bandwidth_windows = 20;
  std::size_t bytes_per_size = std::size_t(4) << 30;  // caps iterations of large messages
  std::string json_path;
  bool quiet = false;
};

struct Plan {
  long latency_iterations = 0;
  long latency_warmup = 0;
  long window = 0;
  long windows = 0;
  long windows_warmup = 0;
};

// OSU's iteration counts for small messages, fewer for large ones so that no size moves more than
// `bytes_per_size` (1 GiB messages would otherwise take minutes per transport).
Plan plan_for(const Options& o, std::size_t bytes) {
  const auto affordable = [&](long wanted) {
    return std::clamp<long>(static_cast<long>(o.bytes_per_size / bytes), 3, wanted);
  };
  Plan p;
  p.latency_iterations = affordable(o.latency_iterations);
  p.latency_warmup = std::max<long>(2, p.latency_iterations / 10);
  p.window = std::clamp<long>(static_cast<long>(o.bytes_per_size / 4 / bytes), 1, o.window);
  p.windows = std::clamp<long>(static_cast<long>(o.bytes_per_size / (bytes * p.window)), 3, o.bandwidth_windows);
  p.windows_warmup = 1;
  return p;
}

struct Sample {
  std::size_t bytes = 0;
  Plan plan;
  double latency_seconds = 0;    // each step drained before the next
  double pipelined_seconds = 0;  // per step, steps back to back, drained once at the end
  double bandwidth_GBps = 0;
  std::size_t wrong_bytes = 0;
};

Sample measure(const Options& o, Transport& transport, const Topology& topology, std::size_t bytes) {
  Ring ring(transport, topology, bytes);
  Channel& channel = ring.channel();
  bench::ChannelStepper stepper(channel);
  const MPI_Comm comm = topology.ring_comm();
  Sample s;
  s.bytes = bytes;
  s.plan = plan_for(o, bytes);
  const auto step = [&] { stepper.step(); };
  const auto drain = [&] { stepper.drain(); };
  const auto synchronised_step = [&] {
    stepper.step();
    stepper.drain();
  };
  const auto window = [&] {
    for (long i = 0; i < s.plan.window; ++i) stepper.step();
    stepper.drain();
    MPI_Barrier(comm);  // osu_bw's acknowledgement
  };
  const auto nothing = [] {};

  bench::seconds_per_step(comm, s.plan.latency_warmup, synchronised_step, drain);
  s.latency_seconds = bench::seconds_per_step(comm, s.plan.latency_iterations, synchronised_step, drain);
  bench::seconds_per_step(comm, s.plan.latency_warmup, step, drain);
  s.pipelined_seconds = bench::seconds_per_step(comm, s.plan.latency_iterations, step, drain);
  bench::seconds_per_step(comm, s.plan.windows_warmup, window, nothing);
  const double per_window = bench::seconds_per_step(comm, s.plan.windows, window, nothing);
  s.bandwidth_GBps = bench::gigabytes_per_second(bytes * static_cast<std::size_t>(s.plan.window), per_window);

  // Proof that the timed path moves real data: one more exchange of a known pattern.
  const int me = topology.position();
  const int peer = topology.left();
  bench::fill_pattern(channel.slot(stepper.sending()), bytes, me);
  stepper.step();
  stepper.drain();
  s.wrong_bytes = bench::count_mismatches(channel.slot(stepper.sending()), bytes, peer);
  MPI_Allreduce(MPI_IN_PLACE, &s.wrong_bytes, 1, MPI_UNSIGNED_LONG, MPI_MAX, comm);
  return s;
}

json::Value samples_as_json(const std::string& name, const std::vector<Sample>& samples) {
  json::Value t = json::Value::object();
  t["transport"] = name;
  json::Value rows = json::Value::array();
  for (const auto& s : samples) {
    json::Value row = json::Value::object();
    row["bytes"] = s.bytes;
    row["latency_us"] = s.latency_seconds * 1e6;
    row["pipelined_step_us"] = s.pipelined_seconds * 1e6;
    row["bandwidth_GBps"] = s.bandwidth_GBps;
    row["latency_iterations"] = s.plan.latency_iterations;
    row["latency_warmup"] = s.plan.latency_warmup;
    row["window"] = s.plan.window;
    row["windows"] = s.plan.windows;
    row["wrong_bytes"] = s.wrong_bytes;
    rows.push_back(row);
  }
  t["results"] = rows;
  return t;
}

int run(const Options& o, const std::string& command_line) {
  int ranks = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  agree(MPI_COMM_WORLD, ranks == 2, "pingpong runs on exactly 2 ranks (mpirun -np 2), one per GPU on GPU builds; got " +
                                        std::to_string(ranks));
  const Topology topology(MPI_COMM_WORLD, 2);
  const MemoryKind memory = data_memory_kind();
  const bool print = rank == 0 && !o.quiet;
  const auto sizes = bench::size_ladder(o.min_bytes, o.max_bytes, o.factor);

  json::Value out = json::Value::object();
  out["metadata"] = report::run_metadata("pingpong", command_line);
  out["memory"] = to_string(memory);
  out["method"] = "OSU: latency = one exchange step = half a round trip, each step complete on the device before the "
                  "next (every transport alike); pipelined_step_us = the same steps back to back, drained once (not a "
                  "latency); bandwidth = window x bytes / time per window (one direction; both directions carry as "
                  "much); warm-up iterations untimed";
  out["transports"] = json::Value::array();
  int failures = 0;
  for (auto& t : bench::open_transports(MPI_COMM_WORLD, o.transports, memory)) {
    if (!t.transport) {
      if (print) std::printf("\n%s: skipped: %s\n", t.name.c_str(), t.skipped.c_str());
      out["transports"].push_back(bench::skipped_as_json(t));
      continue;
    }
    if (print) std::printf("\n%s (%s), %s to %s:\n", t.name.c_str(), describe(t.transport->capabilities()).c_str(),
                           to_string(memory), to_string(memory));
    std::fflush(stdout);
    std::vector<Sample> samples;
    report::Table table({"bytes", "latency us", "pipelined us", "bandwidth GB/s", "iterations", "window", "intact"});
    for (const std::size_t bytes : sizes) {
      samples.push_back(measure(o, *t.transport, topology, bytes));
      const Sample& s = samples.back();
      failures += s.wrong_bytes ? 1 : 0;
      table.add_row({std::to_string(bytes), report::format("%.2f", s.latency_seconds * 1e6),
                     report::format("%.2f", s.pipelined_seconds * 1e6), report::format("%.2f", s.bandwidth_GBps), std::to_string(s.plan.latency_iterations),
                     std::to_string(s.plan.window), s.wrong_bytes ? "NO" : "yes"});
    }
    if (print) std::fputs(table.render().c_str(), stdout);
    out["transports"].push_back(samples_as_json(t.name, samples));
  }
  if (!o.json_path.empty())
    collectively(MPI_COMM_WORLD, [&] {
      if (rank == 0) json::write_file(o.json_path, out);
    });
  if (failures && rank == 0) std::fprintf(stderr, "pingpong: %d size(s) arrived corrupted (see 'intact')\n", failures);
  return failures ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  cli::CommandLine cli("pingpong",
                       "OSU-style point-to-point latency and windowed bandwidth between 2 ranks through ringcomm "
                       "channels, for every compiled transport (or those named), over message sizes from 8 B to "
                       "1 GiB. Device memory to device memory on GPU builds (one rank per GPU).");
  cli.option("--transports", "LIST", "comma-separated transports (default: every compiled one; unusable ones are "
             "reported as skipped)", [&](const std::string& v) { o.transports = settings::split(v, ','); });
  cli.option("--min-bytes", "SIZE", "smallest message (default 8)",
             [&](const std::string& v) { o.min_bytes = std::max<std::size_t>(1, settings::parse_bytes(v, "--min-bytes")); });
  cli.option("--max-bytes", "SIZE", "largest message (default 1GiB)",
             [&](const std::string& v) { o.max_bytes = settings::parse_bytes(v, "--max-bytes"); });
  cli.option("--factor", "N", "each size is N times the previous (default 2)",
             [&](const std::string& v) { o.factor = static_cast<std::size_t>(settings::parse_integer(v, "--factor", 2, 1024)); });
  cli.option("--window", "N", "exchanges per bandwidth window (default 64, as osu_bw)",
             [&](const std::string& v) { o.window = static_cast<int>(settings::parse_integer(v, "--window", 1, 4096)); });
  cli.option("--iterations", "N", "timed latency iterations for small messages (default 1000)",
             [&](const std::string& v) { o.latency_iterations = static_cast<int>(settings::parse_integer(v, "--iterations", 3, 1000000)); });
  cli.option("--windows", "N", "timed bandwidth windows for small messages (default 20)",
             [&](const std::string& v) { o.bandwidth_windows = static_cast<int>(settings::parse_integer(v, "--windows", 3, 100000)); });
  cli.option("--bytes-per-size", "SIZE", "large messages run fewer iterations so that each size moves about this "
             "much per measurement (default 4GiB)",
             [&](const std::string& v) { o.bytes_per_size = settings::parse_bytes(v, "--bytes-per-size"); });
  cli.option("--json", "FILE", "also write the results as JSON to FILE", [&](const std::string& v) { o.json_path = v; });
  cli.flag("--quiet", "print nothing but errors", [&] { o.quiet = true; });
  cli.note("Latency is one exchange step (both ranks send and receive one message), which is half of the round trip "
           "rank 0's message makes, each step complete on the device before the next; 'pipelined' is the same "
           "steps issued back to back and drained once (stream-ordered transports queue them); bandwidth counts "
           "one direction. After timing, each size exchanges a known "
           "pattern and checks it byte by byte ('intact'). Run as: mpirun -np 2 pingpong --json pingpong.json");
  const std::string command_line = cli::command_line_text(argc, argv);
  return cli::run_program(argc, argv, cli, [&] { return run(o, command_line); });
}
