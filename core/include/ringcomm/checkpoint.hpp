#pragma once
// Checkpoint and restart of a distributed array: every rank keeps its own slice on disk, so that a
// run that was killed continues from the last round all ranks saved instead of from the start.
//
// Each rank writes <directory>/rank-<R>.round-<r>.ckpt: a text header (format version, round, payload
// size, the run's shape and progress as name=value lines), the slice's bytes, and an FNV-1a 64
// checksum of all that. A file is written under a temporary name, flushed to disk (fsync), renamed
// into place and the directory flushed, so that a crash leaves either the old or the new file whole.
// Once every rank has its round r in place, each removes its older ones; a crash in between leaves
// two rounds on some ranks, and restore() takes the newest round that every rank holds.
//
// restore() is collective and refuses, on every rank alike, a checkpoint that is damaged (checksum,
// truncation), incomplete (ranks missing) or written by a different run (any shape field differs;
// the message names each one with both values).
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ringcomm/collective.hpp"

namespace ringcomm {

constexpr const char* kCheckpointSetting = "RINGCOMM_CHECKPOINT";
constexpr const char* kCheckpointEverySetting = "RINGCOMM_CHECKPOINT_EVERY";

struct CheckpointSettings {
  std::string directory;           // RINGCOMM_CHECKPOINT; empty: no checkpoints
  std::uint64_t every_rounds = 0;  // RINGCOMM_CHECKPOINT_EVERY; 0: the driver's choice
  bool enabled() const { return !directory.empty(); }
};

// Collective over `world`: RINGCOMM_CHECKPOINT and RINGCOMM_CHECKPOINT_EVERY, with the same error on
// every rank when one is not valid (EVERY without a directory among them).
CheckpointSettings checkpoint_settings(MPI_Comm world);
// The one parser of both values (each nothing when unset; named as given in errors); local.
CheckpointSettings parse_checkpoint_settings(const std::optional<std::string>& directory,
                                             const std::optional<std::string>& every,
                                             const std::string& directory_setting, const std::string& every_setting);

class Checkpoint {
 public:
  // `shape`: what a restart must match (ranks, sizes, types, seeds …); values are single lines.
  Checkpoint(MPI_Comm world, std::string directory, std::vector<Field> shape);

  // Collective. Loads this rank's slice (`bytes` of data memory at `slice`) of the newest round that
  // every rank holds and returns that round; nothing when no rank holds a checkpoint.
  std::optional<std::uint64_t> restore(void* slice, std::size_t bytes) const;

  // Collective: saves this rank's slice as round `round`. `progress` (e.g. measurements done) is
  // recorded for people reading the header, not compared on restart.
  void save(std::uint64_t round, const std::vector<Field>& progress, const void* slice, std::size_t bytes) const;

  const std::string& directory() const { return directory_; }
  // This rank's file of `round`.
  std::string path(std::uint64_t round) const;

 private:
  std::vector<std::uint64_t> rounds_on_disk() const;
  void remove_stale_temporaries() const;
  void load(std::uint64_t round, void* slice, std::size_t bytes) const;

  MPI_Comm world_;
  int rank_;
  std::string directory_;
  std::vector<Field> shape_;
};

}  // namespace ringcomm
