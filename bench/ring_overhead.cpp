// ring_overhead: what ringcomm's ring step costs on top of the MPI exchange it wraps.
//
// Pairs of ranks (sub-rings of S = 2) exchange one message per step. Side by side in one run, and
// interleaved repetition by repetition so that drifting machine load hits both alike, we time
//   ring: Ring::circulate with a consume that does nothing (one exchange per circulate at S = 2),
//   raw:  a plain MPI_Sendrecv loop written here, alternating two buffers exactly as the ring does.
// The ratio ring/raw of the medians is ringcomm's overhead; the target is at most 5 % at 16 MiB.
#include <mpi.h>

#include <array>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "command_line.hpp"
#include "report.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/json.hpp"
#include "ringcomm/backend/mpi_bytes.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/ring.hpp"
#include "ringcomm/settings.hpp"

namespace {

using namespace ringcomm;

struct Options {
  std::string transport = "mpi";
  std::vector<std::size_t> sizes;
  int repetitions = 21;
  int warmup = 3;
  double sample_seconds = 0.02;
  std::string json_path;
  bool quiet = false;
};

constexpr std::size_t kTargetBytes = std::size_t(16) << 20;
constexpr double kTargetOverheadPercent = 5.0;

// The raw baseline: two buffers, one MPI_Sendrecv per step, roles swapped each step.
class RawExchange {
 public:
  RawExchange(const Topology& topology, std::size_t bytes, MemoryKind memory)
      : comm_(topology.ring_comm()), right_(topology.right()), left_(topology.left()), message_(bytes) {
    for (auto& b : buffers_) b = Buffer(memory, bytes, "ring_overhead raw buffer");
  }
  void step() {
    MPI_Sendrecv(buffers_[current_].data(), message_.count(), message_.type(), right_, 0,
                 buffers_[1 - current_].data(), message_.count(), message_.type(), left_, 0, comm_,
                 MPI_STATUS_IGNORE);
    current_ = 1 - current_;
  }

 private:
  MPI_Comm comm_;
  int right_, left_;
  MpiBytes message_;
  std::array<Buffer, 2> buffers_;
  int current_ = 0;
};

struct SizeResult {
  std::size_t bytes = 0;
  long iterations = 0;
  double raw_seconds = 0;   // median per exchange
  double ring_seconds = 0;  // median per circulate (one exchange)
  double ratio() const { return ring_seconds / raw_seconds; }
  double overhead_percent() const { return (ratio() - 1.0) * 100.0; }
};

SizeResult measure(const Options& options, Transport& transport, const Topology& topology, std::size_t bytes,
                   MemoryKind raw_memory) {
  Ring ring(transport, topology, bytes);
  RawExchange raw(topology, bytes, raw_memory);
  const std::function<void()> ring_step = [&ring] { ring.circulate([](const void*, int) {}); };
  const std::function<void()> raw_step = [&raw] { raw.step(); };
  // Stream-ordered transports (nccl) return from circulate with the exchange still queued.
  const std::function<void()> drain = bench::fence_data_memory;
  const MPI_Comm world = topology.world();
  auto sample = [&](const std::function<void()>& step, long count) {
    return bench::seconds_per_step(world, count, step, drain);
  };

  SizeResult result;
  result.bytes = bytes;
  result.iterations = bench::steps_for(world, sample(raw_step, 2), options.sample_seconds, 1, 10000);
  for (int w = 0; w < options.warmup; ++w) {
    sample(ring_step, result.iterations);
    sample(raw_step, result.iterations);
  }
  std::vector<double> ring_samples, raw_samples;
  for (int r = 0; r < options.repetitions; ++r) {
    // Alternating which goes first cancels any advantage of following the other.
    if (r % 2 == 0) ring_samples.push_back(sample(ring_step, result.iterations));
    raw_samples.push_back(sample(raw_step, result.iterations));
    if (r % 2 == 1) ring_samples.push_back(sample(ring_step, result.iterations));
  }
  result.ring_seconds = bench::median(ring_samples);
  result.raw_seconds = bench::median(raw_samples);
  return result;
}

// The raw loop hands MPI the same kind of memory as the ring when MPI can take it; on a GPU build
// without a CUDA-aware MPI it can only use host memory.
MemoryKind raw_memory_kind(const TransportContext& ctx) {
  const BackendInfo* mpi = Registry::instance().find("mpi");
  const bool ok = mpi != nullptr && mpi->probe(ctx).usable;
  int everywhere = ok ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &everywhere, 1, MPI_INT, MPI_MIN, ctx.world);
  return everywhere ? ctx.memory : MemoryKind::host;
}

json::Value as_json(const std::vector<SizeResult>& results) {
  json::Value rows = json::Value::array();
  for (const auto& r : results) {
    json::Value row = json::Value::object();
    row["bytes"] = r.bytes;
    row["iterations_per_sample"] = r.iterations;
    row["raw_seconds"] = r.raw_seconds;
    row["ring_seconds"] = r.ring_seconds;
    row["raw_GBps"] = bench::gigabytes_per_second(r.bytes, r.raw_seconds);
    row["ring_GBps"] = bench::gigabytes_per_second(r.bytes, r.ring_seconds);
    row["ratio"] = r.ratio();
    row["overhead_percent"] = r.overhead_percent();
    rows.push_back(row);
  }
  return rows;
}

