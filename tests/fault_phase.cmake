# One cell of the phase table: ring_compare on RANKS ranks over TRANSPORT, with world rank STALL_RANK
# stopping when it enters PHASE (the library's test hook RINGCOMM_TEST_STALL_PHASE: its thread blocks
# for good and its watchdog stands down, until mpirun's SIGTERM ends it; core/src/phase.cpp says why
# this is not SIGSTOP). Passes only when ringcomm itself detects it: the job ends non-zero within
# TIMEOUT + MARGIN seconds of the stop, and every other rank printed "ringcomm: error on rank R: phase
# PHASE: … timed out after TIMEOUT s" (mpirun noticing an exit is not enough). Writes the cell to
# RESULT_DIR as <PHASE>_<TRANSPORT>.json for tests/fault_phase_table.py.
#
#   cmake -DMPIEXEC=<mpirun> -DNUMPROC_FLAG=-np -DRING_COMPARE=<exe> -DRANKS=<p> -DTRANSPORT=<name>
#         -DPHASE=<phase> -DSTALL_RANK=<r> -DTIMEOUT=<s> -DMARGIN=<s> -DWORK=<dir> -DRESULT_DIR=<dir>
#         [-DEXTRA_ARGS=a;b] -P fault_phase.cmake
cmake_minimum_required(VERSION 3.20)
foreach(var MPIEXEC NUMPROC_FLAG RING_COMPARE RANKS TRANSPORT PHASE STALL_RANK TIMEOUT MARGIN WORK RESULT_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "fault_phase.cmake needs -D${var}=…")
  endif()
endforeach()

file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK} ${RESULT_DIR})
set(ENV{RINGCOMM_TIMEOUT} ${TIMEOUT})
set(ENV{RINGCOMM_TEST_STALL_PHASE} "${PHASE}@${STALL_RANK}")
# A small problem: the phases, not the arithmetic, are under test.
set(args --transports ${TRANSPORT} --nb 1 --lx 2 --ly 1 --nfreq 2 --measurements 12 --quiet)
if(PHASE MATCHES "^checkpoint-")
  set(ENV{RINGCOMM_CHECKPOINT} ${WORK}/checkpoints)
  set(ENV{RINGCOMM_CHECKPOINT_EVERY} 1)
endif()
if(PHASE STREQUAL "mpi-io-write")
  list(APPEND args --write ${WORK}/gt.npy)
endif()
list(APPEND args ${EXTRA_ARGS})
set(command ${MPIEXEC} ${NUMPROC_FLAG} ${RANKS} ${RING_COMPARE} ${args})
list(JOIN command " " command_line)
math(EXPR hard_limit "${TIMEOUT} + ${MARGIN} + 60")
execute_process(COMMAND ${command} WORKING_DIRECTORY ${WORK} RESULT_VARIABLE status OUTPUT_VARIABLE output
                ERROR_VARIABLE output TIMEOUT ${hard_limit})
string(TIMESTAMP ended "%s%f" UTC)  # microseconds since the epoch
math(EXPR ended_ms "${ended} / 1000")

set(problems "")
if(NOT output MATCHES "ringcomm test hook: rank ${STALL_RANK} stops in phase ${PHASE} at unix time ([0-9]+)\\.([0-9][0-9][0-9])")
  message(FATAL_ERROR "rank ${STALL_RANK} never reached phase ${PHASE}\ncommand: ${command_line}\n"
                      "exit status: ${status}\noutput:\n${output}")
endif()
math(EXPR stopped_ms "${CMAKE_MATCH_1} * 1000 + 1${CMAKE_MATCH_2} - 1000")
math(EXPR detected_ms "${ended_ms} - ${stopped_ms}")
math(EXPR whole "${detected_ms} / 1000")
math(EXPR tenths "(${detected_ms} % 1000) / 100")
set(seconds "${whole}.${tenths}")
math(EXPR latest_ms "(${TIMEOUT} + ${MARGIN}) * 1000")
if(status MATCHES "timeout")
  string(APPEND problems "\n- the job did not end within ${hard_limit} s: a hang")
elseif(status STREQUAL "0")
  string(APPEND problems "\n- the job exited with status 0")
elseif(detected_ms GREATER latest_ms)
  string(APPEND problems "\n- the job ended ${seconds} s after the stop, later than ${TIMEOUT} + ${MARGIN} s")
endif()
math(EXPR last_rank "${RANKS} - 1")
# Ranks that share the stalled rank's collective name its phase; the others (another sub-ring, say)
# have gone on to the next collective and name that one, or, when the job is aborted before their
# own deadline, print the phase they were in on mpirun's SIGTERM. Every live rank must report, and at
# least one must have timed out in PHASE: ringcomm, not mpirun, detected the stop.
set(reporting 0)
set(naming_phase 0)
foreach(rank RANGE ${last_rank})
  if(rank EQUAL STALL_RANK)
    continue()
  endif()
  if(output MATCHES "ringcomm: error on rank ${rank}: phase ([a-z-]+): [^\n]*timed out after ${TIMEOUT} s \\(RINGCOMM_TIMEOUT\\)")
    math(EXPR reporting "${reporting} + 1")
    if(CMAKE_MATCH_1 STREQUAL PHASE)
      math(EXPR naming_phase "${naming_phase} + 1")
    endif()
  elseif(output MATCHES "ringcomm: rank ${rank} was ended from outside \\(SIGTERM[^\n]*while in phase [a-z-]+")
    # Its own deadline had not passed yet when the first rank aborted the job; it names its phase.
    math(EXPR reporting "${reporting} + 1")
  else()
    string(APPEND problems "\n- rank ${rank} did not report a timeout with its phase")
  endif()
endforeach()
if(naming_phase EQUAL 0)
  string(APPEND problems "\n- no rank named phase ${PHASE}")
endif()

set(verdict "detected by ringcomm")
if(problems)
  set(verdict "NOT detected by ringcomm")
endif()
file(WRITE ${RESULT_DIR}/${PHASE}_${TRANSPORT}.json
     "{\"phase\": \"${PHASE}\", \"transport\": \"${TRANSPORT}\", \"ranks\": ${RANKS}, \"stalled_rank\": ${STALL_RANK}, "
     "\"timeout_s\": ${TIMEOUT}, \"job_ended_after_s\": ${seconds}, \"ranks_reporting\": ${reporting}, \"ranks_naming_phase\": ${naming_phase}, "
     "\"verdict\": \"${verdict}\", \"command\": \"RINGCOMM_TIMEOUT=${TIMEOUT} RINGCOMM_TEST_STALL_PHASE=${PHASE}@${STALL_RANK} ${command_line}\"}\n")
if(problems)
  message(FATAL_ERROR "a rank stopped in phase ${PHASE} was not handled:${problems}\ncommand: RINGCOMM_TIMEOUT=${TIMEOUT} "
                      "RINGCOMM_TEST_STALL_PHASE=${PHASE}@${STALL_RANK} ${command_line}\nexit status: ${status}\n"
                      "output:\n${output}")
endif()
message(STATUS "${TRANSPORT}, phase ${PHASE}: rank ${STALL_RANK} of ${RANKS} stopped; the job ended ${seconds} s later "
               "(RINGCOMM_TIMEOUT=${TIMEOUT}); ${reporting} ranks reported, ${naming_phase} naming phase ${PHASE}\noutput:\n${output}")
