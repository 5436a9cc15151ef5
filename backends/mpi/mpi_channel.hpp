#pragma once
#include <memory>

#include "ringcomm/transport.hpp"

namespace ringcomm::mpi_backend {

// A channel whose slots are in `memory`; MPI moves them directly (device memory needs a CUDA-aware MPI).
std::unique_ptr<Channel> open_channel(const ChannelSpec& spec, MemoryKind memory);

}  // namespace ringcomm::mpi_backend
