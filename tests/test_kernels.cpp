// G_t kernels, walker, reference and drivers. Problems are tiny so that the suite runs in seconds.
#include <gtest/gtest.h>
#include <mpi.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "ringcomm/ringcomm.hpp"
#include "ringcomm/gt/accumulate.hpp"
#include "ringcomm/gt/tolerance.hpp"
#include "ringcomm/gt/accumulator.hpp"
#include "ringcomm/gt/dims.hpp"
#include "ringcomm/gt/fast_divisor.hpp"
#include "ringcomm/gt/walker.hpp"
#include "same_sums.hpp"

namespace {

using namespace ringcomm;
using namespace ringcomm::gt;
using Complex = std::complex<double>;
using ringcomm::gt::Channel;  // not the transport's ringcomm::Channel

const Channel kAllChannels[] = {Channel::pp_up_down, Channel::ph_transverse, Channel::ph_magnetic,
                                Channel::ph_charge};

// A non-square cluster, a non-zero momentum, an unsorted frequency list with E = 2: every index path
// of the formulas is exercised.
Dims small_dims(int nb) {
  Dims dims;
  dims.nb = nb;
  dims.Lx = 3;
  dims.Ly = 2;
  dims.n_freq = 4;
  dims.exchange_momenta = {0, 4};
  dims.exchange_frequencies = {2, 0};
  return dims;
}

Problem small_problem(int nb, Channel channel, std::size_t measurements = 3) {
  Problem problem;
  problem.dims = small_dims(nb);
  problem.channel = channel;
  problem.seed = 20240611;
  problem.measurements = measurements;
  return problem;
}

// By type (ringcomm/gt/tolerance.hpp): 1e-12 for double, 5e-6 for float.
template <class Scalar>
double tolerance() { return gt::relative_tolerance<Scalar>(); }

template <class Scalar>
std::vector<Scalar> to_host(const Kokkos::View<Scalar*>& view) {
  std::vector<Scalar> host(view.extent(0));
  copy_bytes(host.data(), MemoryKind::host, view.data(), data_memory_kind(), host.size() * sizeof(Scalar));
  return host;
}

template <class Scalar>
bool bitwise_equal(const std::vector<Scalar>& a, const std::vector<Scalar>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(Scalar)) == 0;
}
using ringcomm::test::same_sums;

// The kernel run by hand, slice by slice, over the problem's measurements, then over one padding
// message whose G_σ slots hold NaN (which must change nothing). `edit` may alter each host message.
template <class Scalar, class Edit>
std::vector<Scalar> run_kernel(const Problem& problem, const std::vector<SliceRange>& ranges, Edit edit,
                               int row_tile = 1, bool transposed_reads = true) {
  const Dims& dims = problem.dims;
  const SyntheticWalker walker(dims, problem.seed, problem.measurements);
  const std::size_t message_bytes = dims.message_entries() * sizeof(Scalar);
  Buffer message(data_memory_kind(), message_bytes, "test message");
  std::vector<Scalar> full(dims.entries());
  for (const SliceRange& range : ranges) {
    Kokkos::View<Scalar*> slice("test slice", range.size());
    GtAccumulator<Scalar> accumulate(dims, problem.channel, slice, range);
    accumulate.set_exchange_row_tile(row_tile);
    accumulate.set_transposed_reads(transposed_reads);
    for (std::size_t id = 0; id < problem.measurements; ++id) {
      std::vector<Scalar> host = walker.host_message<Scalar>(id);
      edit(host);
      copy_bytes(message.data(), data_memory_kind(), host.data(), MemoryKind::host, message_bytes);
      accumulate(message.data(), 0);
      Kokkos::fence();
    }
    const Scalar nan(std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::quiet_NaN());
    const std::vector<Scalar> garbage(dims.message_entries(), nan);
    copy_bytes(message.data(), data_memory_kind(), garbage.data(), MemoryKind::host, message_bytes);
    walker.write<Scalar>(problem.measurements, message.data());  // padding: writes the sign 0 only
    accumulate(message.data(), 0);
    Kokkos::fence();
    const std::vector<Scalar> part = to_host(slice);
    std::copy(part.begin(), part.end(), full.begin() + static_cast<std::ptrdiff_t>(range.begin));
  }
  return full;
}

