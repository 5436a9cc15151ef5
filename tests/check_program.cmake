# Runs one of ringcomm's programs and checks what it did; the test of ringcomm_add_program_test.
#
#   cmake -DCASE=<case file> -P check_program.cmake
#
# The case file sets COMMAND (the full command line, mpirun included), and optionally
#   EXPECT_FAILURE  the command must exit non-zero (and within the time limit) instead of with 0
#   EXPECT          regexes the combined output must match, each
#   EXPECT_EACH_RANK  RANKS: each rank r must print "ringcomm: error on rank r:" (bad-input cases)
#   JSON            a file the command writes, which must parse as JSON
#   STDOUT_JSON     the standard output itself must parse as JSON
#   MAX_ERROR       every run in JSON's "runs" must have l1, l2 and linf error at most this; a null error
#                   (no errors, or NaN/inf, which JSON writes as null) fails
#   SAMPLED         every run must also have a --verify-sample error (sample_max_relative_error) within MAX_ERROR
#   MIN_RUNS        JSON's "runs" must hold at least this many runs
#   AFTER           a command run afterwards that must succeed (e.g. an outside checker)
include(${CASE})

execute_process(COMMAND ${COMMAND} RESULT_VARIABLE status OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr TIMEOUT 600)
set(output "${stdout}${stderr}")
list(JOIN COMMAND " " command_line)
set(problems "")

if(status MATCHES "timeout")
  string(APPEND problems "\n- did not end in time: ${status}")
elseif(EXPECT_FAILURE AND status STREQUAL "0")
  string(APPEND problems "\n- exited with status 0, expected a failure")
elseif(NOT EXPECT_FAILURE AND NOT status STREQUAL "0")
  string(APPEND problems "\n- exited with status ${status}")
endif()

foreach(pattern IN LISTS EXPECT)
  if(NOT output MATCHES "${pattern}")
    string(APPEND problems "\n- the output does not match: ${pattern}")
  endif()
endforeach()

if(EXPECT_EACH_RANK)
  math(EXPR last_rank "${EXPECT_EACH_RANK} - 1")
  foreach(rank RANGE ${last_rank})
    string(FIND "${output}" "ringcomm: error on rank ${rank}:" at)
    if(at EQUAL -1)
      string(APPEND problems "\n- rank ${rank} reported no error")
    endif()
  endforeach()
endif()

# Appends to `problems` in the caller what is wrong with the JSON `text`.
function(check_json text what)
  set(found "")
  string(JSON kind ERROR_VARIABLE error TYPE "${text}")
  if(error)
    string(APPEND found "\n- ${what} is not valid JSON: ${error}")
  elseif(DEFINED MAX_ERROR OR DEFINED MIN_RUNS)
    string(JSON runs ERROR_VARIABLE error LENGTH "${text}" runs)
    if(error)
      string(APPEND found "\n- ${what} has no \"runs\" array: ${error}")
      set(runs 0)
    endif()
    if(DEFINED MIN_RUNS AND runs LESS MIN_RUNS)
      string(APPEND found "\n- ${what} holds ${runs} runs, expected at least ${MIN_RUNS}")
    endif()
    if(DEFINED MAX_ERROR AND runs GREATER 0)
      math(EXPR last "${runs} - 1")
      foreach(i RANGE ${last})
        string(JSON transport GET "${text}" runs ${i} transport)
        set(norms l1_error l2_error linf_error)
        if(SAMPLED)
          list(APPEND norms sample_max_relative_error)
        endif()
        foreach(norm IN LISTS norms)
          string(JSON value ERROR_VARIABLE missing GET "${text}" runs ${i} ${norm})
          string(JSON value_type ERROR_VARIABLE missing TYPE "${text}" runs ${i} ${norm})
          if(missing)
            string(APPEND found "\n- run ${i} (${transport}): no ${norm}")
          elseif(NOT value_type STREQUAL "NUMBER")  # NaN and inf are written as null
            string(APPEND found "\n- run ${i} (${transport}): ${norm} is ${value_type} (NaN or inf are written as null), expected a number")
          elseif(NOT value LESS_EQUAL MAX_ERROR)
            string(APPEND found "\n- run ${i} (${transport}): ${norm} = ${value} exceeds ${MAX_ERROR}")
          endif()
        endforeach()
      endforeach()
    endif()
  endif()
  set(problems "${problems}${found}" PARENT_SCOPE)
endfunction()

if(JSON)
  if(NOT EXISTS "${JSON}")
    string(APPEND problems "\n- ${JSON} was not written")
  else()
    file(READ "${JSON}" text)
    check_json("${text}" "${JSON}")
  endif()
endif()
if(STDOUT_JSON)
  check_json("${stdout}" "the standard output")
endif()

if(AFTER AND NOT problems)
  execute_process(COMMAND ${AFTER} RESULT_VARIABLE after_status OUTPUT_VARIABLE after_output ERROR_VARIABLE after_output)
  string(APPEND output "\n--- ${AFTER}:\n${after_output}")
  if(NOT after_status STREQUAL "0")
    string(APPEND problems "\n- the check afterwards failed (status ${after_status})")
  endif()
endif()

if(problems)
  message(FATAL_ERROR "${command_line}${problems}\nexit status: ${status}\noutput:\n${output}")
endif()
message(STATUS "${command_line}\n${output}")