std::string as_table(const std::vector<SizeResult>& results) {
  report::Table table({"size", "raw us", "ring us", "raw GB/s", "ring GB/s", "ratio", "overhead %"});
  for (const auto& r : results)
    table.add_row({format_bytes(static_cast<double>(r.bytes)), report::format("%.2f", r.raw_seconds * 1e6),
                   report::format("%.2f", r.ring_seconds * 1e6),
                   report::format("%.2f", bench::gigabytes_per_second(r.bytes, r.raw_seconds)),
                   report::format("%.2f", bench::gigabytes_per_second(r.bytes, r.ring_seconds)),
                   report::format("%.3f", r.ratio()), report::format("%+.1f", r.overhead_percent())});
  return table.render();
}

const SizeResult* target_result(const std::vector<SizeResult>& results) {
  for (const auto& r : results)
    if (r.bytes == kTargetBytes) return &r;
  return nullptr;
}

int run(const Options& options, const std::string& command_line) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Topology topology(MPI_COMM_WORLD, 2);
  TransportContext ctx;
  ctx.world = MPI_COMM_WORLD;
  ctx.memory = data_memory_kind();
  auto selection = select_transport(options.transport, ctx);
  const MemoryKind raw_memory = raw_memory_kind(ctx);
  const bool print = rank == 0 && !options.quiet;
  if (print)
    std::printf("ring_overhead: %s; ring transport '%s' (%s memory) vs raw MPI_Sendrecv (%s memory); median of %d "
                "interleaved samples after %d warm-up\n",
                topology.describe().c_str(), selection.transport->name().c_str(), to_string(ctx.memory),
                to_string(raw_memory), options.repetitions, options.warmup);
  std::fflush(stdout);

  std::vector<SizeResult> results;
  report::ProgressLine progress("ring_overhead", "sizes", print);
  for (const std::size_t bytes : options.sizes) {
    results.push_back(measure(options, *selection.transport, topology, bytes, raw_memory));
    progress.update(results.size(), options.sizes.size());
  }

  json::Value out = json::Value::object();
  out["metadata"] = report::run_metadata("ring_overhead", command_line);
  out["transport"] = selection.transport->name();
  out["data_memory"] = to_string(ctx.memory);
  out["raw_memory"] = to_string(raw_memory);
  out["ring_size"] = topology.ring_size();
  out["repetitions"] = options.repetitions;
  out["warmup"] = options.warmup;
  out["results"] = as_json(results);
  const SizeResult* target = target_result(results);
  out["target"]["bytes"] = kTargetBytes;
  out["target"]["max_overhead_percent"] = kTargetOverheadPercent;
  out["target"]["overhead_percent"] = target ? json::Value(target->overhead_percent()) : json::Value();
  out["target"]["met"] = target ? json::Value(target->overhead_percent() <= kTargetOverheadPercent) : json::Value();
  if (rank == 0) {
    if (!options.quiet) std::fputs(as_table(results).c_str(), stdout);
    if (target && !options.quiet)
      std::printf("overhead at %s: %+.1f %% (target <= %.0f %%: %s)\n", format_bytes(kTargetBytes).c_str(),
                  target->overhead_percent(), kTargetOverheadPercent,
                  target->overhead_percent() <= kTargetOverheadPercent ? "met" : "NOT met");
  }
  if (!options.json_path.empty())
    collectively(MPI_COMM_WORLD, [&] {
      if (rank == 0) json::write_file(options.json_path, out);
    });
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  options.sizes = bench::size_ladder(1024, std::size_t(64) << 20, 2);
  cli::CommandLine cli(
      "ring_overhead",
      "Measures what ringcomm's ring step costs on top of a plain MPI exchange. Ranks are paired (ring size S = "
      "2, so an even number of ranks, normally 2): each pair times Ring::circulate with a do-nothing consume (one "
      "exchange) and a raw MPI_Sendrecv loop of the same size, interleaved, and reports medians, their ratio and "
      "the overhead in percent. The target is an overhead of at most 5 % at 16 MiB.");
  cli.option("--transport", "NAME", "transport of the ring (default mpi); the raw loop is always MPI_Sendrecv",
             [&](const std::string& v) { options.transport = v; });
  cli.option("--sizes", "LIST",
             "comma-separated message sizes such as 4K,1M,16MiB (default: every power of two from 1 KiB to 64 MiB)",
             [&](const std::string& v) { options.sizes = bench::parse_size_list(v, "--sizes"); });
  cli.option("--repetitions", "N", "timed samples of each kind per size; the median is reported (default 21)",
             [&](const std::string& v) { options.repetitions = static_cast<int>(settings::parse_integer(v, "--repetitions", 1, 10000)); });
  cli.option("--warmup", "N", "untimed samples of each kind per size first (default 3)",
             [&](const std::string& v) { options.warmup = static_cast<int>(settings::parse_integer(v, "--warmup", 0, 1000)); });
  cli.option("--sample-seconds", "T",
             "about how long one sample lasts; small messages repeat the exchange to reach it (default 0.02)",
             [&](const std::string& v) { options.sample_seconds = settings::parse_real(v, "--sample-seconds", 1e-6, 60); });
  cli.option("--json", "FILE", "also write the results as JSON to FILE",
             [&](const std::string& v) { options.json_path = v; });
  cli.flag("--quiet", "print nothing but errors", [&] { options.quiet = true; });
  cli.note("Times are per exchange, the slowest rank's; GB/s counts the bytes one rank sends per exchange. "
           "Run as: mpirun -np 2 ring_overhead");
  const std::string command_line = cli::command_line_text(argc, argv);
  return cli::run_program(argc, argv, cli, [&] { return run(options, command_line); });
}