template <class Scalar>
std::vector<Scalar> run_kernel(const Problem& problem, const std::vector<SliceRange>& ranges) {
  return run_kernel<Scalar>(problem, ranges, [](std::vector<Scalar>&) {});
}

void expect_close(const ErrorNorms& norms, double bound) {
  EXPECT_LT(norms.l1, bound);
  EXPECT_LT(norms.l2, bound);
  EXPECT_LT(norms.linf, bound);
}

std::string error_of(const std::function<void()>& action) {
  try {
    action();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no ringcomm::Error thrown)";
}

// ---------------------------------------------------------------------------------------------------
// Cluster tables and dimensions

TEST(ClusterTables, AddAndSubtractFoldIntoThePeriodicCluster) {
  const int Lx = 3, Ly = 2, Nc = 6;
  const ClusterTables t = make_cluster_tables(Lx, Ly);
  ASSERT_EQ(t.add.size(), 36u);
  ASSERT_EQ(t.sub.size(), 36u);
  auto add = [&](int k, int q) { return t.add[k + Nc * q]; };
  auto sub = [&](int k, int q) { return t.sub[k + Nc * q]; };  // q − k
  for (int k = 0; k < Nc; ++k) {
    EXPECT_EQ(add(k, 0), k);
    EXPECT_EQ(sub(k, k), 0);
    for (int q = 0; q < Nc; ++q) {
      EXPECT_EQ(add(k, q), add(q, k));
      EXPECT_EQ(add(sub(k, q), k), q);            // (q − k) + k = q
      EXPECT_EQ(sub(sub(add(k, q), q), 0), k);    // −(q − (k + q)) = k
      EXPECT_GE(add(k, q), 0);
      EXPECT_LT(sub(k, q), Nc);
    }
  }
  // k = (2,1), q = (1,1): k + q = (0,0) and q − k = (−1,0) = (2,0).
  EXPECT_EQ(add(5, 4), 0);
  EXPECT_EQ(sub(5, 4), 2);
}

TEST(Dims, DerivedSizes) {
  const Dims dims = small_dims(2);
  EXPECT_NO_THROW(dims.validate());
  EXPECT_EQ(dims.Nc(), 6);
  EXPECT_EQ(dims.E(), 2);
  EXPECT_EQ(dims.Nw_ext(), 8);
  EXPECT_EQ(dims.M(), 2 * 6 * 8);
  EXPECT_EQ(dims.entries(), 16u * 36u * 16u * 2u * 2u);
  EXPECT_EQ(dims.message_entries(), 2u * 96u * 96u + 1u);
  EXPECT_NE(dims.describe().find("N=36864"), std::string::npos) << dims.describe();
}

TEST(Dims, ValidationNamesTheField) {
  struct Case {
    const char* field;
    void (*spoil)(Dims&);
  };
  const Case cases[] = {
      {"nb", [](Dims& d) { d.nb = 0; }},
      {"Lx", [](Dims& d) { d.Lx = 0; }},
      {"Ly", [](Dims& d) { d.Ly = -1; }},
      {"n_freq", [](Dims& d) { d.n_freq = 3; }},
      {"n_freq", [](Dims& d) { d.n_freq = 0; }},
      {"exchange_momenta", [](Dims& d) { d.exchange_momenta.clear(); }},
      {"exchange_momenta", [](Dims& d) { d.exchange_momenta = {0, 6}; }},
      {"exchange_momenta", [](Dims& d) { d.exchange_momenta = {-1}; }},
      {"exchange_frequencies", [](Dims& d) { d.exchange_frequencies.clear(); }},
      {"exchange_frequencies", [](Dims& d) { d.exchange_frequencies = {0, -2}; }},
      {"overflows", [](Dims& d) { d.exchange_frequencies = {1 << 30}; }},
      {"overflows", [](Dims& d) { d.nb = 1 << 20; }},
  };
  for (const Case& c : cases) {
    Dims dims = small_dims(1);
    c.spoil(dims);
    const std::string message = error_of([&] { dims.validate(); });
    EXPECT_NE(message.find(c.field), std::string::npos) << message;
  }
  const std::string message = error_of([] { small_dims(1).validate(); });
  EXPECT_EQ(message, "(no ringcomm::Error thrown)");
}

