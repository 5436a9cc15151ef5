// kernel_bandwidth: how close the G_t kernel (GtAccumulator) comes to the memory bandwidth of the
// device, measured in the same run as a plain device-to-device copy of the same size.
//
// Bytes counted per kernel launch: the G_t slice read and written once (2 · N · sizeof(scalar)) plus
// the message's G_up and G_down read once (2 · M² · sizeof(scalar)). That is the least traffic the
// update can cause; re-reads of G_σ that miss the caches are not counted, so the figure is a lower
// bound on the bandwidth the kernel really draws. The copy counts its read and its write.
// Kernel launches and copies are timed alternately; medians are reported.
#include <mpi.h>

#include <Kokkos_Core.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_support.hpp"
#include "command_line.hpp"
#include "report.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/gt/walker.hpp"
#include "ringcomm/settings.hpp"

namespace {

using namespace ringcomm;

constexpr double kTarget = 0.85;

struct Options {
  gt::Dims dims;
  std::vector<gt::Channel> channels{gt::Channel::pp_up_down};
  std::vector<int> row_tiles{gt::GtAccumulator<Kokkos::complex<double>>::kDefaultExchangeRowTile};
  std::string precision = "double";
  int launches = 10;
  int repetitions = 5;
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

struct ChannelResult {
  gt::Channel channel;
  int row_tile = 1;
  double kernel_seconds = 0;  // median per launch
  double copy_seconds = 0;    // median per copy
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

template <class Scalar>
ChannelResult measure(const Options& o, gt::Channel channel, int row_tile) {
  const std::size_t n = o.dims.entries();
  Kokkos::View<Scalar*> gt_slice("kernel_bandwidth G_t", n);
  Kokkos::View<Scalar*> copy_target("kernel_bandwidth copy target", n);
  Kokkos::View<Scalar*> message("kernel_bandwidth message", o.dims.message_entries());
  gt::SyntheticWalker(o.dims, 1, 1).write<Scalar>(0, message.data());
  gt::GtAccumulator<Scalar> accumulate(o.dims, channel, gt_slice, SliceRange{0, n});
  accumulate.set_exchange_row_tile(row_tile);
  const auto kernel = [&] { accumulate(message.data()); };
  const auto copy = [&] { Kokkos::deep_copy(ExecSpace(), copy_target, gt_slice); };

  ChannelResult r;
  r.channel = channel;
  r.row_tile = row_tile;
  const std::size_t g_entries = o.dims.message_entries() - 1;
  r.kernel_bytes = (2 * n + g_entries) * sizeof(Scalar);
  r.copy_bytes = 2 * n * sizeof(Scalar);
  seconds_per_launch(1, kernel);
  seconds_per_launch(1, copy);
  std::vector<double> kernel_samples, copy_samples;
  for (int rep = 0; rep < o.repetitions; ++rep) {
    kernel_samples.push_back(seconds_per_launch(o.launches, kernel));
    copy_samples.push_back(seconds_per_launch(o.launches, copy));
  }
  r.kernel_seconds = bench::median(kernel_samples);
  r.copy_seconds = bench::median(copy_samples);
  return r;
}

int run(const Options& o, const std::string& command_line) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bool print = rank == 0 && !o.quiet;
  collectively(MPI_COMM_WORLD, [&] { o.dims.validate(); });
  std::vector<ChannelResult> results;
  for (const gt::Channel channel : o.channels)
    for (const int rows : o.row_tiles)
      results.push_back(collectively(MPI_COMM_WORLD, [&] {
        return o.precision == "double" ? measure<Kokkos::complex<double>>(o, channel, rows)
                                       : measure<Kokkos::complex<float>>(o, channel, rows);
      }));

