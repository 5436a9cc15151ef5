#include "ringcomm/distributed_array.hpp"

#include <algorithm>
#include <climits>

#include "ringcomm/collective.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/memory.hpp"

namespace ringcomm {

SliceRange slice_of(std::size_t total, int parts, int index) {
  const std::size_t p = static_cast<std::size_t>(parts);
  const std::size_t i = static_cast<std::size_t>(index);
  const std::size_t base = total / p;
  const std::size_t extra = total % p;
  SliceRange r;
  r.begin = i * base + std::min(i, extra);
  r.end = r.begin + base + (i < extra ? 1 : 0);
  return r;
}

void check_slice_fits(const Topology& topology, std::size_t total, std::size_t slice_entries,
                      std::size_t scalar_bytes, const std::string& scalar_name, const std::string& label) {
  check_identical(topology.world(),
                  {{label + " entries", std::to_string(total)}, {label + " scalar", scalar_name}},
                  "the size of " + label);
  if (total == 0) throw Error(label + " must have at least one entry", true);
  collectively(topology.world(), [&] {
    const std::size_t bytes = slice_entries * scalar_bytes;
    if (slice_entries != 0 && bytes / slice_entries != scalar_bytes)
      throw Error(label + " slice of " + std::to_string(slice_entries) + " entries overflows a byte count");
    require_fits(data_memory_kind(), bytes,
                 label + " slice (" + std::to_string(slice_entries) + " of " + std::to_string(total) + " " +
                     scalar_name + " entries)");
  });
}

void allreduce_sum_bytes(void* data, std::size_t count, MPI_Datatype real_type, int components,
                         std::size_t scalar_bytes, MPI_Comm comm) {
  int size = 1;
  MPI_Comm_size(comm, &size);
  if (size == 1 || count == 0) return;
  const PhaseScope phase("reduction");
  const MemoryKind kind = data_memory_kind();
  constexpr std::size_t kChunkBytes = std::size_t(64) << 20;
  const std::size_t chunk_entries = std::max<std::size_t>(1, kChunkBytes / scalar_bytes);
  Buffer staging(MemoryKind::host, std::min(count, chunk_entries) * scalar_bytes, "ringcomm allreduce staging");
  auto* bytes = static_cast<unsigned char*>(data);
  for (std::size_t first = 0; first < count; first += chunk_entries) {
    const std::size_t n = std::min(chunk_entries, count - first);
    copy_bytes(staging.data(), MemoryKind::host, bytes + first * scalar_bytes, kind, n * scalar_bytes);
    bounded("MPI_Iallreduce", comm, [&](MPI_Request* r) {
      return MPI_Iallreduce(MPI_IN_PLACE, staging.data(), static_cast<int>(n * components), real_type, MPI_SUM, comm, r);
    });
    copy_bytes(bytes + first * scalar_bytes, kind, staging.data(), MemoryKind::host, n * scalar_bytes);
  }
}

void gather_bytes(const void* local, std::size_t local_count, std::size_t total, int components,
                  std::size_t scalar_bytes, MPI_Datatype real_type, const Topology& topology, void* out) {
  const PhaseScope phase("gather");
  agree(topology.world(), total * components <= static_cast<std::size_t>(INT_MAX),
        "gathering " + std::to_string(total) + " entries on one rank exceeds MPI's int counts; "
        "gather is meant for small problems");
  if (topology.ring_index() != 0) return;  // after sum_across_rings every sub-ring holds the total
  const int S = topology.ring_size();
  std::vector<int> counts(S), offsets(S);
  for (int r = 0; r < S; ++r) {
    const SliceRange slice = slice_of(total, S, r);
    counts[r] = static_cast<int>(slice.size() * components);
    offsets[r] = static_cast<int>(slice.begin * components);
  }
  std::vector<unsigned char> host(local_count * scalar_bytes);
  copy_bytes(host.data(), MemoryKind::host, local, data_memory_kind(), host.size());
  bounded("MPI_Igatherv", topology.ring_comm(), [&](MPI_Request* r) {
    return MPI_Igatherv(host.data(), static_cast<int>(local_count * components), real_type, out, counts.data(),
                        offsets.data(), real_type, 0, topology.ring_comm(), r);
  });
}

}  // namespace ringcomm