TEST(Channels, NamesRoundTrip) {
  for (const Channel c : kAllChannels) EXPECT_EQ(parse_channel(to_string(c), "RINGCOMM_CHANNEL"), c);
  EXPECT_EQ(channel_names().size(), 4u);
  const std::string message = error_of([] { parse_channel("pp", "RINGCOMM_CHANNEL"); });
  EXPECT_NE(message.find("RINGCOMM_CHANNEL"), std::string::npos) << message;
  EXPECT_NE(message.find("ph_charge"), std::string::npos) << message;
}

TEST(Rounds, CeilOfMeasurementsOverRanks) {
  Problem problem = small_problem(1, Channel::pp_up_down, 5);
  EXPECT_EQ(rounds(problem, 1), 5u);
  EXPECT_EQ(rounds(problem, 2), 3u);
  EXPECT_EQ(rounds(problem, 5), 1u);
  EXPECT_EQ(rounds(problem, 8), 1u);
  EXPECT_THROW(rounds(problem, 0), Error);
}

TEST(FastDivisor, AgreesWithDivisionOnEdgesAndRandomValues) {
  const std::uint32_t divisors[] = {1, 2, 3, 5, 6, 7, 24, 36, 100, 2304, 65535, 65536, 65537,
                                    0x7fffffffu, 0x80000000u, 0x80000001u, 0xfffffffeu, 0xffffffffu};
  for (const std::uint32_t d : divisors) {
    const FastDivisor divisor(d);
    std::vector<std::uint64_t> values = {0, 1, d - 1ull, d, d + 1ull, 2ull * d - 1, 2ull * d, 0xfffffffeull,
                                         0xffffffffull, 0x100000000ull, 0x123456789abcull};
    for (std::uint64_t i = 0; i < 20000; ++i) values.push_back(splitmix64(i + d) >> (i % 64));
    for (const std::uint64_t n : values) {
      std::uint64_t quotient = 0;
      std::uint32_t remainder = 0;
      divisor.divide(n, quotient, remainder);
      ASSERT_EQ(quotient, n / d) << n << " / " << d;
      ASSERT_EQ(remainder, n % d) << n << " % " << d;
    }
  }
  EXPECT_THROW(FastDivisor(0), Error);
}

// ---------------------------------------------------------------------------------------------------
// Walker

template <class Scalar>
class TypedKernels : public ::testing::Test {};
using Scalars = ::testing::Types<Kokkos::complex<double>, Kokkos::complex<float>>;
TYPED_TEST_SUITE(TypedKernels, Scalars);

