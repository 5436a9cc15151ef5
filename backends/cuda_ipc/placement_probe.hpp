#pragma once
// Whether cuda_ipc can run with these ranks, and what ringcomm-info shows about it.
#include <string>
#include <vector>

#include "ringcomm/registry.hpp"

namespace ringcomm::cuda_ipc_backend {

// Collective over ctx.world on builds with device memory (a CPU build answers at once, alone): whether
// the ranks share a node, each drives a GPU (ranks may share one), and every pair of their distinct GPUs
// can copy to each other directly. Those are facts about all ranks together, so every rank must ask, as every caller of
// a probe does; the answer is the same on every rank. Never throws.
Usability probe(const TransportContext& ctx);

// This rank's GPU and how the transport moves messages; local.
std::vector<std::string> details(const TransportContext& ctx);

// Why the transport cannot run where ring buffers are in host memory.
extern const char* const kHostMemoryReason;

}  // namespace ringcomm::cuda_ipc_backend
