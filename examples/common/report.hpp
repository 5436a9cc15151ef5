#pragma once
// What ringcomm's programs report besides their own numbers: where and how they ran, aligned text
// tables, and a progress line for long runs.
#include <chrono>
#include <string>
#include <vector>

#include "ringcomm/gt/dims.hpp"
#include "ringcomm/json.hpp"

namespace ringcomm::report {

// Facts about the software this process runs on.
std::string kokkos_version();            // "3.4.1"
std::string kokkos_execution_space();    // name of Kokkos' default execution space, e.g. "Serial", "Cuda"
std::string kokkos_memory_space();       // its memory space, e.g. "Host", "Cuda"
std::string mpi_library_version();       // first line of MPI_Get_library_version
std::string host_name();
std::string utc_timestamp();             // ISO 8601, e.g. "2025-01-31T12:00:00Z"

// Top-level metadata of a JSON report: program, ringcomm version, command line, host, date, ranks,
// Kokkos and MPI. Collective over MPI_COMM_WORLD (gathers the host names of all ranks).
json::Value run_metadata(const std::string& program, const std::string& command_line);

// G_t's shape as the "dims" object of a JSON report: nb, Lx, Ly, n_freq, exchange_momenta,
// exchange_frequencies, M and entries.
json::Value dims_json(const gt::Dims& dims);

// Columns padded to their widest cell; the first column is left-aligned, the others right-aligned
// (they hold numbers).
class Table {
 public:
  explicit Table(std::vector<std::string> headers);
  void add_row(std::vector<std::string> cells);
  std::string render() const;

 private:
  std::vector<std::vector<std::string>> rows_;
};

// printf-style number formatting for table cells.
std::string format(const char* printf_format, double value);

// A line on stderr at most every `interval` seconds: "<label>: 120/400 <unit> (30%), 12 s elapsed,
// ETA 28 s". Silent unless enabled (world rank 0 and not --quiet, typically).
class ProgressLine {
 public:
  ProgressLine(std::string label, std::string unit, bool enabled, double interval_seconds = 2.0);
  void update(std::size_t done, std::size_t total);

 private:
  using Clock = std::chrono::steady_clock;
  std::string label_;
  std::string unit_;
  bool enabled_;
  double interval_;
  Clock::time_point start_;
  Clock::time_point last_;
};

}  // namespace ringcomm::report
