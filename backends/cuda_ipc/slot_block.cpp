#include "slot_block.hpp"

#include <cstdint>

#include "ringcomm/backend/cuda_check.hpp"

namespace ringcomm::cuda_ipc_backend {
namespace {

constexpr int kSlotsPerBlock = 2;

// Slot 1 starts on a 256-byte boundary, the alignment cudaMalloc gives slot 0, so that a consume
// kernel may read either slot as any scalar type.
std::size_t stride(std::size_t slot_bytes) {
  constexpr std::size_t kAlignment = 256;
  return (slot_bytes + kAlignment - 1) / kAlignment * kAlignment;
}

void* slot_in(void* block, std::size_t slot_bytes, int index) {
  return static_cast<std::uint8_t*>(block) + static_cast<std::size_t>(index) * stride(slot_bytes);
}

}  // namespace

OwnSlots::OwnSlots(std::size_t slot_bytes)
    : slot_bytes_(slot_bytes), tracked_(kSlotsPerBlock * stride(slot_bytes)) {
  RINGCOMM_CHECK(cudaMalloc(&block_, kSlotsPerBlock * stride(slot_bytes)));
}

OwnSlots::~OwnSlots() {
  if (block_ != nullptr) cudaFree(block_);
}

void* OwnSlots::slot(int index) const { return slot_in(block_, slot_bytes_, index); }

cudaIpcMemHandle_t OwnSlots::handle() const {
  cudaIpcMemHandle_t handle{};
  RINGCOMM_CHECK(cudaIpcGetMemHandle(&handle, block_));
  return handle;
}

std::size_t OwnSlots::padding_bytes() const { return kSlotsPerBlock * (stride(slot_bytes_) - slot_bytes_); }

MappedSlots::MappedSlots(const cudaIpcMemHandle_t& handle, std::size_t slot_bytes) : slot_bytes_(slot_bytes) {
  RINGCOMM_CHECK(cudaIpcOpenMemHandle(&block_, handle, cudaIpcMemLazyEnablePeerAccess));
}

MappedSlots::~MappedSlots() {
  if (block_ != nullptr) cudaIpcCloseMemHandle(block_);
}

void* MappedSlots::slot(int index) const { return slot_in(block_, slot_bytes_, index); }

}  // namespace ringcomm::cuda_ipc_backend
