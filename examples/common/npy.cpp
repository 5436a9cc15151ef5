#include "npy.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>

#include "ringcomm/error.hpp"

namespace ringcomm::npy {

namespace {

bool little_endian() {
  const std::uint16_t probe = 1;
  unsigned char first = 0;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

// The header dictionary, padded with spaces and a newline so that the data starts at a multiple of
// 64 bytes, as the format asks.
std::string header(const char* descr, const std::vector<std::size_t>& shape) {
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i) dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  dict += "), }";
  constexpr std::size_t kPreamble = 10;  // magic (6), version (2), header length (2)
  const std::size_t unpadded = kPreamble + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  return dict + '\n';
}

}  // namespace

void write(const std::string& path, const char* descr, std::size_t value_bytes, const std::vector<std::size_t>& shape,
           const void* data, std::size_t count) {
  std::size_t expected = 1;
  for (const auto extent : shape) expected *= extent;
  if (expected != count)
    throw Error("npy: " + path + ": shape holds " + std::to_string(expected) + " values but " + std::to_string(count) +
                " were given");
  if (!little_endian()) throw Error("npy: writing .npy files is implemented for little-endian machines only");
  const std::string dict = header(descr, shape);
  if (dict.size() > 65535) throw Error("npy: " + path + ": header too long for format version 1.0");
  std::ofstream file(path, std::ios::binary);
  const unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                      static_cast<unsigned char>(dict.size() & 0xff),
                                      static_cast<unsigned char>(dict.size() >> 8)};
  file.write(reinterpret_cast<const char*>(preamble), sizeof preamble);
  file.write(dict.data(), static_cast<std::streamsize>(dict.size()));
  file.write(static_cast<const char*>(data), static_cast<std::streamsize>(count * value_bytes));
  if (!file) throw Error("npy: cannot write '" + path + "'");
}

}  // namespace ringcomm::npy
