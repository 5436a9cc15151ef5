# ringcomm::Session through tests/consumer/byte_histogram (built here as well as against the
# installation by scripts/test.sh): every walker-schedule and ring-size setting must change the
# schedule it prints, and bad settings must fail it cleanly on every rank.
add_executable(byte_histogram consumer/byte_histogram.cpp)
target_link_libraries(byte_histogram PRIVATE ringcomm::ringcomm)

# ringcomm_add_consumer_test(<name> RANKS <p> SCHEDULE <regex> [ENV <VAR=value>…])
#   Test session_<name>: byte_histogram must print a schedule matching SCHEDULE and then its check.
function(ringcomm_add_consumer_test name)
  cmake_parse_arguments(ARG "" "RANKS;SCHEDULE" "ENV" ${ARGN})
  add_test(NAME session_${name}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ARG_RANKS} $<TARGET_FILE:byte_histogram>)
  set_tests_properties(session_${name} PROPERTIES
    TIMEOUT 90 PROCESSORS ${ARG_RANKS} ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT};${ARG_ENV}"
    PASS_REGULAR_EXPRESSION "byte_histogram: [^\n]*${ARG_SCHEDULE}[^\n]*\n.*histogram of [0-9]+ messages x 10000 bytes matches")
endfunction()

ringcomm_add_consumer_test(defaults RANKS 3
  SCHEDULE "transport [a-z_]+, 3 ranks, 1 sub-ring\\(s\\) of S=3, 1 thread\\(s\\), unidirectional, overlap")
ringcomm_add_consumer_test(overlap_off RANKS 3 ENV RINGCOMM_OVERLAP=0
  SCHEDULE "3 ranks, 1 sub-ring\\(s\\) of S=3, 1 thread\\(s\\), unidirectional, lock_step")
ringcomm_add_consumer_test(two_threads RANKS 3 ENV RINGCOMM_THREADS=2
  SCHEDULE "3 ranks, 1 sub-ring\\(s\\) of S=3, 2 thread\\(s\\), unidirectional, overlap")
ringcomm_add_consumer_test(bidirectional RANKS 3 ENV RINGCOMM_DIRECTION=bi
  SCHEDULE "3 ranks, 1 sub-ring\\(s\\) of S=3, 1 thread\\(s\\), bidirectional, overlap")
# auto takes the smallest ring that fits: with a budget of a few MiB that is S=1 (3 rings of one rank).
ringcomm_add_consumer_test(ring_size_auto RANKS 3 ENV RINGCOMM_RING_SIZE=auto RINGCOMM_MEMORY_BUDGET=4M
  SCHEDULE "3 ranks, 3 sub-ring\\(s\\) of S=1, 1 thread\\(s\\), unidirectional, overlap")
ringcomm_add_consumer_test(ring_size_two RANKS 4 ENV RINGCOMM_RING_SIZE=2
  SCHEDULE "4 ranks, 2 sub-ring\\(s\\) of S=2, 1 thread\\(s\\)")
# An ordered list takes its first usable entry: nccl and cuda_ipc cannot run on a CPU build.
if(NOT Kokkos_ENABLE_CUDA)
  ringcomm_add_consumer_test(transport_list RANKS 3 ENV RINGCOMM_TRANSPORT=nccl,cuda_ipc,host,mpi
    SCHEDULE "transport host, 3 ranks")
endif()

# Bad input: one clear error on every rank, non-zero exit, no hang.
foreach(variable OVERLAP THREADS DIRECTION RING_SIZE TRANSPORT TIMEOUT MEMORY_BUDGET HOST_CHUNK_BYTES
                 UCX_PUT_CHUNK CHECKPOINT_EVERY MPI_GPU_AWARE NCCL_REGISTER)
  ringcomm_add_failure_test(session_garbage_${variable} RANKS 3 PROGRAM byte_histogram
    ENV RINGCOMM_${variable}=garbage! EXPECT "RINGCOMM_${variable}='garbage!' is not valid")
endforeach()
ringcomm_add_failure_test(session_ranks_disagree_on_overlap RANKS 3 PROGRAM byte_histogram
  RANK_ENV "RINGCOMM_OVERLAP=1" "RINGCOMM_OVERLAP=1" "RINGCOMM_OVERLAP=0"
  EXPECT "ranks disagree on the ringcomm settings" "RINGCOMM_OVERLAP: rank 0='1' rank 1='1' rank 2='0'")
# Set on one rank, unset on the others: a set/unset difference is a disagreement too.
ringcomm_add_failure_test(session_ranks_disagree_on_set_unset RANKS 3 PROGRAM byte_histogram
  RANK_ENV "OMPI_MCA_mpi_yield_when_idle=1" "RINGCOMM_RING_SIZE=auto" "OMPI_MCA_mpi_yield_when_idle=1"
  EXPECT "RINGCOMM_RING_SIZE: rank 0=\\(unset\\) rank 1='auto' rank 2=\\(unset\\)")