TYPED_TEST(TypedKernels, WalkerDeviceAndHostAgreeBitForBit) {
  using Scalar = TypeParam;
  const Dims dims = small_dims(2);
  const SyntheticWalker walker(dims, 99, 4);
  Buffer message(data_memory_kind(), dims.message_entries() * sizeof(Scalar), "walker message");
  for (std::size_t id = 0; id < 4; ++id) {
    walker.write<Scalar>(id, message.data());
    Kokkos::fence();
    std::vector<Scalar> device(dims.message_entries());
    copy_bytes(device.data(), MemoryKind::host, message.data(), data_memory_kind(), device.size() * sizeof(Scalar));
    const std::vector<Scalar> host = walker.host_message<Scalar>(id);
    EXPECT_TRUE(bitwise_equal(device, host)) << "measurement " << id;
    // Against the walker's entries computed one by one, rounded to Scalar: not host_message again.
    using Real = typename Scalar::value_type;
    std::size_t differing = 0;
    for (std::size_t p = 0; p + 1 < host.size(); ++p) {
      const std::complex<double> exact = walker.entry(id, p);
      const Scalar rounded(static_cast<Real>(exact.real()), static_cast<Real>(exact.imag()));
      if (host[p] != rounded) ++differing;
    }
    EXPECT_EQ(differing, 0u) << "measurement " << id << ": entries differing from SyntheticWalker::entry";
    EXPECT_EQ(host.back().real(), walker.sign(id));
  }
  walker.write<Scalar>(4, message.data());  // padding
  Kokkos::fence();
  Scalar sign;
  copy_bytes(&sign, MemoryKind::host, static_cast<Scalar*>(message.data()) + dims.message_entries() - 1,
             data_memory_kind(), sizeof(Scalar));
  EXPECT_EQ(sign.real(), 0.0);
}

TEST(Walker, ValuesDependOnSeedAndIdAndStayInRange) {
  const Dims dims = small_dims(1);
  const SyntheticWalker a(dims, 1, 1000), b(dims, 2, 1000);
  EXPECT_NE(a.entry(0, 0), a.entry(1, 0));
  EXPECT_NE(a.entry(0, 0), b.entry(0, 0));
  EXPECT_NE(a.entry(0, 0), a.entry(0, 1));
  EXPECT_EQ(a.entry(7, 11), SyntheticWalker(dims, 1, 1).entry(7, 11));
  const double bound = 1.0 / std::sqrt(static_cast<double>(dims.M()));
  double mean = 0;
  const std::size_t count = 2 * static_cast<std::size_t>(dims.M()) * dims.M();
  for (std::size_t p = 0; p < count; ++p) {
    const Complex v = a.entry(3, p);
    EXPECT_LE(std::abs(v.real()), bound);
    EXPECT_LE(std::abs(v.imag()), bound);
    mean += v.real() / bound;
  }
  EXPECT_LT(std::abs(mean / count), 0.05);
  int negative = 0;
  for (std::size_t id = 0; id < 1000; ++id) {
    const double s = a.sign(id);
    EXPECT_TRUE(s == 1.0 || s == -1.0);
    negative += s < 0;
  }
  EXPECT_GT(negative, 80);  // about 1 in 8
  EXPECT_LT(negative, 180);
  EXPECT_EQ(a.sign(1000), 0.0);
  EXPECT_TRUE(a.is_padding(1000));
}

// ---------------------------------------------------------------------------------------------------
// The reference against values worked out by hand

struct HandCase {
  Dims dims;
  Channel channel;
  std::size_t entry;
  // Expected G_t[entry] from the message: G_up at m[i], G_down at m[down + i], sign at m.back().
  Complex (*expected)(const std::vector<Complex>& m, std::size_t down);
};

Dims hand_dims(int nb, int Lx, std::vector<int> momenta, std::vector<int> frequencies) {
  Dims dims;
  dims.nb = nb;
  dims.Lx = Lx;
  dims.Ly = 1;
  dims.n_freq = 2;
  dims.exchange_momenta = std::move(momenta);
  dims.exchange_frequencies = std::move(frequencies);
  return dims;
}

