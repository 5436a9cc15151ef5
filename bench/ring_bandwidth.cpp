// ring_bandwidth: one ring step of every transport against a raw NCCL ring step of the same size,
// measured in the same run, interleaved sample by sample so that drifting clocks or load hit all alike.
// Alongside, the ceilings the transports work under: a copy-engine copy straight into the neighbour
// GPU (CUDA IPC), pinned PCIe copies in each direction and both at once, and MPI between pinned host
// buffers (the middle stage of the host transport).
//
// A step moves `bytes` from every rank to its right neighbour while it receives as much from its
// left; GB/s counts the bytes one rank sends per step. Ratios are bandwidth over the raw NCCL ring's.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "command_line.hpp"
#include "gpu_references.hpp"
#include "report.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/ring.hpp"
#include "ringcomm/settings.hpp"

namespace {

using namespace ringcomm;

constexpr std::size_t MiB = std::size_t(1) << 20;
constexpr std::size_t kPaperMessage = 170 * MiB;  // one measurement's G_σ pair at the paper's size
constexpr const char* kBaseline = "raw_nccl";
constexpr std::size_t kHostChunk = 4 * MiB;  // the host transport's default RINGCOMM_HOST_CHUNK_BYTES

struct Options {
  std::vector<std::string> transports;
  std::vector<std::string> skip;  // variants left out
  std::vector<std::size_t> sizes;
  int repetitions = 5;
  double sample_seconds = 0.03;
  std::string json_path;
  bool quiet = false;
};

struct Variant {
  std::size_t bytes = 0;  // moved per step
  std::string name;
  std::string role;  // baseline, transport or ceiling
  std::string what;
  std::function<void()> step;
  std::function<void()> drain;
  std::vector<double> samples;
  double seconds = 0;           // median per step
  double setup_seconds = 0;     // opening it for this size (allocations, connections)
  double sampling_seconds = 0;  // warm-up and samples
};

struct SizeResult {
  std::size_t bytes = 0;
  std::vector<Variant> variants;
  const Variant* find(const std::string& name) const {
    for (const auto& v : variants)
      if (v.name == name) return &v;
    return nullptr;
  }
  double gbps(const std::string& name) const {
    const Variant* v = find(name);
    return v ? bench::gigabytes_per_second(v->bytes, v->seconds) : 0.0;
  }
  double ratio(const std::string& name) const { return gbps(name) / gbps(kBaseline); }
};

void sample_interleaved(MPI_Comm comm, const Options& o, std::vector<Variant>& variants) {
  std::vector<long> steps;
  for (auto& v : variants) {
    const double start = MPI_Wtime();
    // The first steps may set up connections (NCCL's raw ring connects at its first exchange); the
    // sample length is planned from the second pair.
    bench::seconds_per_step(comm, 2, v.step, v.drain);
    const double warm = bench::seconds_per_step(comm, 2, v.step, v.drain);
    steps.push_back(bench::steps_for(comm, warm, o.sample_seconds, 2, 100000));
    v.sampling_seconds += MPI_Wtime() - start;
  }
  const std::size_t n = variants.size();
  for (int r = 0; r < o.repetitions; ++r)
    for (std::size_t i = 0; i < n; ++i) {
      // Rotating the order cancels any advantage of following a particular variant.
      const std::size_t k = (i + static_cast<std::size_t>(r)) % n;
      const double start = MPI_Wtime();
      variants[k].samples.push_back(bench::seconds_per_step(comm, steps[k], variants[k].step, variants[k].drain));
      variants[k].sampling_seconds += MPI_Wtime() - start;
    }
  for (auto& v : variants) v.seconds = bench::median(v.samples);
}

SizeResult measure(const Options& o, std::vector<bench::TransportUnderTest>& transports,
                   bench::TransportUnderTest* mpi_pinned, const Topology& topology, bench::RawNcclRing& raw,
                   std::size_t bytes) {
  using bench::PinnedCopies;
  const MPI_Comm comm = topology.ring_comm();
  std::vector<std::unique_ptr<Ring>> rings;
  SizeResult result;
  result.bytes = bytes;
  auto& v = result.variants;
  // Each variant's setup time runs from the previous one's end to its own entry.
  double setup_start = MPI_Wtime();
  const auto skipped = [&](const std::string& name) {
    return std::find(o.skip.begin(), o.skip.end(), name) != o.skip.end();
  };
  const auto add = [&](const std::string& name, const std::string& role, const std::string& what,
                       std::function<void()> step, std::function<void()> drain, std::size_t step_bytes) {
    Variant variant;
    variant.bytes = step_bytes;
    variant.name = name;
    variant.role = role;
    variant.what = what;
    variant.step = std::move(step);
    variant.drain = std::move(drain);
    variant.setup_seconds = MPI_Wtime() - setup_start;
    v.push_back(std::move(variant));
    setup_start = MPI_Wtime();
  };
  raw.resize(bytes);
  add(kBaseline, "baseline", "grouped ncclSend/ncclRecv on a private stream, written in the benchmark",
      [&] { raw.step(); }, [&] { raw.drain(); }, bytes);
  // Each transport's channel, opened by a Ring, steps like the raw ring: back to back, one drain at
  // the end of a sample (Ring::circulate would drain after every round of S-1 steps).
  std::vector<std::unique_ptr<bench::ChannelStepper>> steppers;
  const auto add_transport = [&](Transport& transport, const std::string& name, const std::string& role,
                                 const std::string& what, std::size_t step_bytes) {
    if (skipped(name)) return;
    rings.push_back(std::make_unique<Ring>(transport, topology, step_bytes));
    steppers.push_back(std::make_unique<bench::ChannelStepper>(rings.back()->channel()));
    bench::ChannelStepper& stepper = *steppers.back();
    add(name, role, what, [&stepper] { stepper.step(); }, [&stepper] { stepper.drain(); }, step_bytes);
  };
  for (auto& t : transports)
    if (t.transport) add_transport(*t.transport, t.name, "transport", describe(t.transport->capabilities()), bytes);
  // The host transport hands MPI one staging chunk at a time, so that is what its MPI stage moves
  // (whole messages of 16 MiB and more crawled at 0.1 GB/s through Open MPI's shared memory on the H200 machine).
  if (mpi_pinned && mpi_pinned->transport)
    add_transport(*mpi_pinned->transport, "mpi_pinned_host", "ceiling",
                  "mpi transport between pinned host buffers in messages of one host staging chunk (4 MiB)",
                  std::min(bytes, kHostChunk));
  bench::PeerCopy peer(comm, topology.right(), skipped("peer_copy_ce") ? 1 : bytes);
  if (!skipped("peer_copy_ce"))
    add("peer_copy_ce", "ceiling", "cudaMemcpyAsync into the right neighbour's buffer via CUDA IPC, back to back",
        [&] { peer.step(); }, [&] { peer.drain(); }, bytes);
  const auto pinned_bytes = [&](const char* name) { return skipped(name) ? 0 : bytes; };
  PinnedCopies download(PinnedCopies::Direction::download, pinned_bytes("pinned_d2h"));
  if (!skipped("pinned_d2h"))
    add("pinned_d2h", "ceiling", "cudaMemcpyAsync device to pinned host", [&] { download.step(); },
        [&] { download.drain(); }, bytes);
  PinnedCopies upload(PinnedCopies::Direction::upload, pinned_bytes("pinned_h2d"));
  if (!skipped("pinned_h2d"))
    add("pinned_h2d", "ceiling", "cudaMemcpyAsync pinned host to device", [&] { upload.step(); },
        [&] { upload.drain(); }, bytes);
  PinnedCopies both(PinnedCopies::Direction::both, pinned_bytes("pinned_both"));
  if (!skipped("pinned_both"))
    add("pinned_both", "ceiling", "device to pinned host and back at once, two streams (per direction)",
        [&] { both.step(); }, [&] { both.drain(); }, bytes);
  sample_interleaved(topology.world(), o, v);
  // The step functions refer to objects that end here; the results keep only numbers.
  for (auto& variant : v) variant.step = variant.drain = nullptr;
  return result;
}

// Each target as JSON, and as a line of `summary` for the console.
class Targets {
 public:
  void check(const std::string& what, double value, double at_least) {
    json::Value t = json::Value::object();
    t["what"] = what;
    t["value"] = value;
    t["at_least"] = at_least;
    t["met"] = value >= at_least;
    json_.push_back(t);
    summary_ += "  " + what + std::string(what.size() < 58 ? 58 - what.size() : 0, ' ') + report::format(" %6.3f", value) +
                report::format(" (>= %.2f)", at_least) + (value >= at_least ? " met\n" : " NOT met\n");
  }
  const json::Value& json() const { return json_; }
  const std::string& summary() const { return summary_; }

