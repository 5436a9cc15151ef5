#pragma once
// The memory a cuda_ipc channel moves messages between: its own two slots, allocated as one block
// that the left neighbour maps and copies into, and its mapping of the right neighbour's block.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "ringcomm/memory.hpp"

namespace ringcomm::cuda_ipc_backend {

// Both slots in one cudaMalloc allocation on the current device. Not through Kokkos: Kokkos may take
// device memory from a stream-ordered pool (cudaMallocAsync), which CUDA IPC cannot export; and one
// allocation means one handle to hand over and one mapping per neighbour.
class OwnSlots {
 public:
  explicit OwnSlots(std::size_t slot_bytes);
  ~OwnSlots();
  OwnSlots(const OwnSlots&) = delete;
  OwnSlots& operator=(const OwnSlots&) = delete;

  void* slot(int index) const;
  // What the left neighbour needs to map the block (cudaIpcGetMemHandle).
  cudaIpcMemHandle_t handle() const;
  // Bytes of the block beyond the two slots (alignment of the second slot).
  std::size_t padding_bytes() const;
  // Gives the block up without freeing it, for when a neighbour's copy into it may still be landing:
  // it stays allocated until the process ends.
  void keep_allocated() { block_ = nullptr; }

 private:
  std::size_t slot_bytes_;
  TrackedBytes tracked_;
  void* block_ = nullptr;
};

// The right neighbour's block, mapped into this process (cudaIpcOpenMemHandle, which also opens peer
// access from the current device to the neighbour's GPU); unmapped when this goes. The neighbour must
// not free the block before that, which is what the channel's unmap notice is for.
class MappedSlots {
 public:
  MappedSlots(const cudaIpcMemHandle_t& handle, std::size_t slot_bytes);
  ~MappedSlots();
  MappedSlots(const MappedSlots&) = delete;
  MappedSlots& operator=(const MappedSlots&) = delete;

  void* slot(int index) const;
  // Gives the mapping up without closing it, for when this rank's copy into it may still be landing.
  void keep_mapped() { block_ = nullptr; }

 private:
  std::size_t slot_bytes_;
  void* block_ = nullptr;
};

}  // namespace ringcomm::cuda_ipc_backend
