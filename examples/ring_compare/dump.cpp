#include "dump.hpp"

#include <filesystem>

#include "npy.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/gt/walker.hpp"

namespace ring_compare {

using namespace ringcomm;

std::vector<std::size_t> gt_shape(const gt::Dims& d) {
  const auto nb = static_cast<std::size_t>(d.nb), nc = static_cast<std::size_t>(d.Nc()),
             nw = static_cast<std::size_t>(d.n_freq);
  return {static_cast<std::size_t>(d.NOmega()), static_cast<std::size_t>(d.NQ()), nw, nc, nw, nc, nb, nb, nb, nb};
}

namespace {

json::Value file_entry(const std::string& file, const std::vector<std::size_t>& shape, const std::string& dtype,
                       const std::string& meaning) {
  json::Value entry = json::Value::object();
  entry["file"] = file;
  entry["shape"] = shape;
  entry["dtype"] = dtype;
  entry["meaning"] = meaning;
  return entry;
}

}  // namespace

template <class Scalar>
void check_dump_size(const gt::Problem& problem) {
  const auto m = static_cast<double>(problem.dims.M());
  const double bytes = sizeof(Scalar) * (static_cast<double>(problem.measurements) * 2 * m * m +
                                         2 * static_cast<double>(problem.dims.entries()));
  if (bytes > static_cast<double>(kDumpLimitBytes))
    throw Error("--dump would write " + format_bytes(bytes) + " (more than " +
                format_bytes(static_cast<double>(kDumpLimitBytes)) +
                "); it is meant for small problems: lower --measurements or the dimensions");
}

template <class Scalar>
void write_dump_inputs(const std::string& dir, const gt::Problem& problem) {
  std::error_code failure;
  std::filesystem::create_directories(dir, failure);
  if (failure) throw Error("--dump: cannot create '" + dir + "': " + failure.message());
  const gt::Dims& d = problem.dims;
  const auto m = static_cast<std::size_t>(d.M());
  const gt::SyntheticWalker walker(d, problem.seed, problem.measurements);
  std::vector<Scalar> g_up(problem.measurements * m * m), g_down(g_up.size());
  std::vector<double> signs(problem.measurements);
  for (std::size_t id = 0; id < problem.measurements; ++id) {
    const std::vector<Scalar> message = walker.host_message<Scalar>(id);
    // Our G is column-major (G[i + M*j]); numpy's C order wants row i contiguous, hence the transpose.
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < m; ++j) {
        g_up[(id * m + i) * m + j] = message[i + m * j];
        g_down[(id * m + i) * m + j] = message[m * m + i + m * j];
      }
    signs[id] = message[2 * m * m].real();
  }
  npy::write(dir + "/g_up.npy", {problem.measurements, m, m}, g_up);
  npy::write(dir + "/g_down.npy", {problem.measurements, m, m}, g_down);
  npy::write(dir + "/signs.npy", {problem.measurements}, signs);
  const gt::ClusterTables tables = gt::make_cluster_tables(d.Lx, d.Ly);
  const auto nc = static_cast<std::size_t>(d.Nc());
  // add[k + Nc*q] is already C order for an array indexed [q, k].
  npy::write(dir + "/add.npy", {nc, nc}, std::vector<std::int32_t>(tables.add.begin(), tables.add.end()));
  npy::write(dir + "/sub.npy", {nc, nc}, std::vector<std::int32_t>(tables.sub.begin(), tables.sub.end()));
}

template <class Scalar>
void write_dump_gt(const std::string& dir, const std::string& name, const gt::Dims& dims, const std::vector<Scalar>& gt) {
  // Our order is b1 fastest … Ω slowest, which is C order for the reversed axes: no copy needed.
  npy::write(dir + "/" + name + ".npy", gt_shape(dims), gt);
}

