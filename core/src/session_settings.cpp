#include "ringcomm/session_settings.hpp"

#include <climits>
#include <string_view>

#include "ringcomm/collective.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/settings.hpp"
#include "ringcomm/topology.hpp"
#include "ringcomm/watchdog.hpp"

namespace ringcomm {

namespace {

// The table: each setting's variable, its field in SessionSettings and the field's name in errors.
using SettingField = std::optional<std::string> SessionSettings::*;
struct SettingSlot {
  const char* variable;
  SettingField field;
  const char* field_name;
};

constexpr SettingSlot kSlots[] = {
    {"RINGCOMM_TRANSPORT", &SessionSettings::transport, "settings.transport"},
    {"RINGCOMM_RING_SIZE", &SessionSettings::ring_size, "settings.ring_size"},
    {kMemoryBudgetSetting, &SessionSettings::memory_budget, "settings.memory_budget"},
    {kThreadsSetting, &SessionSettings::threads, "settings.threads"},
    {kDirectionSetting, &SessionSettings::direction, "settings.direction"},
    {kOverlapSetting, &SessionSettings::overlap, "settings.overlap"},
    {kTimeoutSetting, &SessionSettings::timeout, "settings.timeout"},
    {kCheckpointSetting, &SessionSettings::checkpoint, "settings.checkpoint"},
    {kCheckpointEverySetting, &SessionSettings::checkpoint_every, "settings.checkpoint_every"},
    {"RINGCOMM_HOST_CHUNK_BYTES", &SessionSettings::host_chunk_bytes, "settings.host_chunk_bytes"},
    {"RINGCOMM_UCX_PUT_CHUNK", &SessionSettings::ucx_put_chunk, "settings.ucx_put_chunk"},
    {"RINGCOMM_MPI_GPU_AWARE", &SessionSettings::mpi_gpu_aware, "settings.mpi_gpu_aware"},
    {"RINGCOMM_NCCL_REGISTER", &SessionSettings::nccl_register, "settings.nccl_register"},
};

// The raw environment, not settings::env(): a Session's own overrides are what is being built here.
std::optional<std::string> environment(const char* variable) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

// The name is a string_view, not a std::string: GCC 13 took a reference returned next to a temporary
// std::string made from a literal for one into that temporary (-Wdangling-reference).
const SettingInEffect& find(const std::vector<SettingInEffect>& in_effect, std::string_view variable) {
  for (const auto& s : in_effect)
    if (s.variable == variable) return s;
  throw Error("internal: no setting " + std::string(variable));
}

ScheduleOverride schedule_part(const SettingInEffect& s) { return {s.source, s.text.value_or("")}; }

// Settings that only a backend applies are checked here too, so that garbage in them is reported
// whichever transport runs; the backends parse them again with the same rules.
void check_backend_settings(const std::vector<SettingInEffect>& in_effect) {
  const auto& chunk = find(in_effect, "RINGCOMM_HOST_CHUNK_BYTES");
  if (chunk.text) {
    const std::size_t bytes = settings::parse_bytes(*chunk.text, chunk.source);
    if (bytes == 0 || bytes > static_cast<std::size_t>(INT_MAX))
      throw Error(chunk.source + "='" + *chunk.text + "' is not valid: expected between 1 byte and " +
                  format_bytes(static_cast<double>(INT_MAX)) + " (MPI counts are int)");
  }
  const auto& put = find(in_effect, "RINGCOMM_UCX_PUT_CHUNK");
  if (put.text) settings::parse_bytes(*put.text, put.source);
  for (const char* flag : {"RINGCOMM_MPI_GPU_AWARE", "RINGCOMM_NCCL_REGISTER"}) {
    const auto& s = find(in_effect, flag);
    if (s.text) settings::parse_choice(*s.text, s.source, {"0", "1"});
  }
}

ResolvedSettings parse_all(std::vector<SettingInEffect> in_effect) {
  ResolvedSettings r;
  const auto& transport = find(in_effect, "RINGCOMM_TRANSPORT");
  if (transport.text) r.transports = parse_transport_request(*transport.text, transport.source);
  const auto& ring_size = find(in_effect, "RINGCOMM_RING_SIZE");
  if (ring_size.text) {
    r.ring_size = parse_ring_size(*ring_size.text, ring_size.source);
    r.ring_size_auto = !r.ring_size;
  }
  const auto& budget = find(in_effect, kMemoryBudgetSetting);
  if (budget.text) r.memory_budget = parse_memory_budget(*budget.text, budget.source);
  r.schedule = parse_schedule(schedule_part(find(in_effect, kThreadsSetting)),
                              schedule_part(find(in_effect, kDirectionSetting)),
                              schedule_part(find(in_effect, kOverlapSetting)));
  const auto& timeout = find(in_effect, kTimeoutSetting);
  r.timeout_seconds = timeout.text ? parse_timeout(*timeout.text, timeout.source) : kDefaultTimeoutSeconds;
  const auto& directory = find(in_effect, kCheckpointSetting);
  const auto& every = find(in_effect, kCheckpointEverySetting);
  r.checkpoint = parse_checkpoint_settings(directory.text, every.text, directory.source, every.source);
  check_backend_settings(in_effect);
  r.in_effect = std::move(in_effect);
  return r;
}

}  // namespace

std::vector<SettingInEffect> settings_in_effect(const SessionSettings& settings) {
  std::vector<SettingInEffect> in_effect;
  for (const auto& slot : kSlots) {
    const std::optional<std::string>& programmatic = settings.*(slot.field);
    if (programmatic) {
      in_effect.push_back({slot.variable, slot.field_name,
                           programmatic->empty() ? std::nullopt : std::optional<std::string>(*programmatic)});
    } else {
      in_effect.push_back(
          {slot.variable, slot.variable, settings.ignore_environment ? std::nullopt : environment(slot.variable)});
    }
  }
  return in_effect;
}

ResolvedSettings resolve_settings(MPI_Comm comm, const SessionSettings& settings) {
  std::vector<SettingInEffect> in_effect = settings_in_effect(settings);
  std::vector<Field> digest;
  for (const auto& s : in_effect) digest.push_back({s.variable, s.text ? "'" + *s.text + "'" : "(unset)"});
  check_identical(comm, digest, "the ringcomm settings");
  return collectively(comm, [&] { return parse_all(in_effect); });
}

int walker_threads_before_mpi(const SessionSettings& settings) {
  try {
    const auto in_effect = settings_in_effect(settings);
    const auto& threads = find(in_effect, kThreadsSetting);
    return threads.text ? static_cast<int>(settings::parse_integer(*threads.text, threads.source, 1, kMaxWalkerThreads))
                        : 1;
  } catch (const Error&) {
    return 1;
  }
}

std::string describe_set(const std::vector<SettingInEffect>& in_effect) {
  std::string text;
  for (const auto& s : in_effect) {
    if (!s.text) continue;
    text += (text.empty() ? "" : ", ") + s.variable + "=" + *s.text;
    if (s.source != s.variable) text += " (" + s.source + ")";
  }
  return text.empty() ? "none set" : text;
}

}  // namespace ringcomm
