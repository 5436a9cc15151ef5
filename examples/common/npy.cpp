#include "npy.hpp"

#include <cstdint>
#include <cstring>
#include "ringcomm/checked_math.hpp"
#include "ringcomm/error.hpp"
#include "internal/file.hpp"
#include "ringcomm/npy_format.hpp"

namespace ringcomm::npy {

void write(const std::string& path, const char* descr, std::size_t value_bytes, const std::vector<std::size_t>& shape,
           const void* data, std::size_t count) {
  std::size_t expected = 1;
  for (const auto extent : shape) expected = checked_product(expected, extent, "npy: the shape of " + path);
  if (expected != count)
    throw Error("npy: " + path + ": shape holds " + std::to_string(expected) + " values but " + std::to_string(count) +
                " were given");
  const std::string head = header(descr, shape);  // ringcomm/npy_format.hpp
  write_whole_file(path, {{head.data(), head.size()},
                          {data, checked_product(count, value_bytes, "npy: the size of " + path)}});
}

}  // namespace ringcomm::npy
