#pragma once
// The transport interface: how one rank moves a fixed-size message to one neighbour while receiving
// one from another, over and over with the same buffers.
//
// A Transport opens Channels. A Channel owns exactly two message slots that are allocated and
// registered once (MPI persistent requests, UCX rkeys, NCCL buffers all want this) and reused for
// every ring step: step k sends slot a and receives into slot b, step k+1 sends b and receives into a.
// Several threads of a rank may each own a channel; channels never share mutable state.
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>

#include "ringcomm/memory.hpp"
#include "ringcomm/watchdog.hpp"

namespace ringcomm {

// A native stream (cudaStream_t on CUDA builds) on which a stream-ordered transport enqueues its
// work; null on CPU builds.
struct StreamRef {
  void* native = nullptr;
};

struct Capabilities {
  bool device_memory = false;   // moves device-resident slots without the caller staging them
  bool host_staging = false;    // copies through host buffers internally
  bool one_sided = false;       // remote writes (RMA put) instead of matched send/receive
  bool stream_ordered = false;  // exchange completes in stream order; no host synchronisation

  // A backend that moves slots wherever they live: device_memory exactly when they are on the device.
  static Capabilities for_slots_in(MemoryKind memory) {
    Capabilities caps;
    caps.device_memory = memory == MemoryKind::device;
    return caps;
  }
};

std::string describe(const Capabilities& caps);

// What a backend is told when probed and created.
struct TransportContext {
  MPI_Comm world = MPI_COMM_WORLD;  // bootstrap communicator (out-of-band exchange)
  MemoryKind memory = data_memory_kind();  // where slots must live: by default where this build keeps ring buffers
};

struct ChannelSpec {
  MPI_Comm comm = MPI_COMM_NULL;  // the sub-ring; collective over it
  int send_to = -1;               // rank in comm
  int recv_from = -1;             // rank in comm
  std::size_t bytes = 0;          // message size, identical on every rank
  int id = 0;                     // same on every rank: thread i uses channel i of its neighbours
  double timeout_seconds = kDefaultTimeoutSeconds;  // bound of every wait (RINGCOMM_TIMEOUT; watchdog.hpp)
  std::string transport;          // set by Transport::open_channel: the backend's name, for its messages
};

// Collective over spec.comm. Transport::open_channel calls it before any backend sees the spec:
// ranks that open one channel with different message sizes, ids or neighbours get the same
// collective Error naming the values, instead of a transfer that overruns a slot or waits forever.
// `transport` names the backend in the message.
void verify_channel_spec(const ChannelSpec& spec, const std::string& transport);

// The Stall of a wait of the channel `spec` opened, naming the backend and the channel: the one way a
// backend describes what it waited for. `peer` (-1: not one) and `bytes_outstanding` (0: not known)
// as in Stall; an empty `detail` names both neighbours.
Stall channel_stall(const ChannelSpec& spec, std::string waiting_for, int peer = -1, std::size_t bytes_outstanding = 0,
                    std::string detail = {});

class Channel {
 public:
  static constexpr int kSlots = 2;
  virtual ~Channel() = default;

  virtual void* slot(int index) = 0;
  virtual const ChannelSpec& spec() const = 0;

  // Starts sending slot `send` to spec().send_to and receiving into slot `recv` from
  // spec().recv_from. Stream-ordered transports order the exchange after the work queued on
  // `stream` so far; they may run it on a stream of their own, so that work queued on `stream`
  // between start() and finish() (which may read, but not write, either slot) runs alongside it.
  virtual void start(int send, int recv, StreamRef stream) = 0;
  // After finish() returns, the received slot may be consumed on the host, or — for stream-ordered
  // transports — by work queued on `stream` from then on; the sent slot may be overwritten likewise.
  // Every wait is bounded by spec().timeout_seconds and ends in a TimeoutError (watchdog.hpp).
  virtual void finish(StreamRef stream) = 0;

  // Stream-ordered transports: returns once everything queued on `stream` has completed, or throws
  // a TimeoutError after spec().timeout_seconds (after aborting the exchange where the library
  // allows). Ring calls it at the end of each circulate(), so a dead peer cannot leave the host
  // blocked in a later fence. Host-completing transports have nothing left to wait for.
  virtual void drain(StreamRef /*stream*/) {}

  // Bytes of buffers this channel allocated beyond its two slots (staging, bounce buffers).
  virtual std::size_t extra_bytes() const { return 0; }
};

// The contract core enforces: every channel is opened through open_channel, which verifies the spec
// on all ranks of spec.comm before the backend's open() sees it.
class Transport {
 public:
  explicit Transport(Capabilities capabilities) : capabilities_(capabilities) {}
  virtual ~Transport() = default;
  Transport(const Transport&) = delete;
  Transport& operator=(const Transport&) = delete;

  // The backend's declared name (its folder under backends/); set by the registry that created it.
  const std::string& name() const { return name_; }
  const Capabilities& capabilities() const { return capabilities_; }
  // Collective over spec.comm: verify_channel_spec, then the backend's open() with spec.transport set.
  std::unique_ptr<Channel> open_channel(const ChannelSpec& spec);

 protected:
  // The backend's part: collective over spec.comm; `spec` is verified and names the backend.
  virtual std::unique_ptr<Channel> open(const ChannelSpec& spec) = 0;

 private:
  friend class Registry;
  std::string name_;
  Capabilities capabilities_;
};

// What opens a verified ChannelSpec; the state a backend's channels share lives in its captures.
using ChannelOpener = std::function<std::unique_ptr<Channel>(const ChannelSpec& spec)>;

// A Transport that opens its channels with `open`: all a backend needs unless it wants a class of its own.
std::unique_ptr<Transport> make_transport(Capabilities capabilities, ChannelOpener open);

}  // namespace ringcomm
