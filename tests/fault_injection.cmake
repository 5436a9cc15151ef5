# Runs fault_probe under mpirun with one rank failing on purpose and passes only when the job ends
# in time, every other rank having detected the failure itself and printed ringcomm's diagnosis —
# for a rank that hangs rather than dies, through the watchdog, no sooner than the timeout. Prints
# how long after the failure each rank detected it and when the job ended.
#
#   cmake -DMPIEXEC=<mpirun> -DNUMPROC_FLAG=-np -DPROBE=<fault_probe> -DRANKS=<p> -DTRANSPORT=<name>
#         -DFAULT=stop|sleep|kill -DFAULT_RANK=<r> -DAFTER_ROUND=<k> -DTIMEOUT=<s> -DMARGIN=<s>
#         -P fault_injection.cmake
#
# stop and sleep leave the process alive: only the watchdog can end the job, so every other rank
# must detect the failure no sooner than TIMEOUT after it, and the job must end no later than
# TIMEOUT + MARGIN. kill ends the process: by default mpirun would notice and end the whole job
# itself, which says nothing about ringcomm, so kill runs under Open MPI's orte_enable_recovery=1
# (mpirun keeps the other ranks running when one dies): every other rank must then detect the loss
# itself within TIMEOUT + MARGIN and print ringcomm's diagnosis, and the job must end in time, which
# only the ranks' own abort (MPI_Abort) can do then. Under recovery Open MPI 4.1 exits 0 even after
# MPI_Abort and does not always print its abort notice, so for kill neither is checked.
#
# To see the tests depend on ringcomm's watchdog, give the job a timeout that never fires:
#   RINGCOMM_FAULT_JOB_TIMEOUT=86400 ctest -L fault   (every stop, sleep and kill test must fail)
cmake_minimum_required(VERSION 3.20)  # policies of today: quoted strings in if() are not variables
foreach(var MPIEXEC NUMPROC_FLAG PROBE RANKS TRANSPORT FAULT FAULT_RANK AFTER_ROUND TIMEOUT MARGIN)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "fault_injection.cmake needs -D${var}=…")
  endif()
endforeach()

set(ENV{RINGCOMM_TIMEOUT} ${TIMEOUT})
if(DEFINED ENV{RINGCOMM_FAULT_JOB_TIMEOUT})  # a planted defect: the watchdog effectively off
  set(ENV{RINGCOMM_TIMEOUT} $ENV{RINGCOMM_FAULT_JOB_TIMEOUT})
endif()
set(ENV{RINGCOMM_TRANSPORT} ${TRANSPORT})
set(recovery "")
if(FAULT STREQUAL "kill")
  set(recovery --mca orte_enable_recovery 1)  # mpirun must not be the one that ends the job
endif()
set(command ${MPIEXEC} ${recovery} ${NUMPROC_FLAG} ${RANKS} ${PROBE} --rounds 1000 --fault ${FAULT}
    --fault-rank ${FAULT_RANK} --fault-after-round ${AFTER_ROUND})
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
elseif(status STREQUAL "0" AND NOT FAULT STREQUAL "kill")
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
  elseif(FAULT STREQUAL "kill" AND output MATCHES "ringcomm: error on rank ${rank}: ")
    set(reported ON)  # a transport may notice a dead peer before the watchdog does; it is ringcomm's diagnosis either way
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
  else()
    string(APPEND problems "\n- rank ${rank} did not detect the failure")
  endif()
  if(NOT reported)
    string(APPEND problems "\n- rank ${rank} did not report the failure (ringcomm's diagnosis)")
  endif()
endforeach()

if(problems)
  message(FATAL_ERROR "failure injection was not handled:${problems}\ncommand: RINGCOMM_TIMEOUT=$ENV{RINGCOMM_TIMEOUT} "
                      "RINGCOMM_TRANSPORT=${TRANSPORT} ${command_line}\nexit status: ${status}\noutput:\n${output}")
endif()
message(STATUS "${TRANSPORT}: rank ${FAULT_RANK} of ${RANKS} injected '${FAULT}' after round ${AFTER_ROUND} "
               "(RINGCOMM_TIMEOUT=${TIMEOUT} s):${summary}\n  the job ended ${job_seconds} s after the failure, "
               "exit status ${status}\noutput:\n${output}")
