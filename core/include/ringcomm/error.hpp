#pragma once
// Errors raised by ringcomm.
//
// A `collective` error was agreed on by every rank of the communicator that raised it, so each rank
// holds the same message and may shut down MPI normally. Any other error is local to one rank: the
// only safe reaction is MPI_Abort, since its peers may be blocked waiting for it.
#include <stdexcept>
#include <string>

namespace ringcomm {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what, bool collective = false)
      : std::runtime_error(what), collective_(collective) {}
  bool collective() const noexcept { return collective_; }

 private:
  bool collective_;
};

// A setting (environment variable, option) whose text does not parse or is out of range. It is the
// user's mistake, not a property of the machine: callers refuse it, never take it for a reason to
// skip a transport.
class SettingError : public Error {
 public:
  using Error::Error;
};

}  // namespace ringcomm
