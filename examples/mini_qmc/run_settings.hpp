#pragma once
// Everything one mini_qmc run needs, read from the JSON input file (see input.json and README.md).
#include <cstdint>
#include <string>

#include "hubbard_model.hpp"
#include "ringcomm/gt/dims.hpp"

namespace mini_qmc {

struct MonteCarloSettings {
  std::uint64_t seed = 1;
  int warmup_sweeps = 20;
  int measurements = 8;           // per rank
  int sweeps_per_measurement = 1; // decorrelation between measurements
  int recompute_every = 4;        // slices between fresh computations of G
};

struct RunSettings {
  HubbardParameters model;
  MonteCarloSettings monte_carlo;
  ringcomm::gt::Dims dims;  // nb = 1 and the model's cluster
  ringcomm::gt::Channel channel = ringcomm::gt::Channel::ph_magnetic;
  std::string gt_path = "mini_qmc_gt.npy";
  std::string summary_path;  // JSON summary; empty: none
};

// Throws ringcomm::Error naming the file and key at fault.
RunSettings read_run_settings(const std::string& path);

}  // namespace mini_qmc
