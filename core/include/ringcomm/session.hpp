#pragma once
// ringcomm::Session: the front door for a Monte Carlo code.
//
//   return ringcomm::run(argc, argv, [](ringcomm::Session& session) {   // MPI, Kokkos, settings, errors
//     auto& histogram = session.array<double>(256, "histogram");       // this rank's slice of 256 bins
//     auto& messages = session.messages<unsigned char>(10000);         // every walker thread's ring
//     messages.run(rounds, produce, consume);                          // produce → ring → consume
//     histogram.sum_across_rings();
//     std::vector<double> all = histogram.gather();                    // on rank 0
//     return 0;
//   });
//
// The session is the one place where every RINGCOMM_* setting is read (session_settings.hpp: the
// environment, or the program's SessionSettings), checked for agreement across ranks and applied:
// transport (a list takes the first usable), ring size (auto included), walker threads, direction,
// overlap, timeout, checkpoint and chunk settings. It owns the topology, the transport, the rings of
// every walker thread and the distributed arrays it hands out, so none of them can outlive what it
// refers to: references it returns are valid until the session ends.
//
// Messages are typed: produce writes a Kokkos::View<T*> of the message's `count` elements, consume
// reads a Kokkos::View<const T*>; the fences around writing a message are done here. The expert
// layer (Topology, Transport, Ring, RingTeam) remains for programs that need to arrange rings
// themselves; it applies no settings of its own except RINGCOMM_TIMEOUT (docs/embedding.md).
#include <Kokkos_Core.hpp>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <typeinfo>
#include <vector>

#include "ringcomm/collective.hpp"
#include "ringcomm/distributed_array.hpp"
#include "ringcomm/ring_team.hpp"
#include "ringcomm/session_settings.hpp"
#include "ringcomm/topology.hpp"
#include "ringcomm/transport.hpp"

namespace ringcomm {

// What produce is told about the message it writes.
struct ProduceContext {
  int thread = 0;                // walker thread of this rank, 0 … threads−1
  std::size_t round = 0;         // 0 … rounds−1 of that thread
  std::uint64_t measurement = 0;  // unique over the job: (round · threads + thread) · ranks + world rank
  ExecSpace exec;                // the thread's execution space instance: launch kernels on it
};

// What consume is told about the message it reads.
struct ConsumeContext {
  int origin = 0;  // ring position of the rank that produced it
  int thread = 0;  // walker thread (consumes of different threads run at the same time)
  ExecSpace exec;  // launch kernels on it; they may still run when consume returns
};

// A readable name of T for messages that tell ranks apart ("double", "float", "4-byte type i" …).
template <class T>
std::string element_type_name() {
  if constexpr (std::is_same_v<T, double> || std::is_same_v<T, float> || std::is_same_v<T, Kokkos::complex<double>> ||
                std::is_same_v<T, Kokkos::complex<float>>)
    return ScalarLayout<T>::name;
  else
    return std::to_string(sizeof(T)) + "-byte type " + typeid(T).name();
}

// Throws unless a message of `expected` elements of `expected_type` is given one of `given` elements
// of `given_type` (names from element_type_name).
void check_message_shape(const std::string& expected_type, std::size_t expected, const std::string& given_type,
                         std::size_t given, const std::string& what);

// Copies `count` host values into a message, checking type and size first.
template <class T, class Source>
void copy_into_message(const Kokkos::View<T*, Kokkos::MemoryUnmanaged>& message, const Source* host, std::size_t count,
                       const ExecSpace& exec) {
  check_message_shape(element_type_name<T>(), message.extent(0), element_type_name<Source>(), count,
                      "copy_into_message");
  Kokkos::deep_copy(exec, message, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryUnmanaged>(
                                       reinterpret_cast<const T*>(host), count));
}

// The rings of every walker thread for messages of `count` elements of T. Made by Session::messages.
template <class T>
class MessageRings {
 public:
  using Message = Kokkos::View<T*, Kokkos::MemoryUnmanaged>;
  using ConstMessage = Kokkos::View<const T*, Kokkos::MemoryUnmanaged>;

  MessageRings(Transport& transport, const Topology& topology, std::size_t count, const WalkerSchedule& schedule)
      : count_(count),
        ranks_(topology.world_size()),
        rank_(topology.world_rank()),
        team_((check_message_agreement(topology, count), transport), topology, count * sizeof(T), schedule) {}

  std::size_t count() const { return count_; }
  std::size_t message_bytes() const { return count_ * sizeof(T); }
  const WalkerSchedule& schedule() const { return team_.schedule(); }
  int threads() const { return team_.threads(); }
  // Walker thread `thread`'s execution space instance (ProduceContext::exec, ConsumeContext::exec).
  const ExecSpace& exec(int thread) const { return team_.exec(thread); }
  RingTeam& team() { return team_; }  // the expert layer underneath

