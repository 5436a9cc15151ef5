// overlap: does overlapping a ring step's exchange with its consume pay, and do walker threads?
// (issue #4's "overlap" and "T threads" targets)
//
// For each transport, in one run and on the same G_t problem, these are set up side by side and
// sampled interleaved (each sample starts one variant further on), medians reported:
//   compute        S consumes per measurement with the real G_t kernel on this rank's slice, no ring;
//   communication  ring rounds (S−1 exchanges) whose consume does nothing;
//   lock_step      ring rounds with the kernel, StepSchedule::lock_step;
//   overlap        ring rounds with the kernel, StepSchedule::overlap (what the Ring really did is
//                  reported: stream-ordered transports may fall back to lock-step);
//   threads_T      the overlap ring with T walker threads (RingTeam), each with rings of its own.
// Target: overlap ≤ 1.1 · max(compute, communication). Walker generation is left out of every
// variant: each ring recirculates the real messages it was primed with.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "command_line.hpp"
#include "gt_options.hpp"
#include "overlap_report.hpp"
#include "report.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/settings.hpp"
#include "ringcomm/walker_schedule.hpp"

namespace {

using namespace ringcomm;
using namespace ringcomm::bench;

struct Options {
  std::vector<std::string> transports;  // empty: RINGCOMM_TRANSPORT, else auto
  int ring_size = 0;                    // 0: RINGCOMM_RING_SIZE, else all ranks
  OverlapProblem problem;
  SamplingPlan plan;
  std::string scalar = "double";
  std::string json_path;
  bool quiet = false;

