#include <sstream>
#include <utility>

#include "ringcomm/collective.hpp"
#include "ringcomm/transport.hpp"

namespace ringcomm {

void verify_channel_spec(const ChannelSpec& spec, const std::string& transport) {
  const std::string context = "the message size of " + transport + " channel " + std::to_string(spec.id);
  check_identical(spec.comm, {{"message bytes", std::to_string(spec.bytes)}, {"channel id", std::to_string(spec.id)}},
                  context);
  // Each rank must receive from the rank that sends to it; every rank checks the same gathered list,
  // so all of them reach the same verdict.
  const auto all = allgather_strings(spec.comm, std::to_string(spec.send_to) + " " + std::to_string(spec.recv_from));
  const int size = static_cast<int>(all.size());
  std::vector<int> send_to(size), recv_from(size);
  for (int r = 0; r < size; ++r) {
    std::istringstream fields(all[r]);
    fields >> send_to[r] >> recv_from[r];
  }
  std::ostringstream problems;
  for (int r = 0; r < size; ++r) {
    const int to = send_to[r];
    if (to < 0 || to >= size) problems << "\n  rank " << r << " sends to rank " << to << ", which is not in the ring";
    else if (recv_from[to] != r)
      problems << "\n  rank " << r << " sends to rank " << to << ", which receives from rank " << recv_from[to];
  }
  if (!problems.str().empty())
    throw Error(transport + " channel " + std::to_string(spec.id) + ": the ranks' neighbours do not form a ring:" +
                    problems.str(),
                true);
}

Stall channel_stall(const ChannelSpec& spec, std::string waiting_for, int peer, std::size_t bytes_outstanding,
                    std::string detail) {
  if (detail.empty())
    detail = "sending to ring position " + std::to_string(spec.send_to) + ", receiving from ring position " +
             std::to_string(spec.recv_from);
  return Stall{spec.transport, std::move(waiting_for), spec.id, peer, bytes_outstanding, std::move(detail), {}};
}

std::unique_ptr<Channel> Transport::open_channel(const ChannelSpec& spec) {
  verify_channel_spec(spec, name());
  ChannelSpec named = spec;
  named.transport = name();
  return open(named);
}

namespace {

class OpenerTransport final : public Transport {
 public:
  OpenerTransport(Capabilities capabilities, ChannelOpener open) : Transport(capabilities), open_(std::move(open)) {}

 protected:
  std::unique_ptr<Channel> open(const ChannelSpec& spec) override { return open_(spec); }

 private:
  ChannelOpener open_;
};

}  // namespace

std::unique_ptr<Transport> make_transport(Capabilities capabilities, ChannelOpener open) {
  return std::make_unique<OpenerTransport>(capabilities, std::move(open));
}

}  // namespace ringcomm
