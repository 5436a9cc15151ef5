#include "ringcomm/checkpoint.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include "internal/checksum.hpp"
#include "ringcomm/error.hpp"
#include "internal/file.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/phase.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm {

namespace {

constexpr const char* kFormat = "ringcomm checkpoint 1";
constexpr std::size_t kLongestHeader = std::size_t(1) << 16;
constexpr std::size_t kChecksumBytes = 8;
// Slices travel between data memory and the file through host buffers of at most this size.
constexpr std::size_t kStagingBytes = std::size_t(64) << 20;

std::string one_line(std::string text) {
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

std::string header_text(std::uint64_t round, std::size_t payload_bytes, const std::vector<Field>& shape,
                        const std::vector<Field>& progress) {
  std::string text = std::string(kFormat) + "\nround=" + std::to_string(round) +
                     "\npayload_bytes=" + std::to_string(payload_bytes) + "\n";
  for (const auto& fields : {&shape, &progress})
    for (const auto& f : *fields) text += one_line(f.name) + "=" + one_line(f.value) + "\n";
  return text + "\n";
}

void put_little_endian(std::uint64_t value, unsigned char* out) {
  for (std::size_t i = 0; i < kChecksumBytes; ++i) out[i] = static_cast<unsigned char>(value >> (8 * i));
}

std::uint64_t get_little_endian(const unsigned char* in) {
  std::uint64_t value = 0;
  for (std::size_t i = 0; i < kChecksumBytes; ++i) value |= std::uint64_t(in[i]) << (8 * i);
  return value;
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

// Copies `bytes` between data memory and the file in pieces no larger than kStagingBytes; on CPU
// builds data memory is host memory and needs no staging.
class Staging {
 public:
  explicit Staging(std::size_t bytes)
      : host_(device_is_separate() ? std::min(bytes, kStagingBytes) : 0) {}
  static std::size_t piece(std::size_t remaining) { return std::min(remaining, kStagingBytes); }
  const unsigned char* from_data(const unsigned char* data, std::size_t n) {
    if (host_.empty()) return data;
    copy_bytes(host_.data(), MemoryKind::host, data, data_memory_kind(), n);
    return host_.data();
  }
  unsigned char* buffer_for(unsigned char* data) { return host_.empty() ? data : host_.data(); }
  void to_data(unsigned char* data, std::size_t n) {
    if (!host_.empty()) copy_bytes(data, data_memory_kind(), host_.data(), MemoryKind::host, n);
  }

 private:
  std::vector<unsigned char> host_;
};

struct ParsedHeader {
  std::size_t length = 0;  // including the blank line that ends it
  std::map<std::string, std::string> values;
};

// Refuses a directory that cannot be one of checkpoints: the root of the file system (stale-file
// clean-up must never roam there) and an existing path that is not a directory (a FIFO, a file).
void check_checkpoint_directory(const std::string& directory) {
  if (directory.empty()) return;
  const std::string shown = std::string(kCheckpointSetting) + "='" + settings::shown_value(directory) + "'";
  const std::filesystem::path normal = std::filesystem::path(directory).lexically_normal();
  if (normal == normal.root_path() && normal.has_root_directory())
    throw Error(shown + " is not valid: expected a directory of its own for the checkpoint files, not the root of "
                        "the file system");
  std::error_code ec;
  const auto status = std::filesystem::status(directory, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_directory(status))
    throw Error(shown + " is not valid: it exists and is not a directory");
}

}  // namespace

CheckpointSettings checkpoint_settings(MPI_Comm world) {
  check_identical(world,
                  {{kCheckpointSetting, settings::env(kCheckpointSetting).value_or("(unset)")},
                   {kCheckpointEverySetting, settings::env(kCheckpointEverySetting).value_or("(unset)")}},
                  "the checkpoint settings");
  return collectively(world, [] {
    CheckpointSettings s = parse_checkpoint_settings(settings::env(kCheckpointSetting), settings::env(kCheckpointEverySetting),
                                                     kCheckpointSetting, kCheckpointEverySetting);
    check_checkpoint_directory(s.directory);
    return s;
  });
}

CheckpointSettings parse_checkpoint_settings(const std::optional<std::string>& directory,
                                             const std::optional<std::string>& every,
                                             const std::string& directory_setting, const std::string& every_setting) {
  CheckpointSettings s;
  s.directory = directory.value_or("");
  if (every) {
    s.every_rounds = static_cast<std::uint64_t>(settings::parse_integer(*every, every_setting, 1, LLONG_MAX));
    if (s.directory.empty())
      throw Error(every_setting + "=" + *every + " is set but " + directory_setting + " is not: set " +
                  directory_setting + " to the directory that should hold the checkpoints");
  }
  return s;
}

Checkpoint::Checkpoint(MPI_Comm world, std::string directory, std::vector<Field> shape)
    : world_(world), rank_(comm_rank(world)), directory_(std::move(directory)), shape_(std::move(shape)) {}

std::string Checkpoint::path(std::uint64_t round) const {
  return directory_ + "/rank-" + std::to_string(rank_) + ".round-" + std::to_string(round) + ".ckpt";
}

// Temporary files of this rank left by a run that ended while saving (killed, or out of disk).
void Checkpoint::remove_stale_temporaries() const {
  const std::string prefix = "rank-" + std::to_string(rank_) + ".round-";
  const std::string suffix = ".ckpt.tmp";
  std::error_code ec;
  for (std::filesystem::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > prefix.size() + suffix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      std::remove(it->path().c_str());
  }
}

std::vector<std::uint64_t> Checkpoint::rounds_on_disk() const {
  const std::string prefix = "rank-" + std::to_string(rank_) + ".round-";
  const std::string suffix = ".ckpt";
  std::vector<std::uint64_t> rounds;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(directory_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() + suffix.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 18) continue;
    rounds.push_back(std::stoull(digits));
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds;
}

std::optional<std::uint64_t> Checkpoint::restore(void* slice, std::size_t bytes) const {
  const PhaseScope phase("checkpoint-restore");
  const std::vector<std::uint64_t> mine = rounds_on_disk();
  std::string listed;
  for (const auto r : mine) listed += (listed.empty() ? "" : " ") + std::to_string(r);
  const std::vector<std::string> all = allgather_strings(world_, listed);
  if (std::all_of(all.begin(), all.end(), [](const std::string& s) { return s.empty(); })) return std::nullopt;

  std::optional<std::uint64_t> common;
  std::set<std::uint64_t> in_all(mine.begin(), mine.end());
  for (const auto& text : all) {
    std::istringstream words(text);
    std::set<std::uint64_t> theirs;
    for (std::uint64_t r; words >> r;) theirs.insert(r);
    std::set<std::uint64_t> both;
    std::set_intersection(in_all.begin(), in_all.end(), theirs.begin(), theirs.end(), std::inserter(both, both.end()));
    in_all.swap(both);
  }
  if (!in_all.empty()) common = *in_all.rbegin();

  const std::string where = " (" + std::string(kCheckpointSetting) + "=" + directory_ + ")";
  collectively(world_, [&] {
    if (common) return load(*common, slice, bytes);
    // Without a round every rank holds, the newest file of this rank still tells whether it belongs
    // to this run at all, which is the more useful message.
    if (!mine.empty()) {
      load(mine.back(), nullptr, bytes);
      throw Error("checkpoint incomplete: this rank holds round(s) " + listed +
                  " but no round is held by every rank (were there more ranks, or did a run end while saving?)" +
                  where);
    }
    throw Error("checkpoint incomplete: no checkpoint of this rank in " + directory_ +
                ", while other ranks have one (were there fewer ranks?)" + where);
  });
  return common;
}

// Reads and checks path(round); with `slice` null only the header and checksum are checked. Throws a
// local Error saying whether the file is damaged or belongs to another run.
void Checkpoint::load(std::uint64_t round, void* slice, std::size_t bytes) const {
  const std::string file_path = path(round);
  const std::string where = " (" + std::string(kCheckpointSetting) + "=" + directory_ + ")";
  auto damaged = [&](const std::string& why) {
    return Error("checkpoint " + file_path + " is damaged: " + why + "; remove it (and the other ranks' files of round " +
                 std::to_string(round) + ") to restart from an older round or afresh" + where);
  };
  File file(file_path, File::Mode::read);
  const std::size_t size = file.size();
  std::vector<char> head(std::min(size, kLongestHeader));
  file.read_at(0, head.data(), head.size());
  const std::string head_text(head.begin(), head.end());
  const std::size_t blank = head_text.find("\n\n");
  if (head_text.rfind(std::string(kFormat) + "\n", 0) != 0)
    throw damaged("it does not start with '" + std::string(kFormat) + "' (not a checkpoint, or of another format)");
  if (blank == std::string::npos) throw damaged("its header has no end");
  ParsedHeader header;
  header.length = blank + 2;
  std::istringstream lines(head_text.substr(0, blank));
  for (std::string line; std::getline(lines, line);)
    if (const auto eq = line.find('='); eq != std::string::npos) header.values[line.substr(0, eq)] = line.substr(eq + 1);
  const std::string payload_text = header.values["payload_bytes"];
  if (payload_text.empty() || payload_text.find_first_not_of("0123456789") != std::string::npos ||
      payload_text.size() > 18)
    throw damaged("its header gives no payload size");
  const std::size_t payload = std::stoull(payload_text);
  if (size != header.length + payload + kChecksumBytes)
    throw damaged("it has " + std::to_string(size) + " bytes where its header announces " +
                  std::to_string(header.length + payload + kChecksumBytes) + " (truncated?)");

  Fnv1a64 hash;
  hash.update(head.data(), header.length);
  const bool into_slice = slice != nullptr && payload == bytes;
  auto* data = static_cast<unsigned char*>(slice);
  Staging staging(into_slice ? payload : 0);
  std::vector<unsigned char> scratch(into_slice ? 0 : Staging::piece(payload));
  for (std::size_t done = 0; done < payload;) {
    const std::size_t n = Staging::piece(payload - done);
    unsigned char* buffer = into_slice ? staging.buffer_for(data + done) : scratch.data();
    file.read_at(header.length + done, buffer, n);
    hash.update(buffer, n);
    if (into_slice) staging.to_data(data + done, n);
    done += n;
  }
  unsigned char stored[kChecksumBytes];
  file.read_at(header.length + payload, stored, kChecksumBytes);
  if (get_little_endian(stored) != hash.value())
    throw damaged("its checksum (FNV-1a 64) is " + hex(hash.value()) + " but " + hex(get_little_endian(stored)) +
                  " was stored");
  if (header.values["round"] != std::to_string(round)) throw damaged("its header names round " + header.values["round"]);

  std::string differences;
  for (const auto& field : shape_) {
    const auto it = header.values.find(field.name);
    const std::string saved = it == header.values.end() ? "(none)" : it->second;
    if (saved != one_line(field.value))
      differences += "\n  " + field.name + ": " + saved + " in the checkpoint, " + one_line(field.value) + " now";
  }
  if (payload != bytes)
    differences += "\n  slice bytes: " + std::to_string(payload) + " in the checkpoint, " + std::to_string(bytes) + " now";
  if (!differences.empty())
    throw Error("checkpoint " + file_path + " was written by a different run; it differs in:" + differences +
                "\n  restart with the same settings, or point " + kCheckpointSetting +
                " at another directory to start afresh" + where);
}

void Checkpoint::save(std::uint64_t round, const std::vector<Field>& progress, const void* slice,
                      std::size_t bytes) const {
  const PhaseScope phase("checkpoint-save");
  const std::string final_path = path(round);
  collectively(world_, [&] {
    std::error_code ec;
    std::filesystem::create_directories(directory_, ec);
    if (ec)
      throw Error("cannot create the checkpoint directory " + settings::shown_value(directory_) + " (" + kCheckpointSetting + "): " +
                  ec.message());
    const std::string temporary = final_path + ".tmp";
    remove_stale_temporaries();
    // A write that fails (a full disk) leaves no partial file behind to fill the disk on the next try.
    struct RemoveUnlessRenamed {
      const std::string& path;
      bool renamed = false;
      ~RemoveUnlessRenamed() {
        if (!renamed) std::remove(path.c_str());
      }
    } cleanup{temporary};
    {
      File file(temporary, File::Mode::create);
      Fnv1a64 hash;
      const std::string header = header_text(round, bytes, shape_, progress);
      file.write(header.data(), header.size());
      hash.update(header.data(), header.size());
      const auto* data = static_cast<const unsigned char*>(slice);
      Staging staging(bytes);
      for (std::size_t done = 0; done < bytes;) {
        const std::size_t n = Staging::piece(bytes - done);
        const unsigned char* piece = staging.from_data(data + done, n);
        file.write(piece, n);
        hash.update(piece, n);
        done += n;
      }
      unsigned char checksum[kChecksumBytes];
      put_little_endian(hash.value(), checksum);
      file.write(checksum, kChecksumBytes);
      file.sync();
    }
    rename_durably(temporary, final_path);
    cleanup.renamed = true;
  });
  // Every rank holds `round` now; older rounds are no longer needed for a consistent restart.
  for (const auto old : rounds_on_disk())
    if (old != round) std::remove(path(old).c_str());
}

}  // namespace ringcomm