TEST(Reference, MatchesHandComputedEntries) {
  const HandCase cases[] = {
      // Nc = 1, Ω ∈ {0,1}: E = 1, M = 4. Entry 6 = (w1=0, w2=1, Ω=1): ω1 → G frequency 1, ω2 → 2,
      // Ω−ω1 = 1+2−1−0 = 2 → 3, Ω−ω2 = 1 → 2; G[1,2] at 9, G[3,2] at 11.
      {hand_dims(1, 1, {0}, {0, 1}), Channel::pp_up_down, 6,
       [](const std::vector<Complex>& m, std::size_t dn) {
         return m.back().real() / 2 * (m[9] * m[dn + 11] + m[dn + 9] * m[11]);
       }},
      // Entry 1 = (w1=1, w2=0, Ω=0): ω1 → 2, ω2 → 1, Ω−ω1 = 0 → 1, Ω−ω2 = 1 → 2; G[2,1] at 6, G[1,2] at 9.
      {hand_dims(1, 1, {0}, {0, 1}), Channel::pp_up_down, 1,
       [](const std::vector<Complex>& m, std::size_t dn) {
         return m.back().real() / 2 * (m[6] * m[dn + 9] + m[dn + 6] * m[9]);
       }},
      // Nc = 3 (Lx = 3), Q = 1, Ω = 0: E = 0, M = 6, i(k,w) = k + 3w. Entry 20 = (k1=2, w1=0, k2=0,
      // w2=1). G[(k1,w1),(k2,w2)] = G[2,3] at 20; Q−k1 = −1 → 2, Ω−ω1 = 1, Q−k2 = 1, Ω−ω2 = 0:
      // G[(2,1),(1,0)] = G[5,1] at 11. (On 3 sites Q−k differs from k+Q, unlike on 2.)
      {hand_dims(1, 3, {1}, {0}), Channel::pp_up_down, 20,
       [](const std::vector<Complex>& m, std::size_t dn) {
         return m.back().real() / 2 * (m[20] * m[dn + 11] + m[dn + 20] * m[11]);
       }},
      // Nc = 2 (Lx = 2), Q = 1, Ω = 1: E = 1, M = 8, i(k,w) = k + 2(w+1). Entry 9 = (k1=1, w1=0, k2=0,
      // w2=1). G[(k1,w1),(k2,w2)] = G[3,4] at 35; G[(k2+Q, w2+Ω),(k1+Q, w1+Ω)] = G[(1,2),(0,1)] =
      // G[7,4] at 39.
      {hand_dims(1, 2, {1}, {1}), Channel::ph_transverse, 9,
       [](const std::vector<Complex>& m, std::size_t dn) {
         return -m.back().real() / 2 * (m[35] * m[dn + 39] + m[dn + 35] * m[39]);
       }},
      // nb = 2, Nc = 1, Q = Ω = 0: M = 4, i(b,w) = b + 2w. Entry 21 = (b1=1, b2=0, b3=1, b4=0, w1=1,
      // w2=0). Exchange term G[(b1,w1),(b4,w2)] = G[3,0] at 3 times G[(b2,w2),(b3,w1)] = G[0,3] at 12;
      // bubble S[(b2,w1),(b1,w1)] = S[2,3] at 14 times S[(b3,w2),(b4,w2)] = S[1,0] at 1.
      {hand_dims(2, 1, {0}, {0}), Channel::ph_charge, 21,
       [](const std::vector<Complex>& m, std::size_t dn) {
         const double s = m.back().real();
         return -s / 2 * (m[3] * m[12] + m[dn + 3] * m[dn + 12]) + s / 2 * (m[14] + m[dn + 14]) * (m[1] + m[dn + 1]);
       }},
      // Same entry, magnetic: D[(b2,w1),(b1,w1)] = D[2,3] at 14, D[(b3,w2),(b4,w2)] = D[1,0] at 1;
      // G[(b3,w1),(b1,w2)] = G[3,1] at 7 times G[(b2,w2),(b4,w1)] = G[0,2] at 8.
      {hand_dims(2, 1, {0}, {0}), Channel::ph_magnetic, 21,
       [](const std::vector<Complex>& m, std::size_t dn) {
         const double s = m.back().real();
         return s / 2 * (m[14] - m[dn + 14]) * (m[1] - m[dn + 1]) - s / 2 * (m[7] * m[8] + m[dn + 7] * m[dn + 8]);
       }},
  };
  for (const HandCase& c : cases) {
    SCOPED_TRACE(to_string(c.channel) + " entry " + std::to_string(c.entry));
    for (const std::uint64_t seed : {5u, 6u, 7u, 8u}) {  // some of these have sign −1
      Problem problem;
      problem.dims = c.dims;
      problem.channel = c.channel;
      problem.seed = seed;
      problem.measurements = 1;
      const auto message = SyntheticWalker(c.dims, seed, 1).host_message<Kokkos::complex<double>>(0);
      std::vector<Complex> m(message.size());
      for (std::size_t i = 0; i < m.size(); ++i) m[i] = Complex(message[i].real(), message[i].imag());
      const std::size_t down = static_cast<std::size_t>(c.dims.M()) * c.dims.M();
      const Complex expected = c.expected(m, down);
      const Complex got = reference_gt<Kokkos::complex<double>>(problem).at(c.entry);
      EXPECT_NEAR(got.real(), expected.real(), 1e-15);
      EXPECT_NEAR(got.imag(), expected.imag(), 1e-15);
      EXPECT_GT(std::abs(expected), 1e-6);
      const auto kernel = run_kernel<Kokkos::complex<double>>(problem, {SliceRange{0, c.dims.entries()}});
      EXPECT_NEAR(kernel.at(c.entry).real(), expected.real(), 1e-15);
      EXPECT_NEAR(kernel.at(c.entry).imag(), expected.imag(), 1e-15);
    }
  }
}

