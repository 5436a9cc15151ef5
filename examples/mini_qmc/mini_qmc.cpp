// mini_qmc: a determinant QMC of the Hubbard model that accumulates the two-particle Green's function
// G_t with ringcomm. See README.md for what a production QMC code would replace.
#include <cstdio>
#include <string>

#include "gt_file.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/json.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/session.hpp"
#include "ringcomm/settings.hpp"
#include "ringcomm/version.hpp"
#include "run_settings.hpp"
#include "simulation.hpp"

namespace {

// Above this drift of G between fresh computations, G_t is not to be trusted.
constexpr double kWrapErrorLimit = 1e-4;

struct Options {
  std::string input = "input.json";
  std::string output;   // overrides output.g_t
  std::string summary;  // overrides output.summary
  std::string compare;
  std::string against;
  double tolerance = 5e-7;
};

constexpr const char* kHelp =
    "mini_qmc [--input FILE] [--output FILE] [--summary FILE] | --compare FILE --against FILE [--tolerance X]\n"
    "\n"
    "A small determinant (auxiliary-field) QMC of the Hubbard model on a periodic cluster. Every walker thread of\n"
    "every MPI rank runs its own Markov chain with single-spin-flip Metropolis updates; after each measurement the\n"
    "rings pass its G_up, G_down and sign around, and each rank adds them to its slice of the two-particle Green's\n"
    "function G_t. G_t (sum of sign*contribution / sum of signs) is written as a .npy file. Run under mpirun.\n"
    "\n"
    "  --input FILE      JSON input file (default input.json; see the example's README.md for the keys)\n"
    "  --output FILE     where to write G_t (.npy); overrides output.g_t of the input file\n"
    "  --summary FILE    write a JSON summary of the run; overrides output.summary of the input file\n"
    "  --compare FILE    G_t file to check against --against (no QMC run); exit status 1 beyond --tolerance\n"
    "  --against FILE    reference G_t file for --compare\n"
    "  --tolerance X     largest relative l1, l2 and linf error --compare accepts (default 5e-7)\n"
    "\n"
    "Every RINGCOMM_* setting applies (ringcomm's docs/environment.md): RINGCOMM_TRANSPORT, RINGCOMM_RING_SIZE, …\n"
    "G_t does not depend on the transport or ring size beyond rounding; it depends on the seed, the number of ranks\n"
    "and RINGCOMM_THREADS (one Markov chain per walker thread).\n"
    "\n"
    "Examples:\n"
    "  RINGCOMM_TRANSPORT=mpi mpirun -np 4 mini_qmc --input input.json --output gt_mpi.npy\n"
    "  RINGCOMM_TRANSPORT=host mpirun -np 4 mini_qmc --input input.json --output gt_host.npy\n"
    "  mini_qmc --compare gt_host.npy --against gt_mpi.npy\n";

// Every rank parses the same arguments; the caller makes errors collective.
Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (i + 1 >= argc) throw ringcomm::Error("option " + name + " needs a value (see --help)");
    const std::string value = argv[++i];
    if (name == "--input") o.input = value;
    else if (name == "--output") o.output = value;
    else if (name == "--summary") o.summary = value;
    else if (name == "--compare") o.compare = value;
    else if (name == "--against") o.against = value;
    else if (name == "--tolerance") o.tolerance = ringcomm::settings::parse_real(value, "--tolerance", 0.0, 1.0);
    else throw ringcomm::Error("unknown option " + name + " (see --help)");
  }
  if (o.compare.empty() != o.against.empty()) throw ringcomm::Error("--compare and --against go together");
  return o;
}

std::string command_line_text(int argc, char** argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) text += (i ? " " : "") + std::string(argv[i]);
  return text;
}

int compare_files(const Options& o) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank != 0) return 0;
  const auto norms = mini_qmc::compare_gt(mini_qmc::read_gt(o.compare), mini_qmc::read_gt(o.against));
  const bool ok = norms.l1 <= o.tolerance && norms.l2 <= o.tolerance && norms.linf <= o.tolerance;
  std::printf("mini_qmc --compare %s --against %s: l1 %.3e, l2 %.3e, linf %.3e (tolerance %.1e): %s\n",
              o.compare.c_str(), o.against.c_str(), norms.l1, norms.l2, norms.linf, o.tolerance,
              ok ? "agree" : "DIFFER");
  return ok ? 0 : 1;
}

