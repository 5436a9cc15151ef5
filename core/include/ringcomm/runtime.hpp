#pragma once
// Start-up and shut-down of MPI and Kokkos, and the error policy of ringcomm programs.
#include <mpi.h>

#include <functional>
#include <string>

namespace ringcomm {

class Runtime {
 public:
  // Initializes MPI with `thread_level` and Kokkos, each unless the application already did;
  // finalizes on destruction only what it initialized.
  Runtime(int& argc, char**& argv, int thread_level = MPI_THREAD_FUNNELED);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  int rank() const;
  int size() const;

 private:
  bool owns_mpi_ = false;
  bool owns_kokkos_ = false;
};

// Collective: throws on every rank when MPI provides less than `needed` (e.g. MPI_THREAD_MULTIPLE).
void require_thread_level(MPI_Comm comm, int needed, const std::string& why);

const char* thread_level_name(int level);

// Runs `body` inside a Runtime and applies the error policy: a ringcomm::Error is printed as
// "ringcomm: error on rank R: …"; a collective one exits with status 1 on every rank, any other
// aborts the job so no peer waits forever. After a TimeoutError the rank waits a moment before it
// aborts (abort_grace_seconds), so that peers that timed out too can print what they waited for.
// Returns the process exit status.
int run_main(int& argc, char**& argv, const std::function<int()>& body, int thread_level = MPI_THREAD_FUNNELED);

}  // namespace ringcomm
