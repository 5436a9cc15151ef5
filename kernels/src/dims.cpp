#include "ringcomm/gt/dims.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <sstream>

#include "ringcomm/error.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm::gt {

namespace {

[[noreturn]] void reject(const std::string& field, const std::string& value, const std::string& allowed) {
  throw Error("G_t dimension " + field + "=" + value + " is not valid: expected " + allowed);
}

std::string list_text(const std::vector<int>& values) {
  std::string text = "{";
  for (std::size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + std::to_string(values[i]);
  return text + "}";
}

// a·b, or an Error naming `what` when the product leaves [0, limit].
std::uint64_t checked_product(std::uint64_t a, std::uint64_t b, std::uint64_t limit, const std::string& what) {
  if (a != 0 && b > limit / a)
    throw Error(what + " overflows (" + std::to_string(a) + " x " + std::to_string(b) +
                "); choose smaller G_t dimensions");
  return a * b;
}

// M = nb·Nc·(2n + 2E) computed without int overflow; the public accessors use int.
std::uint64_t side_of_g(const Dims& dims) {
  const std::uint64_t max_e = static_cast<std::uint64_t>(dims.E());
  const std::uint64_t nw_ext = static_cast<std::uint64_t>(dims.n_freq) + 2 * max_e;
  const std::uint64_t nc = checked_product(dims.Lx, dims.Ly, INT_MAX, "the cluster size Nc = Lx*Ly");
  const std::uint64_t nb_nc = checked_product(dims.nb, nc, INT_MAX, "the side of G_sigma M = nb*Nc*Nw_ext");
  return checked_product(nb_nc, nw_ext, INT_MAX, "the side of G_sigma M = nb*Nc*Nw_ext");
}

}  // namespace

const std::vector<std::string>& channel_names() {
  static const std::vector<std::string> names{"pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge"};
  return names;
}

std::string to_string(Channel channel) { return channel_names().at(static_cast<std::size_t>(channel)); }

Channel parse_channel(const std::string& text, const std::string& setting) {
  const std::string name = settings::parse_choice(text, setting, channel_names());
  const auto& names = channel_names();
  return static_cast<Channel>(std::find(names.begin(), names.end(), name) - names.begin());
}

int Dims::E() const {
  if (exchange_frequencies.empty()) return 0;
  return *std::max_element(exchange_frequencies.begin(), exchange_frequencies.end());
}

std::size_t Dims::entries() const {
  constexpr std::uint64_t limit = std::numeric_limits<std::int64_t>::max();  // kernels index with int64
  const std::string what = "the number of G_t entries N = nb^4*Nc^2*(2n)^2*N_Q*N_Omega";
  const std::uint64_t factors[] = {
      static_cast<std::uint64_t>(nb), static_cast<std::uint64_t>(nb), static_cast<std::uint64_t>(nb),
      static_cast<std::uint64_t>(nb), static_cast<std::uint64_t>(Lx) * static_cast<std::uint64_t>(Ly),
      static_cast<std::uint64_t>(Lx) * static_cast<std::uint64_t>(Ly), static_cast<std::uint64_t>(n_freq),
      static_cast<std::uint64_t>(n_freq), exchange_momenta.size(), exchange_frequencies.size()};
  std::uint64_t n = 1;
  for (const std::uint64_t f : factors) n = checked_product(n, f, limit, what);
  return static_cast<std::size_t>(n);
}

void Dims::validate() const {
  if (nb < 1) reject("nb", std::to_string(nb), "an integer >= 1 (orbitals)");
  if (Lx < 1) reject("Lx", std::to_string(Lx), "an integer >= 1 (cluster extent)");
  if (Ly < 1) reject("Ly", std::to_string(Ly), "an integer >= 1 (cluster extent)");
  if (n_freq < 2 || n_freq % 2 != 0)
    reject("n_freq", std::to_string(n_freq), "an even integer >= 2 (fermionic frequencies 2n)");
  const std::uint64_t nc = checked_product(Lx, Ly, INT_MAX, "the cluster size Nc = Lx*Ly");
  if (exchange_momenta.empty())
    reject("exchange_momenta", "{}", "a non-empty list of momentum indices in [0, Nc)");
  for (const int q : exchange_momenta)
    if (q < 0 || static_cast<std::uint64_t>(q) >= nc)
      reject("exchange_momenta", list_text(exchange_momenta),
             "momentum indices in [0, " + std::to_string(nc) + ") for a " + std::to_string(Lx) + "x" +
                 std::to_string(Ly) + " cluster");
  if (exchange_frequencies.empty())
    reject("exchange_frequencies", "{}", "a non-empty list of bosonic frequency indices >= 0");
  for (const int w : exchange_frequencies)
    if (w < 0) reject("exchange_frequencies", list_text(exchange_frequencies), "bosonic frequency indices >= 0");
  // A message holds 2·M² + 1 scalars of up to 16 bytes (complex<double>); its byte count, which sizes
  // the ring slots and the walker's buffers, must not wrap (M = 2^30 once wrapped to 16 bytes).
  const std::uint64_t m = side_of_g(*this);
  const std::string message = "the ring message of 2*M^2+1 complex<double> scalars in bytes (M = nb*Nc*Nw_ext)";
  const std::uint64_t limit = std::numeric_limits<std::int64_t>::max();
  checked_product(checked_product(checked_product(2, m, limit, message), m, limit, message) + 1, 16, limit, message);
  entries();
}

std::string Dims::describe() const {
  std::ostringstream text;
  text << "nb=" << nb << ", cluster " << Lx << "x" << Ly << " (Nc=" << Nc() << "), n_freq=" << n_freq
       << ", Q=" << list_text(exchange_momenta) << ", Omega=" << list_text(exchange_frequencies)
       << " (E=" << E() << "): M=" << M() << ", N=" << entries();
  return text.str();
}

ClusterTables make_cluster_tables(int Lx, int Ly) {
  if (Lx < 1) reject("Lx", std::to_string(Lx), "an integer >= 1 (cluster extent)");
  if (Ly < 1) reject("Ly", std::to_string(Ly), "an integer >= 1 (cluster extent)");
  const int nc = static_cast<int>(checked_product(Lx, Ly, INT_MAX, "the cluster size Nc = Lx*Ly"));
  ClusterTables tables;
  tables.add.resize(static_cast<std::size_t>(nc) * nc);
  tables.sub.resize(static_cast<std::size_t>(nc) * nc);
  for (int q = 0; q < nc; ++q) {
    const int qx = q % Lx, qy = q / Lx;
    for (int k = 0; k < nc; ++k) {
      const int kx = k % Lx, ky = k / Lx;
      const std::size_t at = static_cast<std::size_t>(k) + static_cast<std::size_t>(nc) * q;
      tables.add[at] = (kx + qx) % Lx + Lx * ((ky + qy) % Ly);
      tables.sub[at] = (qx - kx + Lx) % Lx + Lx * ((qy - ky + Ly) % Ly);
    }
  }
  return tables;
}

}  // namespace ringcomm::gt
