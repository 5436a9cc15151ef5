# Regression tests of issue #15 (besides the phase table, fault_phases.cmake): a full disk under
# --write, options whose size arithmetic overflowed, ranks started differently, the node's memory
# shared by its ranks, checkpoint paths that hung or reached too far.
# The core pieces alone: bounded waits, collectively() and timeouts, agree_on_strings, checked sizes.
ringcomm_add_mpi_test(test_bounded_waits SOURCES test_bounded_waits.cpp RANKS 1 2 TIMEOUT 60)
foreach(_p 1 2)
  set_property(TEST test_bounded_waits_p${_p} APPEND PROPERTY ENVIRONMENT RINGCOMM_TIMEOUT=1)
endforeach()

if(NOT RINGCOMM_BUILD_EXAMPLES)
  return()
endif()

add_test(NAME regression_full_disk_write
  COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG}
          -DRING_COMPARE=$<TARGET_FILE:ring_compare> -DWORK=${CMAKE_CURRENT_BINARY_DIR}/regression_full_disk
          -P ${CMAKE_CURRENT_SOURCE_DIR}/full_disk_write.cmake)
set_tests_properties(regression_full_disk_write PROPERTIES TIMEOUT 180 PROCESSORS 3
  ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT}" SKIP_REGULAR_EXPRESSION "full-disk test skipped")

# M = 2^30 made the message size wrap to 16 bytes (SIGSEGV on every rank); the index limit refuses
# the option, and the message-size check the same size reached through the cluster instead.
ringcomm_add_program_test(regression_exchange_frequency_overflow PROGRAM ring_compare RANKS 2
  ARGS --nb 1 --lx 1 --ly 1 --nfreq 2 --exchange-momenta 0 --exchange-frequencies 536870911 EXPECT_FAILURE
  EXPECT "--exchange-frequencies='536870911' is not valid")
ringcomm_add_program_test(regression_message_size_overflow PROGRAM ring_compare RANKS 2
  ARGS --nb 1 --lx 1024 --ly 1024 --nfreq 1024 --exchange-momenta 0 --exchange-frequencies 0 EXPECT_FAILURE
  EXPECT "ring message [^\n]* overflows")
ringcomm_add_program_test(regression_measurements_limit PROGRAM ring_compare RANKS 2
  ARGS --measurements 9223372036854775807 EXPECT_FAILURE EXPECT "--measurements='9223372036854775807' is not valid")

# Ranks started differently (mpirun's MPMD form) must agree to fail instead of waiting in different
# collectives: an option on one rank only, --help on one rank only, RINGCOMM_TRANSPORT set on one only.
set(_small --nb 1 --lx 2 --ly 1 --nfreq 2 --measurements 6 --quiet)
ringcomm_add_program_test(regression_disagree_option PROGRAM ring_compare RANKS 1
  ARGS ${_small} --no-original : ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:ring_compare> ${_small} EXPECT_FAILURE
  EXPECT "error on rank 2: ranks disagree on the command line" "rank 0: [^\n]*--no-original")
ringcomm_add_program_test(regression_disagree_help PROGRAM ring_compare RANKS 1
  ARGS ${_small} : ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:ring_compare> ${_small} --help EXPECT_FAILURE
  EXPECT "error on rank 2: ranks disagree on the command line")
ringcomm_add_program_test(regression_disagree_transport PROGRAM ring_compare RANKS 1
  ARGS ${_small} : ${MPIEXEC_NUMPROC_FLAG} 2 env RINGCOMM_TRANSPORT=mpi $<TARGET_FILE:ring_compare> ${_small}
  EXPECT_FAILURE EXPECT "error on rank 1: ranks disagree on the RINGCOMM_\\* environment" "RINGCOMM_TRANSPORT=mpi")
foreach(_name disagree_option disagree_help disagree_transport)
  set_tests_properties(program_regression_${_name} PROPERTIES PROCESSORS 3 TIMEOUT 60)
endforeach()

# 4 ranks on a (faked) 6.4 MB node: a rank's share is 1.6 MB, so auto must pick S=2 (1.0 MB per
# rank), not S=1 (1.5 MB), which fits only a rank that thinks it has the node to itself.
ringcomm_add_program_test(regression_node_memory_shared PROGRAM ring_compare RANKS 4
  ARGS --transports mpi --no-original --nb 1 --lx 2 --ly 2 --nfreq 16 --exchange-momenta 0,1,2,3
       --exchange-frequencies 0,1,2,3 --measurements 8 --quiet
  EXPECT "RINGCOMM_RING_SIZE=auto chose S=2")
set_property(TEST program_regression_node_memory_shared APPEND PROPERTY ENVIRONMENT
  RINGCOMM_TEST_NODE_MEMORY=6400000 RINGCOMM_RING_SIZE=auto)

# Checkpoint paths: the root of the file system, a FIFO as the directory, a FIFO as a checkpoint file
# (opening it waited for a writer forever).
set(_fifo_dir ${CMAKE_CURRENT_BINARY_DIR}/regression_fifo)
file(MAKE_DIRECTORY ${_fifo_dir}/files/mpi_S1)
foreach(_fifo ${_fifo_dir}/as_directory ${_fifo_dir}/files/mpi_S1/rank-0.round-2.ckpt)
  if(NOT EXISTS ${_fifo})
    execute_process(COMMAND mkfifo ${_fifo})
  endif()
endforeach()
foreach(_case "root;/;not valid: expected a directory of its own" "fifo_directory;${_fifo_dir}/as_directory;exists and is not a directory"
              "fifo_file;${_fifo_dir}/files;not a regular file")
  list(GET _case 0 _name)
  list(GET _case 1 _path)
  list(GET _case 2 _expect)
  ringcomm_add_program_test(regression_checkpoint_${_name} PROGRAM ring_compare RANKS 1
    ARGS --transports mpi --no-original ${_small} EXPECT_FAILURE EXPECT "${_expect}")
  set_property(TEST program_regression_checkpoint_${_name} APPEND PROPERTY ENVIRONMENT RINGCOMM_CHECKPOINT=${_path})
  set_tests_properties(program_regression_checkpoint_${_name} PROPERTIES TIMEOUT 60)
endforeach()
unset(_small)
unset(_fifo_dir)
