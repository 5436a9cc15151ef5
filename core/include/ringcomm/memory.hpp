#pragma once
// Where ring buffers and G_t slices live, and raw byte buffers in those places.
//
// ringcomm follows Kokkos: data lives in the memory space of Kokkos' default execution space
// ("device" memory — CudaSpace on a CUDA build, plain host memory on a CPU build). Transports are told
// which kind they must move, so a CPU build never pretends to hold device pointers.
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>

namespace ringcomm {

enum class MemoryKind {
  host,         // ordinary host memory
  pinned_host,  // page-locked host memory (same as host on CPU builds)
  device,       // memory of Kokkos' default execution space
};

const char* to_string(MemoryKind kind);

// True when `device` memory is not host-accessible (a GPU build).
bool device_is_separate();

// The kind in which ring buffers and G_t slices are allocated.
inline MemoryKind data_memory_kind() { return device_is_separate() ? MemoryKind::device : MemoryKind::host; }

// The CUDA device ordinal that `device` memory and Kokkos' kernels use on this rank; -1 on builds
// whose data memory is host memory, or before Kokkos is initialised.
int data_memory_device();

struct MemoryInfo {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  std::string source;  // how it was measured, for error messages
};
// For host memory, this rank's share: the node's available memory divided among the job's ranks on
// the node (count_node_ranks), and no more than the address-space limit (ulimit -v) leaves.
MemoryInfo query_memory(MemoryKind kind);

// Collective over `world` (Runtime calls it at start-up): counts the ranks sharing this node's memory
// (MPI_Comm_split_type MPI_COMM_TYPE_SHARED) for query_memory. Until then a rank counts alone.
void count_node_ranks(MPI_Comm world);
int node_ranks();

// Throws a (local) Error saying what was asked for and what is free when `bytes` cannot fit.
void require_fits(MemoryKind kind, std::size_t bytes, const std::string& what);

// What this process holds in ringcomm's own allocations (Buffers and TrackedBytes, every kind): the
// JSON "memory" object of ring_compare reports it. Counting costs one atomic add per allocation.
struct AllocationStats {
  std::size_t live_bytes = 0;
  std::size_t high_water_bytes = 0;  // since start or the last reset_allocation_high_water()
  std::uint64_t allocations = 0;
};
AllocationStats allocation_stats();
// Starts a new high-water mark at the bytes live now, so that runs one after another are told apart.
void reset_allocation_high_water();
// The process' peak resident set (VmHWM of /proc/self/status): everything on the host, transport
// internals included; 0 where unknown.
std::size_t process_peak_resident_bytes();

// Counts `bytes` in allocation_stats() while it lives: for memory ringcomm allocates other than
// through Buffer (the Kokkos::View of a G_t slice).
class TrackedBytes {
 public:
  TrackedBytes() = default;
  explicit TrackedBytes(std::size_t bytes);
  ~TrackedBytes();
  TrackedBytes(TrackedBytes&& other) noexcept : bytes_(other.bytes_) { other.bytes_ = 0; }
  TrackedBytes& operator=(TrackedBytes&& other) noexcept;
  TrackedBytes(const TrackedBytes&) = delete;
  TrackedBytes& operator=(const TrackedBytes&) = delete;

 private:
  std::size_t bytes_ = 0;
};

// Move-only owner of `size` bytes of one memory kind, allocated through Kokkos.
class Buffer {
 public:
  Buffer() = default;
  Buffer(MemoryKind kind, std::size_t size, const std::string& label);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* data() const { return data_; }
  std::size_t size() const { return size_; }
  MemoryKind kind() const { return kind_; }

 private:
  void release();
  TrackedBytes tracked_;
  void* data_ = nullptr;
  std::size_t size_ = 0;
  MemoryKind kind_ = MemoryKind::host;
};

// Blocking copy between any two kinds.
void copy_bytes(void* dst, MemoryKind dst_kind, const void* src, MemoryKind src_kind, std::size_t bytes);

std::string format_bytes(double bytes);

}  // namespace ringcomm
