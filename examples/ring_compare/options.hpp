#pragma once
// ring_compare's command line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "ringcomm/gt/dims.hpp"
#include "ringcomm/walker_schedule.hpp"

namespace ring_compare {

// Scalar of G_σ and G_t: complex<double> ("double"), complex<float> ("float"), or G_σ complex<float>
// and G_t complex<double> ("mixed").
enum class Precision { double_precision, single_precision, mixed_precision };
std::string scalar_name(Precision precision);

struct Options {
  std::vector<std::string> transports;  // --transports; empty: see resolve_transports()
  std::vector<int> ring_sizes;          // --ring-size; empty: RINGCOMM_RING_SIZE or the number of ranks
  ringcomm::ScheduleOverrides schedule;  // --threads, --direction, --overlap over RINGCOMM_*
  ringcomm::gt::Channel channel = ringcomm::gt::Channel::pp_up_down;
  Precision precision = Precision::double_precision;
  ringcomm::gt::Dims dims;
  std::size_t measurements = 64;
  std::uint64_t seed = 1;
  bool run_original = true;
  std::size_t compare_limit = std::size_t(1) << 26;  // largest G_t gathered for error norms
  std::size_t verify_sample = 0;  // --verify-sample: entries recomputed with the serial reference formula
  std::string json_path;
  std::string trace_path;             // --trace: Chrome/Perfetto timeline of every rank, merged on rank 0
  std::string dump_dir;
  std::string write_path;             // --write: the first ring run's G_t as .npy, written with MPI-IO
  std::size_t abort_after_round = 0;  // --abort-after-round (tests of checkpoint/restart); 0: never
  bool quiet = false;

  Options();
};

ringcomm::cli::CommandLine command_line(Options& options);

// The transports to run, in order, and whether the user named them (an unusable named transport is
// an error; an unusable default one is skipped). --transports wins; else RINGCOMM_TRANSPORT; else
// every compiled transport.
struct TransportRequest {
  std::string name;
  bool named_by_user = false;
};
std::vector<TransportRequest> resolve_transports(const Options& options);

}  // namespace ring_compare
