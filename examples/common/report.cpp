#include "report.hpp"

#include <mpi.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <set>

#include "ringcomm/collective.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/version.hpp"

namespace ringcomm::report {

std::string kokkos_version() {
  return std::to_string(KOKKOS_VERSION / 10000) + "." + std::to_string(KOKKOS_VERSION / 100 % 100) + "." +
         std::to_string(KOKKOS_VERSION % 100);
}

std::string kokkos_execution_space() { return Kokkos::DefaultExecutionSpace::name(); }

std::string kokkos_memory_space() { return Kokkos::DefaultExecutionSpace::memory_space::name(); }

std::string mpi_library_version() {
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(version, &length);
  (void)length;  // Open MPI counts the terminating NUL in it
  std::string text(version);
  if (const auto end = text.find_first_of("\n\r"); end != std::string::npos) text.resize(end);
  while (!text.empty() && (text.back() == ' ' || text.back() == ',')) text.pop_back();
  return text;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

json::Value run_metadata(const std::string& program, const std::string& command_line) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  const auto hosts = allgather_strings(MPI_COMM_WORLD, host_name());
  json::Value meta = json::Value::object();
  meta["program"] = program;
  meta["ringcomm_version"] = RINGCOMM_VERSION;
  meta["command_line"] = command_line;
  meta["hostname"] = hosts.front();
  const std::set<std::string> distinct_hosts(hosts.begin(), hosts.end());
  meta["hosts"] = std::vector<std::string>(distinct_hosts.begin(), distinct_hosts.end());
  meta["date"] = utc_timestamp();
  meta["ranks"] = ranks;
  meta["kokkos_version"] = kokkos_version();
  meta["kokkos_execution_space"] = kokkos_execution_space();
  meta["data_memory"] = to_string(data_memory_kind());
  meta["mpi_library"] = mpi_library_version();
  return meta;
}

json::Value dims_json(const gt::Dims& dims) {
  json::Value d = json::Value::object();
  d["nb"] = dims.nb;
  d["Lx"] = dims.Lx;
  d["Ly"] = dims.Ly;
  d["n_freq"] = dims.n_freq;
  d["exchange_momenta"] = dims.exchange_momenta;
  d["exchange_frequencies"] = dims.exchange_frequencies;
  d["M"] = dims.M();
  d["entries"] = dims.entries();
  return d;
}

Table::Table(std::vector<std::string> headers) { rows_.push_back(std::move(headers)); }

void Table::add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }

std::string Table::render() const {
  std::vector<std::size_t> widths;
  for (const auto& row : rows_) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  auto render_row = [&](const std::vector<std::string>& row) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) {
      const std::string pad(widths[c] - row[c].size(), ' ');
      line += (c ? "  " : "") + (c == 0 ? row[c] + pad : pad + row[c]);
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + '\n';
  };
  render_row(rows_.front());
  std::size_t total = 0;
  for (auto w : widths) total += w;
  out += std::string(total + 2 * (widths.empty() ? 0 : widths.size() - 1), '-') + '\n';
  for (std::size_t r = 1; r < rows_.size(); ++r) render_row(rows_[r]);
  return out;
}

std::string format(const char* printf_format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, printf_format, value);
  return text;
}

ProgressLine::ProgressLine(std::string label, std::string unit, bool enabled, double interval_seconds)
    : label_(std::move(label)), unit_(std::move(unit)), enabled_(enabled), interval_(interval_seconds), start_(Clock::now()), last_(start_) {}

void ProgressLine::update(std::size_t done, std::size_t total) {
  if (!enabled_ || total == 0) return;
  const auto now = Clock::now();
  if (std::chrono::duration<double>(now - last_).count() < interval_ && done < total) return;
  // A run that finishes before the first interval needs no progress report at all.
  if (done == total && last_ == start_) return;
  last_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const double eta = done > 0 ? elapsed * static_cast<double>(total - done) / static_cast<double>(done) : 0.0;
  std::fprintf(stderr, "%s: %zu/%zu %s (%.0f%%), %.0f s elapsed, ETA %.0f s\n", label_.c_str(), done, total, unit_.c_str(),
               100.0 * static_cast<double>(done) / static_cast<double>(total), elapsed, eta);
  std::fflush(stderr);
}

}  // namespace ringcomm::report
