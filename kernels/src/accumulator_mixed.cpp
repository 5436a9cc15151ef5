#include "accumulator_impl.hpp"

template class ringcomm::gt::GtAccumulator<Kokkos::complex<double>, Kokkos::complex<float>>;
