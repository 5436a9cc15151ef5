#include "ringcomm/npy_format.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <regex>

#include "ringcomm/error.hpp"

namespace ringcomm::npy {

namespace {

constexpr unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t kPreamble = 10;  // magic (6), version (2), header length (2)

bool little_endian() {
  const std::uint16_t probe = 1;
  unsigned char first = 0;
  std::memcpy(&first, &probe, 1);
  return first == 1;
}

// The size in bytes of one value of `descr`, for the types ringcomm writes.
std::size_t value_bytes(const std::string& descr, const std::string& path) {
  static const std::pair<const char*, std::size_t> known[] = {{"<f8", 8}, {"<f4", 4}, {"<i4", 4}, {"<i8", 8},
                                                              {"<c16", 16}, {"<c8", 8}};
  for (const auto& [name, bytes] : known)
    if (descr == name) return bytes;
  throw Error("npy: " + path + ": values of type '" + descr + "' cannot be read (known: <f8 <f4 <i4 <i8 <c16 <c8)");
}

}  // namespace

std::size_t Array::count() const {
  std::size_t n = 1;
  for (const auto extent : shape) n *= extent;
  return n;
}

std::string header(const std::string& descr, const std::vector<std::size_t>& shape) {
  if (!little_endian()) throw Error("npy: writing .npy files is implemented for little-endian machines only");
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (";
  for (std::size_t i = 0; i < shape.size(); ++i)
    dict += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
  dict += "), }";
  const std::size_t unpadded = kPreamble + dict.size() + 1;
  dict.append((64 - unpadded % 64) % 64, ' ');
  dict += '\n';
  if (dict.size() > 65535) throw Error("npy: header too long for format version 1.0");
  std::string out(reinterpret_cast<const char*>(kMagic), sizeof kMagic);
  out += '\x01';
  out += '\x00';
  out += static_cast<char>(dict.size() & 0xff);
  out += static_cast<char>(dict.size() >> 8);
  return out + dict;
}

Array read(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw Error("npy: cannot open " + path);
  unsigned char preamble[kPreamble] = {};
  file.read(reinterpret_cast<char*>(preamble), sizeof preamble);
  if (!file || std::memcmp(preamble, kMagic, sizeof kMagic) != 0)
    throw Error("npy: " + path + " is not a .npy file (no \\x93NUMPY magic)");
  if (preamble[6] != 1 || preamble[7] != 0)
    throw Error("npy: " + path + " has format version " + std::to_string(preamble[6]) + "." +
                std::to_string(preamble[7]) + "; only 1.0 is read");
  std::string dict(std::size_t(preamble[8]) | std::size_t(preamble[9]) << 8, '\0');
  file.read(dict.data(), static_cast<std::streamsize>(dict.size()));
  if (!file) throw Error("npy: " + path + " ends inside its header");

  static const std::regex pattern(
      R"(^\{'descr': '([^']+)', 'fortran_order': (True|False), 'shape': \(([0-9, ]*)\), *\} *\n$)");
  std::smatch match;
  if (!std::regex_match(dict, match, pattern)) throw Error("npy: " + path + " has a header not understood: " + dict);
  Array array;
  array.descr = match[1];
  if (match[2] == "True") throw Error("npy: " + path + " is in Fortran order; only C order is read");
  const std::string extents = match[3];
  static const std::regex number("[0-9]+");
  for (auto it = std::sregex_iterator(extents.begin(), extents.end(), number); it != std::sregex_iterator(); ++it)
    array.shape.push_back(static_cast<std::size_t>(std::stoull(it->str())));
  array.data.resize(array.count() * value_bytes(array.descr, path));
  file.read(reinterpret_cast<char*>(array.data.data()), static_cast<std::streamsize>(array.data.size()));
  if (!file) throw Error("npy: " + path + " holds fewer values than its shape says");
  if (file.peek() != std::char_traits<char>::eof())
    throw Error("npy: " + path + " holds more bytes than its shape says");
  return array;
}

}  // namespace ringcomm::npy
