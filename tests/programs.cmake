# Tests of ringcomm's programs (tools, examples, benchmarks): each runs its program under mpirun
# through check_program.cmake, which checks the exit status, the output and any JSON written.

# ringcomm_add_program_test(<name> PROGRAM <target> RANKS <p> [ARGS …] [EXPECT <regex>…] [EXPECT_FAILURE]
#                           [JSON <file>] [STDOUT_JSON] [MAX_ERROR <x>] [SAMPLED] [MIN_RUNS <n>] [AFTER <command>…]
#                           [ENV <VAR=value>…])
#   Test program_<name>; `JSON <file>` is passed to the program as --json <file> in the test's folder.
function(ringcomm_add_program_test name)
  cmake_parse_arguments(ARG "EXPECT_FAILURE;STDOUT_JSON;SAMPLED" "PROGRAM;RANKS;JSON;MAX_ERROR;MIN_RUNS"
                        "ARGS;EXPECT;AFTER;ENV" ${ARGN})
  set(work ${CMAKE_CURRENT_BINARY_DIR}/program_tests/${name})
  set(args ${ARG_ARGS})
  if(ARG_JSON)
    set(json ${work}/${ARG_JSON})
    list(APPEND args --json ${json})
  endif()
  set(content "file(REMOVE_RECURSE [==[${work}]==])\nfile(MAKE_DIRECTORY [==[${work}]==])\n")
  string(APPEND content "set(COMMAND [==[${MPIEXEC_EXECUTABLE}]==] [==[${MPIEXEC_NUMPROC_FLAG}]==] ${ARG_RANKS}")
  foreach(item IN LISTS MPIEXEC_PREFLAGS)
    string(APPEND content " [==[${item}]==]")
  endforeach()
  string(APPEND content " [==[$<TARGET_FILE:${ARG_PROGRAM}>]==]")
  foreach(item IN LISTS args)
    string(APPEND content " [==[${item}]==]")
  endforeach()
  string(APPEND content ")\n")
  foreach(var EXPECT AFTER)
    set(items "")
    foreach(item IN LISTS ARG_${var})
      string(APPEND items " [==[${item}]==]")
    endforeach()
    string(APPEND content "set(${var}${items})\n")
  endforeach()
  if(ARG_EXPECT_FAILURE)
    string(APPEND content "set(EXPECT_FAILURE ON)\nset(EXPECT_EACH_RANK ${ARG_RANKS})\n")
  endif()
  if(ARG_STDOUT_JSON)
    string(APPEND content "set(STDOUT_JSON ON)\n")
  endif()
  if(ARG_SAMPLED)
    string(APPEND content "set(SAMPLED ON)\n")
  endif()
  if(ARG_JSON)
    string(APPEND content "set(JSON [==[${json}]==])\n")
  endif()
  foreach(var MAX_ERROR MIN_RUNS)
    if(DEFINED ARG_${var})
      string(APPEND content "set(${var} ${ARG_${var}})\n")
    endif()
  endforeach()
  set(case_file ${CMAKE_CURRENT_BINARY_DIR}/program_tests/${name}.cmake)
  file(GENERATE OUTPUT ${case_file} CONTENT "${content}")
  add_test(NAME program_${name} COMMAND ${CMAKE_COMMAND} -DCASE=${case_file} -P ${CMAKE_CURRENT_SOURCE_DIR}/check_program.cmake)
  set_tests_properties(program_${name} PROPERTIES
    TIMEOUT 600 PROCESSORS ${ARG_RANKS} ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT};${ARG_ENV}")
endfunction()

# The tolerances of ringcomm/gt/tolerance.hpp, for MAX_ERROR.
set(RINGCOMM_TOLERANCE_double 1e-12)
set(RINGCOMM_TOLERANCE_float 5e-6)

