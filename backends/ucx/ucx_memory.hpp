#pragma once
// Memory that peers write into (registered once, described to them by an rkey) and the remote
// counterpart through which a rank writes into a peer's memory.
#include <ucp/api/ucp.h>

#include <cstdint>
#include <string>

#include "ringcomm/memory.hpp"

namespace ringcomm::ucx_backend {

// What a peer needs to write into a region: its address in the owner's space and the packed rkey.
struct RegionDescriptor {
  std::uint64_t address = 0;
  std::string rkey;
};

class LocalRegion {
 public:
  LocalRegion() = default;
  // `bytes` of `kind` memory, registered with `context`.
  LocalRegion(ucp_context_h context, MemoryKind kind, std::size_t bytes, const std::string& label);
  ~LocalRegion();
  LocalRegion(LocalRegion&& other) noexcept;
  LocalRegion& operator=(LocalRegion&& other) noexcept;
  LocalRegion(const LocalRegion&) = delete;
  LocalRegion& operator=(const LocalRegion&) = delete;

  void* data() const { return data_; }
  ucp_mem_h handle() const { return memh_; }
  ucs_memory_type_t memory_type() const { return memory_type_; }
  RegionDescriptor describe() const;
  // Gives the memory up without unregistering or freeing it, for when a put may still land in it: it
  // stays until the process ends.
  void keep_memory();

 private:
  void release();
  ucp_context_h context_ = nullptr;
  ucp_mem_h memh_ = nullptr;
  Buffer owned_;  // empty when UCX allocated the memory itself
  void* data_ = nullptr;
  ucs_memory_type_t memory_type_ = UCS_MEMORY_TYPE_HOST;
};

class RemoteRegion {
 public:
  RemoteRegion() = default;
  RemoteRegion(ucp_ep_h endpoint, const RegionDescriptor& region, const std::string& what);
  ~RemoteRegion();
  RemoteRegion(RemoteRegion&& other) noexcept;
  RemoteRegion& operator=(RemoteRegion&& other) noexcept;
  RemoteRegion(const RemoteRegion&) = delete;
  RemoteRegion& operator=(const RemoteRegion&) = delete;

  ucp_rkey_h rkey() const { return rkey_; }
  std::uint64_t address(std::size_t offset = 0) const { return address_ + offset; }

 private:
  ucp_rkey_h rkey_ = nullptr;
  std::uint64_t address_ = 0;
};

}  // namespace ringcomm::ucx_backend
