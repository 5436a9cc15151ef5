#pragma once
#include <memory>

#include "ringcomm/transport.hpp"

namespace ringcomm::nccl_backend {

// Collective over spec.comm: slots in device memory, one NCCL communicator over the channel's sub-ring.
std::unique_ptr<Channel> open_channel(const ChannelSpec& spec);

}  // namespace ringcomm::nccl_backend
