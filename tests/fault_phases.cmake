# The phase table of issue #15: for every phase outside and inside the ring step and every CPU
# transport, one rank stops on entering the phase (library test hook RINGCOMM_TEST_STALL_PHASE: the
# thread blocks for good, not SIGSTOP; core/src/phase.cpp says why) and every other rank must report
# the phase and end the job within RINGCOMM_TIMEOUT + margin (tests/fault_phase.cmake). Each test
# leaves its cell in fault_phases/; tests/fault_phase_table.py turns them into the table
# (docs/results/fault_phases_cpu.md).
set(RINGCOMM_PHASE_TIMEOUT 2)  # seconds: short, to keep CI time small
set(RINGCOMM_PHASE_MARGIN 5)   # seconds: the issue's bound (abort grace, mpirun's teardown, a loaded machine)
set(RINGCOMM_PHASE_RESULTS ${CMAKE_CURRENT_BINARY_DIR}/fault_phases)

# ringcomm_add_phase_test(<transport> <phase> [RANKS <p>] [ARGS ...])
function(ringcomm_add_phase_test transport phase)
  cmake_parse_arguments(ARG "" "RANKS" "ARGS" ${ARGN})
  if(NOT DEFINED ARG_RANKS)
    set(ARG_RANKS 3)
  endif()
  set(name fault_phase_${transport}_${phase})
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG}
            -DRING_COMPARE=$<TARGET_FILE:ring_compare> -DRANKS=${ARG_RANKS} -DTRANSPORT=${transport}
            -DPHASE=${phase} -DSTALL_RANK=1 -DTIMEOUT=${RINGCOMM_PHASE_TIMEOUT} -DMARGIN=${RINGCOMM_PHASE_MARGIN}
            -DWORK=${CMAKE_CURRENT_BINARY_DIR}/fault_phase_work/${transport}_${phase}
            -DRESULT_DIR=${RINGCOMM_PHASE_RESULTS} "-DEXTRA_ARGS=${ARG_ARGS}"
            -P ${CMAKE_CURRENT_SOURCE_DIR}/fault_phase.cmake)
  set_tests_properties(${name} PROPERTIES
    TIMEOUT 90 PROCESSORS ${ARG_RANKS} LABELS "fault;fault_phase" ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT}")
endfunction()

if(RINGCOMM_BUILD_EXAMPLES)
  get_property(_phase_backends GLOBAL PROPERTY RINGCOMM_BACKEND_LIST)
  foreach(transport mpi host ucx)
    if(NOT transport IN_LIST _phase_backends)
      continue()
    endif()
    ringcomm_add_phase_test(${transport} start-up)
    ringcomm_add_phase_test(${transport} set-up ARGS --no-original)
    ringcomm_add_phase_test(${transport} ring-step ARGS --no-original)
    # sum_across_rings: two sub-rings of S=2 (the original's MPI_Ireduce would come first otherwise).
    ringcomm_add_phase_test(${transport} reduction RANKS 4 ARGS --no-original --ring-size 2)
    ringcomm_add_phase_test(${transport} gather)
    ringcomm_add_phase_test(${transport} checkpoint-restore ARGS --no-original)
    ringcomm_add_phase_test(${transport} checkpoint-save ARGS --no-original)
    ringcomm_add_phase_test(${transport} mpi-io-write ARGS --no-original)
  endforeach()
  unset(_phase_backends)
endif()
