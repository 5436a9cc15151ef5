#include "ringcomm/registry.hpp"

#include <algorithm>
#include <map>

#include "ringcomm/collective.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm {

Registry& Registry::instance() {
  static Registry* registry = [] {
    auto* r = new Registry();
    register_builtin_backends(*r);
    return r;
  }();
  return *registry;
}

void Registry::add(BackendInfo backend) { backends_.push_back(std::move(backend)); }

std::unique_ptr<Transport> Registry::create(const BackendInfo& backend, const TransportContext& ctx) {
  std::unique_ptr<Transport> transport = backend.create(ctx);
  transport->name_ = backend.name;
  return transport;
}

const BackendInfo* Registry::find(const std::string& name) const {
  for (const auto& b : backends_)
    if (b.name == name) return &b;
  return nullptr;
}

std::string describe(const Capabilities& caps) {
  std::string text;
  auto add = [&text](bool on, const char* what) {
    if (on) text += (text.empty() ? "" : ", ") + std::string(what);
  };
  add(caps.device_memory, "device memory");
  add(caps.host_staging, "host staging");
  add(caps.one_sided, "one-sided");
  add(caps.stream_ordered, "stream-ordered");
  return text.empty() ? "host memory" : text;
}

namespace {

std::string backend_listing(const TransportContext& ctx) {
  std::string text = "compiled transports:";
  for (const auto& b : Registry::instance().backends()) {
    Usability u;
    try {
      u = probe_here(b, ctx);
    } catch (const SettingError& e) {
      u = Usability::no(e.what());
    }
    text += "\n  " + b.name + ": " + (u.usable ? "usable" : "not usable: " + u.reason);
  }
  return text;
}

std::unique_ptr<Transport> create_everywhere(const BackendInfo& backend, const TransportContext& ctx) {
  return collectively(ctx.world, [&] { return Registry::create(backend, ctx); });
}

}  // namespace

// A bad setting passes through (SettingError): it must be refused, not become a reason to skip.
Usability probe_here(const BackendInfo& backend, const TransportContext& ctx) {
  try {
    return backend.probe(ctx);
  } catch (const SettingError&) {
    throw;
  } catch (const std::exception& e) {
    return Usability::no(e.what());
  }
}

Usability probe_on_all_ranks(const BackendInfo& backend, const TransportContext& ctx) {
  // A bad setting is refused on every rank (SettingError), never reported as the transport's reason.
  const Usability mine = collectively(ctx.world, [&] { return probe_here(backend, ctx); });
  const auto reasons = allgather_strings(ctx.world, mine.usable ? std::string() : mine.reason);
  std::map<std::string, std::vector<int>> ranks_by_reason;
  for (int r = 0; r < static_cast<int>(reasons.size()); ++r)
    if (!reasons[r].empty()) ranks_by_reason[reasons[r]].push_back(r);
  if (ranks_by_reason.empty()) return Usability::yes();
  std::string why;
  for (const auto& [reason, ranks] : ranks_by_reason) {
    if (!why.empty()) why += "; ";
    if (ranks.size() != reasons.size()) {
      why += ranks.size() == 1 ? "on rank " : "on ranks ";
      for (std::size_t i = 0; i < ranks.size(); ++i) why += (i ? "," : "") + std::to_string(ranks[i]);
      why += ": ";
    }
    why += reason;
  }
  return Usability::no(why);
}

std::string requested_transport(const std::string& fallback) {
  return settings::env("RINGCOMM_TRANSPORT").value_or(fallback);
}

std::vector<std::string> parse_transport_request(const std::string& text, const std::string& setting) {
  const std::vector<std::string> names = settings::split(text, ',');
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    const bool word = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    std::string compiled;
    for (const auto& backend : Registry::instance().backends()) compiled += (compiled.empty() ? "" : ", ") + backend.name;
    const std::string expected = "auto, a compiled transport's name (" + compiled + ") or an ordered list of them";
    if (!word || (name == "auto" && names.size() > 1))
      throw Error(setting + "='" + text + "' is not valid: expected " + expected);
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), name) != names.begin() + static_cast<std::ptrdiff_t>(i))
      throw Error(setting + "='" + text + "' is not valid: '" + name + "' is listed twice");
  }
  return names;
}

Selection select_transport(const std::vector<std::string>& candidates, const TransportContext& ctx) {
  if (candidates.size() == 1) return select_transport(candidates.front(), ctx);
  std::string list;
  for (const auto& name : candidates) list += (list.empty() ? "" : ",") + name;
  check_identical(ctx.world, {{"transport", list}}, "the transport (RINGCOMM_TRANSPORT)");
  auto& registry = Registry::instance();
  Selection selection;
  for (const auto& name : candidates) {
    const BackendInfo* backend = registry.find(name);
    if (backend == nullptr) {
      selection.notes.push_back(name + ": not compiled into this ringcomm");
      continue;
    }
    const Usability u = probe_on_all_ranks(*backend, ctx);
    if (u.usable) {
      selection.transport = create_everywhere(*backend, ctx);
      return selection;
    }
    selection.notes.push_back(name + ": not usable: " + u.reason);
  }
  std::string why;
  for (const auto& n : selection.notes) why += "\n  " + n;
  throw Error("RINGCOMM_TRANSPORT=" + list + ": none of the listed transports is usable here:" + why, true);
}

Selection select_transport(const std::string& request, const TransportContext& ctx) {
  // Agreed on first: a list and a single name go through different collectives.
  check_identical(ctx.world, {{"transport", request}}, "the transport (RINGCOMM_TRANSPORT)");
  if (request.find(',') != std::string::npos) {
    // Every rank holds the same text, so every rank fails alike and lists the backends alike.
    const auto candidates = collectively(ctx.world, [&] {
      try {
        return parse_transport_request(request, "RINGCOMM_TRANSPORT");
      } catch (const Error& e) {
        throw Error(std::string(e.what()) + "\n" + backend_listing(ctx));
      }
    });
    return select_transport(candidates, ctx);
  }
  auto& registry = Registry::instance();
  Selection selection;
  if (request == "auto") {
    std::vector<const BackendInfo*> order;
    for (const auto& b : registry.backends()) order.push_back(&b);
    std::stable_sort(order.begin(), order.end(),
                     [](auto* a, auto* b) { return a->preference < b->preference; });
    for (const auto* backend : order) {
      const Usability u = probe_on_all_ranks(*backend, ctx);
      if (u.usable) {
        selection.transport = create_everywhere(*backend, ctx);
        return selection;
      }
      selection.notes.push_back(backend->name + " skipped: " + u.reason);
    }
    std::string why;
    for (const auto& n : selection.notes) why += "\n  " + n;
    throw Error("RINGCOMM_TRANSPORT=auto found no usable transport:" + why, true);
  }
  const BackendInfo* backend = registry.find(request);
  if (backend == nullptr)
    throw Error("unknown transport '" + settings::shown_value(request) + "' (RINGCOMM_TRANSPORT); " + backend_listing(ctx) +
                    "\n  auto: the first usable of the above",
                true);
  const Usability u = probe_on_all_ranks(*backend, ctx);
  if (!u.usable)
    throw Error("transport '" + request + "' is not usable here: " + u.reason + "\n" + backend_listing(ctx),
                true);
  selection.transport = create_everywhere(*backend, ctx);
  return selection;
}

}  // namespace ringcomm