 private:
  json::Value json_ = json::Value::array();
  std::string summary_;
};

Targets check_targets(const std::vector<SizeResult>& results) {
  Targets targets;
  for (const auto& r : results) {
    const std::string size = format_bytes(static_cast<double>(r.bytes));
    const bool paper = r.bytes == kPaperMessage;
    if ((paper || r.bytes == 1024 * MiB) && r.find("nccl"))
      targets.check("nccl / raw NCCL at " + size, r.ratio("nccl"), 0.95);
    if (paper) {
      std::string best;
      for (const auto& v : r.variants)
        if (v.role == "transport" && v.name != "nccl" && (best.empty() || r.ratio(v.name) > r.ratio(best))) best = v.name;
      if (!best.empty()) targets.check("fastest other transport (" + best + ") / raw NCCL at " + size, r.ratio(best), 1.2);
    }
    if (r.bytes >= 16 * MiB && r.find("host") && r.find("pinned_d2h") && r.find("pinned_h2d")) {
      const double pcie = std::min(r.gbps("pinned_d2h"), r.gbps("pinned_h2d"));
      targets.check("host / pinned PCIe (slower of D2H, H2D) at " + size, r.gbps("host") / pcie, 0.8);
    }
  }
  return targets;
}

json::Value results_as_json(const std::vector<SizeResult>& results) {
  json::Value rows = json::Value::array();
  for (const auto& r : results) {
    json::Value row = json::Value::object();
    row["bytes"] = r.bytes;
    for (const auto& v : r.variants) {
      json::Value cell = json::Value::object();
      cell["role"] = v.role;
      cell["bytes_per_step"] = v.bytes;
      cell["what"] = v.what;
      cell["seconds_per_step"] = v.seconds;
      cell["GBps"] = r.gbps(v.name);
      cell["ratio_to_raw_nccl"] = r.ratio(v.name);
      cell["samples"] = v.samples;
      cell["setup_seconds"] = v.setup_seconds;
      cell["sampling_seconds"] = v.sampling_seconds;
      row["variants"][v.name] = cell;
    }
    rows.push_back(row);
  }
  return rows;
}

// Where a size's time went: "256 MiB: setup 1.20 s (nccl 0.90, …), sampling 2.10 s (host 0.70, …)".
std::string time_spent(const SizeResult& r) {
  double setup = 0, sampling = 0;
  std::string setups, samplings;
  for (const auto& v : r.variants) {
    setup += v.setup_seconds;
    sampling += v.sampling_seconds;
    setups += (setups.empty() ? "" : ", ") + v.name + report::format(" %.2f", v.setup_seconds);
    samplings += (samplings.empty() ? "" : ", ") + v.name + report::format(" %.2f", v.sampling_seconds);
  }
  return format_bytes(static_cast<double>(r.bytes)) + report::format(": setup %.2f s (", setup) + setups +
         report::format("), sampling %.2f s (", sampling) + samplings + ")";
}

std::string results_as_table(const std::vector<SizeResult>& results) {
  if (results.empty()) return "";
  std::vector<std::string> headers{"size"};
  for (const auto& v : results.front().variants) headers.push_back(v.name + " GB/s (x raw)");
  report::Table table(headers);
  for (const auto& r : results) {
    std::vector<std::string> row{format_bytes(static_cast<double>(r.bytes))};
    for (const auto& v : r.variants)
      row.push_back(report::format("%.1f", r.gbps(v.name)) + report::format(" (%.2f)", r.ratio(v.name)));
    table.add_row(row);
  }
  return table.render();
}

int run(const Options& o, const std::string& command_line) {
  int ranks = 0, rank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bool print = rank == 0 && !o.quiet;
  json::Value out = json::Value::object();
  out["metadata"] = report::run_metadata("ring_bandwidth", command_line);
  const auto write_json = [&] {
    if (!o.json_path.empty())
      collectively(MPI_COMM_WORLD, [&] {
        if (rank == 0) json::write_file(o.json_path, out);
      });
  };
  if (data_memory_kind() != MemoryKind::device) {
    const std::string why = "ring_bandwidth compares GPU transports; this is a CPU build (build with the cuda preset)";
    out["skipped"] = why;
    if (print) std::printf("ring_bandwidth: skipped: %s\n", why.c_str());
    write_json();
    return 0;
  }
  agree(MPI_COMM_WORLD, ranks >= 2, "ring_bandwidth needs at least 2 ranks, one per GPU (mpirun -np 2)");
  const Topology topology(MPI_COMM_WORLD, ranks);
  auto transports = bench::open_transports(MPI_COMM_WORLD, o.transports, MemoryKind::device);
  auto pinned = bench::open_transports(MPI_COMM_WORLD, {"mpi"}, MemoryKind::pinned_host);
  bench::RawNcclRing raw(topology.ring_comm(), topology.right(), topology.left());

  out["ring"] = topology.describe();
  out["method"] = "median of " + std::to_string(o.repetitions) + " interleaved samples of about " +
                  report::format("%.3f", o.sample_seconds) + " s each; GB/s = bytes one rank sends per step / step time";
  out["skipped"] = json::Value::array();
  for (const auto& t : transports) {
    if (t.transport) continue;
    out["skipped"].push_back(bench::skipped_as_json(t));
    if (print) std::printf("%s: skipped: %s\n", t.name.c_str(), t.skipped.c_str());
  }
  std::vector<SizeResult> results;
  report::ProgressLine progress("ring_bandwidth", "sizes", print);
  for (const std::size_t bytes : o.sizes) {
    results.push_back(measure(o, transports, &pinned.front(), topology, raw, bytes));
    progress.update(results.size(), o.sizes.size());
    if (print) std::fprintf(stderr, "%s\n", time_spent(results.back()).c_str());
    // Rewritten after every size, so that a run cut short keeps what it measured.
    out["results"] = results_as_json(results);
    write_json();
  }
  const Targets targets = check_targets(results);
  out["targets"] = targets.json();
  if (print) std::printf("%s\ntargets:\n%s", results_as_table(results).c_str(), targets.summary().c_str());
  write_json();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.sizes = bench::size_ladder(MiB, 1024 * MiB, 2, {kPaperMessage});
  cli::CommandLine cli("ring_bandwidth",
                       "Bandwidth of one ring step of every GPU transport against a raw NCCL ring step written "
                       "in this benchmark, measured together in one run, plus copy-engine, pinned PCIe and "
                       "pinned-host MPI ceilings. One rank per GPU; GPU builds only.");
  cli.option("--transports", "LIST", "comma-separated transports (default: every compiled one)",
             [&](const std::string& v) { o.transports = settings::split(v, ','); });
  cli.option("--skip", "LIST", "variants to leave out, e.g. mpi_pinned_host,pinned_both (the baseline always runs)",
             [&](const std::string& v) { o.skip = settings::split(v, ','); });
  cli.option("--sizes", "LIST", "message sizes such as 1M,170MiB,1G (default: powers of two from 1 MiB to 1 GiB, and 170 MiB)",
             [&](const std::string& v) { o.sizes = bench::parse_size_list(v, "--sizes"); });
  cli.option("--repetitions", "N", "interleaved samples per variant and size; the median is reported (default 5)",
             [&](const std::string& v) { o.repetitions = static_cast<int>(settings::parse_integer(v, "--repetitions", 1, 1000)); });
  cli.option("--sample-seconds", "T", "about how long one sample lasts (default 0.03)",
             [&](const std::string& v) { o.sample_seconds = settings::parse_real(v, "--sample-seconds", 1e-4, 60); });
  cli.option("--json", "FILE", "also write the results as JSON to FILE", [&](const std::string& v) { o.json_path = v; });
  cli.flag("--quiet", "print nothing but errors", [&] { o.quiet = true; });
  cli.note("Targets checked: nccl >= 95 % of raw NCCL at 170 MiB and 1 GiB; the fastest other transport >= 1.2x raw "
           "NCCL at 170 MiB; host >= 80 % of pinned PCIe bandwidth (the slower of D2H and H2D) from 16 MiB. "
           "Run as: mpirun -np 2 ring_bandwidth --json ring_bandwidth.json");
  const std::string command_line = cli::command_line_text(argc, argv);
  return cli::run_program(argc, argv, cli, [&] { return run(o, command_line); });
}
