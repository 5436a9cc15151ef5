#pragma once
// The options that shape G_t (--nb, --lx, --ly, --nfreq, --exchange-momenta, --exchange-frequencies),
// for every program that runs the G_t kernels, so that they all spell and check them alike.
#include "command_line.hpp"
#include "ringcomm/gt/dims.hpp"

namespace ringcomm::cli {

// Adds the six options, each writing into `dims`, whose values now are the defaults the help shows;
// and a check that reports a shape the kernels reject in terms of these options. `dims` must outlive
// cli.parse().
void add_dims_options(CommandLine& cli, gt::Dims& dims);

}  // namespace ringcomm::cli
