#pragma once
// Performance model of the ring: time per measurement and memory per rank from the problem, the ring
// shape and a few machine rates (docs/performance_model.md derives the formulas).
//
// Assumptions, stated once:
// - every rank runs T threads, each circulating its own measurement in lock-step with the other
//   threads; the T messages of a step share one link (bandwidth β, so T·B/β per step, but one α
//   because the threads wait concurrently) and the T consumes share one kernel rate (T·t_slice);
// - the link rate is that of one neighbour exchange with both directions busy (what
//   bench/ring_overhead and bench/ring_bandwidth measure), not a one-way ping-pong;
// - overlap hides the exchange of step i+1 behind the consume of step i, so a step costs the larger
//   of the two; the first and the last step cannot be hidden;
// - the final reduction across the p/S sub-rings runs once per run and is amortised over the run's
//   rounds (0 when measurements_per_rank is 0: "steady state").
#include <cstddef>
#include <string>
#include <vector>

namespace ringcomm::model {

enum class Schedule { lock_step, overlap };
enum class Reduction { tree, ring };  // log2(q)·(α + n/β) or 2(q−1)·(α + n/(qβ))

const char* to_string(Schedule schedule);
const char* to_string(Reduction reduction);

struct ModelInputs {
  // Problem and shape.
  int ranks = 1;                      // p
  int ring_size = 1;                  // S, divides p
  int threads = 1;                    // T: concurrent rings per rank
  std::size_t message_bytes = 0;      // B = (2M²+1)·s
  std::size_t gt_entries = 0;         // N
  std::size_t scalar_bytes = 16;      // s
  std::size_t measurements_per_rank = 0;  // rounds·T of the run; amortises the final reduction
  // Machine.
  double latency_seconds = 0;          // α of one neighbour exchange
  double bandwidth_bytes_per_second = 0;  // β of one rank's link, shared by its T threads
  double kernel_entries_per_second = 0;   // G_t entries one rank updates per second (all threads)
  double walker_seconds = 0;           // t_walker: producing one measurement, before the round
  std::size_t staging_bytes_per_thread = 0;  // Channel::extra_bytes() of one ring
  Schedule schedule = Schedule::lock_step;
  Reduction reduction = Reduction::tree;
};

struct Prediction {
  // Time.
  double slice_seconds = 0;          // consume of one message into N/S entries, per thread
  double exchange_seconds = 0;       // one step's α + T·B/β
  double step_seconds = 0;           // one of the S−1 steps, all threads
  double own_seconds = 0;            // T·(t_walker + t_slice): the round's start
  double seconds_per_round = 0;      // every rank contributes T measurements
  double reduction_seconds = 0;      // the whole run's final reduction across sub-rings
  double seconds_per_measurement = 0;  // (round + reduction/rounds) / T: ring_compare's column at T=1
  // Memory per rank.
  std::size_t gt_entries_per_rank = 0;  // ⌈N/S⌉: the largest slice
  std::size_t gt_bytes_per_rank = 0;
  std::size_t ring_buffer_bytes = 0;    // T·2·B
  std::size_t staging_bytes = 0;        // T·staging
  std::size_t bytes_per_rank = 0;       // the three above
  // What bounds a step: "communication" or "compute" (the larger term).
  std::string bound;
};

// Throws ringcomm::Error naming the input that is invalid (S not dividing p, a non-positive rate…).
Prediction predict(const ModelInputs& inputs);

// The fastest S dividing `ranks` whose bytes_per_rank fits `memory_budget_bytes` (ties: the smaller
// S, which needs fewer steps); `base` gives everything but ranks and ring_size. Returns 0 when no S
// fits. `why`, when given, receives one line explaining the choice.
int recommend_ring_size(const ModelInputs& base, int ranks, std::size_t memory_budget_bytes,
                        std::string* why = nullptr);

// Every divisor of n, ascending.
std::vector<int> divisors(int n);

}  // namespace ringcomm::model
