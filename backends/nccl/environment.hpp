#pragma once
// What the nccl backend needs from the machine, and what ringcomm-info reports about it.
#include <string>
#include <vector>

#include "ringcomm/registry.hpp"

namespace ringcomm::nccl_backend {

// Local and cheap; never throws.
Usability probe(const TransportContext& ctx);

// NCCL library and header versions, CUDA runtime and driver, each visible GPU, peer access, NCCL_*
// settings in effect.
std::vector<std::string> details(const TransportContext& ctx);

}  // namespace ringcomm::nccl_backend
