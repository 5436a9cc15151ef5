#include "internal/model.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "ringcomm/error.hpp"
#include "ringcomm/memory.hpp"

namespace ringcomm::model {

namespace {

void require(bool ok, const std::string& message) {
  if (!ok) throw Error("performance model: " + message);
}

void validate(const ModelInputs& in) {
  require(in.ranks >= 1, "ranks (p) must be >= 1, not " + std::to_string(in.ranks));
  require(in.ring_size >= 1 && in.ranks % in.ring_size == 0,
          "ring size (S) " + std::to_string(in.ring_size) + " must divide ranks (p) " + std::to_string(in.ranks));
  require(in.threads >= 1, "threads (T) must be >= 1, not " + std::to_string(in.threads));
  require(in.scalar_bytes > 0, "scalar bytes must be > 0");
  require(in.latency_seconds >= 0, "latency must be >= 0");
  require(in.walker_seconds >= 0, "walker time must be >= 0");
  require(in.bandwidth_bytes_per_second > 0, "link bandwidth must be > 0");
  require(in.kernel_entries_per_second > 0, "kernel rate must be > 0");
}

// Multiplies two byte counts, refusing to wrap: a model of 10^5 ranks must not lie quietly.
std::size_t product(std::size_t a, std::size_t b, const char* what) {
  require(a == 0 || b <= std::numeric_limits<std::size_t>::max() / a, std::string(what) + " overflows");
  return a * b;
}

// The final allreduce of `bytes` across `groups` sub-rings (one rank of each takes part per slice).
double reduction_seconds(const ModelInputs& in, int groups, double bytes) {
  if (groups <= 1) return 0;
  const double alpha = in.latency_seconds;
  const double beta = in.bandwidth_bytes_per_second;
  if (in.reduction == Reduction::ring)  // reduce-scatter then allgather, each (q−1) steps of bytes/q
    return 2.0 * (groups - 1) * (alpha + bytes / groups / beta);
  const double levels = std::ceil(std::log2(static_cast<double>(groups)));
  return 2.0 * levels * (alpha + bytes / beta);  // reduce up a binary tree, broadcast down it
}

}  // namespace

const char* to_string(Schedule schedule) { return schedule == Schedule::overlap ? "overlap" : "lock-step"; }
const char* to_string(Reduction reduction) { return reduction == Reduction::ring ? "ring" : "tree"; }

Prediction predict(const ModelInputs& in) {
  validate(in);
  Prediction out;
  const auto S = static_cast<std::size_t>(in.ring_size);
  const double T = in.threads;

  out.gt_entries_per_rank = (in.gt_entries + S - 1) / S;
  out.gt_bytes_per_rank = product(out.gt_entries_per_rank, in.scalar_bytes, "G_t bytes per rank");
  out.ring_buffer_bytes = product(product(in.message_bytes, 2, "ring slots"), in.threads, "ring slots");
  out.staging_bytes = product(in.staging_bytes_per_thread, in.threads, "staging");
  out.bytes_per_rank = out.gt_bytes_per_rank + out.ring_buffer_bytes + out.staging_bytes;
  require(out.bytes_per_rank >= out.gt_bytes_per_rank, "bytes per rank overflows");

  out.slice_seconds = static_cast<double>(out.gt_entries_per_rank) / in.kernel_entries_per_second;
  const double compute_per_step = T * out.slice_seconds;
  out.exchange_seconds = in.latency_seconds + T * static_cast<double>(in.message_bytes) / in.bandwidth_bytes_per_second;
  out.step_seconds = in.schedule == Schedule::overlap ? std::max(out.exchange_seconds, compute_per_step)
                                                      : out.exchange_seconds + compute_per_step;
  out.bound = out.exchange_seconds >= compute_per_step ? "communication" : "compute";
  out.own_seconds = T * (in.walker_seconds + out.slice_seconds);
  out.seconds_per_round = out.own_seconds + static_cast<double>(S - 1) * out.step_seconds;

  out.reduction_seconds = reduction_seconds(in, in.ranks / in.ring_size, static_cast<double>(out.gt_bytes_per_rank));
  const double amortised_reduction =
      in.measurements_per_rank == 0 ? 0.0 : out.reduction_seconds / (static_cast<double>(in.measurements_per_rank) / T);
  out.seconds_per_measurement = (out.seconds_per_round + amortised_reduction) / T;
  return out;
}

std::vector<int> divisors(int n) {
  std::vector<int> low, high;
  for (int d = 1; static_cast<long long>(d) * d <= n; ++d) {
    if (n % d != 0) continue;
    low.push_back(d);
    if (d != n / d) high.push_back(n / d);
  }
  low.insert(low.end(), high.rbegin(), high.rend());
  return low;
}

int recommend_ring_size(const ModelInputs& base, int ranks, std::size_t memory_budget_bytes, std::string* why) {
  require(ranks >= 1, "ranks (p) must be >= 1, not " + std::to_string(ranks));
  int best = 0;
  Prediction best_prediction;
  std::size_t smallest_need = std::numeric_limits<std::size_t>::max();
  for (int S : divisors(ranks)) {
    ModelInputs in = base;
    in.ranks = ranks;
    in.ring_size = S;
    const Prediction prediction = predict(in);
    smallest_need = std::min(smallest_need, prediction.bytes_per_rank);
    if (prediction.bytes_per_rank > memory_budget_bytes) continue;
    if (best == 0 || prediction.seconds_per_measurement < best_prediction.seconds_per_measurement) {
      best = S;
      best_prediction = prediction;
    }
  }
  if (why != nullptr) {
    std::ostringstream text;
    if (best == 0)
      text << "no ring size dividing " << ranks << " fits " << format_bytes(static_cast<double>(memory_budget_bytes))
           << " per rank; the smallest need is " << format_bytes(static_cast<double>(smallest_need));
    else
      text << "S = " << best << ": " << best_prediction.seconds_per_measurement << " s per measurement, "
           << format_bytes(static_cast<double>(best_prediction.bytes_per_rank)) << " per rank (budget "
           << format_bytes(static_cast<double>(memory_budget_bytes)) << "), " << best_prediction.bound
           << "-bound; the fastest of the divisors of " << ranks << " that fit";
    *why = text.str();
  }
  return best;
}

}  // namespace ringcomm::model
