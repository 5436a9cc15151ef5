#pragma once
// What a backend's <name>_transport.cpp includes to declare itself, once:
//
//   RINGCOMM_DECLARE_BACKEND() {
//     return {"one line for ringcomm-info", Preference::two_sided,   // the scale in registry.hpp
//             my_backend::probe, my_backend::create, my_backend::details};
//   }
//
// The name is the backend's folder under backends/: ringcomm_add_backend compiles the backend's
// sources with RINGCOMM_BACKEND_NAME=<folder>, which names this function
// (ringcomm::declarations::<folder>), and the generated register_builtin_backends() fills in
// BackendInfo::name. Nothing in the backend's code spells its name; messages use
// RINGCOMM_BACKEND_STRING (backend/check.hpp), Stalls the ChannelSpec's `transport`. The function
// lives in namespace ringcomm, so ringcomm's names need no qualification in it.
#include "ringcomm/registry.hpp"

#ifndef RINGCOMM_BACKEND_NAME
#error "a backend's sources are compiled with RINGCOMM_BACKEND_NAME=<its folder> (ringcomm_add_backend)"
#endif

#define RINGCOMM_DECLARE_BACKEND()                           \
  namespace ringcomm::declarations {                          \
  BackendInfo RINGCOMM_BACKEND_NAME();                        \
  }                                                           \
  ::ringcomm::BackendInfo ringcomm::declarations::RINGCOMM_BACKEND_NAME()