// The entry-wise reference (ring_compare --verify-sample) is the same formula as the full one.
TYPED_TEST(TypedKernels, ReferenceEntriesAgreeWithTheFullReference) {
  using Scalar = TypeParam;
  for (const Channel channel : kAllChannels) {
    SCOPED_TRACE(to_string(channel));
    const Problem problem = small_problem(2, channel);
    const auto full = reference_gt<Scalar>(problem);
    std::vector<std::size_t> indices;
    for (std::size_t i = 0; i < full.size(); i += 7) indices.push_back(i);
    indices.push_back(full.size() - 1);
    const auto entries = reference_entries<Scalar>(problem, indices);
    ASSERT_EQ(entries.size(), indices.size());
    // Double: the same sums in the same order. Float: both round the walker's doubles to float, but in
    // two places (host_message and entry by entry), and the sanitizer build was seen to round an input
    // one ulp apart, moving entries by ~1e-9 relative; a wrong formula would move them by O(1).
    const double bound = std::is_same_v<Scalar, Kokkos::complex<double>> ? 1e-14 : 1e-6;
    for (std::size_t i = 0; i < indices.size(); ++i)
      EXPECT_LE(std::abs(entries[i] - full[indices[i]]), bound * (1 + std::abs(full[indices[i]])))
          << "entry " << indices[i];
    EXPECT_THROW(reference_entries<Scalar>(problem, {full.size()}), Error);
  }
}

// ---------------------------------------------------------------------------------------------------
// Kernels against the reference

TYPED_TEST(TypedKernels, EveryChannelMatchesTheReference) {
  using Scalar = TypeParam;
  for (const int nb : {1, 2}) {
    for (const Channel channel : kAllChannels) {
      SCOPED_TRACE(to_string(channel) + " nb=" + std::to_string(nb));
      const Problem problem = small_problem(nb, channel);
      const std::size_t n = problem.dims.entries();
      const auto reference = reference_gt<Scalar>(problem);
      const auto full = run_kernel<Scalar>(problem, {SliceRange{0, n}});
      expect_close(compare(full, reference), tolerance<Scalar>());

      // Uneven slices, one of them empty, must reproduce the full slice: the same sums (same_sums.hpp).
      const std::vector<SliceRange> parts = {{0, n / 3}, {n / 3, n / 3}, {n / 3, n / 2 + 1}, {n / 2 + 1, n}};
      EXPECT_TRUE(same_sums(run_kernel<Scalar>(problem, parts), full));
    }
  }
}

