#include "gt_options.hpp"

#include <climits>
#include <string>
#include <vector>

#include "ringcomm/error.hpp"
#include "ringcomm/settings.hpp"

namespace ringcomm::cli {

namespace {

int parse_int(const std::string& text, const std::string& option, int min, int max) {
  return static_cast<int>(settings::parse_integer(text, option, min, max));
}

// Index lists are bounded like --nfreq: far beyond any G_t that fits a machine, far below int overflow.
constexpr int kLargestIndex = 1 << 20;

std::vector<int> parse_index_list(const std::string& text, const std::string& option) {
  std::vector<int> values;
  for (const long long v : settings::parse_integer_list(text, option, 0, kLargestIndex))
    values.push_back(static_cast<int>(v));
  return values;
}

std::string joined(const std::vector<int>& values) {
  std::string text;
  for (const int v : values) text += (text.empty() ? "" : ",") + std::to_string(v);
  return text;
}

std::string by_default(int value) { return " (default " + std::to_string(value) + ")"; }

// The kernels' own validation names fields (M, N, …); the user must learn which options make them.
void check_dims(const gt::Dims& dims) {
  const int nc = dims.Lx * dims.Ly;
  for (const int q : dims.exchange_momenta)
    if (q >= nc)
      throw Error("--exchange-momenta: momentum " + std::to_string(q) + " is not valid: expected indices in [0, " +
                  std::to_string(nc) + ") for the " + std::to_string(dims.Lx) + "x" + std::to_string(dims.Ly) +
                  " cluster (--lx, --ly)");
  try {
    dims.validate();
  } catch (const Error& e) {
    throw Error(std::string(e.what()) + " (set by --nb, --lx, --ly, --nfreq, --exchange-momenta, --exchange-frequencies)");
  }
}

}  // namespace

void add_dims_options(CommandLine& cli, gt::Dims& dims) {
  cli.option("--nb", "N", "orbitals per site" + by_default(dims.nb),
             [&dims](const std::string& v) { dims.nb = parse_int(v, "--nb", 1, 64); });
  cli.option("--lx", "N", "cluster extent in x" + by_default(dims.Lx),
             [&dims](const std::string& v) { dims.Lx = parse_int(v, "--lx", 1, 4096); });
  cli.option("--ly", "N", "cluster extent in y" + by_default(dims.Ly),
             [&dims](const std::string& v) { dims.Ly = parse_int(v, "--ly", 1, 4096); });
  cli.option("--nfreq", "2n", "fermionic frequencies kept in G_t, even" + by_default(dims.n_freq),
             [&dims](const std::string& v) {
               dims.n_freq = parse_int(v, "--nfreq", 2, 1 << 20);
               if (dims.n_freq % 2 != 0) throw Error("--nfreq='" + v + "' is not valid: expected an even number >= 2");
             });
  cli.option("--exchange-momenta", "LIST",
             "momentum indices Q in [0, lx*ly), e.g. 0,3 (default " + joined(dims.exchange_momenta) + ")",
             [&dims](const std::string& v) { dims.exchange_momenta = parse_index_list(v, "--exchange-momenta"); });
  cli.option("--exchange-frequencies", "LIST",
             "bosonic frequency indices Ω >= 0, e.g. 0,1 (default " + joined(dims.exchange_frequencies) + ")",
             [&dims](const std::string& v) { dims.exchange_frequencies = parse_index_list(v, "--exchange-frequencies"); });
  cli.check([&dims] { check_dims(dims); });
}

}  // namespace ringcomm::cli
