#pragma once
#include <memory>

#include "ringcomm/transport.hpp"

namespace ringcomm::sendrecv_backend {

// Collective over spec.comm (its private communicator is duplicated from it); slots in host memory.
std::unique_ptr<Channel> open_channel(const ChannelSpec& spec);

}  // namespace ringcomm::sendrecv_backend