// Several exchange rows per thread, and reading G_σ directly instead of through its transposed copy,
// only change which thread updates which entry and where a value is read from, never the arithmetic,
// so G_t holds the same sums (bit for bit where multiply-adds are not fused: same_sums.hpp), also for
// slices that begin and end inside a row and for an inner
// index (here 24) that leaves lanes of a warp idle.
TYPED_TEST(TypedKernels, ExchangeRowTilesChangeNoSum) {
  using Scalar = TypeParam;
  for (const Channel channel : kAllChannels) {
    const Problem problem = small_problem(1, channel);
    const std::size_t n = problem.dims.entries();
    const std::vector<SliceRange> parts = {{0, n / 3}, {n / 3, n / 2 + 1}, {n / 2 + 1, n}};
    const auto keep = [](std::vector<Scalar>&) {};
    const auto one_row = run_kernel<Scalar>(problem, parts, keep, 1);
    for (const int rows : {2, 4, GtAccumulator<Scalar>::kMaxExchangeRowTile}) {
      SCOPED_TRACE(to_string(channel) + ", tiles of " + std::to_string(rows) + " rows");
      EXPECT_TRUE(same_sums(run_kernel<Scalar>(problem, parts, keep, rows), one_row));
      EXPECT_TRUE(same_sums(run_kernel<Scalar>(problem, {SliceRange{0, n}}, keep, rows), one_row));
      EXPECT_TRUE(same_sums(run_kernel<Scalar>(problem, parts, keep, rows, false), one_row));
    }
  }
}

TEST(GtAccumulator, RejectsExchangeRowTilesOutOfRange) {
  const Dims dims = small_problem(1, Channel::pp_up_down).dims;
  Kokkos::View<Kokkos::complex<double>*> slice("slice", dims.entries());
  GtAccumulator<Kokkos::complex<double>> accumulate(dims, Channel::pp_up_down, slice, SliceRange{0, dims.entries()});
  EXPECT_THROW(accumulate.set_exchange_row_tile(0), Error);
  EXPECT_THROW(accumulate.set_exchange_row_tile(3), Error);
  EXPECT_THROW(accumulate.set_exchange_row_tile(16), Error);
  accumulate.set_exchange_row_tile(4);
  EXPECT_EQ(accumulate.exchange_row_tile(), 4);
}

TYPED_TEST(TypedKernels, ComparisonDetectsAChangedInputEntry) {
  using Scalar = TypeParam;
  for (const Channel channel : kAllChannels) {
    SCOPED_TRACE(to_string(channel));
    const Problem problem = small_problem(1, channel);
    const Dims& dims = problem.dims;
    // G_up at row = column = (b=0, k=0, ω=0) enters every channel through Q = 0, Ω = 0.
    const std::size_t diagonal = static_cast<std::size_t>(dims.E()) * dims.nb * dims.Nc();
    const std::size_t changed = diagonal + static_cast<std::size_t>(dims.M()) * diagonal;
    const auto perturbed = run_kernel<Scalar>(problem, {SliceRange{0, dims.entries()}}, [&](std::vector<Scalar>& m) {
      m[changed] += Scalar(0.05f, 0.0f);
    });
    const ErrorNorms norms = compare(perturbed, reference_gt<Scalar>(problem));
    EXPECT_GT(norms.linf, 100 * tolerance<Scalar>());
    EXPECT_GT(norms.l1, tolerance<Scalar>());
  }
}

TEST(Compare, NormsOfAKnownDifference) {
  const std::vector<Complex> reference = {{3, 4}, {0, 0}, {-1, 0}};
  const std::vector<Kokkos::complex<double>> result = {{3, 4}, {0, 1}, {-1, 0}};
  const ErrorNorms norms = compare(result, reference);
  EXPECT_DOUBLE_EQ(norms.l1, 1.0 / 6.0);
  EXPECT_DOUBLE_EQ(norms.l2, std::sqrt(1.0 / 26.0));
  EXPECT_DOUBLE_EQ(norms.linf, 1.0 / 5.0);
  const std::vector<Kokkos::complex<double>> with_nan = {{3, 4}, {std::nan(""), 0}, {-1, 0}};
  EXPECT_TRUE(std::isnan(compare(with_nan, reference).linf));
  EXPECT_THROW(compare(std::vector<Kokkos::complex<double>>(2), reference), Error);
}

