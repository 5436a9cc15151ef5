// Transport conformance: every registered transport must move ring messages byte-exactly, keep
// channels apart and survive reuse of its two slots, for every ring size that divides the ranks.
#include <array>
#include <thread>
#include <tuple>

#include "conformance.hpp"
#include "message_pattern.hpp"
#include "ringcomm/ring.hpp"
#include "ringcomm/runtime.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm::conformance {
namespace {

constexpr int kRounds = 3;  // three rounds reuse both slots as own message at least once

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += "\n  " + line;
  return text;
}

// Rounds on one ring, reporting every problem (not only the first) of every round.
void expect_rounds_intact(Ring& ring, const Topology& topology, int channel = 0) {
  for (int round = 0; round < kRounds; ++round) {
    const auto problems = circulate_and_check(ring, topology, round, channel);
    EXPECT_TRUE(problems.empty()) << joined(problems);
  }
}

void expect_sizes_intact(Transport& transport, const std::vector<std::size_t>& sizes) {
  for (const int S : ring_sizes_dividing_world()) {
    const Topology topology(MPI_COMM_WORLD, S);
    for (const std::size_t bytes : sizes) {
      Ring ring(transport, topology, bytes);
      EXPECT_EQ(ring.message_bytes(), bytes);
      EXPECT_EQ(ring.size(), S);
      EXPECT_EQ(ring.position(), topology.position());
      EXPECT_GE(ring.buffer_bytes(), Channel::kSlots * bytes);
      expect_rounds_intact(ring, topology);
    }
  }
}

using TransportExchange = TransportConformance;

TEST_P(TransportExchange, NameAndCapabilitiesAreConsistent) {
  EXPECT_EQ(transport().name(), GetParam());
  const Capabilities caps = transport().capabilities();
  EXPECT_FALSE(describe(caps).empty());
  // On GPU builds slots are device memory, which a transport must either move or stage.
  const bool handles_slots = data_memory_kind() != MemoryKind::device || caps.device_memory || caps.host_staging;
  EXPECT_TRUE(handles_slots) << describe(caps);
}

TEST_P(TransportExchange, RingDeliversEveryMessageByteExact) {
  // One byte, an odd size, and one byte past a 4 MiB staging chunk.
  expect_sizes_intact(transport(), {1, 2, 1000003, (std::size_t(4) << 20) + 1});
}

TEST_P(TransportExchange, LargeMessagesOnGpuBuilds) {
  // ucx's registration of Kokkos device memory failed from 8 MiB on (issue #12) while every size
  // above stayed at 4 MiB + 1; 64 MiB and 256 MiB slots are registered and moved here. Host memory
  // builds (CI) leave them out unless asked, as 1.5 GiB of slots and patterns per rank is more than
  // a 2-core runner should carry.
  if (data_memory_kind() != MemoryKind::device && !settings::env("RINGCOMM_CONFORMANCE_LARGE"))
    GTEST_SKIP() << "64 and 256 MiB messages run on GPU builds, or with RINGCOMM_CONFORMANCE_LARGE=1";
  // One ring over all ranks: checking the patterns of such messages takes most of the time, and
  // smaller S are covered by running the suite on fewer ranks (scripts/gpu_suite.sh runs p = 1 too).
  const Topology topology(MPI_COMM_WORLD, comm_size(MPI_COMM_WORLD));
  for (const std::size_t bytes : {std::size_t(64) << 20, std::size_t(256) << 20}) {
    Ring ring(transport(), topology, bytes);
    EXPECT_EQ(ring.message_bytes(), bytes);
    expect_rounds_intact(ring, topology);
  }
}

TEST_P(TransportExchange, SmallStagingChunksKeepMessagesIntact) {
  const ScopedEnv chunk("RINGCOMM_HOST_CHUNK_BYTES", "1000");
  auto transport = create_transport();
  // Shorter than, equal to and one past a chunk; exactly two; many chunks and a short last one.
  expect_sizes_intact(*transport, {1, 999, 1000, 1001, 2000, 100003});
}

