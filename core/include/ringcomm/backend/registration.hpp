#pragma once
// What a backend folder includes to register itself.
//
//   RINGCOMM_REGISTER_BACKEND(mpi) { registry.add({...}); }
//
// defines the function that the generated register_builtin_backends() calls. The build system
// finds backends by their folder under backends/, so adding one needs no change outside it.
#include "ringcomm/registry.hpp"

#define RINGCOMM_REGISTER_BACKEND(name) \
  void ringcomm_register_backend_##name(::ringcomm::Registry& registry)