# The helpers the programs share (examples/common): JSON, .npy, command lines.
ringcomm_add_mpi_test(test_program_support SOURCES test_program_support.cpp RANKS 1)
target_link_libraries(test_program_support PRIVATE ringcomm_program_support)

get_property(_compiled_backends GLOBAL PROPERTY RINGCOMM_BACKEND_LIST)

# ringcomm-info
ringcomm_add_program_test(ringcomm_info PROGRAM ringcomm-info RANKS 1
  EXPECT "ringcomm [0-9]+\\.[0-9]+" "Kokkos [0-9]" "MPI: " "\n  mpi: compiled, usable" "auto would choose: ")
ringcomm_add_program_test(ringcomm_info_json PROGRAM ringcomm-info RANKS 2 ARGS --json STDOUT_JSON
  EXPECT "\"transports\"" "\"name\": \"mpi\"")
# Every transport that a CPU build must be able to use here is usable (RINGCOMM_CPU_TRANSPORTS).
if(RINGCOMM_CPU_TRANSPORTS)
  set(_usable "")
  foreach(transport IN LISTS RINGCOMM_CPU_TRANSPORTS)
    list(APPEND _usable "\"name\": \"${transport}\",[\n ]*\"compiled\": true,[\n ]*\"usable\": true,")
  endforeach()
  ringcomm_add_program_test(ringcomm_info_usable PROGRAM ringcomm-info RANKS 2 ARGS --json STDOUT_JSON EXPECT ${_usable})
  unset(_usable)
endif()
ringcomm_add_program_test(ringcomm_info_help PROGRAM ringcomm-info RANKS 1 ARGS --help EXPECT "Usage: ringcomm-info" "--json")

# ringcomm-model: the worked example of docs/performance_model.md (75.8 ms per round at S = 8, 6.38 GiB per rank).
ringcomm_add_program_test(ringcomm_model PROGRAM ringcomm-model RANKS 1
  ARGS --message-bytes 366000000 --gt-entries 3060000000 --latency 1e-5 --bandwidth 5e10 --kernel-rate 1.25e11
       --memory-budget 8GiB --ranks 8,100000
  EXPECT "\n8 +8 +7\.579e-02 +communication +6\.38 GiB +5\.70 GiB +yes +<-" "\n100000 +100000 ")
ringcomm_add_program_test(ringcomm_model_help PROGRAM ringcomm-model RANKS 1 ARGS --help
  EXPECT "Usage: ringcomm-model" "--memory-budget" "fit_machine.py")
ringcomm_add_program_test(ringcomm_model_nothing_fits PROGRAM ringcomm-model RANKS 1
  ARGS --message-bytes 1M --gt-entries 1000000 --bandwidth 1e9 --kernel-rate 1e9 --memory-budget 1M --ranks 4
  JSON model.json EXPECT "\n4 +4 .* +no")

# ring_overhead: a quick pass over three sizes (the full table takes a minute).
ringcomm_add_program_test(ring_overhead PROGRAM ring_overhead RANKS 2
  ARGS --sizes 1K,64K,1M --repetitions 3 --warmup 1 --sample-seconds 0.002 JSON overhead.json
  EXPECT "overhead %" "1.00 MiB" "persistent us" "ring/blocking")
# Only the mpi transport against its own requests by hand is ringcomm's overhead; anything else says so.
ringcomm_add_program_test(ring_overhead_other_transport_not_comparable PROGRAM ring_overhead RANKS 2
  ARGS --transport host --sizes 1K,16M --repetitions 1 --warmup 0 --sample-seconds 0.001
  EXPECT "not comparable: the ring runs over 'host'")
ringcomm_add_program_test(pingpong PROGRAM pingpong RANKS 2 ARGS --transports mpi --max-bytes 64 --iterations 10 --windows 3
  EXPECT "latency us +pipelined us" "\n64 +[0-9.]+ +[0-9.]+ +[0-9.]+ +10 +64 +yes")
