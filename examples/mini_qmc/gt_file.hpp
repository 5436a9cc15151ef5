#pragma once
// G_t on disk as a NumPy .npy file of complex<double> ("<c16") in C order with shape
// (N_Ω, N_Q, 2n, Nc, 2n, Nc, nb, nb, nb, nb): ringcomm's index order reversed, so the bytes are G_t's.
#include <Kokkos_Complex.hpp>
#include <complex>
#include <cstddef>
#include <string>
#include <vector>

#include "ringcomm/distributed_array.hpp"
#include "ringcomm/gt/accumulate.hpp"
#include "ringcomm/gt/dims.hpp"

namespace mini_qmc {

using GtScalar = Kokkos::complex<double>;

std::vector<std::size_t> gt_file_shape(const ringcomm::gt::Dims& dims);

// Collective over the world. Gathers G_t on world rank 0, which writes it (so G_t must fit one
// rank's host memory: fine for the toy's sizes, not for a production G_t).
void write_gt(const std::string& path, const ringcomm::gt::Dims& dims, const ringcomm::DistributedArray<GtScalar>& gt);

struct GtFile {
  std::vector<std::size_t> shape;
  std::vector<std::complex<double>> values;
};
// Reads a "<c16" C-order .npy file (format 1.0 or 2.0); throws ringcomm::Error naming the path otherwise.
GtFile read_gt(const std::string& path);

// Relative errors of `candidate` against `reference`; throws when the shapes differ.
ringcomm::gt::ErrorNorms compare_gt(const GtFile& candidate, const GtFile& reference);

}  // namespace mini_qmc
