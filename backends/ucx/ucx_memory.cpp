#include "ucx_memory.hpp"

#include <utility>

#include "ringcomm/backend/check.hpp"
#include "ringcomm/error.hpp"
#include "ucx_context.hpp"
#include "ucx_status.hpp"

namespace ringcomm::ucx_backend {

LocalRegion::LocalRegion(ucp_context_h context, MemoryKind kind, std::size_t bytes, const std::string& label)
    : context_(context), memory_type_(memory_type_of(kind)) {
  if (memory_type_ == UCS_MEMORY_TYPE_UNKNOWN)
    throw Error(RINGCOMM_TRANSPORT_PREFIX "no UCX memory type for this build's device memory (" + label + ")");
  ucp_mem_map_params_t params{};
  params.field_mask = UCP_MEM_MAP_PARAM_FIELD_LENGTH | UCP_MEM_MAP_PARAM_FIELD_MEMORY_TYPE;
  params.length = bytes;
  params.memory_type = memory_type_;
  // Plain host memory is left to UCX to allocate: it takes it from a shared-memory segment that
  // peers on the node map directly, so a put becomes a memcpy instead of a system call per put
  // (cma) or a trip through a socket. Device and pinned memory come from Kokkos like all other data.
  const bool ucx_allocates = memory_type_ == UCS_MEMORY_TYPE_HOST && kind != MemoryKind::pinned_host;
  if (ucx_allocates) {
    params.field_mask |= UCP_MEM_MAP_PARAM_FIELD_FLAGS;
    params.flags = UCP_MEM_MAP_ALLOCATE;
    require_fits(MemoryKind::host, bytes, label);
  } else {
    owned_ = Buffer(kind, bytes, label);
    params.field_mask |= UCP_MEM_MAP_PARAM_FIELD_ADDRESS;
    params.address = owned_.data();
  }
  check(ucp_mem_map(context, &params, &memh_), "registering " + label + " (" + format_bytes(double(bytes)) + ")");
  ucp_mem_attr_t attributes{};
  attributes.field_mask = UCP_MEM_ATTR_FIELD_ADDRESS;
  const ucs_status_t status = ucp_mem_query(memh_, &attributes);
  if (status != UCS_OK) {
    release();
    fail(status, "querying the registration of " + label);
  }
  data_ = attributes.address;
}

LocalRegion::~LocalRegion() { release(); }

LocalRegion::LocalRegion(LocalRegion&& other) noexcept { *this = std::move(other); }

LocalRegion& LocalRegion::operator=(LocalRegion&& other) noexcept {
  if (this != &other) {
    release();
    context_ = std::exchange(other.context_, nullptr);
    memh_ = std::exchange(other.memh_, nullptr);
    owned_ = std::move(other.owned_);
    data_ = std::exchange(other.data_, nullptr);
    memory_type_ = other.memory_type_;
  }
  return *this;
}

void LocalRegion::release() {
  if (memh_ != nullptr) ucp_mem_unmap(context_, memh_);
  memh_ = nullptr;
  data_ = nullptr;
}

void LocalRegion::keep_memory() {
  // Deliberately never deleted: the Buffer's destructor would free the memory.
  if (owned_.data() != nullptr) static_cast<void>(new Buffer(std::move(owned_)));
  memh_ = nullptr;
  data_ = nullptr;
}

RegionDescriptor LocalRegion::describe() const {
  void* packed = nullptr;
  std::size_t length = 0;
  check(ucp_rkey_pack(context_, memh_, &packed, &length), "packing a remote key");
  RegionDescriptor region;
  region.address = reinterpret_cast<std::uint64_t>(data_);
  region.rkey.assign(static_cast<const char*>(packed), length);
  ucp_rkey_buffer_release(packed);
  return region;
}

RemoteRegion::RemoteRegion(ucp_ep_h endpoint, const RegionDescriptor& region, const std::string& what)
    : address_(region.address) {
  check(ucp_ep_rkey_unpack(endpoint, region.rkey.data(), &rkey_), "unpacking the remote key of " + what);
}

RemoteRegion::~RemoteRegion() {
  if (rkey_ != nullptr) ucp_rkey_destroy(rkey_);
}

RemoteRegion::RemoteRegion(RemoteRegion&& other) noexcept
    : rkey_(std::exchange(other.rkey_, nullptr)), address_(other.address_) {}

RemoteRegion& RemoteRegion::operator=(RemoteRegion&& other) noexcept {
  if (this != &other) {
    if (rkey_ != nullptr) ucp_rkey_destroy(rkey_);
    rkey_ = std::exchange(other.rkey_, nullptr);
    address_ = other.address_;
  }
  return *this;
}

}  // namespace ringcomm::ucx_backend
