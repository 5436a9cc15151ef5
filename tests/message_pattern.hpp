#pragma once
// Ring messages whose every byte says who wrote it, in which round, on which channel and where, so
// that a check can tell a misrouted, stale, mixed or shifted message from the right one.
#include <cstddef>
#include <string>
#include <vector>

#include "ringcomm/ring.hpp"
#include "ringcomm/topology.hpp"

namespace ringcomm::conformance {

struct MessageId {
  int origin = 0;   // world rank that wrote the message
  int round = 0;
  int channel = 0;
};

std::vector<unsigned char> patterned_message(const MessageId& id, std::size_t bytes);

// Empty when `message` is exactly patterned_message(id, …), else what differs.
std::string describe_mismatch(const std::vector<unsigned char>& message, const MessageId& id);

// Writes this rank's message for `round` into `buffer` (data memory).
void write_message(void* buffer, const MessageId& id, std::size_t bytes);

// One round on `ring`, ordered on `exec`: writes this rank's message, circulates it and checks that
// the S messages of the sub-ring arrive once each, from the right origins, byte for byte. Returns
// what went wrong.
std::vector<std::string> circulate_and_check(Ring& ring, const Topology& topology, int round, int channel,
                                             const ExecSpace& exec = ExecSpace());

}  // namespace ringcomm::conformance
