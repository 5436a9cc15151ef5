#include "gt_file.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#include "npy.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/error.hpp"

namespace mini_qmc {

std::vector<std::size_t> gt_file_shape(const ringcomm::gt::Dims& d) {
  const auto nb = static_cast<std::size_t>(d.nb), nc = static_cast<std::size_t>(d.Nc()),
             nw = static_cast<std::size_t>(d.n_freq);
  return {static_cast<std::size_t>(d.NOmega()), static_cast<std::size_t>(d.NQ()), nw, nc, nw, nc, nb, nb, nb, nb};
}

void write_gt(const std::string& path, const ringcomm::gt::Dims& dims, const ringcomm::DistributedArray<GtScalar>& gt) {
  const std::vector<GtScalar> whole = gt.gather();
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ringcomm::collectively(MPI_COMM_WORLD, [&] {
    if (rank == 0) ringcomm::npy::write(path, gt_file_shape(dims), whole);
  });
}

namespace {

// The value of `key` in a .npy header such as {'descr': '<c16', 'fortran_order': False, 'shape': (2, 3), }:
// the text from after "'key': " to the next ", '" or " }", shape tuples included whole.
std::string header_field(const std::string& header, const std::string& key) {
  const std::string label = "'" + key + "':";
  std::size_t begin = header.find(label);
  if (begin == std::string::npos) return {};
  begin = header.find_first_not_of(' ', begin + label.size());
  std::size_t end = header[begin] == '(' ? header.find(')', begin) + 1 : header.find_first_of(",}", begin);
  while (end > begin && header[end - 1] == ' ') --end;
  return header.substr(begin, end - begin);
}

}  // namespace

GtFile read_gt(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw ringcomm::Error("cannot open '" + path + "'");
  char magic[8] = {};
  file.read(magic, sizeof magic);
  if (!file || std::memcmp(magic, "\x93NUMPY", 6) != 0)
    throw ringcomm::Error("'" + path + "' is not a NumPy .npy file");
  const int major_version = static_cast<unsigned char>(magic[6]);
  std::uint32_t header_bytes = 0;
  unsigned char length[4] = {};
  file.read(reinterpret_cast<char*>(length), major_version == 1 ? 2 : 4);
  for (int i = major_version == 1 ? 1 : 3; i >= 0; --i) header_bytes = header_bytes * 256 + length[i];
  std::string header(header_bytes, '\0');
  file.read(header.data(), header_bytes);

  if (header_field(header, "descr") != "'<c16'")
    throw ringcomm::Error("'" + path + "' does not hold complex<double> values ('<c16')");
  if (header_field(header, "fortran_order") != "False") throw ringcomm::Error("'" + path + "' is not in C order");
  GtFile gt;
  std::size_t count = 1;
  std::istringstream dimensions(header_field(header, "shape"));
  dimensions.ignore(1);  // '('
  for (std::size_t extent = 0; dimensions >> extent; dimensions.ignore(1)) {
    gt.shape.push_back(extent);
    count *= extent;
  }
  gt.values.resize(count);
  file.read(reinterpret_cast<char*>(gt.values.data()), static_cast<std::streamsize>(count * sizeof(std::complex<double>)));
  if (!file) throw ringcomm::Error("'" + path + "' ends before its " + std::to_string(count) + " values");
  return gt;
}

ringcomm::gt::ErrorNorms compare_gt(const GtFile& candidate, const GtFile& reference) {
  if (candidate.shape != reference.shape) throw ringcomm::Error("the two G_t files have different shapes");
  std::vector<GtScalar> values(candidate.values.size());
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = GtScalar(candidate.values[i].real(), candidate.values[i].imag());
  return ringcomm::gt::compare(values, reference.values);
}

}  // namespace mini_qmc