if(NOT Kokkos_ENABLE_CUDA)
  ringcomm_add_failure_test(session_transport_list_none_usable RANKS 3 PROGRAM byte_histogram
    ENV RINGCOMM_TRANSPORT=nccl,cuda_ipc,pigeon
    EXPECT "RINGCOMM_TRANSPORT=nccl,cuda_ipc,pigeon: none of the listed transports is usable here"
           "\n  pigeon: not compiled into this ringcomm")
endif()
ringcomm_add_failure_test(session_ranks_disagree_on_message_size RANKS 3 PROGRAM byte_histogram
  RANK_ARGS "--message-bytes 100" "--message-bytes 100" "--message-bytes 101"
  EXPECT "ranks disagree on the message type and size" "message elements: rank 0=100 rank 1=100 rank 2=101")

# The C API: tests/c_consumer built here too (scripts/test.sh builds it against the installation).
enable_language(C)
add_executable(c_byte_histogram c_consumer/byte_histogram.c)
target_link_libraries(c_byte_histogram PRIVATE ringcomm::c)
set_target_properties(c_byte_histogram PROPERTIES C_STANDARD 99 LINKER_LANGUAGE CXX)

# On CUDA builds arrays stay on the device, where this C program cannot add to its slice.
if(NOT Kokkos_ENABLE_CUDA)
  add_test(NAME session_c_api COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:c_byte_histogram>)
  # A programmatic setting wins over the environment's: the environment says lock-step, the program overlap.
  add_test(NAME session_c_api_settings_win
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:c_byte_histogram>
            --set overlap=1 --set threads=2 --set direction=bi)
  set_tests_properties(session_c_api PROPERTIES TIMEOUT 90 PROCESSORS 3 ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT}"
    PASS_REGULAR_EXPRESSION "c_byte_histogram: transport [a-z_]+, 3 ranks, 1 sub-ring\\(s\\) of S=3, 1 thread\\(s\\), unidirectional, overlap\n.*histogram of 9 messages x 10000 bytes matches")
  set_tests_properties(session_c_api_settings_win PROPERTIES TIMEOUT 90 PROCESSORS 3
    ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT};RINGCOMM_OVERLAP=0;RINGCOMM_THREADS=1"
    PASS_REGULAR_EXPRESSION "S=3, 2 thread\\(s\\), bidirectional, overlap\n.*histogram of 18 messages x 10000 bytes matches")

  ringcomm_add_failure_test(c_api_use_after_free RANKS 3 PROGRAM c_byte_histogram ARGS --use-after-free
    EXPECT "ringcomm_messages handle [0-9]+ was already freed \\(use after free" "RINGCOMM_ERROR_INVALID_HANDLE")
  ringcomm_add_failure_test(c_api_wrong_message_type RANKS 3 PROGRAM c_byte_histogram ARGS --wrong-type
    EXPECT "ringcomm_messages_run: the handle holds 10000 elements of RINGCOMM_BYTE but the call gives 10000 elements of RINGCOMM_FLOAT32"
           "RINGCOMM_ERROR_MESSAGE_SHAPE")
  # Only the last rank gives the wrong count: every rank must still report it (and none hang).
  ringcomm_add_failure_test(c_api_wrong_message_count_on_one_rank RANKS 3 PROGRAM c_byte_histogram ARGS --wrong-count
    EXPECT "rank 2: ringcomm_messages_run: the handle holds 10000 elements of RINGCOMM_BYTE but the call gives 10001"
           "RINGCOMM_ERROR_MESSAGE_SHAPE")
  ringcomm_add_failure_test(c_api_bad_programmatic_setting RANKS 3 PROGRAM c_byte_histogram ARGS --set threads=many
    EXPECT "settings.threads='many' is not valid: expected an integer in \\[1, 256\\]")
  ringcomm_add_failure_test(c_api_garbage_environment RANKS 3 PROGRAM c_byte_histogram ENV RINGCOMM_DIRECTION=sideways
    EXPECT "RINGCOMM_DIRECTION='sideways' is not valid: expected one of: uni, bi")
endif()

# A consume functor of the wrong element type must not compile, and the compiler must say why.
add_executable(session_wrong_message_type EXCLUDE_FROM_ALL session_wrong_message_type.cpp)
target_link_libraries(session_wrong_message_type PRIVATE ringcomm::ringcomm)
add_test(NAME session_wrong_message_type_does_not_compile
  COMMAND ${CMAKE_COMMAND} --build ${PROJECT_BINARY_DIR} --target session_wrong_message_type)
set_tests_properties(session_wrong_message_type_does_not_compile PROPERTIES TIMEOUT 300
  PASS_REGULAR_EXPRESSION "consume must accept \\(Kokkos::View<const T\\*> message, const ringcomm::ConsumeContext&\\)")
