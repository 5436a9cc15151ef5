#pragma once
// Shape of the two-particle Green's function G_t and of the single-particle matrices G_σ.
//
// G_σ (one per spin) is square with side M = nb·Nc·Nw_ext, combined index i(b,k,w) = b + nb·k + nb·Nc·w,
// stored column-major: G[i, j] at i + M·j. Nw_ext = 2n + 2E: the G_t frequency index w ∈ [0, 2n) sits
// at w + E on G's frequency axis, E being the largest exchange frequency index.
//
// G_t index order, fastest first: b1, b2, b3, b4, k1, w1, k2, w2, Q, Ω, so
// N = nb⁴ · Nc² · (2n)² · N_Q · N_Ω. Q and Ω run over the lists of exchange momenta and frequencies.
//
// The cluster is Lx × Ly and periodic; momentum k = kx + Lx·ky.
#include <cstddef>
#include <string>
#include <vector>

namespace ringcomm::gt {

enum class Channel { pp_up_down, ph_transverse, ph_magnetic, ph_charge };

const std::vector<std::string>& channel_names();  // "pp_up_down", "ph_transverse", "ph_magnetic", "ph_charge"
std::string to_string(Channel channel);
Channel parse_channel(const std::string& text, const std::string& setting);  // throws ringcomm::Error

struct Dims {
  int nb = 1;       // orbitals (bands)
  int Lx = 2;       // cluster extent
  int Ly = 2;
  int n_freq = 4;   // 2n: fermionic frequencies kept in G_t
  std::vector<int> exchange_momenta{0};     // momentum indices Q, each in [0, Nc)
  std::vector<int> exchange_frequencies{0}; // bosonic indices Ω, each in [0, E]

  int Nc() const { return Lx * Ly; }
  int E() const;                      // largest exchange frequency index
  int Nw_ext() const { return n_freq + 2 * E(); }
  int M() const { return nb * Nc() * Nw_ext(); }
  int NQ() const { return static_cast<int>(exchange_momenta.size()); }
  int NOmega() const { return static_cast<int>(exchange_frequencies.size()); }
  std::size_t entries() const;        // N

  // Scalars per ring message: G_up (M²), G_down (M²), then the sign.
  std::size_t message_entries() const { return 2 * static_cast<std::size_t>(M()) * M() + 1; }

  // Throws ringcomm::Error naming the offending field.
  void validate() const;
  std::string describe() const;
};

// add[k + Nc·q] = index(k + q), sub[k + Nc·q] = index(q − k), folded into the periodic cluster.
struct ClusterTables {
  std::vector<int> add;
  std::vector<int> sub;
};
ClusterTables make_cluster_tables(int Lx, int Ly);

}  // namespace ringcomm::gt
