#pragma once
// Run-time choice of a transport. Backends register here by name; core never names one.
//
// The registry is filled once, on first use, by register_builtin_backends(), which the build
// generates from the list of compiled backend folders.
#include <functional>
#include <memory>
#include <string>
#include <utility>
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

// The order in which `auto` tries backends: a documented scale of how directly a backend moves a
// message, so that a backend places itself by what it does, not by reading the others' numbers.
// `auto` takes the first usable backend, lowest number first; equal numbers keep registration order.
enum class Preference : int {
  peer_copy = 10,       // the device's copy engine writes straight into the neighbour's slot: no library between
  device_library = 20,  // a GPU communication library moves the slots, ordered with the kernels' stream
  one_sided = 30,       // a library puts into the neighbour's registered slot; the receiver posts nothing
  two_sided = 40,       // matched send/receive of the slots
  staged = 50,          // copies through host staging buffers around a transfer
  last_resort = 100,    // teaching and test backends: chosen only when nothing else can run
};

// A backend's declaration: everything core and the programs know about it. Written once, in the
// backend's <name>_transport.cpp (RINGCOMM_DECLARE_BACKEND, backend/registration.hpp); the name
// is the backend's folder under backends/, which the build fills in.
struct BackendInfo {
  using Probe = std::function<Usability(const TransportContext&)>;
  using Create = std::function<std::unique_ptr<Transport>(const TransportContext&)>;
  using Details = std::function<std::vector<std::string>(const TransportContext&)>;

  BackendInfo() = default;
  BackendInfo(std::string summary, Preference preference, Probe probe, Create create, Details details = {})
      : summary(std::move(summary)),
        preference(preference),
        probe(std::move(probe)),
        create(std::move(create)),
        details(std::move(details)) {}

  std::string name;     // the backend's folder, filled in by the build's registration
  std::string summary;  // one line for ringcomm-info
  Preference preference = Preference::last_resort;
  // Cheap and never throws. Local, unless the answer depends on where the other ranks run: such a
  // probe is collective over ctx.world and answers the same on every rank, so callers probe on all
  // ranks of ctx.world together (as probe_on_all_ranks and ringcomm-info do).
  Probe probe;
  // Not collective unless the backend's transport needs it; select_transport calls it on every rank.
  Create create;
  // Extra facts for ringcomm-info (versions, probes); may be empty.
  Details details;
  // Non-empty when several walker threads (RINGCOMM_THREADS > 1) must not share this backend:
  // why, for the error RingTeam reports before it opens any ring.
  std::string refuses_walker_threads;
  // Environment variables the backend needs before MPI and Kokkos start (name, value); Runtime sets
  // each one the user has not set.
  std::vector<std::pair<std::string, std::string>> environment_defaults;
};

class Registry {
 public:
  static Registry& instance();
  void add(BackendInfo backend);
  const std::vector<BackendInfo>& backends() const { return backends_; }
  const BackendInfo* find(const std::string& name) const;
  // Not collective: backend.create(ctx), named after the declaration. select_transport is the
  // collective way to get a transport.
  static std::unique_ptr<Transport> create(const BackendInfo& backend, const TransportContext& ctx);

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

// Collective over ctx.world: usable only where usable on every rank; the reason lists each rank's
// reason once, naming the ranks that gave it when not all did.
Usability probe_on_all_ranks(const BackendInfo& backend, const TransportContext& ctx);

// Collective over ctx.world. `request` is a backend name, "auto", or an ordered list of names
// (a comma-separated list: the first one usable on every rank, like UCC_TLS). Every rank gets the same transport
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
