#pragma once
// --dump DIR: everything an outside tool needs to recompute G_t, as .npy files and meta.json.
//
//   g_up.npy, g_down.npy  (measurements, M, M)  g_up[m, i, j] = G_up[i, j] of measurement m, as rounded
//                         to the run's message scalar (complex<float> for mixed precision);
//                         i = b + nb*k + nb*Nc*w on G's extended frequency axis
//   signs.npy             (measurements,) float64
//   add.npy, sub.npy      (Nc, Nc) int32        add[q, k] = index of k + q, sub[q, k] = index of q - k
//   gt.npy                (NΩ, NQ, 2n, Nc, 2n, Nc, nb, nb, nb, nb): the ring's gathered G_t;
//                         gt[iΩ, iQ, w2, k2, w1, k1, b4, b3, b2, b1], our fastest-first order reversed
//   gt_original.npy       the same for the original algorithm
//   meta.json             dimensions, conventions, channel and the list above
#include <string>
#include <vector>

#include "ringcomm/gt/accumulate.hpp"
#include "ringcomm/json.hpp"

namespace ring_compare {

// The shape of gt.npy (see above); --write uses it too.
std::vector<std::size_t> gt_shape(const ringcomm::gt::Dims& dims);

// Largest dump written, so that a mistyped size does not fill a disk.
constexpr std::size_t kDumpLimitBytes = std::size_t(1) << 30;

// Throws ringcomm::Error when the dump of `problem` would exceed kDumpLimitBytes.
template <class Scalar>
void check_dump_size(const ringcomm::gt::Problem& problem);

// Creates `dir` and writes the measurements' inputs and the cluster tables. Rank 0 only.
template <class Scalar>
void write_dump_inputs(const std::string& dir, const ringcomm::gt::Problem& problem);

// Writes `<name>.npy` holding a full G_t. Rank 0 only.
template <class Scalar>
void write_dump_gt(const std::string& dir, const std::string& name, const ringcomm::gt::Dims& dims,
                   const std::vector<Scalar>& gt);

// meta.json: `run` (the ring run whose G_t is gt.npy; null when no ring ran) plus the dimensions,
// conventions and files; g_dtype and gt_dtype are the .npy types of G_σ and G_t. Rank 0 only.
void write_dump_meta(const std::string& dir, const ringcomm::gt::Problem& problem, const std::string& scalar,
                     const char* g_dtype, const char* gt_dtype, ringcomm::json::Value run);

}  // namespace ring_compare
