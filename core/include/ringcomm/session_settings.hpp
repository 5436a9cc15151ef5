#pragma once
// Every RINGCOMM_* run-time setting, in one table: where its value comes from, how it is checked for
// agreement across ranks and how it is parsed. ringcomm::Session reads its settings only here.
//
// Precedence, for each setting on its own: a value the program put into SessionSettings wins; else
// the environment variable (unless ignore_environment); else the default. A field set to "" means
// "the default", whatever the environment says. Errors name the source: "RINGCOMM_THREADS='x'" for the
// environment, "settings.threads='x'" for a programmatic value.
#include <mpi.h>

#include <optional>
#include <string>
#include <vector>

#include "ringcomm/checkpoint.hpp"
#include "ringcomm/ring_size_choice.hpp"
#include "ringcomm/walker_schedule.hpp"

namespace ringcomm {

// Programmatic values (as text, so a code can pass its own input file's values verbatim; the same
// parsers apply as to the environment's). Unset fields leave the environment in charge.
struct SessionSettings {
  std::optional<std::string> transport;         // RINGCOMM_TRANSPORT: auto, a name, or an ordered list of names
  std::optional<std::string> ring_size;         // RINGCOMM_RING_SIZE: S, or auto
  std::optional<std::string> memory_budget;     // RINGCOMM_MEMORY_BUDGET: bytes ("12G") or a fraction ("0.5")
  std::optional<std::string> threads;           // RINGCOMM_THREADS: walker threads per rank
  std::optional<std::string> direction;         // RINGCOMM_DIRECTION: uni, bi
  std::optional<std::string> overlap;           // RINGCOMM_OVERLAP: 1, 0
  std::optional<std::string> timeout;           // RINGCOMM_TIMEOUT: seconds
  std::optional<std::string> checkpoint;        // RINGCOMM_CHECKPOINT: directory
  std::optional<std::string> checkpoint_every;  // RINGCOMM_CHECKPOINT_EVERY: rounds
  std::optional<std::string> host_chunk_bytes;  // RINGCOMM_HOST_CHUNK_BYTES
  std::optional<std::string> ucx_put_chunk;     // RINGCOMM_UCX_PUT_CHUNK
  std::optional<std::string> mpi_gpu_aware;     // RINGCOMM_MPI_GPU_AWARE: 1, 0
  std::optional<std::string> nccl_register;     // RINGCOMM_NCCL_REGISTER: 1, 0
  bool ignore_environment = false;              // true: the fields above and the defaults only
};

// One setting's value in effect.
struct SettingInEffect {
  std::string variable;             // RINGCOMM_…
  std::string source;               // the variable, or "settings.<field>" for a programmatic value
  std::optional<std::string> text;  // nothing: unset (the default applies)
};

// Every setting, in a fixed order, with its value in effect. Local.
std::vector<SettingInEffect> settings_in_effect(const SessionSettings& settings);

// What the settings mean, identical on every rank.
struct ResolvedSettings {
  std::vector<std::string> transports{"auto"};  // candidates in order; {"auto"}: the registry's order
  std::optional<int> ring_size;                 // nothing: all ranks in one ring, or auto
  bool ring_size_auto = false;
  MemoryBudget memory_budget;
  WalkerSchedule schedule;
  double timeout_seconds = 0;
  CheckpointSettings checkpoint;
  std::vector<SettingInEffect> in_effect;
};

// Collective over `comm`, in two steps so that no rank enters a collective the others skip: one
// exchange of every setting's value (unset included) that throws the same Error on every rank when
// any differs (check_identical), then one agreement on whether all of them parse (collectively).
ResolvedSettings resolve_settings(MPI_Comm comm, const SessionSettings& settings);

// Local and without MPI: the walker threads asked for, to choose MPI's thread level before MPI_Init;
// 1 when the value does not parse (resolve_settings reports that once MPI is up).
int walker_threads_before_mpi(const SessionSettings& settings);

// "RINGCOMM_THREADS=4 (environment), RINGCOMM_OVERLAP=0 (settings.overlap)": the settings that are set.
std::string describe_set(const std::vector<SettingInEffect>& in_effect);

}  // namespace ringcomm
