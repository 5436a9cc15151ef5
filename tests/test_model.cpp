// The performance model's arithmetic: hand-computed cases, exact memory, monotonicity, the choice of S.
#include <gtest/gtest.h>

#include "ringcomm/error.hpp"
#include "internal/model.hpp"

namespace ringcomm::model {
namespace {

// p = 8, S = 4, 1000-byte messages, 1000 entries of 16 bytes, α = 1 µs, β = 1 GB/s, 10^9 entries/s.
ModelInputs hand_case() {
  ModelInputs in;
  in.ranks = 8;
  in.ring_size = 4;
  in.message_bytes = 1000;
  in.gt_entries = 1000;
  in.scalar_bytes = 16;
  in.latency_seconds = 1e-6;
  in.bandwidth_bytes_per_second = 1e9;
  in.kernel_entries_per_second = 1e9;
  return in;
}

TEST(Model, LockStepMatchesTheHandComputedRound) {
  const Prediction p = predict(hand_case());
  EXPECT_DOUBLE_EQ(p.slice_seconds, 250e-9);         // 250 entries
  EXPECT_DOUBLE_EQ(p.exchange_seconds, 2e-6);        // 1 µs + 1000 B / 1 GB/s
  EXPECT_DOUBLE_EQ(p.step_seconds, 2.25e-6);
  EXPECT_DOUBLE_EQ(p.seconds_per_round, 7e-6);       // 0.25 µs + 3 · 2.25 µs
  EXPECT_DOUBLE_EQ(p.seconds_per_measurement, 7e-6);  // no reduction amortised: steady state
  EXPECT_EQ(p.bound, "communication");
}

TEST(Model, OverlapHidesTheSmallerTermOfEachStep) {
  ModelInputs in = hand_case();
  in.schedule = Schedule::overlap;
  const Prediction p = predict(in);
  EXPECT_DOUBLE_EQ(p.step_seconds, 2e-6);
  EXPECT_DOUBLE_EQ(p.seconds_per_round, 6.25e-6);
}

TEST(Model, ThreadsShareTheLinkAndTheKernel) {
  ModelInputs in = hand_case();
  in.threads = 2;
  const Prediction p = predict(in);
  EXPECT_DOUBLE_EQ(p.exchange_seconds, 3e-6);        // one α, twice the bytes
  EXPECT_DOUBLE_EQ(p.seconds_per_round, 11e-6);      // 0.5 µs + 3 · (3 + 0.5) µs
  EXPECT_DOUBLE_EQ(p.seconds_per_measurement, 5.5e-6);
  EXPECT_EQ(p.ring_buffer_bytes, 4000u);
}

TEST(Model, FinalReductionAcrossSubRingsIsAmortisedOverTheRun) {
  ModelInputs in = hand_case();
  in.measurements_per_rank = 10;
  Prediction p = predict(in);
  EXPECT_DOUBLE_EQ(p.reduction_seconds, 1e-5);       // 2 levels · (1 µs + 4000 B / 1 GB/s), 2 sub-rings
  EXPECT_DOUBLE_EQ(p.seconds_per_measurement, 8e-6);
  in.reduction = Reduction::ring;
  EXPECT_DOUBLE_EQ(predict(in).reduction_seconds, 6e-6);  // 2 · 1 · (1 µs + 2000 B / 1 GB/s)
  in.ring_size = 8;
  EXPECT_DOUBLE_EQ(predict(in).reduction_seconds, 0.0);   // one sub-ring: nothing to reduce
}

TEST(Model, MemoryPerRankIsTheLargestSliceThePairsOfSlotsAndStaging) {
  ModelInputs in = hand_case();
  in.threads = 3;
  in.staging_bytes_per_thread = 7;
  for (const std::size_t entries : {1ul, 999ul, 1000ul, 1001ul, 1003ul}) {
    in.gt_entries = entries;
    const Prediction p = predict(in);
    EXPECT_EQ(p.gt_bytes_per_rank, (entries + 3) / 4 * 16) << entries;
    EXPECT_EQ(p.bytes_per_rank, (entries + 3) / 4 * 16 + 3 * 2 * 1000 + 3 * 7) << entries;
  }
}

TEST(Model, MoreLatencyOrLessBandwidthNeverHelpsAndOverlapNeverHurts) {
  for (int S : divisors(24)) {
    ModelInputs in = hand_case();
    in.ranks = 24;
    in.ring_size = S;
    const double base = predict(in).seconds_per_round;
    ModelInputs slower = in;
    slower.latency_seconds *= 2;
    EXPECT_GE(predict(slower).seconds_per_round, base) << "S=" << S;
    slower = in;
    slower.bandwidth_bytes_per_second /= 2;
    EXPECT_GE(predict(slower).seconds_per_round, base) << "S=" << S;
    ModelInputs overlapped = in;
    overlapped.schedule = Schedule::overlap;
    EXPECT_LE(predict(overlapped).seconds_per_round, base) << "S=" << S;
    if (S > 1) {
      ModelInputs smaller_ring = in;
      smaller_ring.ring_size = divisors(24)[0];
      EXPECT_GE(predict(smaller_ring).gt_bytes_per_rank, predict(in).gt_bytes_per_rank) << "S=" << S;
    }
  }
}

TEST(Model, RecommendsTheFastestRingThatFits) {
  ModelInputs in = hand_case();
  std::string why;
  // Unlimited memory: S = 1 has no exchange at all and the same compute, so it wins.
  EXPECT_EQ(recommend_ring_size(in, 8, std::size_t(1) << 40, &why), 1) << why;
  // 1000 entries · 16 B = 16000 B for S = 1; 2 slots of 1000 B each. Budget 7000: S = 4 (6000 B) fits, S = 2 (10000 B) not.
  EXPECT_EQ(recommend_ring_size(in, 8, 7000, &why), 4) << why;
  EXPECT_NE(why.find("S = 4"), std::string::npos) << why;
  EXPECT_EQ(recommend_ring_size(in, 8, 100, &why), 0);
  EXPECT_NE(why.find("no ring size"), std::string::npos) << why;
  EXPECT_EQ(recommend_ring_size(in, 100000, std::size_t(1) << 40), 1);
}

TEST(Model, RejectsInputsItCannotModel) {
  ModelInputs in = hand_case();
  in.ring_size = 3;  // does not divide 8
  EXPECT_THROW(predict(in), Error);
  in = hand_case();
  in.bandwidth_bytes_per_second = 0;
  EXPECT_THROW(predict(in), Error);
  EXPECT_EQ(divisors(12), (std::vector<int>{1, 2, 3, 4, 6, 12}));
  EXPECT_EQ(divisors(1), (std::vector<int>{1}));
}

}  // namespace
}  // namespace ringcomm::model
