# Failure injection: fault_probe runs a ring over every CPU transport and one rank hangs (SIGSTOP,
# or sleeps forever) or dies (SIGKILL) in the middle; fault_injection.cmake checks that the job ends
# within RINGCOMM_TIMEOUT plus a margin, ended by ringcomm (mpirun is told not to end a job whose rank
# died), with every other rank's diagnosis, and prints how long that took.
add_executable(fault_probe fault_probe.cpp)
target_link_libraries(fault_probe PRIVATE ringcomm_program_support)

set(RINGCOMM_FAULT_TIMEOUT 3)  # seconds: short, so that the tests are
set(RINGCOMM_FAULT_MARGIN 5)   # seconds, the issue's bound (timeout + 5 s): abort grace (2 s), mpirun's teardown, a loaded machine

# ringcomm_add_fault_test(<transport> <fault> RANKS <p> [FAULT_RANK <r>] [AFTER_ROUND <k>])
function(ringcomm_add_fault_test transport fault)
  cmake_parse_arguments(ARG "" "RANKS;FAULT_RANK;AFTER_ROUND" "" ${ARGN})
  if(NOT DEFINED ARG_FAULT_RANK)
    set(ARG_FAULT_RANK 1)
  endif()
  if(NOT DEFINED ARG_AFTER_ROUND)
    set(ARG_AFTER_ROUND 3)
  endif()
  set(name fault_${transport}_${fault})
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG}
            -DPROBE=$<TARGET_FILE:fault_probe> -DRANKS=${ARG_RANKS} -DTRANSPORT=${transport} -DFAULT=${fault}
            -DFAULT_RANK=${ARG_FAULT_RANK} -DAFTER_ROUND=${ARG_AFTER_ROUND} -DTIMEOUT=${RINGCOMM_FAULT_TIMEOUT}
            -DMARGIN=${RINGCOMM_FAULT_MARGIN} -P ${CMAKE_CURRENT_SOURCE_DIR}/fault_injection.cmake)
  set_tests_properties(${name} PROPERTIES
    TIMEOUT 120 PROCESSORS ${ARG_RANKS} LABELS fault ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT}")
endfunction()

# The control: without a failure the probe gets through, so the failures below are the faults' doing.
add_test(NAME fault_control_no_fault_passes COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:fault_probe>)
set_tests_properties(fault_control_no_fault_passes PROPERTIES
  TIMEOUT 60 PROCESSORS 3 LABELS fault ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT};RINGCOMM_TIMEOUT=${RINGCOMM_FAULT_TIMEOUT}"
  PASS_REGULAR_EXPRESSION "all ranks fine")

# Every backend the build says runs on host memory (ringcomm_add_backend, cmake/ringcommBackends.cmake).
get_property(_fault_backends GLOBAL PROPERTY RINGCOMM_HOST_MEMORY_BACKENDS)
foreach(transport IN LISTS _fault_backends)
  ringcomm_add_fault_test(${transport} stop RANKS 3)
  ringcomm_add_fault_test(${transport} kill RANKS 3)
endforeach()
# A rank that is alive and sleeping looks like a stopped one to its peers; once is enough.
ringcomm_add_fault_test(mpi sleep RANKS 4 FAULT_RANK 2 AFTER_ROUND 5)
unset(_fault_backends)
