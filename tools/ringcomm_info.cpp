// ringcomm-info: what this ringcomm was built with and which transports can run here.
#include <mpi.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "report.hpp"
#include "ringcomm/json.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/runtime.hpp"
#include "ringcomm/version.hpp"

extern char** environ;

namespace {

using namespace ringcomm;

struct TransportReport {
  std::string name;
  std::string summary;
  int auto_preference = 0;
  bool usable = true;
  std::string reason;
  std::vector<std::string> details;
};

TransportReport probe(const BackendInfo& backend, const TransportContext& ctx) {
  TransportReport report;
  report.name = backend.name;
  report.summary = backend.summary;
  report.auto_preference = static_cast<int>(backend.preference);
  const Usability availability = probe_on_all_ranks(backend, ctx);
  report.usable = availability.usable;
  report.reason = availability.reason;
  if (backend.details) {
    try {
      report.details = backend.details(ctx);
    } catch (const std::exception& e) {
      report.details = {std::string("details unavailable: ") + e.what()};
    }
  }
  return report;
}

std::map<std::string, std::string> ringcomm_environment() {
  std::map<std::string, std::string> variables;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const auto eq = text.find('=');
    if (text.rfind("RINGCOMM_", 0) == 0 && eq != std::string::npos) variables[text.substr(0, eq)] = text.substr(eq + 1);
  }
  return variables;
}

// What RINGCOMM_TRANSPORT=auto would pick: the usable backend with the lowest preference.
std::string auto_choice(const std::vector<TransportReport>& transports) {
  const TransportReport* best = nullptr;
  for (const auto& t : transports)
    if (t.usable && (best == nullptr || t.auto_preference < best->auto_preference)) best = &t;
  return best ? best->name : std::string();
}

int thread_level_provided() {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  return provided;
}

json::Value as_json(const std::vector<TransportReport>& transports, int ranks) {
  json::Value out = json::Value::object();
  out["ringcomm"]["version"] = RINGCOMM_VERSION;
  out["kokkos"]["version"] = report::kokkos_version();
  out["kokkos"]["execution_space"] = report::kokkos_execution_space();
  out["kokkos"]["memory_space"] = report::kokkos_memory_space();
  out["mpi"]["library"] = report::mpi_library_version();
  out["mpi"]["ranks"] = ranks;
  out["mpi"]["thread_level"] = thread_level_name(thread_level_provided());
  out["data_memory"] = to_string(data_memory_kind());
  out["environment"] = json::Value::object();
  for (const auto& [name, value] : ringcomm_environment()) out["environment"][name] = value;
  out["transports"] = json::Value::array();
  for (const auto& t : transports) {
    json::Value entry = json::Value::object();
    entry["name"] = t.name;
    entry["compiled"] = true;
    entry["usable"] = t.usable;
    entry["reason"] = t.usable ? json::Value() : json::Value(t.reason);
    entry["summary"] = t.summary;
    entry["auto_preference"] = t.auto_preference;
    entry["details"] = t.details;
    out["transports"].push_back(entry);
  }
  const std::string choice = auto_choice(transports);
  out["auto_choice"] = choice.empty() ? json::Value() : json::Value(choice);
  return out;
}

std::string as_text(const std::vector<TransportReport>& transports, int ranks) {
  std::string out = "ringcomm " RINGCOMM_VERSION "\n";
  out += "Kokkos " + report::kokkos_version() + ": default execution space " + report::kokkos_execution_space() +
         ", memory space " + report::kokkos_memory_space() + "\n";
  out += "MPI: " + report::mpi_library_version() + "\n";
  out += "     " + std::to_string(ranks) + (ranks == 1 ? " rank" : " ranks") + ", thread level " +
         thread_level_name(thread_level_provided()) + "\n";
  out += std::string("ring buffers and G_t slices live in ") + to_string(data_memory_kind()) + " memory\n";
  const auto environment = ringcomm_environment();
  out += "environment:";
  if (environment.empty()) out += " no RINGCOMM_* variables set";
  for (const auto& [name, value] : environment) out += "\n  " + name + "=" + value;
  out += "\ntransports (probed on " + std::string(ranks == 1 ? "this rank" : "all " + std::to_string(ranks) + " ranks") + "):\n";
  for (const auto& t : transports) {
    out += "  " + t.name + ": compiled, " + (t.usable ? std::string("usable") : "not usable: " + t.reason) + "\n";
    out += "      " + t.summary + "\n";
    for (const auto& line : t.details) out += "      " + line + "\n";
  }
  const std::string choice = auto_choice(transports);
  out += "RINGCOMM_TRANSPORT=auto would choose: " + (choice.empty() ? std::string("nothing (no usable transport)") : choice) + "\n";
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bool json_output = false;
  cli::CommandLine cli("ringcomm-info",
                       "Prints the versions ringcomm was built with (ringcomm, Kokkos, MPI) and, for every "
                       "compiled transport, whether it can run here and why not. Works with or without mpirun; "
                       "under mpirun every rank probes and rank 0 prints.");
  cli.flag("--json", "machine-readable output: one JSON object on stdout", [&] { json_output = true; });
  cli.note("Transports are probed for the memory that ring buffers use in this build (device memory on GPU "
           "builds, host memory otherwise). RINGCOMM_* environment variables in effect are listed.");
  return cli::run_program(argc, argv, cli, [&] {
    TransportContext ctx;
    ctx.world = MPI_COMM_WORLD;
    ctx.memory = data_memory_kind();
    std::vector<TransportReport> transports;
    for (const auto& backend : Registry::instance().backends()) transports.push_back(probe(backend, ctx));
    int rank = 0, ranks = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    if (rank == 0) {
      const std::string text = json_output ? as_json(transports, ranks).dump() + "\n" : as_text(transports, ranks);
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
    return 0;
  });
}
