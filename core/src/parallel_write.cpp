// DistributedArray::write_npy: one .npy file written by the ranks of sub-ring 0 together.
#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstring>

#include "ringcomm/checked_math.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/distributed_array.hpp"
#include "ringcomm/error.hpp"
#include "internal/file.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/backend/mpi_call.hpp"
#include "ringcomm/npy_format.hpp"

namespace ringcomm {

namespace {

// Bytes per MPI_File_write_at_all: far below INT_MAX, and the host staging of a device slice.
constexpr std::size_t kPieceBytes = std::size_t(64) << 20;

// The sub-ring-0 part: every call that is collective over `comm` is made by every rank the same
// number of times, failed or not, so that a failure on one rank cannot leave the others waiting; each
// wait is bounded (phase mpi-io-write). Every write's count is checked against what was asked, and
// the bytes are read back and compared once the file is synced: on a full disk Open MPI's collective
// MPI-IO (4.1) reports success with full counts on every rank while parts of the file stay holes.
// The read-back doubles the I/O of a file written once per run. Returns this rank's first failure,
// or nothing.
std::string write_from_ring(MPI_Comm comm, const std::string& header, const void* local, SliceRange range,
                            std::size_t total, std::size_t scalar_bytes, const std::string& path) {
  std::string failure;
  auto note_text = [&failure](const std::string& text) {
    if (failure.empty()) failure = text;
  };
  auto note = [&note_text](int code, const char* what) {
    if (code != MPI_SUCCESS) note_text(std::string(what) + " failed: " + mpi_error_text(code));
  };
  // One (collective or not) write under the watchdog; a short count is a failure. Blocking calls, not
  // MPI_File_iwrite_at_all polled with MPI_Test: Open MPI 4.1 crashes in MPI_Test on a file request
  // that failed (ompi_errhandler_request_invoke), e.g. on a full disk.
  auto transfer = [&](const char* what, std::size_t asked, auto&& call) {
    MPI_Status status{};
    const int code = watched(what, [&] { return call(&status); });
    if (code != MPI_SUCCESS) return note(code, what);
    int moved = 0;
    MPI_Get_count(&status, MPI_BYTE, &moved);
    if (static_cast<std::size_t>(moved) != asked)
      note_text(std::string(what) + " moved " + std::to_string(moved) + " of " + std::to_string(asked) +
                " bytes (is the disk full?)");
  };
  MPI_File file = MPI_FILE_NULL;
  note(watched("MPI_File_open", [&] {
         return MPI_File_open(comm, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &file);
       }),
       "MPI_File_open");
  int opened_everywhere = 0;
  const int opened = failure.empty() ? 1 : 0;
  bounded("MPI_Iallreduce", comm, [&](MPI_Request* r) {
    return MPI_Iallreduce(&opened, &opened_everywhere, 1, MPI_INT, MPI_MIN, comm, r);
  });
  if (!opened_everywhere) {
    if (file != MPI_FILE_NULL) watched("MPI_File_close", [&] { return MPI_File_close(&file); });
    return failure.empty() ? "another rank of sub-ring 0 could not open the file" : failure;
  }
  // A longer file of an earlier run would otherwise keep its tail.
  note(watched("MPI_File_set_size",
               [&] { return MPI_File_set_size(file, static_cast<MPI_Offset>(header.size() + total * scalar_bytes)); }),
       "MPI_File_set_size");
  const bool header_writer = comm_rank(comm) == 0;
  if (header_writer)
    transfer("MPI_File_write_at (header)", header.size(), [&](MPI_Status* status) {
      return MPI_File_write_at(file, 0, header.data(), static_cast<int>(header.size()), MPI_BYTE, status);
    });

  const std::size_t bytes = checked_product(range.size(), scalar_bytes, "this rank's slice in bytes");
  unsigned long long pieces = (bytes + kPieceBytes - 1) / kPieceBytes, most_pieces = 0;
  bounded("MPI_Iallreduce", comm, [&](MPI_Request* r) {
    return MPI_Iallreduce(&pieces, &most_pieces, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm, r);
  });
  std::vector<unsigned char> staging(device_is_separate() ? std::min(bytes, kPieceBytes) : 0);
  const auto* data = static_cast<const unsigned char*>(local);
  // Piece `piece` of this rank's slice in host memory (staged on GPU builds), its size and offset.
  auto piece_of = [&](unsigned long long piece, std::size_t& n, MPI_Offset& offset) {
    const std::size_t first = std::min<std::size_t>(piece * kPieceBytes, bytes);
    n = std::min(kPieceBytes, bytes - first);
    offset = static_cast<MPI_Offset>(header.size() + range.begin * scalar_bytes + first);
    const unsigned char* source = data + first;
    if (!staging.empty() && n > 0) {
      copy_bytes(staging.data(), MemoryKind::host, source, data_memory_kind(), n);
      source = staging.data();
    }
    return source;
  };
  for (unsigned long long piece = 0; piece < most_pieces; ++piece) {
    std::size_t n = 0;
    MPI_Offset offset = 0;
    const unsigned char* source = piece_of(piece, n, offset);
    transfer("MPI_File_write_at_all", n, [&](MPI_Status* status) {
      return MPI_File_write_at_all(file, offset, source, static_cast<int>(n), MPI_BYTE, status);
    });
  }
  // Read back what each rank wrote, once it is on disk (a sync can report ENOSPC itself).
  note(watched("MPI_File_sync", [&] { return MPI_File_sync(file); }), "MPI_File_sync");
  barrier(comm);
  std::vector<unsigned char> back(std::max(std::min(bytes, kPieceBytes), header.size()));
  auto compare = [&](const unsigned char* expected, std::size_t n, MPI_Offset offset) {
    if (failure.empty() && n > 0 && std::memcmp(back.data(), expected, n) != 0)
      note_text("the file holds other bytes than were written at offsets " + std::to_string(offset) + " to " +
                std::to_string(offset + static_cast<MPI_Offset>(n)) + " (is the disk full?)");
  };
  if (header_writer) {
    transfer("MPI_File_read_at (header)", header.size(), [&](MPI_Status* status) {
      return MPI_File_read_at(file, 0, back.data(), static_cast<int>(header.size()), MPI_BYTE, status);
    });
    compare(reinterpret_cast<const unsigned char*>(header.data()), header.size(), 0);
  }
  for (unsigned long long piece = 0; piece < most_pieces; ++piece) {
    std::size_t n = 0;
    MPI_Offset offset = 0;
    const unsigned char* source = piece_of(piece, n, offset);
    transfer("MPI_File_read_at_all", n, [&](MPI_Status* status) {
      return MPI_File_read_at_all(file, offset, back.data(), static_cast<int>(n), MPI_BYTE, status);
    });
    compare(source, n, offset);
  }
  note(watched("MPI_File_close", [&] { return MPI_File_close(&file); }), "MPI_File_close");
  return failure;
}

}  // namespace

void write_npy_slices(const Topology& topology, const void* local, SliceRange range, std::size_t total,
                      std::size_t scalar_bytes, const char* descr, std::vector<std::size_t> shape,
                      const std::string& path) {
  if (shape.empty()) shape = {total};
  const std::string header = collectively(topology.world(), [&] {
    std::size_t values = 1;
    for (const auto extent : shape) values = checked_product(values, extent, "the shape of " + path);
    if (values != total)
      throw Error("writing " + path + ": the shape holds " + std::to_string(values) + " values but the array has " +
                  std::to_string(total));
    checked_product(total, scalar_bytes, "the size of " + path);
    return npy::header(descr, shape);
  });
  // Written under a temporary name and renamed once every rank's part is in, so that a failed write
  // never leaves a file that looks complete; world rank 0 (position 0 of sub-ring 0) renames.
  const PhaseScope phase("mpi-io-write");
  const std::string temporary = path + ".tmp";
  std::string failure;
  if (topology.ring_index() == 0)
    failure = write_from_ring(topology.ring_comm(), header, local, range, total, scalar_bytes, temporary);
  const bool renamer = topology.world_rank() == 0;
  try {
    agree(topology.world(), failure.empty(), "writing " + path + " with MPI-IO: " + failure);
  } catch (const Error&) {
    if (renamer) std::remove(temporary.c_str());
    throw;
  }
  collectively(topology.world(), [&] {
    if (renamer) rename_durably(temporary, path);
  });
}

}  // namespace ringcomm
