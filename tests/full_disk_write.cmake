# ring_compare --write onto a file system that fills up (a 256 KiB tmpfs for a 1 MiB G_t): every rank
# must fail naming the disk, exit non-zero, and leave neither the .npy nor its temporary behind. Open
# MPI 4.1's collective MPI-IO reports success there, so before the read-back check the job exited 0
# with a .npy that was mostly holes.
#
# The tmpfs is mounted in a private mount namespace (unshare --mount), which needs root or
# CAP_SYS_ADMIN; without them the test is skipped, saying so.
#
#   cmake -DMPIEXEC=<mpirun> -DNUMPROC_FLAG=-np -DRING_COMPARE=<exe> -DWORK=<dir> -P full_disk_write.cmake
cmake_minimum_required(VERSION 3.20)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/small)
execute_process(COMMAND unshare --mount sh -c "mount -t tmpfs -o size=256k tmpfs '${WORK}/small'"
                RESULT_VARIABLE can_mount OUTPUT_VARIABLE why ERROR_VARIABLE why)
if(NOT can_mount STREQUAL "0")
  message(STATUS "full-disk test skipped: cannot mount a small tmpfs in a private mount namespace here (${why})")
  return()
endif()
set(ring_compare "'${MPIEXEC}' ${NUMPROC_FLAG} 3 '${RING_COMPARE}' --transports mpi --no-original --nb 1 --lx 2 --ly 2 \
--nfreq 16 --exchange-momenta 0,1,2,3 --exchange-frequencies 0,1,2,3 --measurements 6 --quiet --write '${WORK}/small/gt.npy'")
execute_process(
  COMMAND unshare --mount sh -c "mount -t tmpfs -o size=256k tmpfs '${WORK}/small' && ${ring_compare}; status=$?; \
echo \"left behind: $(ls '${WORK}/small')\"; exit $status"
  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output TIMEOUT 120)
set(problems "")
if(status STREQUAL "0")
  string(APPEND problems "\n- the job exited with status 0 on a full disk")
endif()
foreach(rank 0 1 2)
  if(NOT output MATCHES "ringcomm: error on rank ${rank}: [^\n]*writing [^\n]*gt.npy with MPI-IO: [^\n]*is the disk full")
    string(APPEND problems "\n- rank ${rank} did not report the failed write")
  endif()
endforeach()
if(NOT output MATCHES "left behind: \n" AND NOT output MATCHES "left behind: $")
  string(APPEND problems "\n- files were left on the full disk")
endif()
if(problems)
  message(FATAL_ERROR "full-disk write not handled:${problems}\ncommand: ${ring_compare}\nexit status: ${status}\n"
                      "output:\n${output}")
endif()
message(STATUS "full disk: every rank failed the write, nothing left behind\n${output}")
