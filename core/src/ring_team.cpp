#include "ringcomm/ring_team.hpp"

#include <exception>
#include <thread>

#include "ringcomm/registry.hpp"
#include "ringcomm/runtime.hpp"

namespace ringcomm {

bool kernels_run_concurrently() {
#if KOKKOS_VERSION >= 40000
  return true;
#else
  return false;
#endif
}

namespace {

std::vector<ExecSpace> exec_spaces_for(int threads) {
  if (threads == 1) return {ExecSpace()};
#if KOKKOS_VERSION >= 40000
  return Kokkos::Experimental::partition_space(ExecSpace(), std::vector<int>(static_cast<std::size_t>(threads), 1));
#else
  return std::vector<ExecSpace>(static_cast<std::size_t>(threads), ExecSpace());
#endif
}

}  // namespace

void ThreadBarrier::arrive_and_wait() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (broken_) throw Broken();
  const std::size_t mine = generation_;
  if (++waiting_ == threads_) {
    waiting_ = 0;
    ++generation_;
    all_arrived_.notify_all();
    return;
  }
  all_arrived_.wait(lock, [&] { return generation_ != mine || broken_; });
  if (generation_ == mine) throw Broken();
}

void ThreadBarrier::break_all() {
  const std::lock_guard<std::mutex> lock(mutex_);
  broken_ = true;
  all_arrived_.notify_all();
}

RingTeam::RingTeam(Transport& transport, const Topology& topology, std::size_t message_bytes,
                   const WalkerSchedule& schedule)
    : schedule_(schedule), execs_(exec_spaces_for(schedule.threads)), serialise_kernels_(!kernels_run_concurrently()) {
  if (schedule.threads > 1) {
    require_thread_level(topology.world(), MPI_THREAD_MULTIPLE,
                         std::string(kThreadsSetting) + "=" + std::to_string(schedule.threads) +
                             " (each walker thread drives its own ring)");
    // A backend whose declaration refuses walker threads (its exchanges can deadlock across ranks
    // when several threads drive them) is refused before any ring opens.
    const BackendInfo* backend = Registry::instance().find(transport.name());
    if (backend != nullptr && !backend->refuses_walker_threads.empty()) {
      std::string alternatives;
      for (const BackendInfo& other : Registry::instance().backends())
        if (other.refuses_walker_threads.empty()) alternatives += (alternatives.empty() ? "" : ", ") + other.name;
      throw Error(std::string(kThreadsSetting) + "=" + std::to_string(schedule.threads) + " with the '" +
                      transport.name() + "' transport: " + backend->refuses_walker_threads + "; use " +
                      kThreadsSetting + "=1 with '" + transport.name() + "', or a transport that allows walker threads (" +
                      alternatives + ")",
                  true);
    }
  }
  rings_per_thread_ = directions_of_thread(schedule, 0).size();
  // Opened one after another on the calling thread: opening is collective, and every rank opens the
  // same rings in the same order.
  for (int thread = 0; thread < schedule.threads; ++thread)
    for (const Direction direction : directions_of_thread(schedule, thread)) {
      owned_.push_back(std::make_unique<Ring>(transport, topology, message_bytes,
                                              RingOptions{channel_id_of(thread, direction), direction, schedule.steps}));
      rings_.push_back(owned_.back().get());
    }
}

RingTeam::RingTeam(Ring& ring) : rings_{&ring}, execs_{ExecSpace()}, serialise_kernels_(false) {
  schedule_.steps = ring.schedule();
}

Ring& RingTeam::ring(int thread, std::size_t round) {
  const std::size_t first = static_cast<std::size_t>(thread) * rings_per_thread_;
  return *rings_[first + (rings_per_thread_ == 1 ? 0 : round % rings_per_thread_)];
}

std::size_t RingTeam::buffer_bytes() const {
  std::size_t bytes = 0;
  for (const Ring* ring : rings_) bytes += ring->buffer_bytes();
  return bytes;
}

std::size_t RingTeam::staging_bytes() const {
  std::size_t bytes = 0;
  for (const Ring* ring : rings_) bytes += ring->buffer_bytes() - Channel::kSlots * ring->message_bytes();
  return bytes;
}

std::vector<RingCounters> RingTeam::counters() const {
  std::vector<RingCounters> all;
  for (const Ring* ring : rings_) all.push_back(ring->counters());
  return all;
}

std::unique_lock<std::mutex> RingTeam::kernel_lock() {
  return serialise_kernels_ ? std::unique_lock<std::mutex>(kernel_mutex_) : std::unique_lock<std::mutex>();
}

void RingTeam::run(const std::function<void(int)>& body, ThreadBarrier* barrier) const {
  std::vector<std::exception_ptr> failures(static_cast<std::size_t>(threads()));
  auto guarded = [&](int thread) {
    try {
      body(thread);
    } catch (...) {
      failures[static_cast<std::size_t>(thread)] = std::current_exception();
      if (barrier != nullptr) barrier->break_all();
    }
  };
  std::vector<std::thread> others;
  for (int thread = 1; thread < threads(); ++thread) others.emplace_back(guarded, thread);
  guarded(0);
  for (auto& t : others) t.join();
  // A broken barrier only echoes another thread's failure: report the cause.
  std::exception_ptr echo;
  for (const auto& failure : failures) {
    if (!failure) continue;
    try {
      std::rethrow_exception(failure);
    } catch (const ThreadBarrier::Broken&) {
      echo = failure;
    }
  }
  if (echo) std::rethrow_exception(echo);
}

}  // namespace ringcomm