void write_dump_meta(const std::string& dir, const gt::Problem& problem, const std::string& scalar,
                     const char* g_dtype, const char* gt_dtype, json::Value run) {
  const gt::Dims& d = problem.dims;
  const auto m = static_cast<std::size_t>(d.M()), nc = static_cast<std::size_t>(d.Nc());
  json::Value meta = json::Value::object();
  meta["format"] = "ring_compare dump, version 1";
  meta["run"] = std::move(run);
  meta["channel"] = gt::to_string(problem.channel);
  meta["scalar"] = scalar;
  meta["seed"] = problem.seed;
  meta["measurements"] = problem.measurements;
  json::Value& dims = meta["dims"];
  dims["nb"] = d.nb;
  dims["Lx"] = d.Lx;
  dims["Ly"] = d.Ly;
  dims["Nc"] = d.Nc();
  dims["n_freq"] = d.n_freq;
  dims["E"] = d.E();
  dims["Nw_ext"] = d.Nw_ext();
  dims["M"] = d.M();
  dims["exchange_momenta"] = d.exchange_momenta;
  dims["exchange_frequencies"] = d.exchange_frequencies;
  dims["entries"] = d.entries();
  json::Value& conventions = meta["conventions"];
  conventions["momentum"] = "k = kx + Lx*ky on the periodic Lx x Ly cluster";
  conventions["g_index"] =
      "row/column i = b + nb*k + nb*Nc*w with w in [0, Nw_ext) on G's frequency axis, Nw_ext = n_freq + 2E; "
      "G_t's frequency w1 in [0, n_freq) is G's w1 + E";
  conventions["g_arrays"] = "g_up[m, i, j] = G_up[i, j] of measurement m (transposed from ringcomm's column-major G[i + M*j])";
  conventions["gt_order"] =
      "ringcomm stores G_t with b1 fastest, then b2, b3, b4, k1, w1, k2, w2, Q, Omega; the .npy arrays are that "
      "order reversed in C order: gt[iOmega, iQ, w2, k2, w1, k1, b4, b3, b2, b1]";
  conventions["exchange"] = "iQ and iOmega index dims.exchange_momenta and dims.exchange_frequencies";
  conventions["padding"] = "only measurements 0 .. measurements-1 are dumped; padding ids add nothing";
  const std::string c = g_dtype, t = gt_dtype;
  json::Value& files = meta["files"];
  files["g_up"] = file_entry("g_up.npy", {problem.measurements, m, m}, c, "G_up of each measurement");
  files["g_down"] = file_entry("g_down.npy", {problem.measurements, m, m}, c, "G_down of each measurement");
  files["signs"] = file_entry("signs.npy", {problem.measurements}, "<f8", "sign of each measurement (+1 or -1)");
  files["add"] = file_entry("add.npy", {nc, nc}, "<i4", "add[q, k] = index of k + q");
  files["sub"] = file_entry("sub.npy", {nc, nc}, "<i4", "sub[q, k] = index of q - k");
  if (meta["run"].kind() != json::Value::Kind::null)
    files["gt"] = file_entry("gt.npy", gt_shape(d), t, "G_t of the ring run in \"run\", gathered after sum_across_rings");
  files["gt_original"] = file_entry("gt_original.npy", gt_shape(d), t, "G_t of the original algorithm");
  json::write_file(dir + "/meta.json", meta);
}

#define RING_COMPARE_INSTANTIATE(Scalar)                                                                 \
  template void check_dump_size<Scalar>(const gt::Problem&);                                             \
  template void write_dump_inputs<Scalar>(const std::string&, const gt::Problem&);                       \
  template void write_dump_gt<Scalar>(const std::string&, const std::string&, const gt::Dims&,           \
                                      const std::vector<Scalar>&);
RING_COMPARE_INSTANTIATE(Kokkos::complex<double>)
RING_COMPARE_INSTANTIATE(Kokkos::complex<float>)
#undef RING_COMPARE_INSTANTIATE

}  // namespace ring_compare
