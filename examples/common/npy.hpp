#pragma once
// Writing arrays as NumPy .npy files (format version 1.0), so that outside tools can read what a
// program computed with numpy.load.
#include <complex>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <Kokkos_Complex.hpp>

namespace ringcomm::npy {

// NumPy's type string of a C++ scalar ("<f8", "<c16", …); little-endian, as on every platform
// ringcomm runs on (checked when writing).
template <class T>
const char* descr();
template <> inline const char* descr<double>() { return "<f8"; }
template <> inline const char* descr<float>() { return "<f4"; }
template <> inline const char* descr<std::int32_t>() { return "<i4"; }
template <> inline const char* descr<std::int64_t>() { return "<i8"; }
template <> inline const char* descr<Kokkos::complex<double>>() { return "<c16"; }
template <> inline const char* descr<Kokkos::complex<float>>() { return "<c8"; }
template <> inline const char* descr<std::complex<double>>() { return "<c16"; }

// Writes `count` values of `descr`, in C order for `shape` (the last index fastest). Throws a local
// ringcomm::Error naming the path when the file cannot be written or the shape does not match.
void write(const std::string& path, const char* descr, std::size_t value_bytes, const std::vector<std::size_t>& shape,
           const void* data, std::size_t count);

template <class T>
void write(const std::string& path, const std::vector<std::size_t>& shape, const std::vector<T>& values) {
  write(path, descr<T>(), sizeof(T), shape, values.data(), values.size());
}

}  // namespace ringcomm::npy
