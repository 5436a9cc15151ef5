#pragma once
// What the nccl backend needs from the machine, and what ringcomm-info reports about it.
#include <string>
#include <vector>

#include "ringcomm/registry.hpp"

namespace ringcomm::nccl_backend {

// Collective over ctx.world on builds with device memory (a CPU build answers at once, alone): whether
// every rank has a GPU and a usable NCCL, and no two ranks share a GPU. The same answer on every rank;
// never throws.
Usability probe(const TransportContext& ctx);

// NCCL library and header versions, CUDA runtime and driver, each visible GPU, peer access, NCCL_*
// settings in effect.
std::vector<std::string> details(const TransportContext& ctx);

}  // namespace ringcomm::nccl_backend
