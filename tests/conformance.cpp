#include "conformance.hpp"

#include <cstdlib>

#include "ringcomm/error.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm::conformance {

std::vector<int> ring_sizes_dividing_world() {
  std::vector<int> sizes;
  const int ranks = comm_size(MPI_COMM_WORLD);
  for (int s = 1; s <= ranks; ++s)
    if (ranks % s == 0) sizes.push_back(s);
  return sizes;
}

std::vector<std::string> registered_transport_names() {
  std::vector<std::string> names;
  for (const auto& backend : Registry::instance().backends()) names.push_back(backend.name);
  return names;
}

std::string transport_test_name(const ::testing::TestParamInfo<std::string>& info) { return info.param; }

ScopedEnv::ScopedEnv(const char* name, const std::string& value)
    : name_(name), previous_(settings::env(name)) {
  setenv(name, value.c_str(), 1);
}

ScopedEnv::~ScopedEnv() {
  if (previous_) setenv(name_.c_str(), previous_->c_str(), 1);
  else unsetenv(name_.c_str());
}

TransportContext TransportConformance::context() const {
  TransportContext ctx;
  ctx.world = MPI_COMM_WORLD;
  ctx.memory = data_memory_kind();
  return ctx;
}

void TransportConformance::SetUp() {
  const BackendInfo* backend = Registry::instance().find(GetParam());
  ASSERT_NE(backend, nullptr) << GetParam() << " vanished from the registry";
  const Usability here = backend->probe(context());
  try {
    agree(MPI_COMM_WORLD, here.usable, here.reason);
  } catch (const Error& e) {
    GTEST_SKIP() << GetParam() << " is not usable: " << e.what();
  }
  transport_ = create_transport();
}

std::unique_ptr<Transport> TransportConformance::create_transport() const {
  return select_transport(GetParam(), context()).transport;
}

}  // namespace ringcomm::conformance