void write_summary_json(const std::string& path, const mini_qmc::RunSettings& s, const mini_qmc::RunSummary& r,
                        const std::string& command) {
  using ringcomm::json::Value;
  Value out = Value::object();
  Value metadata = Value::object();
  metadata["program"] = "mini_qmc";
  metadata["ringcomm_version"] = RINGCOMM_VERSION;
  metadata["command_line"] = command;
  metadata["ranks"] = r.ranks;
  out["metadata"] = metadata;
  Value model = Value::object();
  model["Lx"] = s.model.Lx, model["Ly"] = s.model.Ly, model["t"] = s.model.t, model["U"] = s.model.U;
  model["mu"] = s.model.mu, model["beta"] = s.model.beta, model["time_slices"] = s.model.time_slices;
  out["model"] = model;
  out["channel"] = ringcomm::gt::to_string(s.channel);
  out["dims"] = s.dims.describe();
  out["g_t"] = s.gt_path;
  out["transport"] = r.transport, out["topology"] = r.topology, out["ranks"] = r.ranks;
  out["measurements"] = r.measurements, out["acceptance_rate"] = r.acceptance_rate;
  out["average_sign"] = r.average_sign, out["density"] = r.density, out["double_occupancy"] = r.double_occupancy;
  out["max_wrap_error"] = r.max_wrap_error;
  out["walker_seconds"] = r.walker_seconds, out["ring_seconds"] = r.ring_seconds;
  out["message_bytes"] = r.message_bytes, out["gt_entries"] = r.gt_entries;
  out["gt_bytes_per_rank"] = r.gt_bytes_per_rank;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ringcomm::collectively(MPI_COMM_WORLD, [&] {
    if (rank == 0) ringcomm::json::write_file(path, out);
  });
}

void print_summary(const mini_qmc::RunSettings& s, const mini_qmc::RunSummary& r) {
  const auto& m = s.model;
  std::printf("mini_qmc: Hubbard %dx%d, t=%g, U=%g, mu=%g, beta=%g, %d time slices\n", m.Lx, m.Ly, m.t, m.U, m.mu,
              m.beta, m.time_slices);
  std::printf("  G_t %s: %s\n", ringcomm::gt::to_string(s.channel).c_str(), s.dims.describe().c_str());
  std::printf("  %s\n", r.topology.c_str());
  std::printf("  measurements %lld (%d per walker thread), acceptance rate %.4f, average sign %.4f\n", r.measurements,
              s.monte_carlo.measurements, r.acceptance_rate, r.average_sign);
  std::printf("  density %.6f, double occupancy %.6f, max wrap error %.2e\n", r.density, r.double_occupancy,
              r.max_wrap_error);
  std::printf("  walker %.3f s, ring %.3f s; message %s, G_t %s per rank\n", r.walker_seconds, r.ring_seconds,
              ringcomm::format_bytes(static_cast<double>(r.message_bytes)).c_str(),
              ringcomm::format_bytes(static_cast<double>(r.gt_bytes_per_rank)).c_str());
  std::printf("  wrote G_t to %s\n", s.gt_path.c_str());
  if (r.max_wrap_error > kWrapErrorLimit)
    std::printf("  WARNING: G drifted by %.2e between fresh computations: this walker has no numerical stabilisation, so "
                "beta*(bandwidth + U) is too large for it. Lower model.beta or monte_carlo.recompute_every.\n",
                r.max_wrap_error);
}

}  // namespace

int main(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::printf("%s", kHelp);  // before MPI and Kokkos, which have --help of their own
      return 0;
    }
  const std::string command = command_line_text(argc, argv);
  return ringcomm::run(argc, argv, [&](ringcomm::Session& session) {
    const Options options = ringcomm::collectively(MPI_COMM_WORLD, [&] { return parse_options(argc, argv); });
    if (!options.compare.empty()) return compare_files(options);
    mini_qmc::RunSettings settings =
        ringcomm::collectively(MPI_COMM_WORLD, [&] { return mini_qmc::read_run_settings(options.input); });
    if (!options.output.empty()) settings.gt_path = options.output;
    if (!options.summary.empty()) settings.summary_path = options.summary;
    const mini_qmc::RunSummary summary = mini_qmc::run_simulation(settings, session);
    if (!settings.summary_path.empty()) write_summary_json(settings.summary_path, settings, summary, command);
    if (session.rank() == 0) print_summary(settings, summary);
    return 0;
  });
}