ringcomm_add_program_test(pingpong_help PROGRAM pingpong RANKS 1 ARGS --help
  EXPECT "Usage: pingpong" "--transports LIST" "--max-bytes")
# kernel_bandwidth: every channel, precision and nb at a tiny shape, at one message and batches of 2;
# check_kernel_bandwidth_json.py wants one complete result per case, its copy rate settled first.
ringcomm_add_program_test(kernel_bandwidth PROGRAM kernel_bandwidth RANKS 1
  ARGS --nb 1,2 --lx 2 --ly 2 --n-freq 4 --exchange-momenta 0,1 --exchange-frequencies 0,1 --batch 1,2
       --launches 1 --repetitions 1
  JSON kb.json EXPECT "ms/message +kernel GB/s +copy GB/s +ratio" "lowest ratio: "
  AFTER ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/check_kernel_bandwidth_json.py
        ${CMAKE_CURRENT_BINARY_DIR}/program_tests/kernel_bandwidth/kb.json
        --nb 1,2 --precision double,mixed,float --channel all --batch 1,2)
ringcomm_add_program_test(kernel_bandwidth_help PROGRAM kernel_bandwidth RANKS 1 ARGS --help
  EXPECT "Usage: kernel_bandwidth" "--precision LIST" "--batch LIST" "--json FILE")
ringcomm_add_program_test(ring_overhead_bad_size PROGRAM ring_overhead RANKS 2 ARGS --sizes 12Q EXPECT_FAILURE
  EXPECT "--sizes='12Q' is not valid: expected a byte count")

# overlap: tiny sizes on the host-completing transports compiled here; tests/check_overlap_json.cmake
# checks that every figure and raw sample is in the JSON, positive. Times are not judged.
get_property(_overlap_transports GLOBAL PROPERTY RINGCOMM_HOST_MEMORY_BACKENDS)
list(JOIN _overlap_transports "," _overlap_transports)
ringcomm_add_program_test(overlap PROGRAM overlap RANKS 2
  ARGS --transports ${_overlap_transports} --threads 2 --samples 2 --warmup 1 --measurements 2
       --nb 1 --lx 2 --ly 2 --nfreq 4 --exchange-frequencies 0,1
  JSON overlap.json EXPECT "overlap/max" "\nmpi +overlap +[0-9]" "speed-up vs T=1" "exchange ms/round"
  AFTER ${CMAKE_COMMAND} -DJSON=${CMAKE_CURRENT_BINARY_DIR}/program_tests/overlap/overlap.json
        -DTRANSPORTS=${_overlap_transports} -DTHREADS=1,2 -DSAMPLES=2 -P ${CMAKE_CURRENT_SOURCE_DIR}/check_overlap_json.cmake)
ringcomm_add_program_test(overlap_help PROGRAM overlap RANKS 1 ARGS --help
  EXPECT "Usage: overlap" "--threads LIST" "--exchange-frequencies" "--samples N")
unset(_overlap_transports)

# ring_compare: every ring result against the original, the original against the serial reference.
# Every CPU transport at each of the three ring sizes, plus the original: none may be skipped.
list(LENGTH RINGCOMM_CPU_TRANSPORTS _cpu_transport_count)
math(EXPR _double_runs "3 * ${_cpu_transport_count} + 1")
ringcomm_add_program_test(ring_compare_double PROGRAM ring_compare RANKS 4
  ARGS --ring-size 1,2,4 --nb 2 --lx 2 --ly 2 --nfreq 4 --exchange-momenta 0,3 --exchange-frequencies 0,1
       --measurements 10 --channel pp_up_down --verify-sample 64
  JSON ring_compare.json MAX_ERROR ${RINGCOMM_TOLERANCE_double} SAMPLED MIN_RUNS ${_double_runs} EXPECT "original" "\nmpi +4 ")
