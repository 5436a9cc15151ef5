#pragma once
// Whether a compiled transport can run on every rank, for programs that list or compare transports.
#include <string>

#include "ringcomm/registry.hpp"

namespace ringcomm::cli {

struct TransportAvailability {
  bool usable = true;  // on every rank
  std::string reason;  // why not; names the ranks when only some of them cannot
};

// Collective over ctx.world: probes `backend` on every rank and folds the answers into one.
TransportAvailability probe_on_all_ranks(const BackendInfo& backend, const TransportContext& ctx);

}  // namespace ringcomm::cli
