// The watchdog, and channels opened by misbehaving peers: every wait of a ring step is bounded, and
// ranks that open one channel differently get a clear error on every rank instead of a transfer
// that overruns a slot. (Peers that hang or die mid-run: fault_probe and fault_injection.cmake.)
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include "conformance.hpp"
#include "reliability.hpp"
#include "ringcomm/backend/mpi_call.hpp"
#include "ringcomm/ring.hpp"
#include "ringcomm/watchdog.hpp"

namespace ringcomm::reliability {

SharedScratch::SharedScratch(const std::string& purpose) {
  std::string mine;
  if (comm_rank(MPI_COMM_WORLD) == 0) {
    std::string pattern = (std::filesystem::temp_directory_path() / ("ringcomm-" + purpose + "-XXXXXX")).string();
    if (mkdtemp(pattern.data()) != nullptr) mine = pattern;
  }
  path_ = allgather_strings(MPI_COMM_WORLD, mine)[0];
  if (path_.empty()) throw Error("cannot create a scratch folder for " + purpose, true);
}

SharedScratch::~SharedScratch() {
  MPI_Barrier(MPI_COMM_WORLD);
  std::error_code ignored;
  if (comm_rank(MPI_COMM_WORLD) == 0) std::filesystem::remove_all(path_, ignored);
}

namespace {

using namespace std::chrono;

Stall test_stall() {
  Stall stall;
  stall.transport = "test";
  stall.waiting_for = "a condition that never holds";
  stall.channel = 7;
  stall.peer = 3;
  stall.bytes_outstanding = 4096;
  stall.detail = "nothing else";
  return stall;
}

TEST(Watchdog, AConditionThatHoldsAtOnceCostsNoDescription) {
  int polls = 0, descriptions = 0;
  wait_until([&] { return ++polls > 0; }, 0.001, [&] { return ++descriptions, test_stall(); });
  EXPECT_EQ(polls, 1);
  EXPECT_EQ(descriptions, 0);
}

TEST(Watchdog, ReturnsOnceTheConditionHolds) {
  int polls = 0;
  wait_until([&] { return ++polls >= 1000; }, 10, [] { return test_stall(); });
  EXPECT_EQ(polls, 1000);
}

TEST(Watchdog, AWaitThatNeverEndsThrowsAfterTheLimitNamingEverything) {
  const auto start = steady_clock::now();
  try {
    wait_until([] { return false; }, 0.2, [] { return test_stall(); });
    ADD_FAILURE() << "no TimeoutError";
  } catch (const TimeoutError& e) {
    const double waited = duration<double>(steady_clock::now() - start).count();
    EXPECT_GE(waited, 0.2);
    EXPECT_LT(waited, 1.0) << "the backoff overshot the limit";
    EXPECT_FALSE(e.collective()) << "only this rank knows it waited too long";
    const std::string text = e.what();
    for (const char* part : {"test transport: timed out after 0.2 s (RINGCOMM_TIMEOUT)", "a condition that never holds",
                             "(ring position 3)", "channel 7", "4096 bytes outstanding", "nothing else"})
      EXPECT_NE(text.find(part), std::string::npos) << part << " missing in: " << text;
    const TimeoutError placed = e.in_ring("sub-ring 1, step 2");
    EXPECT_NE(std::string(placed.what()).find("sub-ring 1, step 2"), std::string::npos) << placed.what();
    EXPECT_EQ(placed.stall().peer, 3);
  }
}

TEST(Watchdog, TheTimeoutComesFromTheEnvironment) {
  {
    const conformance::ScopedEnv unset("RINGCOMM_TIMEOUT", "");
    EXPECT_EQ(timeout_setting(), kDefaultTimeoutSeconds);
  }
  {
    const conformance::ScopedEnv set("RINGCOMM_TIMEOUT", "2.5");
    EXPECT_EQ(timeout_setting(), 2.5);
  }
  for (const char* bad : {"0", "-1", "soon", "3s", " 3", "inf", "nan", "1e99"}) {
    const conformance::ScopedEnv set("RINGCOMM_TIMEOUT", bad);
    try {
      timeout_setting();
      ADD_FAILURE() << "RINGCOMM_TIMEOUT=" << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("RINGCOMM_TIMEOUT='"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("expected a number in [0.001,"), std::string::npos) << e.what();
    }
  }
}

TEST(Watchdog, ABadTimeoutIsReportedByEveryRankWhenARingIsMade) {
  const conformance::ScopedEnv bad("RINGCOMM_TIMEOUT", "forever");
  const Topology topology(MPI_COMM_WORLD, comm_size(MPI_COMM_WORLD));
  TransportContext ctx;
  ctx.memory = data_memory_kind();
  const auto transport = select_transport("host", ctx).transport;  // usable on every build
  try {
    Ring ring(*transport, topology, 64);
    ADD_FAILURE() << "a ring was made with RINGCOMM_TIMEOUT=forever";
  } catch (const Error& e) {
    EXPECT_TRUE(e.collective());
    EXPECT_NE(std::string(e.what()).find("RINGCOMM_TIMEOUT='forever' is not valid"), std::string::npos) << e.what();
  }
}

TEST(MpiErrors, ACodeBecomesAnErrorInMpisOwnWords) {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  use_error_codes(comm);
  const int nobody = comm_size(comm) + 5;
  int payload = 0;
  const int code = MPI_Send(&payload, 1, MPI_INT, nobody, 0, comm);
  EXPECT_NE(code, MPI_SUCCESS) << "MPI accepted a send to a rank that does not exist";
  try {
    check_mpi(code, "test: MPI_Send");
    ADD_FAILURE() << "no Error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "test: MPI_Send failed: " + mpi_error_text(code));
    EXPECT_FALSE(mpi_error_text(code).empty());
  }
  MPI_Comm_free(&comm);
}

// Channels opened directly, bypassing Ring's own agreement check, the way a rank with a bug (or a
// different build) would: every CPU transport must refuse on every rank.
using MisbehavingPeer = conformance::TransportConformance;

void expect_refused_everywhere(Transport& transport, const ChannelSpec& spec, const std::string& expected) {
  try {
    auto channel = transport.open_channel(spec);
    ADD_FAILURE() << transport.name() << " opened a channel it should have refused";
  } catch (const Error& e) {
    EXPECT_TRUE(e.collective()) << e.what();
    EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
  }
}

TEST_P(MisbehavingPeer, ADifferentMessageSizeOnOneRankIsRefusedByAll) {
  const int ranks = comm_size(MPI_COMM_WORLD);
  const Topology topology(MPI_COMM_WORLD, ranks);
  ChannelSpec spec = ring_channel_spec(topology, 1000, 0);
  const int odd_one = ranks - 1;
  if (topology.world_rank() == odd_one) spec.bytes = 1001;
  if (ranks == 1) {
    // Alone, a rank cannot disagree with itself; the channel must simply work.
    EXPECT_NO_THROW(transport().open_channel(spec));
    return;
  }
  expect_refused_everywhere(transport(), spec, "message bytes: rank 0=1000");
  expect_refused_everywhere(transport(), spec, "rank " + std::to_string(odd_one) + "=1001");
}

TEST_P(MisbehavingPeer, ADifferentChannelIdOnOneRankIsRefusedByAll) {
  const int ranks = comm_size(MPI_COMM_WORLD);
  if (ranks == 1) GTEST_SKIP() << "needs two ranks";
  const Topology topology(MPI_COMM_WORLD, ranks);
  ChannelSpec spec = ring_channel_spec(topology, 256, topology.world_rank() == 0 ? 1 : 0);
  expect_refused_everywhere(transport(), spec, "channel id: rank 0=1 rank 1=0");
}

TEST_P(MisbehavingPeer, NeighboursThatDoNotFormARingAreRefusedByAll) {
  const int ranks = comm_size(MPI_COMM_WORLD);
  if (ranks < 3) GTEST_SKIP() << "needs three ranks";
  const Topology topology(MPI_COMM_WORLD, ranks);
  ChannelSpec spec = ring_channel_spec(topology, 256, 0);
  if (topology.world_rank() == 0) spec.send_to = 2;  // rank 1 still expects rank 0's messages
  expect_refused_everywhere(transport(), spec, "rank 0 sends to rank 2, which receives from rank 1");
}

TEST_P(MisbehavingPeer, AfterARefusalTheTransportStillWorks) {
  const int ranks = comm_size(MPI_COMM_WORLD);
  const Topology topology(MPI_COMM_WORLD, ranks);
  ChannelSpec bad = ring_channel_spec(topology, 100, 0);
  bad.bytes += static_cast<std::size_t>(topology.world_rank());
  if (ranks > 1) expect_refused_everywhere(transport(), bad, "message bytes");
  Ring ring(transport(), topology, 100);
  std::vector<int> origins;
  ring.circulate([&](const void*, int origin) { origins.push_back(origin); });
  EXPECT_EQ(static_cast<int>(origins.size()), ranks);
}

std::vector<std::string> cpu_transports() {
  std::vector<std::string> names;
  for (const auto& name : conformance::registered_transport_names())
    if (name != "nccl") names.push_back(name);
  return names;
}

INSTANTIATE_TEST_SUITE_P(EveryCpuTransport, MisbehavingPeer, ::testing::ValuesIn(cpu_transports()),
                         conformance::transport_test_name);

}  // namespace
}  // namespace ringcomm::reliability
