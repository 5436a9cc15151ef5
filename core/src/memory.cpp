#include "ringcomm/memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <Kokkos_Core.hpp>
#include <atomic>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <utility>

#include "ringcomm/error.hpp"

namespace ringcomm {

namespace {
using DeviceSpace = Kokkos::DefaultExecutionSpace::memory_space;
#ifdef KOKKOS_ENABLE_CUDA
using PinnedSpace = Kokkos::CudaHostPinnedSpace;
#else
using PinnedSpace = Kokkos::HostSpace;
#endif

std::atomic<std::size_t> live_bytes{0};
std::atomic<std::size_t> high_water_bytes{0};
std::atomic<std::uint64_t> allocation_count{0};

void raise_high_water(std::size_t live) {
  std::size_t seen = high_water_bytes.load(std::memory_order_relaxed);
  while (live > seen && !high_water_bytes.compare_exchange_weak(seen, live, std::memory_order_relaxed)) {
  }
}

std::atomic<int> ranks_on_node{1};

// The process's virtual size (/proc/self/statm, first field), which RLIMIT_AS bounds.
std::size_t virtual_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  statm >> pages;
  return pages * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

MemoryInfo host_memory() {
  MemoryInfo info;
  info.source = "/proc/meminfo MemAvailable";
  if (const char* fake = std::getenv("RINGCOMM_TEST_NODE_MEMORY")) {
    // Test hook: a node of this many bytes, all available (tests/fault_regressions.cmake).
    info.total_bytes = info.free_bytes = std::strtoull(fake, nullptr, 10);
    info.source = "RINGCOMM_TEST_NODE_MEMORY";
  } else {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    std::size_t value_kib = 0;
    std::string unit;
    while (meminfo >> key >> value_kib >> unit) {
      if (key == "MemTotal:") info.total_bytes = value_kib * 1024;
      if (key == "MemAvailable:") info.free_bytes = value_kib * 1024;
    }
  }
  // The job's ranks on this node draw on the same memory: each may count on its share only.
  const int sharing = ranks_on_node.load();
  if (sharing > 1) {
    info.free_bytes /= static_cast<std::size_t>(sharing);
    info.source += " divided among the " + std::to_string(sharing) + " ranks on this node";
  }
  struct rlimit limit {};
  if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    const std::size_t used = virtual_bytes();
    const std::size_t left = limit.rlim_cur > used ? static_cast<std::size_t>(limit.rlim_cur) - used : 0;
    if (left < info.free_bytes) {
      info.free_bytes = left;
      info.source += ", capped by the address-space limit (ulimit -v)";
    }
  }
  return info;
}
}  // namespace

AllocationStats allocation_stats() {
  return {live_bytes.load(), high_water_bytes.load(), allocation_count.load()};
}

void reset_allocation_high_water() { high_water_bytes.store(live_bytes.load()); }

std::size_t process_peak_resident_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    std::istringstream fields(line.substr(6));
    std::size_t kib = 0;
    fields >> kib;
    return kib * 1024;
  }
  return 0;
}

TrackedBytes::TrackedBytes(std::size_t bytes) : bytes_(bytes) {
  if (bytes_ == 0) return;
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  raise_high_water(live_bytes.fetch_add(bytes_, std::memory_order_relaxed) + bytes_);
}

TrackedBytes::~TrackedBytes() { live_bytes.fetch_sub(bytes_, std::memory_order_relaxed); }

TrackedBytes& TrackedBytes::operator=(TrackedBytes&& other) noexcept {
  if (this != &other) {
    live_bytes.fetch_sub(bytes_, std::memory_order_relaxed);
    bytes_ = other.bytes_;
    other.bytes_ = 0;
  }
  return *this;
}

const char* to_string(MemoryKind kind) {
  switch (kind) {
    case MemoryKind::host: return "host";
    case MemoryKind::pinned_host: return "pinned host";
    case MemoryKind::device: return "device";
  }
  return "?";
}

bool device_is_separate() {
  return !Kokkos::SpaceAccessibility<Kokkos::HostSpace, DeviceSpace>::accessible;
}

int data_memory_device() {
#ifdef KOKKOS_ENABLE_CUDA
  if (device_is_separate() && Kokkos::is_initialized()) return Kokkos::Cuda().cuda_device();
#endif
  return -1;
}

