# Reliability: checkpoint/restart of ring_compare, the parallel .npy writer, misbehaving peers and
# the fuzzing of every parser of user input. (Failure injection has its own file: fault_tests.cmake.)

# Checkpoint/restart end to end (tests/checkpoint_restart.cmake explains each mode).
add_executable(flip_byte flip_byte.cpp)
# The help's second line too: a wrong call prints the usage line alone (and exits with status 2).
ringcomm_add_program_test(flip_byte_help PROGRAM flip_byte RANKS 1 ARGS --help
  EXPECT "usage: flip_byte FILE OFFSET\ninverts the bits")
foreach(mode restart damaged ranks problem)
  add_test(NAME checkpoint_${mode}
    COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNUMPROC_FLAG=${MPIEXEC_NUMPROC_FLAG}
            -DRING_COMPARE=$<TARGET_FILE:ring_compare> -DFLIP_BYTE=$<TARGET_FILE:flip_byte>
            -DWORK=${CMAKE_CURRENT_BINARY_DIR}/checkpoint_tests/${mode} -DMODE=${mode}
            -P ${CMAKE_CURRENT_SOURCE_DIR}/checkpoint_restart.cmake)
  set_tests_properties(checkpoint_${mode} PROPERTIES
    TIMEOUT 300 PROCESSORS 4 LABELS checkpoint ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT}")
endforeach()

# The parts that need no program: checkpoints, the .npy writer and reader, channel set-up checks.
ringcomm_add_mpi_test(test_reliability SOURCES test_reliability.cpp reliability_checkpoint.cpp reliability_write.cpp
                      conformance.cpp RANKS 1 2 4)

# ring_compare --write on 4 ranks in 2 sub-rings: numpy must load the file and find the gathered G_t
# of --dump in it, exactly (test_reliability_p4 checks the same in C++ where numpy is missing).
if(RINGCOMM_NUMPY_PYTHON)
  set(_write_dir ${CMAKE_CURRENT_BINARY_DIR}/program_tests/write_npy_p4_s2)
  ringcomm_add_program_test(write_npy_p4_s2 PROGRAM ring_compare RANKS 4
    ARGS --transports mpi --ring-size 2 --nb 2 --lx 3 --ly 2 --nfreq 4 --exchange-momenta 0,4
         --exchange-frequencies 0,2 --measurements 9 --dump ${_write_dir}/dump --write ${_write_dir}/gt_written.npy
    EXPECT "G_t written to .*gt_written.npy"
    AFTER ${RINGCOMM_NUMPY_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_written_npy.py ${_write_dir}/gt_written.npy
          ${_write_dir}/dump/gt.npy ${_write_dir}/dump/gt_original.npy)
  unset(_write_dir)
  # The same for the other CPU transports, whose G_t reaches the writer through their own rings.
  foreach(transport IN LISTS RINGCOMM_CPU_TRANSPORTS)
    if(transport STREQUAL "mpi")
      continue()
    endif()
    set(_write_dir ${CMAKE_CURRENT_BINARY_DIR}/program_tests/write_npy_p4_s2_${transport})
    ringcomm_add_program_test(write_npy_p4_s2_${transport} PROGRAM ring_compare RANKS 4
      ARGS --transports ${transport} --ring-size 2 --nb 1 --lx 3 --ly 2 --nfreq 4 --exchange-momenta 0,4
           --exchange-frequencies 0,2 --measurements 9 --dump ${_write_dir}/dump --write ${_write_dir}/gt_written.npy
      EXPECT "G_t written to .*gt_written.npy"
      AFTER ${RINGCOMM_NUMPY_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_written_npy.py ${_write_dir}/gt_written.npy
            ${_write_dir}/dump/gt.npy ${_write_dir}/dump/gt_original.npy)
  endforeach()
  unset(_write_dir)
endif()

# Property tests of every parser of user input (settings, RINGCOMM_* variables, command lines).
ringcomm_add_mpi_test(test_settings_fuzz SOURCES test_settings_fuzz.cpp conformance.cpp
                      ${PROJECT_SOURCE_DIR}/examples/ring_compare/options.cpp RANKS 1)
target_include_directories(test_settings_fuzz PRIVATE ${PROJECT_SOURCE_DIR}/examples/ring_compare)
target_link_libraries(test_settings_fuzz PRIVATE ringcomm_program_support)
if(RINGCOMM_BUILD_EXAMPLES)
  target_include_directories(test_settings_fuzz PRIVATE ${PROJECT_SOURCE_DIR}/bench)
  target_link_libraries(test_settings_fuzz PRIVATE ringcomm_bench_support)
  target_compile_definitions(test_settings_fuzz PRIVATE RINGCOMM_FUZZ_BENCH)
endif()
