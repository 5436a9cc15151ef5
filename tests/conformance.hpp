#pragma once
// Shared pieces of the transport conformance suite: a fixture parameterised by the name of every
// registered transport, and the ring sizes each test walks through.
//
// Tests are collective: every rank runs the same code path, so checks use EXPECT_* (never ASSERT_*
// between collectives) and a failure on one rank cannot leave its peers waiting.
#include <gtest/gtest.h>
#include <mpi.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ringcomm/collective.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/topology.hpp"

namespace ringcomm::conformance {

// Every S that divides the number of world ranks.
std::vector<int> ring_sizes_dividing_world();

// The names of all compiled transports, for INSTANTIATE_TEST_SUITE_P.
std::vector<std::string> registered_transport_names();
std::string transport_test_name(const ::testing::TestParamInfo<std::string>& info);

// Sets an environment variable for one scope, restoring what was there before.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> previous_;
};

class TransportConformance : public ::testing::TestWithParam<std::string> {
 protected:
  // Skips on every rank alike when the transport is not usable on some rank.
  void SetUp() override;

  TransportContext context() const;
  Transport& transport() { return *transport_; }
  // A new instance of the transport under test, created under the current environment.
  std::unique_ptr<Transport> create_transport() const;

 private:
  std::unique_ptr<Transport> transport_;
};

}  // namespace ringcomm::conformance
