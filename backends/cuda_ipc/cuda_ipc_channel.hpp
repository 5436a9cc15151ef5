#pragma once
#include <memory>

#include "ringcomm/transport.hpp"

namespace ringcomm::cuda_ipc_backend {

// Collective over spec.comm: every rank either gets a channel or throws the same collective Error.
// `device` is the CUDA device that holds this rank's data memory (data_memory_device()).
std::unique_ptr<Channel> open_channel(const ChannelSpec& spec, int device);

}  // namespace ringcomm::cuda_ipc_backend
