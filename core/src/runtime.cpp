#include "ringcomm/runtime.hpp"

#include <Kokkos_Core.hpp>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <exception>
#include <thread>

#include "ringcomm/collective.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/phase.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/watchdog.hpp"

namespace ringcomm {

Runtime::Runtime(int& argc, char**& argv, int thread_level) {
  // What the compiled backends need in the environment (their declarations say why), set before MPI
  // or Kokkos can read it; a value the user chose is kept.
  for (const BackendInfo& backend : Registry::instance().backends())
    for (const auto& [name, value] : backend.environment_defaults) setenv(name.c_str(), value.c_str(), 0);
  // MPI_Init_thread waits for every rank the launcher started; a rank that never comes would hold
  // the others there, silently, for good.
  const PhaseScope phase("start-up");
  const BlockingCallWatch watch("MPI_Init_thread and Kokkos::initialize");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, thread_level, &provided);
    owns_mpi_ = true;
  }
  if (!Kokkos::is_initialized()) {
    Kokkos::initialize(argc, argv);
    owns_kokkos_ = true;
  }
  report_phase_when_terminated();
  // Memory checks divide the node's memory among the ranks on it.
  count_node_ranks(MPI_COMM_WORLD);
}

Runtime::~Runtime() {
  // MPI_Finalize synchronises with the other ranks too.
  const PhaseScope phase("shut-down");
  const BlockingCallWatch watch("Kokkos::finalize and MPI_Finalize");
  if (owns_kokkos_) Kokkos::finalize();
  if (owns_mpi_) MPI_Finalize();
}

int Runtime::rank() const {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int Runtime::size() const {
  int s = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

const char* thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
  }
  return "unknown thread level";
}

void require_thread_level(MPI_Comm comm, int needed, const std::string& why) {
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  agree(comm, provided >= needed,
        why + " needs MPI initialised with " + thread_level_name(needed) + " but it provides " +
            thread_level_name(provided) + " (call MPI_Init_thread with " + thread_level_name(needed) + ")");
}

int run_main(int& argc, char**& argv, const std::function<int()>& body, int thread_level) {
  int status = 0;
  bool abort_job = false;
  double grace_seconds = 0;
  {
    Runtime runtime(argc, argv, thread_level);
    const int rank = runtime.rank();
    try {
      status = body();
    } catch (const Error& e) {
      std::fprintf(stderr, "ringcomm: error on rank %d: %s\n", rank, e.what());
      status = 1;
      abort_job = !e.collective();
      if (const auto* timeout = dynamic_cast<const TimeoutError*>(&e)) grace_seconds = abort_grace_seconds(*timeout);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "ringcomm: unexpected error on rank %d: %s\n", rank, e.what());
      status = 1;
      abort_job = true;
    }
    std::fflush(stderr);
    if (grace_seconds > 0) std::this_thread::sleep_for(std::chrono::duration<double>(grace_seconds));
    if (abort_job) MPI_Abort(MPI_COMM_WORLD, status);
  }
  return status;
}

}  // namespace ringcomm
