# Bad-input tests: each runs bad_input_probe under mpirun through expect_failure.cmake and passes
# only when every rank reports the expected error and the job exits non-zero without hanging.
add_executable(bad_input_probe bad_input_probe.cpp)
target_link_libraries(bad_input_probe PRIVATE ringcomm::ringcomm)
ringcomm_add_program_test(bad_input_probe_help PROGRAM bad_input_probe RANKS 1 ARGS --help
  EXPECT "usage: bad_input_probe .*--gt-entries N")

# ringcomm_add_failure_test(<name> RANKS <p> EXPECT <regex>… [ENV <VAR=value>…] [ARGS <arg>…]
#                           [RANK_ENV <rank 0's "VAR=value …"> <rank 1's> …] [RANK_ARGS <rank 0's "args"> …]
#                           [PROGRAM <target>])
#   Test bad_input_<name>, running PROGRAM (default bad_input_probe). The settings go to a case file,
#   so regexes need no escaping on the way.
function(ringcomm_add_failure_test name)
  cmake_parse_arguments(ARG "" "RANKS;PROGRAM" "EXPECT;ENV;ARGS;RANK_ENV;RANK_ARGS" ${ARGN})
  if(NOT ARG_PROGRAM)
    set(ARG_PROGRAM bad_input_probe)
  endif()
  set(case_file ${CMAKE_CURRENT_BINARY_DIR}/bad_input_cases/${name}.cmake)
  set(content "set(RANKS ${ARG_RANKS})\n")
  foreach(var EXPECT ENV ARGS RANK_ENV RANK_ARGS)
    set(items "")
    foreach(item IN LISTS ARG_${var})
      string(APPEND items " [==[${item}]==]")
    endforeach()
    string(APPEND content "set(${var}${items})\n")
  endforeach()
  file(WRITE ${case_file} "${content}")
  add_test(NAME bad_input_${name}
    COMMAND ${CMAKE_COMMAND} -DCASE=${case_file} -DMPIEXEC=${MPIEXEC_EXECUTABLE}
            -DNUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG} -DPROBE=$<TARGET_FILE:${ARG_PROGRAM}>
            -P ${CMAKE_CURRENT_SOURCE_DIR}/expect_failure.cmake)
  set_tests_properties(bad_input_${name} PROPERTIES
    TIMEOUT 90 PROCESSORS ${ARG_RANKS} ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT}")
endfunction()

# The control: with good input the probe gets through, so the failures below are the inputs' doing.
add_test(NAME bad_input_control_good_input_passes
  COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:bad_input_probe>)
set_tests_properties(bad_input_control_good_input_passes PROPERTIES
  TIMEOUT 90 PROCESSORS 2 ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT}" PASS_REGULAR_EXPRESSION "all ranks fine")

ringcomm_add_failure_test(unknown_transport RANKS 2 ENV RINGCOMM_TRANSPORT=carrier_pigeon
  EXPECT "unknown transport 'carrier_pigeon'" "compiled transports:" "\n  host: usable" "\n  mpi: usable")

get_property(compiled_backends GLOBAL PROPERTY RINGCOMM_BACKEND_LIST)
if("nccl" IN_LIST compiled_backends AND NOT Kokkos_ENABLE_CUDA)
  ringcomm_add_failure_test(unusable_transport RANKS 2 ENV RINGCOMM_TRANSPORT=nccl
    EXPECT "transport 'nccl' is not usable here: .*ring buffers are in host memory" "\n  host: usable")
endif()
if("cuda_ipc" IN_LIST compiled_backends AND NOT Kokkos_ENABLE_CUDA)
  ringcomm_add_failure_test(unusable_cuda_ipc RANKS 2 ENV RINGCOMM_TRANSPORT=cuda_ipc
    EXPECT "transport 'cuda_ipc' is not usable here: .*cuda_ipc moves device memory only" "\n  host: usable")
endif()

ringcomm_add_failure_test(ring_size_not_dividing_ranks RANKS 4 ENV RINGCOMM_RING_SIZE=3
  EXPECT "ring size S=3 must be at least 1 and divide the 4 ranks")
ringcomm_add_failure_test(ring_size_zero RANKS 2 ENV RINGCOMM_RING_SIZE=0
  EXPECT "RINGCOMM_RING_SIZE='0' is not valid: expected an integer in \\[1,")
ringcomm_add_failure_test(ring_size_not_a_number RANKS 2 ENV RINGCOMM_RING_SIZE=abc
  EXPECT "RINGCOMM_RING_SIZE='abc' is not valid")

ringcomm_add_failure_test(ring_size_invalid_on_one_rank RANKS 2
  RANK_ENV "RINGCOMM_RING_SIZE=2" "RINGCOMM_RING_SIZE=two"
  EXPECT "rank 1: RINGCOMM_RING_SIZE='two' is not valid")