TEST(GtAccumulator, RejectsASliceThatDoesNotMatchItsRange) {
  const Dims dims = small_dims(1);
  Kokkos::View<Kokkos::complex<double>*> slice("slice", 10);
  EXPECT_THROW(GtAccumulator<Kokkos::complex<double>>(dims, Channel::pp_up_down, slice, SliceRange{0, 11}), Error);
  EXPECT_THROW(GtAccumulator<Kokkos::complex<double>>(dims, Channel::pp_up_down, slice,
                                                      SliceRange{dims.entries() - 5, dims.entries() + 5}),
               Error);
}

// ---------------------------------------------------------------------------------------------------
// Drivers under mpirun: every rank takes part; results live on world rank 0.

int world_rank() { return comm_rank(MPI_COMM_WORLD); }
int world_size() { return comm_size(MPI_COMM_WORLD); }

TYPED_TEST(TypedKernels, OriginalAlgorithmMatchesTheReference) {
  using Scalar = TypeParam;
  for (const Channel channel : {Channel::pp_up_down, Channel::ph_magnetic}) {
    SCOPED_TRACE(to_string(channel));
    const Problem problem = small_problem(2, channel, 5);  // 5 is not a multiple of 2: padding
    RunStats stats;
    std::size_t progress_calls = 0;
    const auto gt = accumulate_original<Scalar>(problem, MPI_COMM_WORLD, &stats,
                                                [&](std::size_t done, std::size_t) { progress_calls = done; });
    EXPECT_EQ(stats.rounds, rounds(problem, world_size()));
    EXPECT_GE(stats.seconds, 0.0);
    if (world_rank() == 0) {
      EXPECT_EQ(progress_calls, stats.rounds);
      expect_close(compare(gt, reference_gt<Scalar>(problem)), tolerance<Scalar>());
    } else {
      EXPECT_TRUE(gt.empty());
      EXPECT_EQ(progress_calls, 0u);
    }
  }
}

// Over every transport usable here (which ones must be is checked by program_ringcomm_info_usable).
TYPED_TEST(TypedKernels, RingMatchesTheReference) {
  using Scalar = TypeParam;
  const TransportContext context{MPI_COMM_WORLD, data_memory_kind()};
  int transports_run = 0;
  for (const BackendInfo& backend : Registry::instance().backends()) {
    if (!probe_on_all_ranks(backend, context).usable) continue;  // the same answer on every rank
    SCOPED_TRACE("transport " + backend.name);
    const Selection selection = select_transport(backend.name, context);
    ++transports_run;
    for (const int ring_size : {world_size(), 1}) {  // one ring of all ranks; rings of one rank, summed
      SCOPED_TRACE("ring size " + std::to_string(ring_size));
      const Problem problem = small_problem(2, Channel::ph_transverse, 5);
      const Topology topology(MPI_COMM_WORLD, ring_size);
      Ring ring(*selection.transport, topology, problem.dims.message_entries() * sizeof(Scalar));
      DistributedArray<Scalar> gt(topology, problem.dims.entries());
      const RunStats stats = accumulate_with_ring(problem, topology, ring, gt);
      EXPECT_EQ(stats.rounds, rounds(problem, world_size()));
      gt.sum_across_rings();
      const std::vector<Scalar> full = gt.gather();
      if (world_rank() == 0) expect_close(compare(full, reference_gt<Scalar>(problem)), tolerance<Scalar>());
    }
  }
  EXPECT_GT(transports_run, 0) << "no transport is usable here";
}

TEST(Drivers, DisagreeingRanksFailTogether) {
  Problem problem = small_problem(1, Channel::pp_up_down, 2 + static_cast<std::size_t>(world_rank()));
  if (world_size() == 1) problem.dims.nb = 0;  // one rank cannot disagree with itself: use bad dims
  try {
    accumulate_original<Kokkos::complex<double>>(problem, MPI_COMM_WORLD);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_TRUE(e.collective()) << e.what();
  }
}

}  // namespace
