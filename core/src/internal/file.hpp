#pragma once
// Plain POSIX files for what ringcomm writes itself (checkpoints): every failure is an Error naming
// the file and the system's reason, and a written file can be made durable before it is used.
#include <cstddef>
#include <initializer_list>
#include <string>

namespace ringcomm {

class File {
 public:
  enum class Mode {
    read,    // existing file, read only
    create,  // write only; created, or emptied when it exists
  };
  File(const std::string& path, Mode mode);
  ~File();
  File(const File&) = delete;
  File& operator=(const File&) = delete;

  std::size_t size() const;
  // Reads exactly `bytes` at `offset`; throws when the file ends before.
  void read_at(std::size_t offset, void* data, std::size_t bytes) const;
  // Appends all `bytes`.
  void write(const void* data, std::size_t bytes);
  // fsync: the data is on disk when it returns.
  void sync();

 private:
  [[noreturn]] void fail(const std::string& doing) const;
  std::string path_;
  int fd_ = -1;
};

// rename(2) of `from` to `to`, then fsync of the folder holding `to`, so that the new name is on disk.
void rename_durably(const std::string& from, const std::string& to);

// One piece of a file to write.
struct Bytes {
  const void* data;
  std::size_t size;
};

// Writes `pieces` one after the other to `path`.tmp, flushes it and renames it to `path`: a failed
// write (a full disk) throws and leaves neither a partial `path` nor the temporary file.
void write_whole_file(const std::string& path, std::initializer_list<Bytes> pieces);

}  // namespace ringcomm
