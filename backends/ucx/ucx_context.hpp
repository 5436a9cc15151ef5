#pragma once
// The UCP context: which UCX transports a process may use and which kinds of memory they can move.
#include <ucp/api/ucp.h>

#include <string>
#include <vector>

#include "ringcomm/memory.hpp"

namespace ringcomm::ucx_backend {

class Context {
 public:
  // Reads the UCX_* environment; throws a local Error when UCP cannot start.
  Context();
  ~Context();
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  ucp_context_h handle() const { return context_; }
  bool supports(ucs_memory_type_t type) const;
  std::string memory_types() const;            // e.g. "host, cuda"
  std::vector<std::string> resources() const;  // transport/device pairs, e.g. "posix/memory"

 private:
  ucp_context_h context_ = nullptr;
  std::uint64_t memory_types_ = 0;
};

// How UCX must be told about slots of `kind` in this build.
ucs_memory_type_t memory_type_of(MemoryKind kind);

}  // namespace ringcomm::ucx_backend
