#pragma once
// Shared pieces of the reliability suite (test_reliability*.cpp).
#include <string>

namespace ringcomm::reliability {

// Collective: a fresh, empty folder that every rank of MPI_COMM_WORLD names alike (rank 0 picks it).
// Removed again by the destructor, collectively.
class SharedScratch {
 public:
  explicit SharedScratch(const std::string& purpose);
  ~SharedScratch();
  SharedScratch(const SharedScratch&) = delete;
  SharedScratch& operator=(const SharedScratch&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace ringcomm::reliability
