#include "gt_file.hpp"

#include <Kokkos_Complex.hpp>
#include <cstring>

#include "ringcomm/error.hpp"
#include "ringcomm/npy_format.hpp"

namespace mini_qmc {

std::vector<std::size_t> gt_file_shape(const ringcomm::gt::Dims& d) {
  const auto nb = static_cast<std::size_t>(d.nb), nc = static_cast<std::size_t>(d.Nc()),
             nw = static_cast<std::size_t>(d.n_freq);
  return {static_cast<std::size_t>(d.NOmega()), static_cast<std::size_t>(d.NQ()), nw, nc, nw, nc, nb, nb, nb, nb};
}

GtFile read_gt(const std::string& path) {
  const ringcomm::npy::Array array = ringcomm::npy::read(path);
  if (array.descr != "<c16")
    throw ringcomm::Error("'" + path + "' holds '" + array.descr + "' values, not complex<double> ('<c16')");
  GtFile gt{array.shape, std::vector<std::complex<double>>(array.count())};
  std::memcpy(gt.values.data(), array.data.data(), gt.values.size() * sizeof(std::complex<double>));
  return gt;
}

ringcomm::gt::ErrorNorms compare_gt(const GtFile& candidate, const GtFile& reference) {
  if (candidate.shape != reference.shape) throw ringcomm::Error("the two G_t files have different shapes");
  std::vector<Kokkos::complex<double>> values(candidate.values.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = Kokkos::complex<double>(candidate.values[i].real(), candidate.values[i].imag());
  return ringcomm::gt::compare(values, reference.values);
}

}  // namespace mini_qmc
