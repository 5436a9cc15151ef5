#include "ringcomm/trace.hpp"

#include <climits>
#include <cstdio>
#include <mutex>
#include <set>
#include <vector>

#include "ringcomm/collective.hpp"
#include "ringcomm/error.hpp"
#include "internal/file.hpp"
#include "ringcomm/phase.hpp"

namespace ringcomm::trace {

namespace detail {
std::atomic<bool> recording{false};
}  // namespace detail

namespace {

struct Event {
  const char* name;
  Clock::time_point begin;
  Clock::time_point end;
  int thread;
};

std::mutex events_mutex;
std::vector<Event> events;
std::size_t event_limit = 0;
std::size_t dropped_events = 0;
Clock::time_point origin;
std::atomic<int> next_thread{0};

// Small stable numbers for the timeline's rows; the first thread to record is 0.
int this_thread_number() {
  thread_local const int number = next_thread.fetch_add(1);
  return number;
}

double microseconds(Clock::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

std::string events_as_json(int rank) {
  std::string out;
  char line[256];
  std::snprintf(line, sizeof line, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"rank %d\"}}",
                rank, rank);
  out += line;
  for (const Event& e : events) {
    std::snprintf(line, sizeof line, ",\n{\"name\":\"%s\",\"cat\":\"ringcomm\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,"
                  "\"ts\":%.3f,\"dur\":%.3f}",
                  e.name, rank, e.thread, microseconds(e.begin - origin), microseconds(e.end - e.begin));
    out += line;
  }
  return out;
}

}  // namespace

void detail::record(const char* name, Clock::time_point begin, Clock::time_point end) {
  const int thread = this_thread_number();
  std::lock_guard<std::mutex> lock(events_mutex);
  if (events.size() >= event_limit) {
    ++dropped_events;
    return;
  }
  events.push_back({name, begin, end, thread});
}

const char* lasting_name(const std::string& name) {
  static std::mutex names_mutex;
  static std::set<std::string> names;  // std::set never moves its strings
  std::lock_guard<std::mutex> lock(names_mutex);
  return names.insert(name).first->c_str();
}

void start(MPI_Comm comm, std::size_t max_events) {
  {
    std::lock_guard<std::mutex> lock(events_mutex);
    events.clear();
    events.reserve(std::min<std::size_t>(max_events, 1 << 16));
    event_limit = max_events;
    dropped_events = 0;
  }
  // Ranks of one host share steady_clock; the barrier lines their origins up to its skew elsewhere.
  barrier(comm);
  origin = Clock::now();
  detail::recording.store(true);
}

std::size_t stop_and_write(MPI_Comm comm, const std::string& path) {
  detail::recording.store(false);
  const PhaseScope phase("trace-write");
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  std::string mine;
  std::size_t count = 0, dropped = 0;
  {
    std::lock_guard<std::mutex> lock(events_mutex);
    mine = events_as_json(rank);
    count = events.size();
    dropped = dropped_events;
    events.clear();
    events.shrink_to_fit();
  }
  if (rank != 0) mine.insert(0, ",\n");
  const long long my_length = static_cast<long long>(mine.size());
  std::vector<long long> lengths(size);
  bounded("MPI_Igather", comm, [&](MPI_Request* r) {
    return MPI_Igather(&my_length, 1, MPI_LONG_LONG, lengths.data(), 1, MPI_LONG_LONG, 0, comm, r);
  });
  unsigned long long totals[2] = {count, dropped}, all[2] = {0, 0};
  bounded("MPI_Ireduce", comm,
          [&](MPI_Request* r) { return MPI_Ireduce(totals, all, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm, r); });

  std::vector<int> counts(size), offsets(size);
  long long total = 0;
  for (int r = 0; r < size; ++r) {
    total += lengths[r];
    counts[r] = static_cast<int>(lengths[r]);
    offsets[r] = static_cast<int>(total - lengths[r]);
  }
  int too_large = rank == 0 && total > INT_MAX;
  bounded("MPI_Ibcast", comm, [&](MPI_Request* r) { return MPI_Ibcast(&too_large, 1, MPI_INT, 0, comm, r); });
  if (too_large) throw Error("the trace of all ranks exceeds 2 GiB; record fewer rounds", true);
  std::vector<char> text(rank == 0 ? static_cast<std::size_t>(total) : 0);
  bounded("MPI_Igatherv", comm, [&](MPI_Request* r) {
    return MPI_Igatherv(mine.data(), static_cast<int>(mine.size()), MPI_CHAR, text.data(), counts.data(),
                        offsets.data(), MPI_CHAR, 0, comm, r);
  });
  if (rank != 0) return 0;

  File file(path, File::Mode::create);
  const std::string head = "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"dropped_events\":" +
                           std::to_string(all[1]) + "},\n\"traceEvents\":[\n";
  file.write(head.data(), head.size());
  file.write(text.data(), text.size());
  const std::string tail = "\n]}\n";
  file.write(tail.data(), tail.size());
  return static_cast<std::size_t>(all[0]);
}

}  // namespace ringcomm::trace