TEST_P(TransportExchange, TwoChannelsUsedAlternatelyKeepTheirMessages) {
  for (const int S : ring_sizes_dividing_world()) {
    const Topology topology(MPI_COMM_WORLD, S);
    const std::size_t bytes = 4099;
    Ring first(transport(), topology, bytes, 0);
    Ring second(transport(), topology, bytes, 1);
    for (int round = 0; round < kRounds; ++round) {
      const auto first_problems = circulate_and_check(first, topology, round, 0);
      const auto second_problems = circulate_and_check(second, topology, round, 1);
      EXPECT_TRUE(first_problems.empty()) << "channel 0:" << joined(first_problems);
      EXPECT_TRUE(second_problems.empty()) << "channel 1:" << joined(second_problems);
    }
  }
}

// Both channels' exchanges are in flight at once and finish in the opposite order.
TEST_P(TransportExchange, OverlappingExchangesOnTwoChannelsDoNotMix) {
  for (const int S : ring_sizes_dividing_world()) {
    if (S == 1) continue;  // a ring of one never exchanges
    const Topology topology(MPI_COMM_WORLD, S);
    const std::size_t bytes = 70001;
    std::vector<std::unique_ptr<Channel>> channels;
    for (int id = 0; id < 2; ++id) {
      channels.push_back(transport().open_channel(ring_channel_spec(topology, bytes, id)));
      EXPECT_EQ(channels.back()->spec().id, id);
      EXPECT_EQ(channels.back()->spec().bytes, bytes);
    }
    for (int id = 0; id < 2; ++id) write_message(channels[id]->slot(0), {topology.world_rank(), 0, id}, bytes);
    const StreamRef no_stream{};
    channels[0]->start(0, 1, no_stream);
    channels[1]->start(0, 1, no_stream);
    channels[1]->finish(no_stream);
    channels[0]->finish(no_stream);
    Kokkos::fence();
    const int left_rank = topology.ring_index() * S + topology.left();
    std::vector<unsigned char> received(bytes);
    for (int id = 0; id < 2; ++id) {
      copy_bytes(received.data(), MemoryKind::host, channels[id]->slot(1), data_memory_kind(), bytes);
      EXPECT_EQ(describe_mismatch(received, {left_rank, 0, id}), "") << "S=" << S << ", channel " << id;
    }
  }
}

// Execution space instances that queue work independently (own CUDA streams), as threads that
// drive a channel each must use. Kokkos before 4 cannot make them; there only Serial is tested.
std::array<ExecSpace, 2> independent_exec_spaces() {
#if KOKKOS_VERSION >= 40000
  return Kokkos::Experimental::partition_space(ExecSpace(), 1, 1);
#else
  return {ExecSpace(), ExecSpace()};
#endif
}

// A rank may drive one channel per thread (MPI_THREAD_MULTIPLE), each thread with its own
// execution space instance.
TEST_P(TransportExchange, ThreadsOwningOneChannelEachRunConcurrently) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE) GTEST_SKIP() << "MPI provides " << thread_level_name(provided);
  const auto spaces = independent_exec_spaces();
  for (const int S : ring_sizes_dividing_world()) {
    const Topology topology(MPI_COMM_WORLD, S);
    constexpr int kThreads = static_cast<int>(std::tuple_size_v<decltype(spaces)>);
    std::vector<std::unique_ptr<Ring>> rings;
    for (int id = 0; id < kThreads; ++id)
      rings.push_back(std::make_unique<Ring>(transport(), topology, 30011, id));
    std::vector<std::vector<std::string>> problems(kThreads);
    std::vector<std::thread> threads;
    for (int id = 0; id < kThreads; ++id)
      threads.emplace_back([&, id] {
        // An exception must not escape a thread (std::terminate); it is a failure like any other.
        try {
          for (int round = 0; round < kRounds; ++round) {
            auto found = circulate_and_check(*rings[id], topology, round, id, spaces[id]);
            problems[id].insert(problems[id].end(), found.begin(), found.end());
          }
        } catch (const std::exception& e) {
          problems[id].push_back(std::string("threw: ") + e.what());
        }
      });
    for (auto& t : threads) t.join();
    for (int id = 0; id < kThreads; ++id)
      EXPECT_TRUE(problems[id].empty()) << "thread " << id << ":" << joined(problems[id]);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryTransport, TransportExchange, ::testing::ValuesIn(registered_transport_names()),
                         transport_test_name);

}  // namespace
}  // namespace ringcomm::conformance
