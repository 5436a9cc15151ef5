#include "npy.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>

#include "ringcomm/error.hpp"
#include "ringcomm/npy_format.hpp"

namespace ringcomm::npy {

void write(const std::string& path, const char* descr, std::size_t value_bytes, const std::vector<std::size_t>& shape,
           const void* data, std::size_t count) {
  std::size_t expected = 1;
  for (const auto extent : shape) expected *= extent;
  if (expected != count)
    throw Error("npy: " + path + ": shape holds " + std::to_string(expected) + " values but " + std::to_string(count) +
                " were given");
  const std::string head = header(descr, shape);  // ringcomm/npy_format.hpp
  std::ofstream file(path, std::ios::binary);
  file.write(head.data(), static_cast<std::streamsize>(head.size()));
  file.write(static_cast<const char*>(data), static_cast<std::streamsize>(count * value_bytes));
  if (!file) throw Error("npy: cannot write '" + path + "'");
}

}  // namespace ringcomm::npy
