#include "run_settings.hpp"

#include <climits>

#include "json_input.hpp"

namespace mini_qmc {

RunSettings read_run_settings(const std::string& path) {
  const InputFile input = InputFile::read(path);
  RunSettings s;
  HubbardParameters& m = s.model;
  m.Lx = static_cast<int>(input.integer("model.Lx", m.Lx, 1, 16));
  m.Ly = static_cast<int>(input.integer("model.Ly", m.Ly, 1, 16));
  m.t = input.real("model.t", m.t, -100.0, 100.0);
  m.U = input.real("model.U", m.U, 0.0, 100.0);
  m.mu = input.real("model.mu", m.mu, -100.0, 100.0);
  m.beta = input.real("model.beta", m.beta, 1e-3, 100.0);
  m.time_slices = static_cast<int>(input.integer("model.time_slices", m.time_slices, 2, 4096));
  m.validate();

  MonteCarloSettings& mc = s.monte_carlo;
  mc.seed = static_cast<std::uint64_t>(input.integer("monte_carlo.seed", static_cast<long long>(mc.seed), 0, LLONG_MAX));
  mc.warmup_sweeps = static_cast<int>(input.integer("monte_carlo.warmup_sweeps", mc.warmup_sweeps, 0, INT_MAX));
  mc.measurements = static_cast<int>(input.integer("monte_carlo.measurements_per_rank", mc.measurements, 1, INT_MAX));
  mc.sweeps_per_measurement =
      static_cast<int>(input.integer("monte_carlo.sweeps_per_measurement", mc.sweeps_per_measurement, 1, INT_MAX));
  mc.recompute_every = static_cast<int>(input.integer("monte_carlo.recompute_every", mc.recompute_every, 1, 4096));

  s.dims.nb = 1;
  s.dims.Lx = m.Lx;
  s.dims.Ly = m.Ly;
  s.dims.n_freq = static_cast<int>(input.integer("g_t.n_freq", 4, 2, 4096));
  s.dims.exchange_momenta = input.integers("g_t.exchange_momenta", {0}, 0, m.Lx * m.Ly - 1);
  s.dims.exchange_frequencies = input.integers("g_t.exchange_frequencies", {0}, 0, 4096);
  s.dims.validate();
  s.channel = ringcomm::gt::parse_channel(input.text("g_t.channel", ringcomm::gt::to_string(s.channel)),
                                          path + ": g_t.channel");

  s.gt_path = input.text("output.g_t", s.gt_path);
  s.summary_path = input.text("output.summary", s.summary_path);
  input.reject_unread_keys();
  return s;
}

}  // namespace mini_qmc
