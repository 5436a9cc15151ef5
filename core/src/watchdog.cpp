#include "ringcomm/watchdog.hpp"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <thread>
#include <utility>

#include "ringcomm/settings.hpp"

namespace ringcomm {

namespace {

constexpr double kShortestTimeoutSeconds = 0.001;
constexpr double kLongestTimeoutSeconds = 365.0 * 24 * 3600;

std::string seconds_text(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", seconds);
  return text;
}

std::string timeout_message(const Stall& stall, double seconds, const std::string& ring_context) {
  std::ostringstream msg;
  if (!stall.phase.empty()) msg << "phase " << stall.phase << ": ";
  if (!stall.transport.empty()) msg << stall.transport << " transport: ";
  msg << "timed out after " << seconds_text(seconds) << " s (" << kTimeoutSetting
      << ") waiting for " << stall.waiting_for;
  if (stall.peer >= 0) msg << " (ring position " << stall.peer << ")";
  if (stall.channel >= 0) msg << " on channel " << stall.channel;
  if (stall.bytes_outstanding > 0) msg << ", " << stall.bytes_outstanding << " bytes outstanding";
  if (!stall.detail.empty()) msg << "; " << stall.detail;
  if (!ring_context.empty()) msg << "; " << ring_context;
  msg << (stall.transport.empty() ? ". A rank may have died or hung (see its output)"
                                   : ". The peer may have died or hung (see its output)")
      << "; if it is merely slow, raise " << kTimeoutSetting;
  return msg.str();
}

}  // namespace

double parse_timeout(const std::string& text, const std::string& setting) {
  return settings::parse_real(text, setting, kShortestTimeoutSeconds, kLongestTimeoutSeconds);
}

double timeout_setting() {
  const auto text = settings::env(kTimeoutSetting);
  if (!text) return kDefaultTimeoutSeconds;
  return parse_timeout(*text, kTimeoutSetting);
}

TimeoutError::TimeoutError(Stall stall, double seconds, std::string ring_context)
    : Error(timeout_message(stall, seconds, ring_context)),
      stall_(std::move(stall)),
      seconds_(seconds),
      ring_context_(std::move(ring_context)) {}

double abort_grace_seconds(const TimeoutError& error) { return std::min(2.0, error.seconds()); }

namespace watchdog_detail {

// Spinning first keeps the latency of a step that completes a moment later at the poll's cost; a
// longer wait yields the core between polls, since ranks may share it. Waits never sleep: MPI and UCX
// move data only while someone polls them (a large message over shared memory travels in fragments,
// each handed on by a progress call), so a sleeping waiter would slow the very transfer it waits for.
void pause(unsigned polls) {
  constexpr unsigned kSpinPolls = 64;
  if (polls >= kSpinPolls) std::this_thread::yield();
}

}  // namespace watchdog_detail
}  // namespace ringcomm