ringcomm_add_program_test(ring_compare_float PROGRAM ring_compare RANKS 3
  ARGS --transports mpi,host --scalar float --channel ph_magnetic --nb 1 --lx 3 --ly 2 --nfreq 4
       --exchange-momenta 1 --exchange-frequencies 2 --measurements 7 --verify-sample 64
  JSON ring_compare.json MAX_ERROR ${RINGCOMM_TOLERANCE_float} SAMPLED MIN_RUNS 3)
# Every transport usable on a CPU build must run: a skipped one fails (program_ringcomm_info_usable
# says which are expected), so the default list's runs are counted: original + one per transport.
math(EXPR _cpu_runs "${_cpu_transport_count} + 1")
ringcomm_add_program_test(ring_compare_every_cpu_transport PROGRAM ring_compare RANKS 2
  ARGS --nb 1 --lx 2 --ly 2 --nfreq 4 --exchange-momenta 0,1 --exchange-frequencies 0,1 --measurements 5
       --channel ph_charge --verify-sample 32
  JSON ring_compare.json MAX_ERROR ${RINGCOMM_TOLERANCE_double} SAMPLED MIN_RUNS ${_cpu_runs})
# A sample-only check where the original is not run (as at the paper size on GPUs).
ringcomm_add_program_test(ring_compare_verify_sample_without_original PROGRAM ring_compare RANKS 2
  ARGS --transports mpi --no-original --nb 1 --lx 2 --ly 2 --nfreq 4 --measurements 6 --verify-sample 40
  JSON ring_compare.json EXPECT "verify-sample mpi S=2: 40 entries against the serial reference formula")
# A bad setting is refused on every rank, not turned into a skipped transport (docs/environment.md).
set(_bad_settings RINGCOMM_TIMEOUT=abc)
if("host" IN_LIST RINGCOMM_CPU_TRANSPORTS)
  list(APPEND _bad_settings RINGCOMM_HOST_CHUNK_BYTES=xyz)
endif()
if("ucx" IN_LIST RINGCOMM_CPU_TRANSPORTS)
  list(APPEND _bad_settings RINGCOMM_UCX_PUT_CHUNK=-1)
endif()
foreach(bad IN LISTS _bad_settings)
  string(REGEX REPLACE "=.*" "" setting ${bad})
  string(REGEX REPLACE ".*=" "" value ${bad})
  string(TOLOWER ${setting} test_name)
  ringcomm_add_program_test(ring_compare_bad_${test_name} PROGRAM ring_compare RANKS 2
    ARGS --nb 1 --lx 2 --ly 2 --nfreq 2 --measurements 2 ENV ${bad} EXPECT_FAILURE
    EXPECT "${setting}='${value}' is not valid")
endforeach()
ringcomm_add_program_test(ring_compare_trace PROGRAM ring_compare RANKS 2
  ARGS --transports mpi --nb 1 --lx 2 --ly 2 --nfreq 2 --measurements 4 --no-original --trace trace.json
  EXPECT "timeline of [1-9][0-9]* events written to trace.json")
ringcomm_add_program_test(ring_compare_help PROGRAM ring_compare RANKS 1 ARGS --help
  EXPECT "Usage: ring_compare" "--exchange-frequencies" "seconds_per_measurement")
ringcomm_add_program_test(ring_compare_bad_channel PROGRAM ring_compare RANKS 2 ARGS --channel pp EXPECT_FAILURE
  EXPECT "--channel='pp' is not valid: expected one of: pp_up_down, ph_transverse, ph_magnetic, ph_charge")
ringcomm_add_program_test(ring_compare_bad_scalar PROGRAM ring_compare RANKS 2 ARGS --scalar half EXPECT_FAILURE
  EXPECT "--scalar='half' is not valid: expected one of: double, float")
ringcomm_add_program_test(ring_compare_momentum_outside_cluster PROGRAM ring_compare RANKS 2
  ARGS --lx 2 --ly 2 --exchange-momenta 0,4 EXPECT_FAILURE
  EXPECT "--exchange-momenta: momentum 4 is not valid: expected indices in \\[0, 4\\)")