  Options() {
    // Compute and communication of the same order on 2 ranks of a 2-core VM, where the Serial kernel
    // takes about 40 ns per entry and a ring step moves 1.5 to 9 GB/s, depending on the transport
    // (docs/results.md): the one exchange frequency Ω = 4 widens G_σ (12.5 MiB messages) but not G_t
    // (72 Ki entries per rank).
    problem.dims.nb = 1;
    problem.dims.Lx = 8;
    problem.dims.Ly = 4;
    problem.dims.n_freq = 12;
    problem.dims.exchange_momenta = {0};
    problem.dims.exchange_frequencies = {4};
  }
};

std::vector<std::string> transport_names(const Options& o) {
  if (!o.transports.empty()) return o.transports;
  return {settings::env("RINGCOMM_TRANSPORT").value_or("auto")};
}

// Every count once, ascending, and always 1: the speed-ups are over one thread.
std::vector<int> parse_thread_counts(const std::string& text) {
  std::vector<int> counts{1};
  for (const long long t : settings::parse_integer_list(text, "--threads", 1, kMaxWalkerThreads))
    counts.push_back(static_cast<int>(t));
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  return counts;
}

std::size_t scalar_bytes(const Options& o) { return o.scalar == "double" ? 16 : 8; }

json::Value header_json(const Options& o, const Topology& topology, const std::string& command_line) {
  const gt::Dims& dims = o.problem.dims;
  json::Value out = json::Value::object();
  out["metadata"] = report::run_metadata("overlap", command_line);
  out["dims"] = report::dims_json(dims);
  out["dims"]["describe"] = dims.describe();
  out["channel"] = gt::to_string(o.problem.channel);
  out["scalar"] = "complex<" + o.scalar + ">";
  out["ring_size"] = topology.ring_size();
  out["rings"] = topology.ring_count();
  out["message_bytes"] = dims.message_entries() * scalar_bytes(o);
  out["gt_slice_bytes"] = slice_of(dims.entries(), topology.ring_size(), 0).size() * scalar_bytes(o);  // the largest
  out["measurements_per_sample"] = o.problem.measurements;
  out["samples"] = o.plan.samples;
  out["warmup"] = o.plan.warmup;
  out["threads"] = o.plan.threads;
  out["definitions"] =
      "seconds_per_measurement: the slowest rank's time for a sample divided by the measurements each rank made "
      "in it (every walker thread of a rank makes one per ring round); medians over samples. compute: S consumes "
      "with the G_t kernel, no ring; communication: a ring round whose consume does nothing; lock_step, overlap: "
      "ring rounds with the kernel; threads: the overlap ring with T walker threads. Every measurement ends with a "
      "fence of its execution space instance. consume/exchange_seconds_per_round: host time per round of a thread "
      "in Ring's consume (and fences for it) and in its exchange, from the rings' counters, maximum over ranks.";
  out["transports"] = json::Value::array();
  out["skipped"] = json::Value::array();
  return out;
}

std::string header_line(const Options& o, const Topology& topology) {
  const gt::Dims& dims = o.problem.dims;
  const double slice = static_cast<double>(slice_of(dims.entries(), topology.ring_size(), 0).size() * scalar_bytes(o));
  return "overlap: " + topology.describe() + "; G_t " + dims.describe() + " (" + std::to_string(dims.entries()) +
         " entries, " + format_bytes(slice) + " per rank), messages of " +
         format_bytes(static_cast<double>(dims.message_entries() * scalar_bytes(o))) + "; " +
         gt::to_string(o.problem.channel) + ", complex<" + o.scalar + ">, " + report::kokkos_execution_space() +
         "; medians of " + std::to_string(o.plan.samples) + " interleaved samples of " +
         std::to_string(o.problem.measurements) + " measurements per rank after " + std::to_string(o.plan.warmup) +
         " warm-up\n";
}

int run(const Options& o, const std::string& command_line) {
  const MPI_Comm world = MPI_COMM_WORLD;
  const int rank = comm_rank(world);
  const bool print = rank == 0 && !o.quiet;
  const Topology topology(world, o.ring_size > 0 ? o.ring_size : requested_ring_size(comm_size(world), world));
  std::vector<TransportUnderTest> transports = open_transports(world, transport_names(o), data_memory_kind());
  json::Value out = header_json(o, topology, command_line);
  const auto save = [&] {
    if (!o.json_path.empty())
      collectively(world, [&] {
        if (rank == 0) json::write_file(o.json_path, out);
      });
  };
  if (print) std::fputs(header_line(o, topology).c_str(), stdout);

  std::vector<TransportRun> runs;
  const auto skip = [&](TransportUnderTest& t, const std::string& why) {
    t.skipped = why;
    if (rank == 0) std::printf("%s: skipped: %s\n", t.name.c_str(), why.c_str());
    out["skipped"].push_back(skipped_as_json(t));
  };
  for (TransportUnderTest& t : transports) {
    if (!t.transport) {
      skip(t, t.skipped);
      continue;
    }
    if (print) std::printf("%s: measuring\n", t.transport->name().c_str());
    std::fflush(stdout);
    try {
      runs.push_back(o.scalar == "double"
                         ? measure_transport<Kokkos::complex<double>>(*t.transport, topology, o.problem, o.plan)
                         : measure_transport<Kokkos::complex<float>>(*t.transport, topology, o.problem, o.plan));
    } catch (const Error& e) {
      // Failed alike on every rank (a channel that would not open, a thread level the MPI lacks), so
      // every rank can go on with the next transport; anything else ends the run.
      if (!e.collective()) throw;
      skip(t, std::string("failed: ") + e.what());
      continue;
    }
    out["transports"].push_back(transport_json(runs.back()));
    save();  // a later transport that fails leaves the earlier ones' results
  }
  save();
  if (rank == 0 && !runs.empty())
    std::printf("\nseconds per measurement (medians); target: overlap <= %.1f x max(compute, comm)\n%s"
                "\nwalker threads on the overlap ring (the paper: %.1fx with %d threads)\n%s"
                "\nthe rings' own counters: host time per round of a thread\n%s",
                kOverlapTarget, overlap_table(runs).c_str(), kPaperThreadsSpeedup, kPaperThreads,
                threads_table(runs).c_str(), counters_table(runs).c_str());
  if (print && !o.json_path.empty()) std::printf("results written to %s\n", o.json_path.c_str());
  if (runs.empty()) throw Error("overlap: no transport could run here (the reasons are above)", true);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  cli::CommandLine cli(
      "overlap",
      "Times, in one run and on one G_t problem, a ring measurement's compute alone (S consumes of the G_t "
      "kernel), its communication alone (S-1 exchanges, a consume that does nothing), the lock-step ring and the "
      "overlap ring, both with the kernel, and the overlap ring with several walker threads. The variants are "
      "sampled interleaved and medians reported. Targets (issue #4): overlap <= 1.1 x max(compute, communication); "
      "threads: the speed-up over one thread (the paper saw 1.3x with 7). Run under mpirun.");
  cli.option("--transports", "LIST", "transports to measure one after another, e.g. mpi,host,ucx (default: "
             "RINGCOMM_TRANSPORT, else auto); one that cannot run here is skipped with its reason",
             [&](const std::string& v) { o.transports = settings::split(v, ','); });
  cli.option("--ring-size", "S", "ranks per sub-ring; must divide the ranks (default: RINGCOMM_RING_SIZE, else all ranks)",
             [&](const std::string& v) { o.ring_size = static_cast<int>(settings::parse_integer(v, "--ring-size", 1, 1 << 30)); });
  cli.option("--threads", "LIST", "walker-thread counts for the overlap ring, e.g. 1,2,4; 1 is always measured (default 1,2)",
             [&](const std::string& v) { o.plan.threads = parse_thread_counts(v); });
  cli.option("--measurements", "N", "measurements per rank in each sample of each variant (default 16); T threads "
             "make ceil(N/T) rounds each",
             [&](const std::string& v) {
               o.problem.measurements = static_cast<std::size_t>(settings::parse_integer(v, "--measurements", 1, 1 << 30));
             });
  cli.option("--samples", "N", "timed samples of every variant; medians are reported (default 7)",
             [&](const std::string& v) { o.plan.samples = static_cast<int>(settings::parse_integer(v, "--samples", 1, 10000)); });
  cli.option("--warmup", "N", "untimed samples of every variant first (default 1)",
             [&](const std::string& v) { o.plan.warmup = static_cast<int>(settings::parse_integer(v, "--warmup", 0, 1000)); });
  cli.option("--channel", "NAME", "pp_up_down | ph_transverse | ph_magnetic | ph_charge (default pp_up_down)",
             [&](const std::string& v) { o.problem.channel = gt::parse_channel(v, "--channel"); });
  cli.option("--scalar", "TYPE", "double | float: complex<double> or complex<float> G_σ and G_t (default double)",
             [&](const std::string& v) { o.scalar = settings::parse_choice(v, "--scalar", {"double", "float"}); });
  cli::add_dims_options(cli, o.problem.dims);
  cli.option("--json", "FILE", "also write the results, raw samples included, as JSON to FILE",
             [&](const std::string& v) { o.json_path = v; });
  cli.flag("--quiet", "print only the tables and errors", [&] { o.quiet = true; });
  cli.note("A measurement is what one walker thread of a rank adds per ring round: S consumes and S-1 exchanges. "
           "Times are the slowest rank's per measurement; every measurement ends with a fence, so asynchronous "
           "kernels are inside it. Walker generation is not timed: each ring keeps circulating the messages it was "
           "primed with. The schedules are fixed by this program; RINGCOMM_THREADS, RINGCOMM_DIRECTION and "
           "RINGCOMM_OVERLAP are ignored. The schedule column shows what the overlap ring really did.");
  cli.note("Example: mpirun -np 2 overlap --transports mpi,host,ucx --threads 1,2 --json overlap.json; "
           "bench/plot.py turns the JSON into a PNG.");
  const std::string command_line = cli::command_line_text(argc, argv);
  return cli::run_program(argc, argv, cli, [&] { return run(o, command_line); }, MPI_THREAD_MULTIPLE);
}
