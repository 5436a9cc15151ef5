#include "staging_copier.hpp"

namespace ringcomm::host_backend {
namespace {

class BlockingCopier final : public StagingCopier {
 public:
  explicit BlockingCopier(MemoryKind slot_memory) : slot_memory_(slot_memory) {}

  void start_download(int, void* staging, const void* slot, std::size_t bytes) override {
    copy_bytes(staging, MemoryKind::pinned_host, slot, slot_memory_, bytes);
  }
  void wait_download(int) override {}

  void start_upload(int, void* slot, const void* staging, std::size_t bytes) override {
    copy_bytes(slot, slot_memory_, staging, MemoryKind::pinned_host, bytes);
  }
  void wait_upload(int) override {}

 private:
  MemoryKind slot_memory_;
};

}  // namespace

std::unique_ptr<StagingCopier> make_blocking_copier(MemoryKind slot_memory) {
  return std::make_unique<BlockingCopier>(slot_memory);
}

std::unique_ptr<StagingCopier> make_staging_copier(MemoryKind slot_memory, int lanes, double timeout_seconds) {
#ifdef RINGCOMM_HOST_CUDA_COPIER
  if (slot_memory == MemoryKind::device) return make_cuda_copier(lanes, timeout_seconds);
#endif
  // Host slots leave nothing to overlap but memcpy.
  (void)lanes;
  (void)timeout_seconds;
  return make_blocking_copier(slot_memory);
}

}  // namespace ringcomm::host_backend