  json::Value out = json::Value::object();
  out["metadata"] = report::run_metadata("kernel_bandwidth", command_line);
  out["dims"] = o.dims.describe();
  out["entries"] = o.dims.entries();
  out["precision"] = o.precision;
  out["execution_space"] = report::kokkos_execution_space();
  out["byte_count"] = "kernel: G_t slice read + write (2 N scalars) + G_up and G_down read once (2 M^2 scalars), "
                      "a lower bound on its traffic; copy: read + write of N scalars";
  out["results"] = json::Value::array();
  report::Table table({"channel", "row tile", "kernel ms", "kernel GB/s", "copy GB/s", "ratio", "target"});
  for (const auto& r : results) {
    json::Value row = json::Value::object();
    row["channel"] = gt::to_string(r.channel);
    row["exchange_row_tile"] = r.row_tile;
    row["kernel_seconds"] = r.kernel_seconds;
    row["kernel_bytes"] = r.kernel_bytes;
    row["kernel_GBps"] = r.kernel_GBps();
    row["copy_seconds"] = r.copy_seconds;
    row["copy_bytes"] = r.copy_bytes;
    row["copy_GBps"] = r.copy_GBps();
    row["ratio"] = r.ratio();
    row["target"] = kTarget;
    row["met"] = r.ratio() >= kTarget;
    out["results"].push_back(row);
    table.add_row({gt::to_string(r.channel), std::to_string(r.row_tile), report::format("%.3f", r.kernel_seconds * 1e3),
                   report::format("%.1f", r.kernel_GBps()), report::format("%.1f", r.copy_GBps()),
                   report::format("%.3f", r.ratio()), r.ratio() >= kTarget ? ">= 0.85 met" : ">= 0.85 NOT met"});
  }
  if (print)
    std::printf("kernel_bandwidth: %s, %zu entries, %s, %s; medians of %d samples of %d launches\n%s",
                o.dims.describe().c_str(), o.dims.entries(), o.precision.c_str(),
                report::kokkos_execution_space().c_str(), o.repetitions, o.launches, table.render().c_str());
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
  cli::CommandLine cli("kernel_bandwidth",
                       "Achieved memory bandwidth of the G_t accumulation kernel against a device-to-device copy "
                       "of the same size measured in the same run. The default shape is the paper's: Nc = 36 "
                       "(6x6), 2n = 64, exchange momenta 0..9, exchange frequencies 0..3: 212,336,640 entries, "
                       "3.4 GB in complex<double>, all on one rank.");
  const auto integer = [](int& field, const char* name, long long lo, long long hi) {
    return [&field, name, lo, hi](const std::string& v) { field = static_cast<int>(settings::parse_integer(v, name, lo, hi)); };
  };
  cli.option("--nb", "N", "orbitals (default 1)", integer(o.dims.nb, "--nb", 1, 64));
  cli.option("--lx", "N", "cluster extent in x (default 6)", integer(o.dims.Lx, "--lx", 1, 1024));
  cli.option("--ly", "N", "cluster extent in y (default 6)", integer(o.dims.Ly, "--ly", 1, 1024));
  cli.option("--n-freq", "N", "fermionic frequencies 2n (default 64)", integer(o.dims.n_freq, "--n-freq", 2, 1 << 16));
  cli.option("--exchange-momenta", "LIST", "momentum indices Q (default 0,1,...,9)",
             [&](const std::string& v) { o.dims.exchange_momenta = parse_index_list(v, "--exchange-momenta"); });
  cli.option("--exchange-frequencies", "LIST", "bosonic indices (default 0,1,2,3)",
             [&](const std::string& v) { o.dims.exchange_frequencies = parse_index_list(v, "--exchange-frequencies"); });
  cli.option("--channel", "NAME", "pp_up_down (default), ph_transverse, ph_magnetic, ph_charge or all",
             [&](const std::string& v) {
               o.channels.clear();
               if (v == "all")
                 for (const auto& name : gt::channel_names()) o.channels.push_back(gt::parse_channel(name, "--channel"));
               else
                 o.channels.push_back(gt::parse_channel(v, "--channel"));
             });
  cli.option("--precision", "P", "double (default) or float",
             [&](const std::string& v) { o.precision = settings::parse_choice(v, "--precision", {"double", "float"}); });
  cli.option("--launches", "N", "kernel launches (and copies) per sample (default 10)", integer(o.launches, "--launches", 1, 100000));
  cli.option("--repetitions", "N", "samples of each; the median is reported (default 5)", integer(o.repetitions, "--repetitions", 1, 1000));
  cli.option("--row-tile", "LIST",
             "exchange rows a thread block covers for the same inner entries (GtAccumulator::set_exchange_row_tile), "
             "each measured (default: GtAccumulator's default)",
             [&](const std::string& v) {
               o.row_tiles.clear();
               for (const long long r : settings::parse_integer_list(v, "--row-tile", 1,
                                                                     gt::GtAccumulator<Kokkos::complex<double>>::kMaxExchangeRowTile))
                 o.row_tiles.push_back(static_cast<int>(r));
             });
  cli.option("--json", "FILE", "also write the results as JSON to FILE", [&](const std::string& v) { o.json_path = v; });
  cli.flag("--quiet", "print nothing but errors", [&] { o.quiet = true; });
  cli.note("Target: kernel GB/s >= 85 % of copy GB/s. Run on one rank: mpirun -np 1 kernel_bandwidth --json k.json");
  const std::string command_line = cli::command_line_text(argc, argv);
  return cli::run_program(argc, argv, cli, [&] { return run(o, command_line); });
}
