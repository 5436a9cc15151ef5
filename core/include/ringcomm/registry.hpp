#pragma once
// Run-time choice of a transport. Backends register here by name; core never names one.
//
// The registry is filled once, on first use, by register_builtin_backends(), which the build
// generates from the list of compiled backend folders.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ringcomm/transport.hpp"

namespace ringcomm {

// A backend's answer to "can you run here?".
struct Usability {
  bool usable = false;
  std::string reason;  // why not, when !usable
  static Usability yes() { return {true, {}}; }
  static Usability no(std::string why) { return {false, std::move(why)}; }
};

struct BackendInfo {
  std::string name;
  std::string summary;  // one line for ringcomm-info
  int auto_preference = 100;  // `auto` tries lower numbers first
  // Cheap and never throws. Local, unless the answer depends on where the other ranks run: such a
  // probe is collective over ctx.world and answers the same on every rank, so callers probe on all
  // ranks of ctx.world together (as probe_on_all_ranks and ringcomm-info do).
  std::function<Usability(const TransportContext&)> probe;
  std::function<std::unique_ptr<Transport>(const TransportContext&)> create;
  // Extra facts for ringcomm-info (versions, probes); may be empty.
  std::function<std::vector<std::string>(const TransportContext&)> details;
};

class Registry {
 public:
  static Registry& instance();
  void add(BackendInfo backend);
  const std::vector<BackendInfo>& backends() const { return backends_; }
  const BackendInfo* find(const std::string& name) const;

 private:
  std::vector<BackendInfo> backends_;
};

// Generated at build time: calls each compiled backend's registration function.
void register_builtin_backends(Registry& registry);

struct Selection {
  std::unique_ptr<Transport> transport;
  std::vector<std::string> notes;  // why `auto` skipped each backend it passed over
};

// The backend's own answer on this rank; a probe that throws counts as "not usable" with its message.
Usability probe_here(const BackendInfo& backend, const TransportContext& ctx);

// Collective over ctx.world: usable only where usable on every rank; the reason names the ranks that
// said no when not all did.
Usability probe_on_all_ranks(const BackendInfo& backend, const TransportContext& ctx);

// Collective over ctx.world. `request` is a backend name, "auto", or an ordered list of names
// ("ucx,host": the first one usable on every rank, like UCC_TLS). Every rank gets the same transport
// or the same collective Error listing each candidate (or each compiled backend) and why it is not usable.
Selection select_transport(const std::string& request, const TransportContext& ctx);
// The same for a request already parsed by parse_transport_request.
Selection select_transport(const std::vector<std::string>& candidates, const TransportContext& ctx);

// The one parser of RINGCOMM_TRANSPORT's values (named `setting` in errors): "auto", one name, or a
// comma-separated list of distinct names (letters, digits, '_'); local. Whether a name is compiled is
// decided by select_transport.
std::vector<std::string> parse_transport_request(const std::string& text, const std::string& setting);

// The request from RINGCOMM_TRANSPORT, or `fallback` when unset.
std::string requested_transport(const std::string& fallback = "auto");

}  // namespace ringcomm
