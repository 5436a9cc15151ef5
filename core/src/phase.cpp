#include "ringcomm/phase.hpp"

#include <mpi.h>

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "ringcomm/settings.hpp"
#include "ringcomm/watchdog.hpp"

namespace ringcomm {

namespace {

thread_local const char* innermost_phase = nullptr;
// The phase some thread entered or returned to last, for the termination report (a signal handler
// cannot read another thread's thread_local).
std::atomic<const char*> latest_phase{nullptr};
char termination_report[256];
std::size_t termination_report_length = 0;

// Async-signal-safe: only write(2), then the default action.
void report_termination(int signal) {
  const char* phase = latest_phase.load();
  if (phase == nullptr) phase = "agreement";
  ssize_t ignored = ::write(2, termination_report, termination_report_length);
  ignored = ::write(2, phase, std::strlen(phase));
  ignored = ::write(2, "\n", 1);
  (void)ignored;
  std::signal(signal, SIG_DFL);
  std::raise(signal);
}

using Clock = std::chrono::steady_clock;

bool mpi_usable() {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  return initialized && !finalized;
}

struct Watch {
  std::uint64_t id;
  std::string rank;
  std::string phase;
  std::string call;
  double seconds;
  Clock::time_point deadline;
};

// The watchdog thread and the calls it watches; never destroyed, so that a watch made during static
// destruction or from any thread finds it.
class Watchdog {
 public:
  static Watchdog& instance() {
    static Watchdog* dog = new Watchdog();
    return *dog;
  }

  std::uint64_t add(Watch watch) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!started_) {
      std::thread([this] { loop(); }).detach();
      started_ = true;
    }
    watch.id = ++last_id_;
    watches_.push_back(std::move(watch));
    changed_.notify_one();
    return last_id_;
  }

  void remove(std::uint64_t id) {
    std::lock_guard<std::mutex> lock(mutex_);
    watches_.erase(std::remove_if(watches_.begin(), watches_.end(), [id](const Watch& w) { return w.id == id; }),
                   watches_.end());
    changed_.notify_one();
  }

  // From now on no watch of this process fires (new ones are still accepted). For the test hook: its
  // stalled rank stands for a frozen process, whose watchdog would not run either.
  void stand_down() {
    std::lock_guard<std::mutex> lock(mutex_);
    stood_down_ = true;
    changed_.notify_one();
  }

 private:
  [[noreturn]] void loop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      if (watches_.empty() || stood_down_) {
        changed_.wait(lock);
        continue;
      }
      const auto earliest = std::min_element(watches_.begin(), watches_.end(), [](const Watch& a, const Watch& b) {
        return a.deadline < b.deadline;
      });
      if (Clock::now() >= earliest->deadline) fire(*earliest);
      const Clock::time_point deadline = earliest->deadline;  // the vector may change while we wait
      changed_.wait_until(lock, deadline);
    }
  }

  [[noreturn]] static void fire(const Watch& w) {
    std::fprintf(stderr,
                 "ringcomm: error on rank %s: phase %s: timed out after %g s (%s) waiting for %s to return; the "
                 "other ranks did not all arrive there (a rank that prints no such line is missing: see its output). "
                 "The watchdog ends the job; if a rank is merely slow, raise %s\n",
                 w.rank.c_str(), w.phase.c_str(), w.seconds, kTimeoutSetting, w.call.c_str(), kTimeoutSetting);
    std::fflush(stderr);
    // The peers' deadlines pass at about the same time: give them a moment to print theirs.
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(2.0, w.seconds)));
    end_job(1);
  }

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Watch> watches_;
  std::uint64_t last_id_ = 0;
  bool started_ = false;
  bool stood_down_ = false;
};

double unix_seconds() {
  using namespace std::chrono;
  return duration<double>(system_clock::now().time_since_epoch()).count();
}

// The calling thread waits here for good; signals still run their handlers, and a signal whose
// action is to end the process (mpirun's SIGTERM, SIGKILL) ends it.
[[noreturn]] void block_forever() {
  for (;;) ::pause();
}

}  // namespace

PhaseScope::PhaseScope(const char* phase) : outer_(innermost_phase) {
  innermost_phase = phase;
  latest_phase.store(phase);
  test_hook::stall_point(phase);
}

PhaseScope::~PhaseScope() {
  innermost_phase = outer_;
  latest_phase.store(outer_);
}

void report_phase_when_terminated() {
  struct sigaction current {};
  if (sigaction(SIGTERM, nullptr, &current) != 0 || current.sa_handler != SIG_DFL) return;  // the application's
  const int length =
      std::snprintf(termination_report, sizeof termination_report,
                    "ringcomm: rank %s was ended from outside (SIGTERM: the job is being aborted, see the other "
                    "ranks' reports for why) while in phase ",
                    rank_label().c_str());
  termination_report_length = length > 0 ? std::min<std::size_t>(length, sizeof termination_report - 1) : 0;
  std::signal(SIGTERM, report_termination);
}

const char* current_phase() { return innermost_phase ? innermost_phase : "agreement"; }

double phase_timeout_seconds() {
  static const double seconds = [] {
    try {
      return timeout_setting();
    } catch (const Error&) {
      return kDefaultTimeoutSeconds;
    }
  }();
  return seconds;
}

std::string rank_label() {
  if (mpi_usable()) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return std::to_string(rank);
  }
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"})
    if (const char* value = std::getenv(name)) return value;
  return "?";
}

BlockingCallWatch::BlockingCallWatch(const char* call, double limit_seconds) {
  Watch watch;
  watch.rank = rank_label();
  watch.phase = current_phase();
  watch.call = call;
  watch.seconds = limit_seconds;
  watch.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit_seconds));
  id_ = Watchdog::instance().add(std::move(watch));
}

BlockingCallWatch::~BlockingCallWatch() { Watchdog::instance().remove(id_); }

void end_job(int status) {
  if (mpi_usable()) MPI_Abort(MPI_COMM_WORLD, status);
  std::_Exit(status);
}

namespace test_hook {

void stall_point(const char* phase) {
  static const std::string target = settings::env("RINGCOMM_TEST_STALL_PHASE").value_or("");
  if (target.empty()) return;
  const auto at = target.rfind('@');
  if (at == std::string::npos || target.compare(0, at, phase) != 0 || at != std::strlen(phase)) return;
  const std::string rank = rank_label();
  if (target.substr(at + 1) != rank) return;
  std::printf("ringcomm test hook: rank %s stops in phase %s at unix time %.6f\n", rank.c_str(), phase, unix_seconds());
  std::fflush(stdout);
  // Not SIGSTOP: mpirun ends a job with SIGCONT, SIGTERM milliseconds later, then SIGKILL. The SIGCONT
  // woke a stopped rank; in start-up it went on into MPI_Init, now and then reached mpirun's PMIx server
  // before the SIGTERM ("PMIX ERROR: UNREACHABLE"), and mpirun then hung for good in its own PMIx
  // shutdown. A blocked thread sleeps through SIGCONT and dies by the SIGTERM, as a rank stuck in a
  // computation does. Its process is not frozen, so its watchdog must stand down (a frozen one would
  // not fire either): only the other ranks may report the stall.
  Watchdog::instance().stand_down();
  block_forever();
}

}  // namespace test_hook
}  // namespace ringcomm
