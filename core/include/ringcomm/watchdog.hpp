#pragma once
// Deadlines for every wait of a ring step, so that a peer that died or hung is reported instead of
// leaving its neighbours waiting forever.
//
// A backend waits through wait_until(ready, limit, describe): the first call of ready() costs no
// clock read, so an exchange that has already completed pays nothing; after that ready() is polled
// (spinning, then yielding the core between polls; never sleeping, as the transports progress only
// while polled) until it holds or the limit passes, when a TimeoutError describes who waited for what.
//
// The limit is RINGCOMM_TIMEOUT seconds (default 300), read once per ring (Ring's constructor) and
// carried to the backends in ChannelSpec::timeout_seconds. A TimeoutError is local (only this rank
// knows it waited too long), so run_main aborts the job after it is printed.
#include <chrono>
#include <cstddef>
#include <string>

#include "ringcomm/error.hpp"

namespace ringcomm {

constexpr const char* kTimeoutSetting = "RINGCOMM_TIMEOUT";
constexpr double kDefaultTimeoutSeconds = 300;

// RINGCOMM_TIMEOUT in seconds, or the default when unset; throws a (local) Error naming the variable
// and the allowed values when it is not a number of seconds in range.
double timeout_setting();
// The one parser of RINGCOMM_TIMEOUT's values (named `setting` in errors); local.
double parse_timeout(const std::string& text, const std::string& setting);

// What a wait was waiting for, for the message of its TimeoutError.
struct Stall {
  std::string transport;    // the backend's name (ChannelSpec::transport); empty for a wait outside ring steps
  std::string waiting_for;  // e.g. "the message from the left neighbour"
  int channel = -1;         // ChannelSpec::id
  int peer = -1;            // the neighbour's position in the sub-ring; -1: not one peer
  std::size_t bytes_outstanding = 0;  // 0: not known (left out of the message)
  std::string detail;       // anything else that helps (which requests are still pending, …)
  std::string phase;        // phase.hpp's name ("ring-step", "reduction" …); empty: not known
};

class TimeoutError : public Error {
 public:
  TimeoutError(Stall stall, double seconds, std::string ring_context = {});

  const Stall& stall() const { return stall_; }
  double seconds() const { return seconds_; }
  const std::string& ring_context() const { return ring_context_; }
  // The same error, placed in the ring (sub-ring, step, position); see Ring::circulate.
  // Named phase "ring-step" unless the stall names another.
  TimeoutError in_ring(const std::string& ring_context) const {
    Stall stall = stall_;
    if (stall.phase.empty()) stall.phase = "ring-step";
    return TimeoutError(stall, seconds_, ring_context);
  }

 private:
  Stall stall_;
  double seconds_;
  std::string ring_context_;
};

// How long a rank that timed out waits before it aborts the job: its peers, whose deadlines pass
// at about the same time, then report what they waited for too.
double abort_grace_seconds(const TimeoutError& error);

namespace watchdog_detail {
// What a waiter does between its polls; see the file comment.
void pause(unsigned polls);
}  // namespace watchdog_detail

// Polls ready() until it returns true; throws TimeoutError(describe(), limit_seconds) once
// limit_seconds have passed without that. describe() runs only then.
template <class Ready, class Describe>
void wait_until(Ready&& ready, double limit_seconds, Describe&& describe) {
  if (ready()) return;
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  const auto limit = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_seconds));
  for (unsigned polls = 1;; ++polls) {
    if (ready()) return;
    if (Clock::now() - start >= limit) throw TimeoutError(describe(), limit_seconds);
    watchdog_detail::pause(polls);
  }
}

}  // namespace ringcomm
