#include "bench_support.hpp"

#include <Kokkos_Core.hpp>
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ringcomm/collective.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/ring.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm::bench {

ChannelStepper::ChannelStepper(Channel& channel) : channel_(channel), stream_(stream_of(ExecSpace())) {}

void ChannelStepper::step() {
  channel_.start(current_, 1 - current_, stream_);
  channel_.finish(stream_);
  current_ = 1 - current_;
}

void ChannelStepper::drain() { channel_.drain(stream_); }

std::vector<TransportUnderTest> open_transports(MPI_Comm world, const std::vector<std::string>& names,
                                                MemoryKind memory) {
  std::vector<std::string> wanted = names;
  if (wanted.empty())
    for (const auto& backend : Registry::instance().backends()) wanted.push_back(backend.name);
  TransportContext ctx;
  ctx.world = world;
  ctx.memory = memory;
  std::vector<TransportUnderTest> out;
  for (const auto& name : wanted) {
    TransportUnderTest t;
    t.name = name;
    // The probe's own verdict, not the text of select_transport's error.
    const BackendInfo* backend = Registry::instance().find(name);
    const Usability usable = backend != nullptr ? probe_on_all_ranks(*backend, ctx)
                                                : Usability::no("not compiled into this ringcomm");
    if (usable.usable) t.transport = select_transport(name, ctx).transport;
    else t.skipped = usable.reason;
    out.push_back(std::move(t));
  }
  return out;
}

json::Value skipped_as_json(const TransportUnderTest& t) {
  json::Value v = json::Value::object();
  v["transport"] = t.name;
  v["skipped"] = t.skipped;
  return v;
}

std::vector<std::size_t> size_ladder(std::size_t first, std::size_t last, std::size_t factor,
                                     const std::vector<std::size_t>& extra) {
  std::vector<std::size_t> sizes = extra;
  for (std::size_t bytes = std::max<std::size_t>(first, 1); bytes <= last; bytes *= std::max<std::size_t>(factor, 2))
    sizes.push_back(bytes);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

std::vector<std::size_t> parse_size_list(const std::string& text, const std::string& setting) {
  std::vector<std::size_t> sizes;
  for (const auto& part : settings::split(text, ',')) {
    const std::size_t bytes = settings::parse_bytes(part, setting);
    if (bytes == 0) throw Error(setting + ": a message needs at least one byte");
    sizes.push_back(bytes);
  }
  return size_ladder(1, 0, 2, sizes);
}

double median(std::vector<double> values) {
  if (values.empty()) return NAN;
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2) return *middle;
  return 0.5 * (*middle + *std::max_element(values.begin(), middle));
}

void interleave(std::size_t variants, int samples, const std::function<void(std::size_t variant, int sample)>& run) {
  for (int sample = 0; sample < samples; ++sample)
    for (std::size_t i = 0; i < variants; ++i) run((static_cast<std::size_t>(sample) + i) % variants, sample);
}

double seconds_per_step(MPI_Comm comm, long count, const std::function<void()>& step,
                        const std::function<void()>& drain) {
  MPI_Barrier(comm);
  const double start = MPI_Wtime();
  for (long i = 0; i < count; ++i) step();
  drain();
  double seconds = (MPI_Wtime() - start) / static_cast<double>(count);
  MPI_Allreduce(MPI_IN_PLACE, &seconds, 1, MPI_DOUBLE, MPI_MAX, comm);
  return seconds;
}

long steps_for(MPI_Comm comm, double one_step_seconds, double sample_seconds, long at_least, long at_most) {
  double steps = sample_seconds / std::max(one_step_seconds, 1e-9);
  // Every rank must loop the same number of times, or the collectives inside the steps would not match.
  MPI_Allreduce(MPI_IN_PLACE, &steps, 1, MPI_DOUBLE, MPI_MIN, comm);
  return std::clamp(static_cast<long>(steps), at_least, at_most);
}

void fence_data_memory() { Kokkos::DefaultExecutionSpace().fence(); }

namespace {
using Bytes = Kokkos::View<unsigned char*, Kokkos::DefaultExecutionSpace::memory_space,
                           Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
using Policy = Kokkos::RangePolicy<Kokkos::DefaultExecutionSpace, Kokkos::IndexType<std::int64_t>>;

KOKKOS_INLINE_FUNCTION unsigned char pattern_byte(std::int64_t position, int seed) {
  // Multiplying by an odd constant makes neighbouring bytes and neighbouring seeds differ.
  return static_cast<unsigned char>((static_cast<std::uint64_t>(position) * 2654435761u + 97u * seed) >> 7);
}
}  // namespace

void fill_pattern(void* data, std::size_t bytes, int seed) {
  const Bytes view(static_cast<unsigned char*>(data), bytes);
  Kokkos::parallel_for(
      "ringcomm::bench::fill_pattern", Policy(0, static_cast<std::int64_t>(bytes)),
      KOKKOS_LAMBDA(const std::int64_t i) { view(i) = pattern_byte(i, seed); });
  Kokkos::fence();
}

std::size_t count_mismatches(const void* data, std::size_t bytes, int seed) {
  const Bytes view(static_cast<unsigned char*>(const_cast<void*>(data)), bytes);
  std::size_t wrong = 0;
  Kokkos::parallel_reduce(
      "ringcomm::bench::count_mismatches", Policy(0, static_cast<std::int64_t>(bytes)),
      KOKKOS_LAMBDA(const std::int64_t i, std::size_t& sum) { sum += view(i) != pattern_byte(i, seed) ? 1 : 0; },
      wrong);
  return wrong;
}

double gigabytes_per_second(std::size_t bytes, double seconds) {
  return static_cast<double>(bytes) / seconds / 1e9;
}

}  // namespace ringcomm::bench
