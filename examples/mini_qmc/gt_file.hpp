#pragma once
// G_t on disk as a NumPy .npy file of complex<double> ("<c16") in C order with shape
// (N_Ω, N_Q, 2n, Nc, 2n, Nc, nb, nb, nb, nb): ringcomm's index order reversed, so the bytes are G_t's.
// DistributedArray::write_npy writes it, every rank its own slice (MPI-IO), without gathering.
#include <complex>
#include <cstddef>
#include <string>
#include <vector>

#include "ringcomm/gt/accumulate.hpp"
#include "ringcomm/gt/dims.hpp"

namespace mini_qmc {

std::vector<std::size_t> gt_file_shape(const ringcomm::gt::Dims& dims);

struct GtFile {
  std::vector<std::size_t> shape;
  std::vector<std::complex<double>> values;
};
// Reads a "<c16" .npy file; throws ringcomm::Error naming the path otherwise.
GtFile read_gt(const std::string& path);

// Relative errors of `candidate` against `reference`; throws when the shapes differ.
ringcomm::gt::ErrorNorms compare_gt(const GtFile& candidate, const GtFile& reference);

}  // namespace mini_qmc
