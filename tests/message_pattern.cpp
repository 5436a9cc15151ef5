#include "message_pattern.hpp"

#include <cstdint>
#include <sstream>

#include "ringcomm/memory.hpp"

namespace ringcomm::conformance {

namespace {
// A mixing hash (splitmix64's finaliser): neighbouring indices and ids give unrelated bytes, so a
// shift by any offset or a message from another sender or round fails almost every byte.
unsigned char pattern_byte(const MessageId& id, std::size_t index) {
  std::uint64_t x = static_cast<std::uint64_t>(index) + 0x9E3779B97F4A7C15ull * (id.origin + 1) +
                    0xD1B54A32D192ED03ull * (id.round + 1) + 0x8CB92BA72F3D8DD7ull * (id.channel + 1);
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return static_cast<unsigned char>(x ^ (x >> 31));
}

std::string describe(const MessageId& id) {
  return "message of rank " + std::to_string(id.origin) + ", round " + std::to_string(id.round) + ", channel " +
         std::to_string(id.channel);
}
}  // namespace

std::vector<unsigned char> patterned_message(const MessageId& id, std::size_t bytes) {
  std::vector<unsigned char> message(bytes);
  for (std::size_t i = 0; i < bytes; ++i) message[i] = pattern_byte(id, i);
  return message;
}

std::string describe_mismatch(const std::vector<unsigned char>& message, const MessageId& id) {
  std::size_t wrong = 0;
  std::size_t first = message.size();
  for (std::size_t i = 0; i < message.size(); ++i) {
    if (message[i] == pattern_byte(id, i)) continue;
    if (wrong++ == 0) first = i;
  }
  if (wrong == 0) return {};
  std::ostringstream text;
  text << describe(id) << ": " << wrong << " of " << message.size() << " bytes wrong, first at byte " << first;
  return text.str();
}

void write_message(void* buffer, const MessageId& id, std::size_t bytes) {
  const auto message = patterned_message(id, bytes);
  copy_bytes(buffer, data_memory_kind(), message.data(), MemoryKind::host, bytes);
}

std::vector<std::string> circulate_and_check(Ring& ring, const Topology& topology, int round, int channel,
                                             const ExecSpace& exec) {
  const std::size_t bytes = ring.message_bytes();
  // A stream-ordered transport may still be sending the slot that becomes the own message.
  exec.fence();
  write_message(ring.outgoing(), {topology.world_rank(), round, channel}, bytes);
  std::vector<std::string> problems;
  std::vector<int> deliveries(topology.ring_size(), 0);
  int consumed = 0;
  std::vector<unsigned char> received(bytes);
  ring.circulate([&](const void* message, int origin) {
    // The ring promises its own message first, then the left neighbour's, and so on around.
    const int expected_origin = (topology.position() - consumed + topology.ring_size()) % topology.ring_size();
    ++consumed;
    if (origin != expected_origin) {
      problems.push_back("message " + std::to_string(consumed) + " of the round came with origin " +
                         std::to_string(origin) + ", expected " + std::to_string(expected_origin));
      if (origin < 0 || origin >= topology.ring_size()) return;
    }
    ++deliveries[origin];
    // Stream-ordered transports promise the message only to work queued on `exec`.
    exec.fence();
    copy_bytes(received.data(), MemoryKind::host, message, data_memory_kind(), bytes);
    const int origin_rank = topology.ring_index() * topology.ring_size() + origin;
    const std::string mismatch = describe_mismatch(received, {origin_rank, round, channel});
    if (!mismatch.empty()) problems.push_back("from ring position " + std::to_string(origin) + ": " + mismatch);
  }, exec);
  for (int position = 0; position < topology.ring_size(); ++position)
    if (deliveries[position] != 1)
      problems.push_back("ring position " + std::to_string(position) + " delivered " +
                         std::to_string(deliveries[position]) + " times");
  for (auto& p : problems)
    p = "rank " + std::to_string(topology.world_rank()) + ", S=" + std::to_string(topology.ring_size()) +
        ", " + std::to_string(bytes) + " bytes, round " + std::to_string(round) + ": " + p;
  return problems;
}

}  // namespace ringcomm::conformance
