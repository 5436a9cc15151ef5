# Runs bad_input_probe under mpirun with one bad input and passes only when the job fails cleanly:
# a non-zero exit status within the time limit, and on every rank exactly one
# "ringcomm: error on rank R: …" report that matches each expected pattern.
#
#   cmake -DCASE=<case file> -DMPIEXEC=<mpirun> -DNUMPROC_FLAG=-np -DPROBE=<bad_input_probe> \
#         -P expect_failure.cmake
#
# The case file (written by ringcomm_add_failure_test) sets RANKS, EXPECT (regexes), ENV and ARGS
# (for every rank) and RANK_ENV and RANK_ARGS (element r for rank r; values separated by spaces).
# Each rank is its own mpirun application context ("-np 1 env … probe … : -np 1 …"), so ranks can be
# started with different environments and arguments.
foreach(var CASE MPIEXEC NUMPROC_FLAG PROBE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "expect_failure.cmake needs -D${var}=…")
  endif()
endforeach()
include(${CASE})

set(command ${MPIEXEC})
math(EXPR last_rank "${RANKS} - 1")
foreach(rank RANGE ${last_rank})
  set(rank_env "")
  set(rank_args "")
  if(RANK_ENV)
    list(GET RANK_ENV ${rank} rank_env)
  endif()
  if(RANK_ARGS)
    list(GET RANK_ARGS ${rank} rank_args)
  endif()
  separate_arguments(rank_env UNIX_COMMAND "${rank_env}")
  separate_arguments(rank_args UNIX_COMMAND "${rank_args}")
  if(rank GREATER 0)
    list(APPEND command ":")
  endif()
  list(APPEND command ${NUMPROC_FLAG} 1 env ${ENV} ${rank_env} ${PROBE} ${ARGS} ${rank_args})
endforeach()
list(JOIN command " " command_line)

execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output
                TIMEOUT 60)

set(problems "")
if(status MATCHES "timeout")
  string(APPEND problems "\n- the job did not end within 60 s (a hang): ${status}")
elseif(status STREQUAL "0")
  string(APPEND problems "\n- the job exited with status 0")
elseif(NOT status MATCHES "^[0-9]+$")
  string(APPEND problems "\n- the job could not be run: ${status}")
endif()

set(header_prefix "ringcomm: error on rank ")
foreach(rank RANGE ${last_rank})
  set(header "${header_prefix}${rank}:")
  # Count this rank's reports.
  set(rest "${output}")
  set(reports 0)
  string(FIND "${rest}" "${header}" at)
  while(at GREATER -1)
    math(EXPR reports "${reports} + 1")
    string(LENGTH "${header}" header_length)
    math(EXPR after "${at} + ${header_length}")
    string(SUBSTRING "${rest}" ${after} -1 rest)
    string(FIND "${rest}" "${header}" at)
  endwhile()
  if(NOT reports EQUAL 1)
    string(APPEND problems "\n- rank ${rank} reported ${reports} errors, expected exactly one")
    continue()
  endif()
  # Its report runs up to the next rank's report (each is written at once, so they do not interleave).
  string(FIND "${output}" "${header}" begin)
  string(SUBSTRING "${output}" ${begin} -1 report)
  string(LENGTH "${header}" header_length)
  string(SUBSTRING "${report}" ${header_length} -1 tail)
  string(FIND "${tail}" "${header_prefix}" next)
  if(next GREATER -1)
    math(EXPR report_length "${header_length} + ${next}")
    string(SUBSTRING "${report}" 0 ${report_length} report)
  endif()
  foreach(pattern IN LISTS EXPECT)
    if(NOT report MATCHES "${pattern}")
      string(APPEND problems "\n- rank ${rank}'s report does not match: ${pattern}")
    endif()
  endforeach()
endforeach()

if(problems)
  message(FATAL_ERROR "bad input was not reported cleanly:${problems}\ncommand: ${command_line}\n"
                      "exit status: ${status}\noutput:\n${output}")
endif()
message(STATUS "every rank reported the bad input (exit status ${status}):\n${output}")
