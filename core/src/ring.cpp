#include "ringcomm/ring.hpp"

#include <exception>

#include "ringcomm/collective.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm {

const char* to_string(Direction direction) {
  return direction == Direction::rightward ? "rightward" : "leftward";
}

const char* to_string(StepSchedule schedule) { return schedule == StepSchedule::overlap ? "overlap" : "lock_step"; }

ChannelSpec ring_channel_spec(const Topology& topology, std::size_t message_bytes, int channel_id,
                              Direction direction) {
  const bool rightward = direction == Direction::rightward;
  ChannelSpec spec;
  spec.comm = topology.ring_comm();
  spec.send_to = rightward ? topology.right() : topology.left();
  spec.recv_from = rightward ? topology.left() : topology.right();
  spec.bytes = message_bytes;
  spec.id = channel_id;
  spec.timeout_seconds = timeout_setting();
  return spec;
}

Ring::Ring(Transport& transport, const Topology& topology, std::size_t message_bytes, int channel_id)
    : Ring(transport, topology, message_bytes, RingOptions{channel_id}) {}

Ring::Ring(Transport& transport, const Topology& topology, std::size_t message_bytes, const RingOptions& options)
    : ring_index_(topology.ring_index()),
      ring_size_(topology.ring_size()),
      position_(topology.position()),
      stream_ordered_(transport.capabilities().stream_ordered),
      direction_(options.direction),
      schedule_(options.schedule) {
  const PhaseScope phase("set-up");
  const int channel_id = options.channel_id;
  // World-wide, what the channel's own check (Transport::open_channel, over one sub-ring) cannot see:
  // every sub-ring must carry the same message, and the ring's own options.
  check_identical(topology.world(),
                  {{"message bytes", std::to_string(message_bytes)},
                   {"direction", to_string(options.direction)},
                   {"schedule", to_string(options.schedule)},
                   {"transport", transport.name()}},
                  "the ring's message");
  if (message_bytes == 0) throw Error("a ring message must have at least one byte", true);
  // A bad RINGCOMM_TIMEOUT is reported by every rank before anything waits on it.
  check_identical(topology.world(), {{kTimeoutSetting, settings::env(kTimeoutSetting).value_or("(unset)")}},
                  std::string("the watchdog's timeout (") + kTimeoutSetting + ")");
  collectively(topology.world(), [] { timeout_setting(); });
  const ChannelSpec spec = ring_channel_spec(topology, message_bytes, channel_id, direction_);
  channel_ = collectively(topology.world(), [&] { return transport.open_channel(spec); });
}

void Ring::rethrow_with_context(int step) const {
  const std::string where = "sub-ring " + std::to_string(ring_index_) + ", ring position " + std::to_string(position_) +
                            " of " + std::to_string(ring_size_) + ", step " + std::to_string(step) + " of " +
                            std::to_string(ring_size_ - 1) + " of round " + std::to_string(rounds_ + 1) +
                            ", channel " + std::to_string(channel_->spec().id);
  try {
    throw;
  } catch (const TimeoutError& e) {
    throw e.in_ring(where);
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (" + where + ")", e.collective());
  }
}

}  // namespace ringcomm
