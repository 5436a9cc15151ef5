#include "peer_exchange.hpp"

#include <cstring>

#include "ringcomm/backend/check.hpp"
#include "ringcomm/backend/mpi_call.hpp"
#include "ringcomm/error.hpp"

namespace ringcomm::ucx_backend {

namespace {

// Length-prefixed fields; both ends run the same build, so host byte order is fine.
void append(std::string& out, const void* bytes, std::size_t length) {
  const std::uint64_t prefix = length;
  out.append(reinterpret_cast<const char*>(&prefix), sizeof prefix);
  out.append(static_cast<const char*>(bytes), length);
}

void append_region(std::string& out, const RegionDescriptor& region) {
  append(out, &region.address, sizeof region.address);
  append(out, region.rkey.data(), region.rkey.size());
}

class Reader {
 public:
  explicit Reader(const std::string& bytes) : bytes_(bytes) {}

  std::string field() {
    std::uint64_t length = 0;
    take(&length, sizeof length);
    std::string value(length, '\0');
    take(value.data(), length);
    return value;
  }

  RegionDescriptor region() {
    RegionDescriptor r;
    r.address = number();
    r.rkey = field();
    return r;
  }

  std::uint64_t number() {
    std::uint64_t value = 0;
    const std::string bytes = field();
    if (bytes.size() != sizeof value) malformed();
    std::memcpy(&value, bytes.data(), sizeof value);
    return value;
  }

 private:
  void take(void* out, std::size_t length) {
    if (bytes_.size() - position_ < length) malformed();
    std::memcpy(out, bytes_.data() + position_, length);
    position_ += length;
  }
  [[noreturn]] static void malformed() {
    throw Error(RINGCOMM_TRANSPORT_PREFIX "malformed setup message from a ring neighbour (ranks run different builds?)");
  }
  const std::string& bytes_;
  std::size_t position_ = 0;
};

std::string encode(const PeerInfo& info) {
  std::string out;
  append(out, info.worker_address.data(), info.worker_address.size());
  append_region(out, info.signals);
  for (const auto& slot : info.slots) append_region(out, slot);
  append(out, &info.slot_bytes, sizeof info.slot_bytes);
  return out;
}

PeerInfo decode(const std::string& bytes) {
  Reader reader(bytes);
  PeerInfo info;
  info.worker_address = reader.field();
  info.signals = reader.region();
  for (auto& slot : info.slots) slot = reader.region();
  info.slot_bytes = reader.number();
  return info;
}

}  // namespace

NeighbourInfo exchange_with_neighbours(MPI_Comm comm, const ChannelSpec& spec, const PeerInfo& mine) {
  const std::string encoded = encode(mine);
  const auto stall = [&](int peer, bool receiving) {
    return channel_stall(spec, receiving ? "the setup message from a neighbour" : "a neighbour to take the setup message",
                         peer);
  };
  const std::string context = RINGCOMM_TRANSPORT_PREFIX "the setup message";
  NeighbourInfo neighbours;
  // Two shifts around the ring; distinct tags keep them apart when left and right coincide.
  neighbours.left = decode(swap_strings_with_neighbours(comm, 1, encoded, spec.send_to, spec.recv_from, spec.timeout_seconds,
                                                        context, stall));
  neighbours.right = decode(swap_strings_with_neighbours(comm, 2, encoded, spec.recv_from, spec.send_to,
                                                         spec.timeout_seconds, context, stall));
  return neighbours;
}

}  // namespace ringcomm::ucx_backend
