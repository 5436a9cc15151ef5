#pragma once
// What a rank tells its two ring neighbours at setup, sent out of band over MPI.
#include <mpi.h>

#include <array>
#include <cstdint>
#include <string>

#include "ringcomm/transport.hpp"
#include "ucx_memory.hpp"

namespace ringcomm::ucx_backend {

struct PeerInfo {
  std::string worker_address;
  RegionDescriptor signals;  // the counters neighbours write (see ucx_channel.cpp)
  std::array<RegionDescriptor, Channel::kSlots> slots;
  std::uint64_t slot_bytes = 0;  // how much a neighbour may put into each slot
};

struct NeighbourInfo {
  PeerInfo left;   // from recv_from, who writes into my slots
  PeerInfo right;  // from send_to, into whose slots I write
};

// Collective over `comm` (ranks as in spec), bounded by spec.timeout_seconds: the left neighbour is
// spec.recv_from, the right one spec.send_to; they may be the same rank, or this rank itself.
NeighbourInfo exchange_with_neighbours(MPI_Comm comm, const ChannelSpec& spec, const PeerInfo& mine);

}  // namespace ringcomm::ucx_backend
