# Runs fault_probe under mpirun with one rank failing on purpose and passes only when the job ends
# non-zero in time, and — for a rank that hangs rather than dies — when every other rank detected
# it through the watchdog and reported the timeout. Prints how long after the failure each rank
# detected it and when the job ended.
#
#   cmake -DMPIEXEC=<mpirun> -DNUMPROC_FLAG=-np -DPROBE=<fault_probe> -DRANKS=<p> -DTRANSPORT=<name>
#         -DFAULT=stop|sleep|kill -DFAULT_RANK=<r> -DAFTER_ROUND=<k> -DTIMEOUT=<s> -DMARGIN=<s>
#         -P fault_injection.cmake
#
# stop and sleep leave the process alive: only the watchdog can end the job, so every other rank
# must detect the failure no sooner than TIMEOUT after it, and the job must end no later than
# TIMEOUT + MARGIN. kill ends the process: mpirun notices and ends the job itself, usually long
# before the timeout, which is then an upper bound only; mpirun's report or the ranks' must be there.
cmake_minimum_required(VERSION 3.20)  # policies of today: quoted strings in if() are not variables
foreach(var MPIEXEC NUMPROC_FLAG PROBE RANKS TRANSPORT FAULT FAULT_RANK AFTER_ROUND TIMEOUT MARGIN)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "fault_injection.cmake needs -D${var}=…")
  endif()
endforeach()

set(ENV{RINGCOMM_TIMEOUT} ${TIMEOUT})
set(ENV{RINGCOMM_TRANSPORT} ${TRANSPORT})
set(command ${MPIEXEC} ${NUMPROC_FLAG} ${RANKS} ${PROBE} --rounds 1000 --fault ${FAULT} --fault-rank ${FAULT_RANK}
    --fault-after-round ${AFTER_ROUND})
list(JOIN command " " command_line)
math(EXPR hard_limit "${TIMEOUT} + ${MARGIN} + 60")

execute_process(COMMAND ${command} RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output
                TIMEOUT ${hard_limit})
string(TIMESTAMP ended "%s%f" UTC)  # microseconds since the epoch
math(EXPR ended_ms "${ended} / 1000")

# "<seconds>.<microseconds>" printed by fault_probe -> milliseconds since the epoch (one machine, one clock).
function(unix_ms text out)
  string(REGEX MATCH "([0-9]+)\\.([0-9][0-9][0-9])" unused "${text}")
  math(EXPR ms "${CMAKE_MATCH_1} * 1000 + 1${CMAKE_MATCH_2} - 1000")
  set(${out} ${ms} PARENT_SCOPE)
endfunction()

# 3456 -> 3.456
function(as_seconds ms out)
  math(EXPR whole "${ms} / 1000")
  math(EXPR thousandths "${ms} % 1000 + 1000")  # the leading 1 keeps the zeros
  string(SUBSTRING "${thousandths}" 1 3 thousandths)
  set(${out} "${whole}.${thousandths}" PARENT_SCOPE)
endfunction()

set(problems "")
if(status MATCHES "timeout")
  string(APPEND problems "\n- the job did not end within ${hard_limit} s: a hang")
elseif(status STREQUAL "0")
  string(APPEND problems "\n- the job exited with status 0")
endif()

math(EXPR earliest "${TIMEOUT} * 1000 - 100")
math(EXPR latest "(${TIMEOUT} + ${MARGIN}) * 1000")
set(summary "")
if(NOT output MATCHES "rank ${FAULT_RANK} injects ${FAULT} after round [0-9]+ at unix time ([0-9.]+)")
  message(FATAL_ERROR "rank ${FAULT_RANK} never reported injecting the failure\ncommand: ${command_line}\n"
                      "exit status: ${status}\noutput:\n${output}")
endif()
unix_ms("${CMAKE_MATCH_1}" injected_ms)
math(EXPR job_ms "${ended_ms} - ${injected_ms}")
as_seconds(${job_ms} job_seconds)
if(job_ms GREATER latest)
  string(APPEND problems "\n- the job ended ${job_seconds} s after the failure, later than ${TIMEOUT} + ${MARGIN} s")
endif()

math(EXPR last_rank "${RANKS} - 1")
foreach(rank RANGE ${last_rank})
  if(rank EQUAL FAULT_RANK)
    continue()
  endif()
  set(reported OFF)
  if(output MATCHES "ringcomm: error on rank ${rank}: [^\n]*timed out after ${TIMEOUT} s \\(RINGCOMM_TIMEOUT\\) waiting for")
    set(reported ON)
  endif()
  if(output MATCHES "rank ${rank} detected the failure at unix time ([0-9.]+)")
    unix_ms("${CMAKE_MATCH_1}" detected_ms)
    math(EXPR detection_ms "${detected_ms} - ${injected_ms}")
    as_seconds(${detection_ms} detection_seconds)
    string(APPEND summary "\n  rank ${rank} detected it after ${detection_seconds} s")
    if(NOT FAULT STREQUAL "kill" AND detection_ms LESS earliest)
      string(APPEND problems "\n- rank ${rank} detected the failure after ${detection_seconds} s, before the watchdog "
                             "could fire: something other than the timeout ended its wait")
    endif()
    if(detection_ms GREATER latest)
      string(APPEND problems "\n- rank ${rank} detected the failure only after ${detection_seconds} s")
    endif()
    if(reported)
      string(APPEND summary ", reporting the timeout")
    endif()
  elseif(FAULT STREQUAL "kill")
    string(APPEND summary "\n  rank ${rank} was ended by mpirun before its watchdog fired")
  else()
    string(APPEND problems "\n- rank ${rank} did not detect the failure")
  endif()
  if(NOT reported AND NOT FAULT STREQUAL "kill")
    string(APPEND problems "\n- rank ${rank} did not report the timeout")
  endif()
endforeach()
if(FAULT STREQUAL "kill" AND NOT output MATCHES "exited on signal 9|timed out after")
  string(APPEND problems "\n- neither mpirun nor any rank reported the killed rank")
endif()

if(problems)
  message(FATAL_ERROR "failure injection was not handled:${problems}\ncommand: RINGCOMM_TIMEOUT=${TIMEOUT} "
                      "RINGCOMM_TRANSPORT=${TRANSPORT} ${command_line}\nexit status: ${status}\noutput:\n${output}")
endif()
message(STATUS "${TRANSPORT}: rank ${FAULT_RANK} of ${RANKS} injected '${FAULT}' after round ${AFTER_ROUND} "
               "(RINGCOMM_TIMEOUT=${TIMEOUT} s):${summary}\n  the job ended ${job_seconds} s after the failure, "
               "exit status ${status}\noutput:\n${output}")
