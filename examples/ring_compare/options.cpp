#include "options.hpp"

#include <climits>

#include "gt_options.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/settings.hpp"

namespace ring_compare {

using namespace ringcomm;

std::string scalar_name(Precision precision) {
  switch (precision) {
    case Precision::double_precision: return "complex<double>";
    case Precision::single_precision: return "complex<float>";
    case Precision::mixed_precision: break;
  }
  return "mixed";
}

Options::Options() {
  dims.nb = 2;
  dims.Lx = 4;
  dims.Ly = 4;
  dims.n_freq = 8;
  dims.exchange_momenta = {0};
  dims.exchange_frequencies = {0};
}

namespace {

std::vector<int> parse_int_list(const std::string& text, const std::string& option, int min) {
  std::vector<int> values;
  for (const long long v : settings::parse_integer_list(text, option, min, INT_MAX)) values.push_back(static_cast<int>(v));
  return values;
}

Precision parse_precision(const std::string& text) {
  const std::string choice =
      settings::parse_choice(text, "--scalar", {"double", "float", "mixed", "z", "c", "complex<double>", "complex<float>"});
  if (choice == "mixed") return Precision::mixed_precision;
  return choice == "double" || choice == "z" || choice == "complex<double>" ? Precision::double_precision
                                                                              : Precision::single_precision;
}

// --dump against the other options; the G_t shape itself is checked by add_dims_options' check.
void check_dump(const Options& o) {
  if (!o.dump_dir.empty() && o.dims.entries() > o.compare_limit)
    throw Error("--dump needs the gathered G_t, but " + std::to_string(o.dims.entries()) +
                " entries exceed --compare-limit=" + std::to_string(o.compare_limit));
  if (!o.dump_dir.empty() && !o.run_original)
    throw Error("--dump writes the original algorithm's G_t too; it cannot be combined with --no-original");
}

}  // namespace

cli::CommandLine command_line(Options& o) {
  cli::CommandLine cli(
      "ring_compare",
      "Accumulates the two-particle Green's function G_t of a synthetic QMC run once with the original algorithm "
      "(every rank a full G_t, reduced at the end) and once per transport with ringcomm's ring (G_t split over a "
      "sub-ring of S ranks; every measurement's G_up and G_down travel around it), then prints a table of times, "
      "effective bandwidth, memory per rank and the error of each ring result against the original, and writes "
      "JSON. Run under mpirun.");
  cli.option("--transports", "LIST",
             "comma-separated transports to run, e.g. mpi,host. Default: RINGCOMM_TRANSPORT if set, else every "
             "compiled one (unusable ones are skipped with their reason; a named one that is unusable is an error)",
             [&](const std::string& v) { o.transports = settings::split(v, ','); });
  cli.option("--ring-size", "S[,S...]",
             "ranks per sub-ring; a list sweeps. Each S must divide the number of ranks. Default: RINGCOMM_RING_SIZE "
             "if set, else all ranks in one ring",
             [&](const std::string& v) { o.ring_sizes = parse_int_list(v, "--ring-size", 1); });
  cli.option("--threads", "T", "walker threads per rank, each with its own ring (default: RINGCOMM_THREADS, else 1)",
             [&](const std::string& v) { o.schedule.threads = ScheduleOverride{"--threads", v}; });
  cli.option("--direction", "uni|bi",
             "bi: alternate threads (or rounds, with one thread) travel leftward (default: RINGCOMM_DIRECTION, "
             "else uni)",
             [&](const std::string& v) { o.schedule.direction = ScheduleOverride{"--direction", v}; });
  cli.option("--overlap", "0|1",
             "1 (overlap): consume a message while forwarding it; 0 (lock_step): exchange, then consume (default: "
             "RINGCOMM_OVERLAP, else 1)",
             [&](const std::string& v) { o.schedule.overlap = ScheduleOverride{"--overlap", v}; });
  cli.option("--channel", "NAME", "pp_up_down | ph_transverse | ph_magnetic | ph_charge (default pp_up_down)",
             [&](const std::string& v) { o.channel = gt::parse_channel(v, "--channel"); });
  cli.option("--scalar", "TYPE",
             "double (complex<double>, also z) | float (complex<float>, also c): the type of G_σ, the messages and "
             "G_t; mixed: G_σ and the messages complex<float>, G_t complex<double>, the original's errors then "
             "against the reference from unrounded G_σ (default double)",
             [&](const std::string& v) { o.precision = parse_precision(v); });
  cli::add_dims_options(cli, o.dims);
  // 2^32 measurements are days of work for any G_t worth a ring; more is a typo (and would overflow
  // the walker's counters sooner or later).
  cli.option("--measurements", "N", "measurements in total, over all ranks, at most 2^32 (default 64)",
             [&](const std::string& v) {
               o.measurements =
                   static_cast<std::size_t>(settings::parse_integer(v, "--measurements", 1, 1LL << 32));
             });
  cli.option("--seed", "N", "seed of the synthetic walker (default 1)", [&](const std::string& v) {
    o.seed = static_cast<std::uint64_t>(settings::parse_integer(v, "--seed", 0, LLONG_MAX));
  });
  cli.flag("--no-original", "skip the original algorithm (for G_t too large for one rank); no errors then",
           [&] { o.run_original = false; });
  cli.option("--compare-limit", "N",
             "largest G_t (entries) gathered on rank 0 to compute errors against the original; larger ones report "
             "no errors (default 67108864 = 2^26)",
             [&](const std::string& v) {
               o.compare_limit = static_cast<std::size_t>(settings::parse_integer(v, "--compare-limit", 1, INT_MAX / 2));
             });
  cli.option("--verify-sample", "N",
             "recompute N randomly chosen G_t entries of every run with the serial reference formula (not the "
             "kernels) and report their largest error relative to the sample's largest entry; gathers only those N "
             "entries, so it works at any size (default 0: off)",
             [&](const std::string& v) {
               o.verify_sample = static_cast<std::size_t>(settings::parse_integer(v, "--verify-sample", 0, 10000000));
             });
  cli.option("--json", "FILE", "write the results as JSON to FILE", [&](const std::string& v) { o.json_path = v; });
  cli.option("--trace", "FILE",
             "record every rank's ring phases (ringcomm::consume, ringcomm::exchange::start/finish, ...) and write "
             "them to FILE as one Chrome trace JSON (pid = rank, tid = thread; open in ui.perfetto.dev or "
             "chrome://tracing) to see whether communication hides behind compute",
             [&](const std::string& v) { o.trace_path = v; });
  cli.option("--dump", "DIR",
             "small problems: write every measurement's inputs, the tables and both final G_t as .npy files plus "
             "meta.json to DIR (tests/check_dump.py recomputes G_t from them)",
             [&](const std::string& v) { o.dump_dir = v; });
  cli.option("--write", "FILE",
             "write the final G_t of the first ring run to FILE as a NumPy .npy file (dtype <c16 or <c8, the shape of "
             "--dump's gt.npy: (NOmega, NQ, 2n, Nc, 2n, Nc, nb, nb, nb, nb)) with MPI-IO: each rank of sub-ring 0 "
             "writes its own slice, nothing is gathered, so it works for any size",
             [&](const std::string& v) { o.write_path = v; });
  cli.option("--abort-after-round", "K",
             "for tests of checkpoint/restart: world rank 0 kills itself (SIGKILL) after round K of the first ring "
             "run, once that round's checkpoint (if one is due) is on disk",
             [&](const std::string& v) {
               o.abort_after_round = static_cast<std::size_t>(settings::parse_integer(v, "--abort-after-round", 1, LLONG_MAX));
             });
  cli.flag("--quiet", "print only errors and the table", [&] { o.quiet = true; });
  cli.check([&] { check_dump(o); });
  cli.note("Measurement m is made by rank m mod p in round m / p; every rank runs ceil(measurements / p) rounds, "
           "the last ones padded with empty measurements (sign 0). seconds_per_measurement is the accumulation "
           "loop's time (slowest rank; for the original it includes the final reduction) divided by that number "
           "of rounds. Effective bandwidth = (S-1) * message_bytes / seconds_per_measurement: what each rank "
           "receives per round. Errors are relative to the original: l1 = sum|d| / sum|ref|, l2 = "
           "sqrt(sum|d|^2 / sum|ref|^2), linf = max|d| / max|ref|; the original itself is compared with the "
           "serial reference when that is cheap. The exit status is non-zero when any error, or the --verify-sample "
           "error, exceeds the tolerance of the scalar type (1e-12 for double, 5e-6 for float) or is NaN.");
  cli.note("Environment: RINGCOMM_TRANSPORT (default transport list), RINGCOMM_RING_SIZE (default S), and each "
           "transport's own settings (see ringcomm-info).");
  cli.note("Checkpoints: with RINGCOMM_CHECKPOINT=DIR every ring run saves its G_t slices in DIR/<transport>_S<S> every "
           "RINGCOMM_CHECKPOINT_EVERY rounds (default: about ten times per run) and after its last round; run the same "
           "command again and it continues from the newest round all ranks saved. See docs/troubleshooting.md.");
  return cli;
}

std::vector<TransportRequest> resolve_transports(const Options& options) {
  std::vector<TransportRequest> requests;
  if (!options.transports.empty()) {
    for (const auto& name : options.transports) requests.push_back({name, true});
  } else if (const auto from_env = settings::env("RINGCOMM_TRANSPORT")) {
    requests.push_back({*from_env, true});
  } else {
    for (const auto& backend : Registry::instance().backends()) requests.push_back({backend.name, false});
  }
  return requests;
}

}  // namespace ring_compare
