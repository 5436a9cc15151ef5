#include "ringcomm/ring.hpp"

#include "ringcomm/collective.hpp"

namespace ringcomm {

ChannelSpec ring_channel_spec(const Topology& topology, std::size_t message_bytes, int channel_id) {
  ChannelSpec spec;
  spec.comm = topology.ring_comm();
  spec.send_to = topology.right();
  spec.recv_from = topology.left();
  spec.bytes = message_bytes;
  spec.id = channel_id;
  return spec;
}

Ring::Ring(Transport& transport, const Topology& topology, std::size_t message_bytes, int channel_id)
    : ring_size_(topology.ring_size()),
      position_(topology.position()),
      stream_ordered_(transport.capabilities().stream_ordered) {
  check_identical(topology.world(),
                  {{"message bytes", std::to_string(message_bytes)},
                   {"channel id", std::to_string(channel_id)},
                   {"transport", transport.name()}},
                  "the ring's message");
  if (message_bytes == 0) throw Error("a ring message must have at least one byte", true);
  const ChannelSpec spec = ring_channel_spec(topology, message_bytes, channel_id);
  channel_ = collectively(topology.world(), [&] { return transport.open_channel(spec); });
}

}  // namespace ringcomm