ringcomm_add_program_test(ring_compare_ring_size_not_dividing PROGRAM ring_compare RANKS 2 ARGS --ring-size 3
  --measurements 2 --lx 2 --ly 2 --nb 1 --nfreq 2 EXPECT_FAILURE EXPECT "ring size S=3 must be at least 1 and divide the 2 ranks")
ringcomm_add_program_test(ring_compare_unknown_option PROGRAM ring_compare RANKS 2 ARGS --rings 2 EXPECT_FAILURE
  EXPECT "unknown option '--rings'")
if("nccl" IN_LIST _compiled_backends AND NOT Kokkos_ENABLE_CUDA)
  ringcomm_add_program_test(ring_compare_named_unusable_transport PROGRAM ring_compare RANKS 2 ARGS --transports nccl
    EXPECT_FAILURE EXPECT "transport 'nccl' is not usable here")
endif()

# --dump: an independent numpy recomputation of G_t from the dumped inputs (tests/check_dump.py).
set(RINGCOMM_NUMPY_PYTHON "")
foreach(python IN ITEMS "${Python3_EXECUTABLE}" /usr/bin/python3)
  if(python)
    execute_process(COMMAND ${python} -c "import numpy" RESULT_VARIABLE no_numpy OUTPUT_QUIET ERROR_QUIET)
    if(no_numpy EQUAL 0)
      set(RINGCOMM_NUMPY_PYTHON ${python})
      break()
    endif()
  endif()
endforeach()
if(RINGCOMM_NUMPY_PYTHON)
  # The channels take the CPU transports in turn, so that every transport's G_t is dumped and checked.
  set(_dump_index 0)
  list(LENGTH RINGCOMM_CPU_TRANSPORTS _dump_transports)
  foreach(channel pp_up_down ph_transverse ph_magnetic ph_charge)
    # GPU builds have no CPU transports: the dump test then takes the default transport.
    set(_dump_transport auto)
    if(_dump_transports GREATER 0)
      math(EXPR _dump_pick "${_dump_index} % ${_dump_transports}")
      list(GET RINGCOMM_CPU_TRANSPORTS ${_dump_pick} _dump_transport)
    endif()
    math(EXPR _dump_index "${_dump_index} + 1")
    set(dump ${CMAKE_CURRENT_BINARY_DIR}/program_tests/dump_${channel}/dump)
    ringcomm_add_program_test(dump_${channel} PROGRAM ring_compare RANKS 2
      ARGS --channel ${channel} --nb 2 --lx 3 --ly 2 --nfreq 4 --exchange-momenta 0,4 --exchange-frequencies 0,2
           --measurements 5 --transports ${_dump_transport} --dump ${dump}
      AFTER ${RINGCOMM_NUMPY_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_dump.py ${dump})
  endforeach()
  # Mixed precision (G_σ float, G_t double): the dumped G_σ are the rounded ones, so G_t must still agree
  # to double precision. One channel from the G_σ^T path and one from the bubble path.
  foreach(channel ph_transverse ph_magnetic)
    set(dump ${CMAKE_CURRENT_BINARY_DIR}/program_tests/dump_mixed_${channel}/dump)
    ringcomm_add_program_test(dump_mixed_${channel} PROGRAM ring_compare RANKS 2
      ARGS --channel ${channel} --scalar mixed --nb 2 --lx 3 --ly 2 --nfreq 4 --exchange-momenta 0,4
           --exchange-frequencies 0,2 --measurements 5 --transports mpi --dump ${dump}
      AFTER ${RINGCOMM_NUMPY_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/check_dump.py ${dump})
  endforeach()
else()
  message(STATUS "ringcomm: no python3 with numpy found; the --dump checks (tests/check_dump.py) are not run")
endif()
unset(_compiled_backends)
