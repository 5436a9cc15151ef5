#include "internal/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "ringcomm/error.hpp"

namespace ringcomm {

namespace {

std::string system_error(const std::string& doing, const std::string& path) {
  return "cannot " + doing + " " + path + ": " + std::strerror(errno);
}

std::string folder_of(const std::string& path) {
  const auto slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

File::File(const std::string& path, Mode mode) : path_(path) {
  const int flags = mode == Mode::read ? O_RDONLY : O_WRONLY | O_CREAT | O_TRUNC;
  // O_NONBLOCK: opening a FIFO (or a device) would otherwise wait for a peer that may never come;
  // such a path is refused below, and regular files ignore the flag, which is cleared anyway.
  do {
    fd_ = ::open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK, 0644);
  } while (fd_ < 0 && errno == EINTR);
  if (fd_ < 0) fail(mode == Mode::read ? "open" : "create");
  struct stat info {};
  if (::fstat(fd_, &info) != 0) fail("inspect");
  if (!S_ISREG(info.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw Error("cannot use " + path + ": it is not a regular file (a FIFO, device or directory)");
  }
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

File::~File() {
  if (fd_ >= 0) ::close(fd_);
}

void File::fail(const std::string& doing) const { throw Error(system_error(doing, path_)); }

std::size_t File::size() const {
  struct stat info {};
  if (::fstat(fd_, &info) != 0) fail("inspect");
  return static_cast<std::size_t>(info.st_size);
}

void File::read_at(std::size_t offset, void* data, std::size_t bytes) const {
  auto* out = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t got = ::pread(fd_, out, bytes, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) fail("read");
    if (got == 0) throw Error("cannot read " + path_ + ": it ends at byte " + std::to_string(offset));
    out += got;
    offset += static_cast<std::size_t>(got);
    bytes -= static_cast<std::size_t>(got);
  }
}

void File::write(const void* data, std::size_t bytes) {
  const auto* in = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t put = ::write(fd_, in, bytes);
    if (put < 0 && errno == EINTR) continue;
    if (put < 0) fail("write");
    if (put == 0) throw Error("cannot write " + path_ + ": the system wrote 0 of " + std::to_string(bytes) + " bytes");
    in += put;
    bytes -= static_cast<std::size_t>(put);
  }
}

void File::sync() {
  if (::fsync(fd_) != 0) fail("flush (fsync)");
}

void rename_durably(const std::string& from, const std::string& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) throw Error(system_error("rename " + from + " to", to));
  const std::string folder = folder_of(to);
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) throw Error(system_error("open the folder", folder));
  const int synced = ::fsync(fd);
  ::close(fd);
  if (synced != 0) throw Error(system_error("flush (fsync) the folder", folder));
}

void write_whole_file(const std::string& path, std::initializer_list<Bytes> pieces) {
  const std::string temporary = path + ".tmp";
  try {
    {
      File file(temporary, File::Mode::create);
      for (const Bytes& piece : pieces) file.write(piece.data, piece.size);
      file.sync();
    }
    rename_durably(temporary, path);
  } catch (const Error&) {
    std::remove(temporary.c_str());
    throw;
  }
}

}  // namespace ringcomm
