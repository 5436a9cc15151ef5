// What only the host-staged transport promises: its chunk setting and its staging memory.
#include "conformance.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/ring.hpp"

namespace ringcomm::conformance {
namespace {

TransportContext data_context() {
  TransportContext ctx;
  ctx.memory = data_memory_kind();
  return ctx;
}

TEST(HostTransport, StagesThroughHost) {
  const auto transport = select_transport("host", data_context()).transport;
  EXPECT_TRUE(transport->capabilities().host_staging);
  EXPECT_FALSE(transport->capabilities().stream_ordered);
}

TEST(HostTransport, RejectsABadChunkSettingOnEveryRank) {
  for (const char* bad : {"0", "12Q", "-5", "3G"}) {
    const ScopedEnv chunk("RINGCOMM_HOST_CHUNK_BYTES", bad);
    try {
      select_transport("host", data_context());
      ADD_FAILURE() << "RINGCOMM_HOST_CHUNK_BYTES=" << bad << " was accepted";
    } catch (const Error& e) {
      EXPECT_TRUE(e.collective()) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string("RINGCOMM_HOST_CHUNK_BYTES='") + bad + "'"),
                std::string::npos)
          << e.what();
    }
  }
}

// Two staging lanes per direction, each a chunk long, or the whole message when it is shorter.
TEST(HostTransport, ExtraBytesAreItsStagingBuffers) {
  const ScopedEnv chunk("RINGCOMM_HOST_CHUNK_BYTES", "1000");
  const auto transport = select_transport("host", data_context()).transport;
  const Topology topology(MPI_COMM_WORLD, comm_size(MPI_COMM_WORLD));
  struct Case {
    std::size_t message;
    std::size_t staging;
  };
  for (const Case c : {Case{10, 2 * 1 * 10}, Case{1000, 2 * 1 * 1000}, Case{1001, 2 * 2 * 1000},
                       Case{250000, 2 * 2 * 1000}}) {
    Ring ring(*transport, topology, c.message);
    EXPECT_EQ(ring.channel().extra_bytes(), c.staging) << c.message << "-byte message";
    EXPECT_EQ(ring.buffer_bytes(), 2 * c.message + c.staging) << c.message << "-byte message";
  }
}

}  // namespace
}  // namespace ringcomm::conformance
