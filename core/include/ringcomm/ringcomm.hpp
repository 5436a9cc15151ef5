#pragma once
// Everything an embedding application needs.
#include "ringcomm/collective.hpp"
#include "ringcomm/distributed_array.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/memory.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/ring.hpp"
#include "ringcomm/runtime.hpp"
#include "ringcomm/settings.hpp"
#include "ringcomm/topology.hpp"
#include "ringcomm/transport.hpp"
#include "ringcomm/version.hpp"
