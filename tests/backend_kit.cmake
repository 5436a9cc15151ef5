# The backend kit's promise: a backend folder needs no edit outside it. Every backend the build
# compiled (its list, not one written here) must be listed by ringcomm-info and instantiated by the
# conformance suite, which then runs it like any other; the fault tests and the overlap test take
# the host-memory ones from the build by themselves. backends/sendrecv, built with the tests only,
# is the standing proof.
get_property(_kit_backends GLOBAL PROPERTY RINGCOMM_BACKENDS)
foreach(backend IN LISTS _kit_backends)
  add_test(NAME backend_listed_${backend}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:ringcomm-info> --json)
  set_tests_properties(backend_listed_${backend} PROPERTIES TIMEOUT 60 ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT}"
    PASS_REGULAR_EXPRESSION "\"name\": \"${backend}\",[ \n]*\"compiled\": true")
  add_test(NAME backend_in_conformance_${backend}
    COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:test_conformance> --gtest_list_tests)
  set_tests_properties(backend_in_conformance_${backend} PROPERTIES TIMEOUT 60 ENVIRONMENT "${RINGCOMM_TEST_ENVIRONMENT}"
    PASS_REGULAR_EXPRESSION "/${backend}  # GetParam")
endforeach()
unset(_kit_backends)
