#include "ringcomm/session.hpp"

#include <cstdio>

#include "ringcomm/memory.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/runtime.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm {

void check_message_shape(const std::string& expected_type, std::size_t expected, const std::string& given_type,
                         std::size_t given, const std::string& what) {
  if (expected_type != given_type || expected != given)
    throw Error(what + ": the message holds " + std::to_string(expected) + " elements of " + expected_type +
                " but was given " + std::to_string(given) + " elements of " + given_type);
}

namespace {

// The programmatic values, keyed by variable, for settings::env(): what the backends read.
std::vector<std::pair<std::string, std::string>> overrides_of(const ResolvedSettings& settings) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& s : settings.in_effect) values.emplace_back(s.variable, s.text.value_or(""));
  return values;
}

}  // namespace

Session::Session(const SessionSettings& settings, MPI_Comm world)
    : world_(world), rank_(comm_rank(world)), ranks_(comm_size(world)), settings_(resolve_settings(world, settings)) {
  // From here on every RINGCOMM_* reader (the backends' among them) sees exactly what was agreed on.
  collectively(world_, [&] { settings::install_overrides(overrides_of(settings_)); });
  overrides_installed_ = true;
  try {
    TransportContext context;
    context.world = world_;
    Selection selection = select_transport(settings_.transports, context);
    transport_ = std::move(selection.transport);
    transport_notes_ = std::move(selection.notes);
  } catch (...) {
    settings::remove_overrides();
    throw;
  }
}

Session::~Session() {
  message_rings_.clear();
  arrays_.clear();
  topology_.reset();
  transport_.reset();
  if (overrides_installed_) settings::remove_overrides();
}

const Topology& Session::topology(const RingMemoryNeeds& needs) {
  if (topology_) return *topology_;
  int ring_size = settings_.ring_size.value_or(ranks_);
  if (settings_.ring_size_auto) {
    const RingSizeChoice choice = choose_ring_size(world_, needs, memory_budget(world_, settings_.memory_budget));
    if (rank_ == 0) {
      std::printf("%s\n", choice.why.c_str());
      std::fflush(stdout);
    }
    ring_size = choice.ring_size;
  }
  topology_ = std::make_unique<Topology>(world_, ring_size);
  return *topology_;
}

RingMemoryNeeds Session::message_needs(std::size_t message_bytes) const {
  RingMemoryNeeds needs;
  needs.message_bytes = message_bytes;
  needs.rings_per_rank = static_cast<std::size_t>(schedule().threads) * directions_of_thread(schedule(), 0).size();
  return needs;
}

std::string Session::describe() {
  return "transport " + transport_->name() + ", " + topology().describe() + ", " + ringcomm::describe(schedule());
}

int run(int& argc, char**& argv, const std::function<int(Session&)>& body, const SessionSettings& settings) {
  const int thread_level = walker_threads_before_mpi(settings) > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_FUNNELED;
  return run_main(
      argc, argv,
      [&] {
        Session session(settings);
        return body(session);
      },
      thread_level);
}

}  // namespace ringcomm
