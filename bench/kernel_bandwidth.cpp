// kernel_bandwidth: how close the G_t kernel (GtAccumulator) comes to the memory bandwidth of the
// device, measured in the same run as a plain device-to-device copy of the same size.
//
// Bytes counted per message: the G_t slice read and written once (2 · N · sizeof(G_t scalar)) plus
// the message's G_up and G_down read once (2 · M² · sizeof(message scalar)). That is the least traffic
// the update can cause; re-reads of G_σ that miss the caches, the transposed copy and the bubble
// factors (GtAccumulator's per-message preparation, which is timed) are not counted, so the figure is
// a lower bound on the bandwidth the kernel really draws. The copy counts its read and its write.
// Kernel launches and copies are timed alternately; medians are reported. One run measures every
// combination of channel, precision (double, float, mixed: G_σ float and G_t double), shape (nb = 1
// at the paper size, nb = 2 with 2n = 32) and kernel variant asked for.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <optional>
#include <type_traits>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "command_line.hpp"
#include "report.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/gt/l2_set_aside.hpp"
#include "ringcomm/gt/walker.hpp"
#include "ringcomm/settings.hpp"

namespace {

using namespace ringcomm;

constexpr double kTarget = 0.85;

struct Options {
  gt::Dims dims;
  std::vector<int> orbitals{1, 2};  // one shape per entry; 2n from n_freq_override or shape_n_freq()
  int n_freq_override = 0;
  std::vector<gt::Channel> channels;
  std::vector<int> row_tiles{0};  // 0: GtAccumulator's default for the precision
  std::vector<int> frequency_steps{0};  // 0: GtAccumulator's default
  std::vector<int> frequency_warps{0};  // 0: GtAccumulator's default
  std::vector<int> transposed_reads{-1};  // -1: GtAccumulator's default; 0 off, 1 on
  std::vector<int> batches{1};
  std::vector<int> warp_tile_kernel{-1};  // -1: GtAccumulator's default; 0 off, 1 on
  std::vector<int> single_message_kernel{-1};  // the same
  std::vector<int> diagonal_loads_ahead{-1};   // the same
  std::vector<int> walk_loads_ahead{-1};       // the same
  std::vector<int> walk_tma_stages{-1};        // the same
  std::vector<int> row_warps{gt::GtAccumulator<Kokkos::complex<double>>::kDefaultExchangeRowWarps};
  std::vector<int> pair_warps{0};  // 0: GtAccumulator's default
  std::vector<int> inner_block_chunks{-1};  // -1: GtAccumulator's default
  std::vector<int> pass_team_threads{-1};   // the same
  std::vector<int> factor_blas{-1};         // the same
  std::vector<std::string> precisions{"double", "float", "mixed"};
  int launches = 10;
  int repetitions = 5;
  int l2_persisting_mib = -1;  // -1: leave the device's set-aside as it is
  std::string json_path;
  bool quiet = false;
};

gt::Dims paper_dims() {
  gt::Dims d;
  d.nb = 1;
  d.Lx = 6;
  d.Ly = 6;
  d.n_freq = 64;
  d.exchange_momenta = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  d.exchange_frequencies = {0, 1, 2, 3};
  return d;
}

// 2n of the default shapes: the paper's 64 for nb = 1; 32 for nb >= 2 (G_t 4 × larger at nb = 2).
int shape_n_freq(int nb) { return nb == 1 ? 64 : 32; }

struct ChannelResult {
  gt::Dims dims;
  std::string precision;
  gt::Channel channel;
  int row_tile = 1;
  int frequency_steps = 1;
  int frequency_warps = 1;
  bool transposed_reads = true;
  int batch = 1;
  int row_warps = 1;
  int pair_warps = 1;
  int inner_block_chunks = 0;  // GtAccumulator::inner_block_chunks_in_use (0: one block)
  int pass_team_threads = 0;   // GtAccumulator::pass_team_threads_in_use (0: a RangePolicy)
  bool factor_blas = false;    // GtAccumulator::factor_product_blas_in_use
  bool warp_tile_kernel = false;
  bool loads_ahead = true;  // whether the walk loads the next step ahead (kernels "single" and "diagonal")
  int tma_stages = 0;       // GtAccumulator::tma_stages_in_use (kernel "single")
  std::string kernel;  // gt::to_string(GtAccumulator::pass_kernel): tiles, single, diagonal or rows
  double kernel_seconds = 0;  // median per message
  double copy_seconds = 0;    // median per copy
  int settle_copies = 0;      // copies made on the arrays before their first case (settle_copy_rate)
  std::size_t kernel_bytes = 0;
  std::size_t copy_bytes = 0;
  double kernel_GBps() const { return bench::gigabytes_per_second(kernel_bytes, kernel_seconds); }
  double copy_GBps() const { return bench::gigabytes_per_second(copy_bytes, copy_seconds); }
  double ratio() const { return kernel_GBps() / copy_GBps(); }
};

template <class Work>
double seconds_per_launch(int launches, Work&& work) {
  Kokkos::fence();
  const double start = MPI_Wtime();
  for (int i = 0; i < launches; ++i) work();
  Kokkos::fence();
  return (MPI_Wtime() - start) / launches;
}

// The slice, the copy target and the message of one shape and precision, reused by every channel
// and variant measured on them.
template <class Scalar, class Message>
struct Arrays {
  explicit Arrays(const gt::Dims& dims)
      : gt_slice("kernel_bandwidth G_t", dims.entries()), copy_target("kernel_bandwidth copy target", dims.entries()),
        message("kernel_bandwidth message", dims.message_entries()) {
    gt::SyntheticWalker(dims, 1, 1).write<Message>(0, message.data());
  }
  // The yardstick: the slice copied to the copy target, one read and one write of every entry.
  void copy() const { Kokkos::deep_copy(ExecSpace(), copy_target, gt_slice); }
  Kokkos::View<Scalar*> gt_slice;
  Kokkos::View<Scalar*> copy_target;
  Kokkos::View<Message*> message;
};

// One combination of GtAccumulator's settings; 0 or -1 (as each field's initial value) leaves its default.
struct Variant {
  int row_tile = 0;
  int steps = 0;
  int frequency_warps = 0;
  int row_warps = 1;
  int transposed_reads = -1;
  int batch = 1;
  int warp_tile_kernel = -1;
  int single_message_kernel = -1;
  int diagonal_loads_ahead = -1;
  int walk_loads_ahead = -1;
  int pair_warps = 0;
  int walk_tma_stages = -1;
  int inner_block_chunks = -1;
  int pass_team_threads = -1;
  int factor_blas = -1;
};

template <class Scalar, class Message>
ChannelResult measure(const Options& o, const gt::Dims& dims, Arrays<Scalar, Message>& arrays, gt::Channel channel,
                      const Variant& v) {
  const std::size_t n = dims.entries();
  const int batch = v.batch;
  gt::GtAccumulator<Scalar, Message> accumulate(dims, channel, arrays.gt_slice, SliceRange{0, n});
  if (v.row_tile > 0) accumulate.set_exchange_row_tile(v.row_tile);
  if (v.steps > 0) accumulate.set_frequency_steps(v.steps);
  if (v.frequency_warps > 0) accumulate.set_frequency_warps(v.frequency_warps);
  accumulate.set_exchange_row_warps(v.row_warps);
  if (v.pair_warps > 0) accumulate.set_pair_warps(v.pair_warps);
  if (v.transposed_reads >= 0) accumulate.set_transposed_reads(v.transposed_reads == 1);
  accumulate.set_batch(batch);
  if (v.warp_tile_kernel >= 0) accumulate.set_warp_tile_kernel(v.warp_tile_kernel == 1);
  if (v.single_message_kernel >= 0) accumulate.set_single_message_kernel(v.single_message_kernel == 1);
  if (v.diagonal_loads_ahead >= 0) accumulate.set_diagonal_loads_ahead(v.diagonal_loads_ahead == 1);
  if (v.walk_loads_ahead >= 0) accumulate.set_walk_loads_ahead(v.walk_loads_ahead == 1);
  if (v.walk_tma_stages >= 0) accumulate.set_walk_tma_stages(v.walk_tma_stages);
  if (v.inner_block_chunks >= 0) accumulate.set_inner_block_chunks(v.inner_block_chunks);
  if (v.pass_team_threads >= 0) accumulate.set_pass_team_threads(v.pass_team_threads);
  if (v.factor_blas >= 0) accumulate.set_factor_product_blas(v.factor_blas == 1);
  // `batch` messages and the flush that applies them: one pass over G_t.
  const auto kernel = [&] {
    for (int j = 0; j < batch; ++j) accumulate(arrays.message.data());
    accumulate.flush();
  };
  const auto copy = [&] { arrays.copy(); };

  ChannelResult r;
  r.dims = dims;
  r.channel = channel;
  r.row_tile = accumulate.exchange_row_tile();
  r.frequency_steps = accumulate.frequency_steps();
  r.frequency_warps = accumulate.frequency_warps();
  r.transposed_reads = accumulate.transposed_reads();
  r.batch = batch;
  r.row_warps = v.row_warps;
  r.pair_warps = accumulate.pair_warps();
  const gt::PassKernel pass = accumulate.pass_kernel(batch);
  r.inner_block_chunks = accumulate.inner_block_chunks_in_use(batch);
  r.pass_team_threads = accumulate.pass_team_threads_in_use(batch);
  r.factor_blas = accumulate.factor_product_blas_in_use(batch);
  r.warp_tile_kernel = pass == gt::PassKernel::warp_tiles;
  r.loads_ahead = pass == gt::PassKernel::single_diagonal ? accumulate.diagonal_loads_ahead()
                                                         : accumulate.walk_loads_ahead();
  r.kernel = gt::to_string(pass);
  r.tma_stages = pass == gt::PassKernel::single_message ? accumulate.tma_stages_in_use() : 0;
  const std::size_t g_entries = dims.message_entries() - 1;
  r.kernel_bytes = 2 * n * sizeof(Scalar) + g_entries * sizeof(Message);
  r.copy_bytes = 2 * n * sizeof(Scalar);
  seconds_per_launch(1, kernel);
  seconds_per_launch(1, copy);
  std::vector<double> kernel_samples, copy_samples;
  for (int rep = 0; rep < o.repetitions; ++rep) {
    kernel_samples.push_back(seconds_per_launch(o.launches, kernel));
    copy_samples.push_back(seconds_per_launch(o.launches, copy));
  }
  r.kernel_seconds = bench::median(kernel_samples) / batch;
  r.copy_seconds = bench::median(copy_samples);
  return r;
}

// Copies the slice of freshly allocated arrays until the copy runs at its steady rate: for at least
// kSettleSeconds, then until the last three copies each take within 1 % of the fastest so far (at most
// kMaxSettleSeconds). Returns the copies made. Why: without it the first case measured on the arrays of
// complex<float>, allocated after those of mixed precision were freed, ran its kernel 9–13 % slower than
// it does alone, and often its copy too, on an H200 and an H100; with it that case runs as it does alone
// (docs/results/h200_status, 3_settle_h100).
constexpr double kSettleSeconds = 0.1, kMaxSettleSeconds = 1.0;
template <class Scalar, class Message>
int settle_copy_rate(Arrays<Scalar, Message>& arrays) {
  const auto copy = [&] { arrays.copy(); };
  const double start = MPI_Wtime();
  double fastest = 0;
  int copies = 0, steady = 0;  // steady: the latest copies in a row within 1 % of the fastest
  while (MPI_Wtime() - start < kMaxSettleSeconds) {
    const double seconds = seconds_per_launch(1, copy);
    ++copies;
    if (copies == 1 || seconds < fastest) fastest = seconds;
    steady = seconds <= 1.01 * fastest ? steady + 1 : 0;
    if (steady >= 3 && MPI_Wtime() - start >= kSettleSeconds) break;
  }
  return copies;
}

template <class Scalar, class Message>
void measure_shape(const Options& o, const gt::Dims& dims, const std::string& precision,
                   std::vector<ChannelResult>& results) {
  std::optional<Arrays<Scalar, Message>> arrays;
  const int settle_copies = collectively(MPI_COMM_WORLD, [&] {
    arrays.emplace(dims);
    return settle_copy_rate(*arrays);
  });
  for (const gt::Channel channel : o.channels)
    for (const int rows : o.row_tiles)
      for (const int steps : o.frequency_steps)
        for (const int frequency_warps : o.frequency_warps)
          for (const int warps : o.row_warps)
            for (const int transposed : o.transposed_reads)
              for (const int batch : o.batches)
                for (const int tiles : o.warp_tile_kernel)
                  for (const int single : o.single_message_kernel)
                  for (const int ahead : o.diagonal_loads_ahead)
                  for (const int walk_ahead : o.walk_loads_ahead)
                  for (const int tma : o.walk_tma_stages)
                  for (const int pairs : o.pair_warps)
                  for (const int blocks : o.inner_block_chunks)
                  for (const int team : o.pass_team_threads)
                  for (const int blas : o.factor_blas) {
                  // pp reads nothing transposed: measured once, with the first setting asked for.
                  if (channel == gt::Channel::pp_up_down && transposed != o.transposed_reads.front()) continue;
                  // A thread walks several frequencies of a diagonal or a warp walks one: not both.
                  if (steps > 1 && frequency_warps > 1) continue;
                  // The previous kernel exists for pp_up_down with messages of G_t's type only.
                  if (tiles == 1 && (channel != gt::Channel::pp_up_down || !std::is_same_v<Scalar, Message>)) continue;
                  // Batches never run the single-message kernel: measured once.
                  if (batch > 1 && single != o.single_message_kernel.front()) continue;
                  // Loads ahead change the single-message walks only: the diagonal one (frequency steps
                  // above 1) and the one in order (1 step).
                  if ((batch > 1 || steps == 1) && ahead != o.diagonal_loads_ahead.front()) continue;
                  if ((batch > 1 || steps > 1) && walk_ahead != o.walk_loads_ahead.front()) continue;
                  if ((batch > 1 || steps > 1) && tma != o.walk_tma_stages.front()) continue;
                  // Pair groups change the bubble channels' walk in order and batches.
                  const bool bubble = channel == gt::Channel::ph_magnetic || channel == gt::Channel::ph_charge;
                  const bool grouped = batch > 1 || (bubble && steps <= 1);
                  if (!grouped && pairs != o.pair_warps.front()) continue;
                  // Inner blocks change batches only (their passes hoist positions).
                  if (batch == 1 && blocks != o.inner_block_chunks.front()) continue;
                  if (batch == 1 && team != o.pass_team_threads.front()) continue;
                  // cuBLAS takes the factor product of bubble batches at nb = 1 only.
                  if ((batch == 1 || !bubble) && blas != o.factor_blas.front()) continue;
                  if (blas == 1 && dims.nb != 1) continue;
                  const Variant variant{rows, steps, frequency_warps, warps, transposed, batch,
                                        tiles, single, ahead, walk_ahead, pairs, tma, blocks, team, blas};
                  results.push_back(collectively(MPI_COMM_WORLD, [&] {
                    return measure<Scalar, Message>(o, dims, *arrays, channel, variant);
                  }));
                  results.back().precision = precision;
                  results.back().settle_copies = settle_copies;
                }
}

// Whether `kernel` (a gt::to_string(PassKernel)) is one of the single-message walks, which may load ahead.
bool single_message_walk(const std::string& kernel) {
  return kernel == gt::to_string(gt::PassKernel::single_message) ||
         kernel == gt::to_string(gt::PassKernel::single_diagonal);
}

// The L2 set-aside for persisting accesses (cudaLimitPersistingL2CacheSize) in bytes: set to
// `mib` MiB (at most the device's maximum, lower or higher) when mib >= 0, then read back; -1 off CUDA.
// Lines read with the "evict last" policy, as the kernels read G_σ (kernels/src/l2_hints.hpp), count
// against it (ringcomm/gt/l2_set_aside.hpp).
long long l2_persisting_bytes(int mib) {
  const gt::L2SetAside aside = mib >= 0 ? gt::change_l2_set_aside(mib, true) : gt::raise_l2_set_aside(0);
  if (!aside.problem.empty()) throw Error("kernel_bandwidth: the L2 persisting set-aside: " + aside.problem);
  if (mib >= 0 && aside.after < 0) throw Error("kernel_bandwidth: --l2-persisting needs a CUDA build");
  return aside.after;
}

int run(const Options& o, const std::string& command_line) {
  if (o.l2_persisting_mib >= 0)  // the same option on every rank; without it the set-aside is only read below
    collectively(MPI_COMM_WORLD, [&] { return l2_persisting_bytes(o.l2_persisting_mib); });
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bool print = rank == 0 && !o.quiet;
  std::vector<gt::Dims> shapes;
  for (const int nb : o.orbitals) {
    gt::Dims dims = o.dims;
    dims.nb = nb;
    dims.n_freq = o.n_freq_override > 0 ? o.n_freq_override : shape_n_freq(nb);
    collectively(MPI_COMM_WORLD, [&] { dims.validate(); });
    shapes.push_back(dims);
  }
  std::vector<ChannelResult> results;
  for (const gt::Dims& dims : shapes)
    for (const std::string& precision : o.precisions) {
      if (precision == "double") measure_shape<Kokkos::complex<double>, Kokkos::complex<double>>(o, dims, precision, results);
      else if (precision == "float") measure_shape<Kokkos::complex<float>, Kokkos::complex<float>>(o, dims, precision, results);
      else measure_shape<Kokkos::complex<double>, Kokkos::complex<float>>(o, dims, precision, results);
    }

  // The set-aside the kernels ran under: --l2-persisting's, or what the first GtAccumulator raised it to
  // (ringcomm/gt/l2_set_aside.hpp).
  const long long persisting = collectively(MPI_COMM_WORLD, [&] { return l2_persisting_bytes(-1); });
  json::Value out = json::Value::object();
  out["metadata"] = report::run_metadata("kernel_bandwidth", command_line);
  out["execution_space"] = report::kokkos_execution_space();
  out["l2_persisting_bytes"] = persisting;  // -1 off CUDA
  out["byte_count"] = "kernel: G_t slice read + write (2 N G_t scalars) + G_up and G_down read once (2 M^2 message "
                      "scalars), a lower bound on its traffic; copy: read + write of N G_t scalars";
  out["precisions"] = "double: G_t and G_sigma complex<double>; float: both complex<float>; mixed: G_sigma "
                      "complex<float>, G_t complex<double>";
  out["results"] = json::Value::array();
  report::Table table({"nb", "2n", "precision", "channel", "rows", "steps", "fwarps", "warps", "pwarps", "G^T",
                       "batch", "iblk", "team", "blas", "kernel", "ahead", "tma", "ms/message", "kernel GB/s", "copy GB/s", "ratio",
                       "target"});
  double worst = 1e300;
  for (const auto& r : results) {
    json::Value row = json::Value::object();
    row["dims"] = r.dims.describe();
    row["nb"] = r.dims.nb;
    row["n_freq"] = r.dims.n_freq;
    row["entries"] = r.dims.entries();
    row["precision"] = r.precision;
    row["channel"] = gt::to_string(r.channel);
    row["exchange_row_tile"] = r.row_tile;
    row["frequency_steps"] = r.frequency_steps;
    row["frequency_warps"] = r.frequency_warps;
    row["transposed_reads"] = r.transposed_reads;
    row["batch"] = r.batch;
    row["exchange_row_warps"] = r.row_warps;
    row["pair_warps"] = r.pair_warps;
    row["inner_block_chunks"] = r.inner_block_chunks;
    row["pass_team_threads"] = r.pass_team_threads;
    row["factor_blas"] = r.factor_blas;
    row["warp_tile_kernel"] = r.warp_tile_kernel;
    row["kernel"] = r.kernel;
    if (r.kernel == gt::to_string(gt::PassKernel::single_diagonal)) row["diagonal_loads_ahead"] = r.loads_ahead;
    if (r.kernel == gt::to_string(gt::PassKernel::single_message)) {
      row["walk_loads_ahead"] = r.loads_ahead;
      row["walk_tma_stages"] = r.tma_stages;
    }
    row["kernel_seconds"] = r.kernel_seconds;
    row["kernel_bytes"] = r.kernel_bytes;
    row["kernel_GBps"] = r.kernel_GBps();
    row["copy_seconds"] = r.copy_seconds;
    row["copy_bytes"] = r.copy_bytes;
    row["copy_GBps"] = r.copy_GBps();
    row["settle_copies"] = r.settle_copies;
    row["ratio"] = r.ratio();
    row["target"] = kTarget;
    row["met"] = r.ratio() >= kTarget;
    out["results"].push_back(row);
    worst = std::min(worst, r.ratio());
    table.add_row({std::to_string(r.dims.nb), std::to_string(r.dims.n_freq), r.precision, gt::to_string(r.channel),
                   std::to_string(r.row_tile), std::to_string(r.frequency_steps), std::to_string(r.frequency_warps),
                   std::to_string(r.row_warps), std::to_string(r.pair_warps), r.transposed_reads ? "yes" : "no",
                   std::to_string(r.batch), std::to_string(r.inner_block_chunks),
                   std::to_string(r.pass_team_threads), r.factor_blas ? "yes" : "no", r.kernel,
                   !single_message_walk(r.kernel) ? "-" : r.loads_ahead ? "yes" : "no",
                   r.kernel == gt::to_string(gt::PassKernel::single_message) ? std::to_string(r.tma_stages) : "-",
                   report::format("%.3f", r.kernel_seconds * 1e3),
                   report::format("%.1f", r.kernel_GBps()), report::format("%.1f", r.copy_GBps()),
                   report::format("%.3f", r.ratio()), r.ratio() >= kTarget ? ">= 0.85 met" : ">= 0.85 NOT met"});
  }
  out["lowest_ratio"] = results.empty() ? 0.0 : worst;
  if (print) {
    std::printf("kernel_bandwidth on %s; medians of %d samples of %d launches", report::kokkos_execution_space().c_str(),
                o.repetitions, o.launches);
    if (persisting >= 0) std::printf("; L2 persisting set-aside %.1f MiB", static_cast<double>(persisting) / (1 << 20));
    std::printf("; shapes:\n");
    for (const gt::Dims& dims : shapes) std::printf("  %s: %zu entries\n", dims.describe().c_str(), dims.entries());
    std::printf("%slowest ratio: %.3f\n", table.render().c_str(), results.empty() ? 0.0 : worst);
  }
  if (!o.json_path.empty())
    collectively(MPI_COMM_WORLD, [&] {
      if (rank == 0) json::write_file(o.json_path, out);
    });
  return 0;
}

std::vector<int> parse_index_list(const std::string& text, const std::string& setting) {
  std::vector<int> values;
  for (const long long v : settings::parse_integer_list(text, setting, 0, 1 << 20)) values.push_back(static_cast<int>(v));
  return values;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  o.dims = paper_dims();
  for (const auto& name : gt::channel_names()) o.channels.push_back(gt::parse_channel(name, "--channel"));
  cli::CommandLine cli("kernel_bandwidth",
                       "Achieved memory bandwidth of the G_t accumulation kernel against a device-to-device copy "
                       "of the same size measured in the same run, for every channel, precision and shape asked "
                       "for. The default shapes: the paper's, Nc = 36 (6x6), 2n = 64, exchange momenta 0..9, "
                       "exchange frequencies 0..3: 212,336,640 entries, 3.4 GB in complex<double>; and nb = 2 "
                       "with 2n = 32 (4 x larger). All on one rank.");
  const auto integer = [](int& field, const char* name, long long lo, long long hi) {
    return [&field, name, lo, hi](const std::string& v) { field = static_cast<int>(settings::parse_integer(v, name, lo, hi)); };
  };
  cli.option("--nb", "LIST", "orbitals, one shape each (default 1,2)", [&](const std::string& v) {
    o.orbitals.clear();
    for (const long long nb : settings::parse_integer_list(v, "--nb", 1, 64)) o.orbitals.push_back(static_cast<int>(nb));
  });
  cli.option("--lx", "N", "cluster extent in x (default 6)", integer(o.dims.Lx, "--lx", 1, 1024));
  cli.option("--ly", "N", "cluster extent in y (default 6)", integer(o.dims.Ly, "--ly", 1, 1024));
  cli.option("--n-freq", "N", "fermionic frequencies 2n of every shape (default 64 for nb = 1, 32 for nb >= 2)",
             integer(o.n_freq_override, "--n-freq", 2, 1 << 16));
  cli.option("--exchange-momenta", "LIST", "momentum indices Q (default 0,1,...,9)",
             [&](const std::string& v) { o.dims.exchange_momenta = parse_index_list(v, "--exchange-momenta"); });
  cli.option("--exchange-frequencies", "LIST", "bosonic indices (default 0,1,2,3)",
             [&](const std::string& v) { o.dims.exchange_frequencies = parse_index_list(v, "--exchange-frequencies"); });
  cli.option("--channel", "LIST", "pp_up_down, ph_transverse, ph_magnetic, ph_charge, a list of them or all (default)",
             [&](const std::string& v) {
               o.channels.clear();
               if (v == "all")
                 for (const auto& name : gt::channel_names()) o.channels.push_back(gt::parse_channel(name, "--channel"));
               else
                 for (const std::string& item : settings::split(v, ','))
                   o.channels.push_back(gt::parse_channel(item, "--channel"));
             });
  cli.option("--precision", "LIST",
             "comma-separated of double, float, mixed (G_sigma float, G_t double); default all three",
             [&](const std::string& v) {
               o.precisions.clear();
               for (const std::string& item : settings::split(v, ','))
                 o.precisions.push_back(settings::parse_choice(item, "--precision", {"double", "float", "mixed"}));
             });
  // A comma-separated list of integers in [min, max] (min 1 unless given) into `field`.
  using Accumulator = gt::GtAccumulator<Kokkos::complex<double>>;
  const auto integer_list = [](std::vector<int>& field, const char* name, int max, int min = 1) {
    return [&field, name, max, min](const std::string& v) {
      field.clear();
      for (const long long x : settings::parse_integer_list(v, name, min, max)) field.push_back(static_cast<int>(x));
    };
  };
  // A comma-separated list of on and off into `field` (true for on).
  const auto on_off_list = [](auto& field, const char* name) {
    return [&field, name](const std::string& v) {
      field.clear();
      for (const std::string& item : settings::split(v, ','))
        field.push_back(settings::parse_choice(item, name, {"on", "off"}) == "on");
    };
  };
  cli.option("--launches", "N", "kernel launches (and copies) per sample (default 10)", integer(o.launches, "--launches", 1, 100000));
  cli.option("--repetitions", "N", "samples of each; the median is reported (default 5)", integer(o.repetitions, "--repetitions", 1, 1000));
  cli.option("--row-tile", "LIST",
             "exchange momenta each thread updates for the same inner index and pair, of 1, 2, 4, 8 "
             "(GtAccumulator::set_exchange_row_tile), "
             "each measured (default: GtAccumulator's default)",
             integer_list(o.row_tiles, "--row-tile", Accumulator::kMaxExchangeRowTile));
  cli.option("--frequency-steps", "LIST",
             "exchange frequencies each thread walks along the diagonal on which its cross G_sigma value stays the "
             "same, of 1, 2, 4 (GtAccumulator::set_frequency_steps), each measured; with batch 1 and the "
             "single-message kernel on, 2 and 4 run its diagonal walk (kernel \"diagonal\") (default: "
             "GtAccumulator's default)",
             integer_list(o.frequency_steps, "--frequency-steps", 4));
  cli.option("--frequency-warps", "LIST",
             "warps of a thread block that walk one such diagonal together, a frequency each, of 1, 2, 4 "
             "(GtAccumulator::set_frequency_warps), each measured (default: GtAccumulator's default)",
             integer_list(o.frequency_warps, "--frequency-warps", 4));
  cli.option("--transposed-reads", "LIST",
             "on, off or on,off: whether the ph channels read G_sigma through a transposed copy "
             "(GtAccumulator::set_transposed_reads), each measured (default: GtAccumulator's: on for GPUs except in "
             "batches at nb >= 2, off for CPUs)",
             on_off_list(o.transposed_reads, "--transposed-reads"));
  cli.option("--row-warps", "LIST",
             "warps of a thread block that take the same inner entries and neighbouring exchange rows "
             "(GtAccumulator::set_exchange_row_warps), each measured (default: GtAccumulator's default)",
             integer_list(o.row_warps, "--row-warps", Accumulator::kMaxExchangeRowWarps));
  cli.option("--pair-warps", "LIST",
             "warps of consecutive pairs that take the same inner entries, in ph_magnetic and ph_charge passes of "
             "the single-message walk in order and in batched passes (GtAccumulator::set_pair_warps; "
             "column \"pwarps\", 1 where none are taken), each measured (default: GtAccumulator's default)",
             integer_list(o.pair_warps, "--pair-warps", Accumulator::kMaxPairWarps));
  cli.option("--inner-block-chunks", "LIST",
             "chunks of 32 inner indices that take every pair before the next chunks do in batched passes, 0 for "
             "all of them in one block (GtAccumulator::set_inner_block_chunks; column \"iblk\": the chunks the pass "
             "took, 0 where it takes one block), "
             "each measured with batches above 1 (default: GtAccumulator's default)",
             integer_list(o.inner_block_chunks, "--inner-block-chunks", Accumulator::kMaxInnerBlockChunks, 0));
  cli.option("--team-threads", "LIST",
             "threads per team of batched passes, 0 for a RangePolicy whose blocks Kokkos sizes "
             "(GtAccumulator::set_pass_team_threads; column \"team\": what the pass asked for, 0 for a RangePolicy), "
             "each measured with batches above 1 (default: GtAccumulator's default)",
             integer_list(o.pass_team_threads, "--team-threads", Accumulator::kMaxPassTeamThreads, 0));
  cli.option("--factor-blas", "LIST",
             "on, off or on,off: whether batches of ph_magnetic and ph_charge at nb = 1 add their factor product "
             "with cuBLAS's batched matrix product (GtAccumulator::set_factor_product_blas; column \"blas\"), "
             "each measured with batches above 1; other shapes measure off only (default: GtAccumulator's: on "
             "for GPUs at nb = 1)",
             on_off_list(o.factor_blas, "--factor-blas"));
  cli.option("--warp-tile-kernel", "LIST",
             "on, off or on,off: whether pp_up_down (messages of G_t's type, batch 1) runs the previous warp-tile "
             "kernel (GtAccumulator::set_warp_tile_kernel), each measured (default: GtAccumulator's, off)",
             on_off_list(o.warp_tile_kernel, "--warp-tile-kernel"));
  cli.option("--single-message-kernel", "LIST",
             "on, off or on,off: whether single messages (batch 1) run the single-message kernel, whose threads "
             "walk every exchange row (GtAccumulator::set_single_message_kernel), each measured (default: "
             "GtAccumulator's: on when G_t has more than one exchange row)",
             on_off_list(o.single_message_kernel, "--single-message-kernel"));
  cli.option("--diagonal-loads-ahead", "LIST",
             "on, off or on,off: whether the single-message kernel's diagonal walk loads the next exchange "
             "momentum's G_t values ahead (GtAccumulator::set_diagonal_loads_ahead; column \"ahead\"), each "
             "measured where that walk runs (default: GtAccumulator's: on, off for a complex<double> G_t with "
             "nb > 1 on GPUs)",
             on_off_list(o.diagonal_loads_ahead, "--diagonal-loads-ahead"));
  cli.option("--walk-loads-ahead", "LIST",
             "on, off or on,off: the same for the single-message kernel's walk in order (one frequency step; "
             "GtAccumulator::set_walk_loads_ahead), each measured where that walk runs (default: GtAccumulator's: "
             "on)",
             on_off_list(o.walk_loads_ahead, "--walk-loads-ahead"));
  cli.option("--walk-tma-stages", "LIST",
             "0, 4, 8 or a list of them: how many rows ahead the single-message kernel's walk in order has each "
             "warp's G_t values copied into shared memory by the TMA (GtAccumulator::set_walk_tma_stages; column "
             "\"tma\": the stages it took, 0 where the build or the slice does not allow them), each measured where "
             "that walk runs (default: GtAccumulator's)",
             [&o](const std::string& v) {
               o.walk_tma_stages.clear();
               for (const std::string& item : settings::split(v, ','))
                 o.walk_tma_stages.push_back(std::stoi(settings::parse_choice(item, "--walk-tma-stages", {"0", "4", "8"})));
             });
  cli.option("--batch", "LIST",
             "messages per pass over G_t (GtAccumulator::set_batch), each measured; times are per message, so "
             "ratios above 1 mean below the one-pass-per-message floor (default 1)",
             integer_list(o.batches, "--batch", Accumulator::kMaxBatch));
  cli.option("--l2-persisting", "MIB",
             "CUDA only: set the device's L2 set-aside for persisting accesses (cudaLimitPersistingL2CacheSize) "
             "to MIB MiB, at most the device's maximum, before measuring; the copy runs under it too, so compare "
             "times, not ratios, across settings (default: as it is). The first GtAccumulator raises a set-aside "
             "below RINGCOMM_GT_L2_SET_ASIDE_MIB (default 11) to it: set that to 0 to measure smaller ones. The "
             "JSON and the heading record the set-aside the kernels ran under",
             [&](const std::string& v) {
               o.l2_persisting_mib = static_cast<int>(settings::parse_integer(v, "--l2-persisting", 0, 1 << 20));
             });
  cli.option("--json", "FILE", "also write the results as JSON to FILE", [&](const std::string& v) { o.json_path = v; });
  cli.flag("--quiet", "print nothing but errors", [&] { o.quiet = true; });
  cli.note("Target: kernel GB/s >= 85 % of copy GB/s. Run on one rank: mpirun -np 1 kernel_bandwidth --json k.json");
  const std::string command_line = cli::command_line_text(argc, argv);
  return cli::run_program(argc, argv, cli, [&] { return run(o, command_line); });
}
