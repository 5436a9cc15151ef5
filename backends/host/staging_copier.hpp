#pragma once
// The copies between a channel's slots and its pinned host staging buffers.
//
// The staged channel keeps one staging buffer per lane and direction and overlaps, per chunk, the
// copy out of the send slot, the MPI transfer and the copy into the receive slot. A copier starts a
// copy and lets the channel wait for it later, lane by lane.
//
// host_copier.cpp holds the blocking implementation (copy_bytes: memcpy on CPU builds, where there is
// nothing to overlap but MPI). cuda_copier.cpp, compiled on CUDA builds only, holds the asynchronous
// one for device slots: cudaMemcpyAsync on a private stream per direction, one event per lane.
#include <cstddef>
#include <memory>

#include "ringcomm/memory.hpp"

namespace ringcomm::host_backend {

class StagingCopier {
 public:
  virtual ~StagingCopier() = default;

  // Starts copying `bytes` from the send slot to the staging buffer of `lane`.
  virtual void start_download(int lane, void* staging, const void* slot, std::size_t bytes) = 0;
  // Returns once the download of `lane` has landed in its staging buffer.
  virtual void wait_download(int lane) = 0;

  // Starts copying `bytes` from the staging buffer of `lane` to the receive slot.
  virtual void start_upload(int lane, void* slot, const void* staging, std::size_t bytes) = 0;
  // Returns once the upload of `lane` has landed in the slot and its staging buffer may be reused.
  virtual void wait_upload(int lane) = 0;
};

// The blocking copier: every copy has completed when start_* returns.
std::unique_ptr<StagingCopier> make_blocking_copier(MemoryKind slot_memory);

// The asynchronous CUDA copier (cuda_copier.cpp, compiled on CUDA builds only); a wait for a copy
// longer than timeout_seconds throws a TimeoutError.
std::unique_ptr<StagingCopier> make_cuda_copier(int lanes, double timeout_seconds);

// The copier for slots of `slot_memory`, with `lanes` staging buffers per direction.
std::unique_ptr<StagingCopier> make_staging_copier(MemoryKind slot_memory, int lanes, double timeout_seconds);

}  // namespace ringcomm::host_backend