ringcomm_add_failure_test(ranks_disagree_on_message_size RANKS 2
  RANK_ARGS "--message-bytes 1000" "--message-bytes 1001"
  EXPECT "ranks disagree on the ring's message" "message bytes: rank 0=1000 rank 1=1001")
ringcomm_add_failure_test(ranks_disagree_on_gt_size RANKS 3
  RANK_ARGS "--gt-entries 100" "--gt-entries 100" "--gt-entries 101"
  EXPECT "ranks disagree on the size of G_t" "G_t entries: rank 0=100 rank 1=100 rank 2=101")
ringcomm_add_failure_test(ranks_disagree_on_transport RANKS 2
  RANK_ENV "RINGCOMM_TRANSPORT=mpi" "RINGCOMM_TRANSPORT=host"
  EXPECT "ranks disagree on the transport" "transport: rank 0=mpi rank 1=host")
ringcomm_add_failure_test(ranks_disagree_on_ring_size RANKS 2
  RANK_ENV "RINGCOMM_RING_SIZE=2" "RINGCOMM_RING_SIZE=1"
  EXPECT "ranks disagree on the ring size" "ring size: rank 0=2 rank 1=1")
ringcomm_add_failure_test(ranks_disagree_on_staging_chunk RANKS 2 ENV RINGCOMM_TRANSPORT=host
  RANK_ENV "RINGCOMM_HOST_CHUNK_BYTES=4096" "RINGCOMM_HOST_CHUNK_BYTES=8K"
  EXPECT "ranks disagree on the staging chunk size" "rank 0=4096 rank 1=8K")
ringcomm_add_failure_test(staging_chunk_invalid RANKS 2 ENV RINGCOMM_TRANSPORT=host RINGCOMM_HOST_CHUNK_BYTES=lots
  EXPECT "RINGCOMM_HOST_CHUNK_BYTES='lots' is not valid")

ringcomm_add_failure_test(gt_slice_too_large RANKS 2 ARGS --gt-entries 1000000000000000
  EXPECT "G_t slice \\(500000000000000 of 1000000000000000 complex<double> entries\\) needs [0-9.]+ PiB"
         "of (host|device) memory but only [0-9.]+ [KMGT]?i?B of [0-9.]+ [KMGT]?i?B is free")
ringcomm_add_failure_test(thread_level_too_low RANKS 2 ARGS --thread-level single --need-thread-multiple
  EXPECT "needs MPI initialised with MPI_THREAD_MULTIPLE but it provides MPI_THREAD_SINGLE")

ringcomm_add_failure_test(threads_without_thread_multiple RANKS 2 ENV RINGCOMM_THREADS=2
  EXPECT "RINGCOMM_THREADS=2 \\(each walker thread drives its own ring\\) needs MPI initialised with MPI_THREAD_MULTIPLE")
ringcomm_add_failure_test(threads_zero RANKS 2 ENV RINGCOMM_THREADS=0
  EXPECT "RINGCOMM_THREADS='0' is not valid: expected an integer in \\[1, 256\\]")
ringcomm_add_failure_test(threads_not_a_number RANKS 2 ENV RINGCOMM_THREADS=abc
  EXPECT "RINGCOMM_THREADS='abc' is not valid")
ringcomm_add_failure_test(direction_unknown RANKS 2 ENV RINGCOMM_DIRECTION=sideways
  EXPECT "RINGCOMM_DIRECTION='sideways' is not valid: expected one of: uni, bi")
ringcomm_add_failure_test(overlap_unknown RANKS 2 ENV RINGCOMM_OVERLAP=sometimes
  EXPECT "RINGCOMM_OVERLAP='sometimes' is not valid: expected one of: 0, 1, lock_step, overlap")
ringcomm_add_failure_test(auto_ring_size_impossible_budget RANKS 2 ENV RINGCOMM_RING_SIZE=auto RINGCOMM_MEMORY_BUDGET=1K
  ARGS --gt-entries 100000
  EXPECT "RINGCOMM_RING_SIZE=auto: no ring size dividing the 2 ranks fits 1.00 KiB per rank \\(RINGCOMM_MEMORY_BUDGET\\)"
         "\n  S=1: [0-9.]+ [KM]iB per rank" "\n  S=2: [0-9.]+ [KM]iB per rank")
ringcomm_add_failure_test(memory_budget_invalid RANKS 2 ENV RINGCOMM_RING_SIZE=auto RINGCOMM_MEMORY_BUDGET=1.5
  EXPECT "RINGCOMM_MEMORY_BUDGET='1.5' is not valid")
