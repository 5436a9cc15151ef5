// DistributedArray::write_npy: one .npy file written by the ranks of sub-ring 0 together.
#include <algorithm>
#include <climits>

#include "ringcomm/collective.hpp"
#include "ringcomm/distributed_array.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/backend/mpi_call.hpp"
#include "ringcomm/npy_format.hpp"

namespace ringcomm {

namespace {

// Bytes per MPI_File_write_at_all: far below INT_MAX, and the host staging of a device slice.
constexpr std::size_t kPieceBytes = std::size_t(64) << 20;

// The sub-ring-0 part: every call that is collective over `comm` is made by every rank the same
// number of times, failed or not, so that a failure on one rank cannot leave the others waiting.
// Returns this rank's first failure, or nothing.
std::string write_from_ring(MPI_Comm comm, const std::string& header, const void* local, SliceRange range,
                            std::size_t total, std::size_t scalar_bytes, const std::string& path) {
  std::string failure;
  auto note = [&failure](int code, const char* what) {
    if (code != MPI_SUCCESS && failure.empty()) failure = std::string(what) + " failed: " + mpi_error_text(code);
  };
  MPI_File file = MPI_FILE_NULL;
  note(MPI_File_open(comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &file),
       "MPI_File_open");
  int opened_everywhere = 0;
  const int opened = failure.empty() ? 1 : 0;
  MPI_Allreduce(&opened, &opened_everywhere, 1, MPI_INT, MPI_MIN, comm);
  if (!opened_everywhere) {
    if (file != MPI_FILE_NULL) MPI_File_close(&file);
    return failure.empty() ? "another rank of sub-ring 0 could not open the file" : failure;
  }
  // A longer file of an earlier run would otherwise keep its tail.
  note(MPI_File_set_size(file, static_cast<MPI_Offset>(header.size() + total * scalar_bytes)), "MPI_File_set_size");
  if (comm_rank(comm) == 0)
    note(MPI_File_write_at(file, 0, header.data(), static_cast<int>(header.size()), MPI_BYTE, MPI_STATUS_IGNORE),
         "MPI_File_write_at (header)");

  const std::size_t bytes = range.size() * scalar_bytes;
  unsigned long long pieces = (bytes + kPieceBytes - 1) / kPieceBytes, most_pieces = 0;
  MPI_Allreduce(&pieces, &most_pieces, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm);
  std::vector<unsigned char> staging(device_is_separate() ? std::min(bytes, kPieceBytes) : 0);
  const auto* data = static_cast<const unsigned char*>(local);
  for (unsigned long long piece = 0; piece < most_pieces; ++piece) {
    const std::size_t first = std::min<std::size_t>(piece * kPieceBytes, bytes);
    const std::size_t n = std::min(kPieceBytes, bytes - first);
    const unsigned char* source = data + first;
    if (!staging.empty() && n > 0) {
      copy_bytes(staging.data(), MemoryKind::host, source, data_memory_kind(), n);
      source = staging.data();
    }
    const auto offset = static_cast<MPI_Offset>(header.size() + range.begin * scalar_bytes + first);
    note(MPI_File_write_at_all(file, offset, source, static_cast<int>(n), MPI_BYTE, MPI_STATUS_IGNORE),
         "MPI_File_write_at_all");
  }
  note(MPI_File_close(&file), "MPI_File_close");
  return failure;
}

}  // namespace

void write_npy_slices(const Topology& topology, const void* local, SliceRange range, std::size_t total,
                      std::size_t scalar_bytes, const char* descr, std::vector<std::size_t> shape,
                      const std::string& path) {
  if (shape.empty()) shape = {total};
  std::size_t values = 1;
  for (const auto extent : shape) values *= extent;
  if (values != total)
    throw Error("writing " + path + ": the shape holds " + std::to_string(values) + " values but the array has " +
                    std::to_string(total),
                true);
  const std::string header = collectively(topology.world(), [&] { return npy::header(descr, shape); });
  std::string failure;
  if (topology.ring_index() == 0)
    failure = write_from_ring(topology.ring_comm(), header, local, range, total, scalar_bytes, path);
  agree(topology.world(), failure.empty(), "writing " + path + " with MPI-IO: " + failure);
}

}  // namespace ringcomm