void count_node_ranks(MPI_Comm world) {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int size = 1;
  MPI_Comm_size(node, &size);
  MPI_Comm_free(&node);
  ranks_on_node.store(size);
}

int node_ranks() { return ranks_on_node.load(); }

MemoryInfo query_memory(MemoryKind kind) {
#ifdef KOKKOS_ENABLE_CUDA
  if (kind == MemoryKind::device) {
    MemoryInfo info;
    info.source = "cudaMemGetInfo";
    cudaMemGetInfo(&info.free_bytes, &info.total_bytes);
    return info;
  }
#endif
  (void)kind;
  return host_memory();
}

std::string format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int u = 0;
  while (bytes >= 1024.0 && u < 5) {
    bytes /= 1024.0;
    ++u;
  }
  char text[64];
  std::snprintf(text, sizeof text, u == 0 ? "%.0f %s" : "%.2f %s", bytes, units[u]);
  return text;
}

void require_fits(MemoryKind kind, std::size_t bytes, const std::string& what) {
  const MemoryInfo info = query_memory(kind);
  if (info.total_bytes == 0 || bytes <= info.free_bytes) return;
  std::ostringstream msg;
  msg << what << " needs " << format_bytes(static_cast<double>(bytes)) << " of " << to_string(kind)
      << " memory but only " << format_bytes(static_cast<double>(info.free_bytes)) << " of "
      << format_bytes(static_cast<double>(info.total_bytes)) << " is free (" << info.source
      << "); use a larger ring (RINGCOMM_RING_SIZE) or a smaller problem";
  throw Error(msg.str());
}

Buffer::Buffer(MemoryKind kind, std::size_t size, const std::string& label) : size_(size), kind_(kind) {
  if (size == 0) return;
  require_fits(kind, size, label);
  switch (kind) {
    case MemoryKind::host: data_ = Kokkos::kokkos_malloc<Kokkos::HostSpace>(label, size); break;
    case MemoryKind::pinned_host: data_ = Kokkos::kokkos_malloc<PinnedSpace>(label, size); break;
    case MemoryKind::device: data_ = Kokkos::kokkos_malloc<DeviceSpace>(label, size); break;
  }
  tracked_ = TrackedBytes(size);
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : tracked_(std::move(other.tracked_)), data_(other.data_), size_(other.size_), kind_(other.kind_) {
  other.data_ = nullptr;
  other.size_ = 0;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    tracked_ = std::move(other.tracked_);
    data_ = other.data_;
    size_ = other.size_;
    kind_ = other.kind_;
    other.data_ = nullptr;
    other.size_ = 0;
  }
  return *this;
}

void Buffer::release() {
  if (data_ == nullptr) return;
  switch (kind_) {
    case MemoryKind::host: Kokkos::kokkos_free<Kokkos::HostSpace>(data_); break;
    case MemoryKind::pinned_host: Kokkos::kokkos_free<PinnedSpace>(data_); break;
    case MemoryKind::device: Kokkos::kokkos_free<DeviceSpace>(data_); break;
  }
  tracked_ = TrackedBytes();
  data_ = nullptr;
}

void copy_bytes(void* dst, MemoryKind dst_kind, const void* src, MemoryKind src_kind, std::size_t bytes) {
  if (bytes == 0) return;
  const bool dst_dev = dst_kind == MemoryKind::device && device_is_separate();
  const bool src_dev = src_kind == MemoryKind::device && device_is_separate();
  if (!dst_dev && !src_dev) {
    std::memcpy(dst, src, bytes);
    return;
  }
  using Unmanaged = Kokkos::MemoryTraits<Kokkos::Unmanaged>;
  auto* d = static_cast<unsigned char*>(dst);
  auto* s = static_cast<const unsigned char*>(src);
  Kokkos::View<unsigned char*, DeviceSpace, Unmanaged> dev_dst(d, bytes);
  Kokkos::View<const unsigned char*, DeviceSpace, Unmanaged> dev_src(s, bytes);
  Kokkos::View<unsigned char*, Kokkos::HostSpace, Unmanaged> host_dst(d, bytes);
  Kokkos::View<const unsigned char*, Kokkos::HostSpace, Unmanaged> host_src(s, bytes);
  if (dst_dev && src_dev) Kokkos::deep_copy(dev_dst, dev_src);
  else if (dst_dev) Kokkos::deep_copy(dev_dst, host_src);
  else Kokkos::deep_copy(host_dst, dev_src);
}

}  // namespace ringcomm
