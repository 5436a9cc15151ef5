#pragma once
#include <memory>

#include "ringcomm/transport.hpp"
#include "ucx_context.hpp"

namespace ringcomm::ucx_backend {

// Collective over spec.comm; every rank either gets a channel or throws the same collective Error.
std::unique_ptr<Channel> open_channel(std::shared_ptr<const Context> context, const ChannelSpec& spec,
                                      MemoryKind memory);

}  // namespace ringcomm::ucx_backend