  // Collective over the world: every walker thread of every rank runs `rounds` rounds; in each it
  //   produce(Message message, const ProduceContext&)       writes its measurement's message, then
  //   consume(ConstMessage message, const ConsumeContext&)  is called with each of the S messages of
  //                                                         the sub-ring (its own included).
  // produce runs on the walker thread and may launch kernels on context.exec; the session fences
  // before it (earlier consumes may still read the slot) and after it (the exchange sends the slot).
  // consume may return before its kernels end; consumes of different threads run at the same time
  // and must not race on shared data (use atomics). Returns when all is done (a fence).
  template <class Produce, class Consume>
  void run(std::size_t rounds, Produce&& produce, Consume&& consume) {
    static_assert(std::is_invocable_v<Produce&, const Message&, const ProduceContext&>,
                  "produce must accept (Kokkos::View<T*> message, const ringcomm::ProduceContext&) with this "
                  "session's message element type T");
    static_assert(std::is_invocable_v<Consume&, const ConstMessage&, const ConsumeContext&>,
                  "consume must accept (Kokkos::View<const T*> message, const ringcomm::ConsumeContext&) with "
                  "this session's message element type T");
    team_.run([&](int thread) {
      const ExecSpace& exec = team_.exec(thread);
      for (std::size_t round = 0; round < rounds; ++round) {
        Ring& ring = team_.ring(thread, round);
        const Message message(static_cast<T*>(ring.outgoing()), count_);
        const std::uint64_t measurement =
            (static_cast<std::uint64_t>(round) * team_.threads() + thread) * ranks_ + rank_;
        {
          auto lock = team_.kernel_lock();
          exec.fence();  // consumes of an earlier round may still read this slot
          produce(message, ProduceContext{thread, round, measurement, exec});
          exec.fence();  // a host-completing transport sends the slot as soon as the round starts
        }
        ring.circulate(
            [&](const void* data, int origin) {
              auto lock = team_.kernel_lock();
              consume(ConstMessage(static_cast<const T*>(data), count_), ConsumeContext{origin, thread, exec});
            },
            exec);
      }
    });
    Kokkos::fence();
  }

 private:
  static void check_message_agreement(const Topology& topology, std::size_t count) {
    check_identical(topology.world(),
                    {{"message element type", element_type_name<T>() + " (" + std::to_string(sizeof(T)) + " bytes)"},
                     {"message elements", std::to_string(count)}},
                    "the message type and size (Session::messages)");
    agree(topology.world(), count > 0, "a message needs at least one element");
  }

  std::size_t count_;
  int ranks_;
  int rank_;
  RingTeam team_;
};

class Session {
 public:
  // Collective over `world` (MPI and Kokkos must be up: use ringcomm::run, or run_main): reads and
  // checks every setting, agrees on them and selects the transport. The ring size is decided when
  // the first array or message set is asked for (RINGCOMM_RING_SIZE=auto sizes it for that one).
  explicit Session(const SessionSettings& settings = {}, MPI_Comm world = MPI_COMM_WORLD);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  MPI_Comm world() const { return world_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  const ResolvedSettings& settings() const { return settings_; }
  const WalkerSchedule& schedule() const { return settings_.schedule; }
  Transport& transport() { return *transport_; }
  // Why earlier transports of the request were passed over.
  const std::vector<std::string>& transport_notes() const { return transport_notes_; }

  // Collective. The topology; decides the ring size now if nothing did yet, RINGCOMM_RING_SIZE=auto
  // sizing it for `needs` (array() and messages() pass theirs).
  const Topology& topology(const RingMemoryNeeds& needs = {});

  // Collective: an array of `entries` values of T cut over each sub-ring, zeroed, owned by the session.
  template <class T>
  DistributedArray<T>& array(std::size_t entries, const std::string& label = "array") {
    RingMemoryNeeds needs;
    needs.gt_entries = entries;
    needs.scalar_bytes = sizeof(T);
    auto owned = std::make_shared<DistributedArray<T>>(topology(needs), entries, label);
    Kokkos::deep_copy(owned->local(), T{});
    arrays_.push_back(owned);
    return *owned;
  }

  // Collective: the rings of every walker thread for messages of `count` elements of T, owned by
  // the session. Every rank must ask for the same type and count (else the same Error everywhere).
  template <class T>
  MessageRings<T>& messages(std::size_t count) {
    auto owned =
        std::make_shared<MessageRings<T>>(*transport_, topology(message_needs(count * sizeof(T))), count, schedule());
    message_rings_.push_back(owned);
    return *owned;
  }

  // What the rings of every walker thread need on a rank for messages of `message_bytes`.
  RingMemoryNeeds message_needs(std::size_t message_bytes) const;

  // One line: transport, ranks, sub-rings and walker schedule, e.g.
  // "transport host, 3 ranks, 1 sub-ring(s) of S=3, 1 thread(s), unidirectional, overlap".
  std::string describe();

 private:
  MPI_Comm world_;
  int rank_ = 0;
  int ranks_ = 1;
  ResolvedSettings settings_;
  bool overrides_installed_ = false;
  // Declared in the order they are built; destroyed in reverse, so rings go before what they use.
  std::unique_ptr<Transport> transport_;
  std::vector<std::string> transport_notes_;
  std::unique_ptr<Topology> topology_;
  std::vector<std::shared_ptr<void>> arrays_;
  std::vector<std::shared_ptr<void>> message_rings_;
};

// MPI (with MPI_THREAD_MULTIPLE when the settings ask for walker threads), Kokkos, a Session and
// the error policy of run_main around body(session): an Error becomes one
// "ringcomm: error on rank R: …" line per rank and exit status 1. Returns the exit status.
int run(int& argc, char**& argv, const std::function<int(Session&)>& body, const SessionSettings& settings = {});

}  // namespace ringcomm
