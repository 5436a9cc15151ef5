#pragma once
// The NumPy .npy file format (version 1.0): the header that numpy.load expects in front of the raw
// array, and a reader for the files ringcomm and its programs write (tests read them back).
//
// A file is the magic "\x93NUMPY", the version (1, 0), the header length (2 bytes, little-endian)
// and a Python dict literal such as {'descr': '<c16', 'fortran_order': False, 'shape': (8, 4), },
// padded with spaces and a newline so that the data starts at a multiple of 64 bytes.
#include <cstddef>
#include <string>
#include <vector>

namespace ringcomm::npy {

// Everything in front of the data, for values of type `descr` (e.g. "<c16") in C order for `shape`.
// Throws a (local) Error when it would not fit format 1.0 or the machine is not little-endian.
std::string header(const std::string& descr, const std::vector<std::size_t>& shape);

struct Array {
  std::string descr;
  std::vector<std::size_t> shape;
  std::vector<unsigned char> data;  // the values' bytes, in C order
  std::size_t count() const;        // product of shape
};

// Reads a .npy file of format 1.0 in C order; throws a (local) Error naming the file and what is
// wrong with it otherwise.
Array read(const std::string& path);

}  // namespace ringcomm::npy
