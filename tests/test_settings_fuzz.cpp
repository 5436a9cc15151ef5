// Property tests of every parser of user input: settings::parse_*, the RINGCOMM_* variables and the
// command lines of ring_compare and the benchmarks. Thousands of strings from a fixed seed, built
// from pieces that break parsers (signs, exponents, blanks, control bytes, huge numbers, units,
// near-miss words), must each either parse to a value in range — the one an independent oracle
// expects — or throw ringcomm::Error naming the setting and the allowed values. Anything else (a
// crash, another exception, garbage accepted) fails, and the failing input is printed escaped.
#include <gtest/gtest.h>

#include <climits>
#include <cstdio>
#include <optional>
#include <random>
#include <regex>

#include "conformance.hpp"
#include "options.hpp"
#include "ringcomm/checkpoint.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/settings.hpp"
#include "ringcomm/topology.hpp"
#include "ringcomm/watchdog.hpp"
#ifdef RINGCOMM_FUZZ_BENCH
#include "bench_support.hpp"
#endif

namespace ringcomm::fuzz {
namespace {

constexpr std::uint64_t kSeed = 20240611;
constexpr int kCases = 4000;

// The input as C would spell it, so that a failure shows control and non-ASCII bytes.
std::string shown(const std::string& text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f && c != '"' && c != '\\') {
      out += c;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    }
  }
  return out + "\"";
}

class TextSource {
 public:
  explicit TextSource(std::uint64_t seed) : rng_(seed) {}

  std::string next() {
    static const std::vector<std::string> pieces = {
        "0", "1", "2", "7", "9", "00", "007", "-", "+", ".", "e", "E", "e-", "e+", "x", "0x", "0X1p3", "inf",
        "Infinity", "nan", "NaN", " ", "\t", "\n", "\r", "\v", ",", ",,", ", ", "K", "k", "M", "G", "B", "iB",
        "KiB", "kb", "MB", "GiB", "T", "TiB", "abc", "12abc", "1e3", "-0", "-0.0", "-.0", "2147483647",
        "2147483648", "-2147483649", "4294967296", "9223372036854775807", "9223372036854775808",
        "-9223372036854775808", "-9223372036854775809", "18446744073709551616", "99999999999999999999999", "0.5",
        "1.0", ".5", "5.", "1e-3", "1e400", "3", "300", "4096", "64K", "16MiB", "1G", "mpi", "host", "ucx", "nccl",
        "auto", "double", "float", "z", "pp_up_down", "ph_charge", "\xff", "\x80", "\xc3\xa9", std::string(1, '\0'),
        "''", "=", "--nb", "%s", "\\"};
    std::string text;
    const int count = std::uniform_int_distribution<int>(0, 5)(rng_);
    for (int i = 0; i < count; ++i) {
      switch (std::uniform_int_distribution<int>(0, 9)(rng_)) {
        case 0: text += random_digits(); break;
        case 1: text += random_bytes(); break;
        default: text += pieces[std::uniform_int_distribution<std::size_t>(0, pieces.size() - 1)(rng_)];
      }
    }
    return text;
  }

  // Text without NUL bytes, which an environment variable cannot hold.
  std::string next_for_environment() {
    std::string text = next();
    text.erase(std::remove(text.begin(), text.end(), '\0'), text.end());
    return text;
  }

  template <class T>
  T pick(const std::vector<T>& from) {
    return from[std::uniform_int_distribution<std::size_t>(0, from.size() - 1)(rng_)];
  }
  long long integer(long long lo, long long hi) { return std::uniform_int_distribution<long long>(lo, hi)(rng_); }

 private:
  std::string random_digits() {
    std::string digits(std::uniform_int_distribution<std::size_t>(1, 25)(rng_), '0');
    for (auto& d : digits) d = static_cast<char>('0' + std::uniform_int_distribution<int>(0, 9)(rng_));
    return digits;
  }
  std::string random_bytes() {
    std::string bytes(std::uniform_int_distribution<std::size_t>(1, 6)(rng_), '\0');
    for (auto& b : bytes) b = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng_));
    return bytes;
  }
  std::mt19937_64 rng_;
};

// --- Oracles: what each parser must accept, written from the documented grammar, not the code ---

bool negative_zero(const std::string& t) { return !t.empty() && t[0] == '-' && t.find_first_of("123456789") == std::string::npos; }

// The value of "-?[0-9]+" if it lies in [min, max].
std::optional<long long> integer_oracle(const std::string& t, long long min, long long max) {
  static const std::regex grammar("-?[0-9]+");
  if (!std::regex_match(t, grammar) || negative_zero(t)) return std::nullopt;
  const bool negative = t[0] == '-';
  const std::string digits = t.substr(negative ? 1 : 0);
  const std::size_t first = std::min(digits.find_first_not_of('0'), digits.size());
  if (digits.size() - first > 19) return std::nullopt;
  __int128 value = 0;
  for (std::size_t i = first; i < digits.size(); ++i) value = value * 10 + (digits[i] - '0');
  if (negative) value = -value;
  if (value < min || value > max) return std::nullopt;
  return static_cast<long long>(value);
}

std::optional<std::size_t> bytes_oracle(const std::string& t) {
  static const std::regex grammar("([0-9]{1,15})(|[bB]|[kKmMgG]|[kKmMgG][bB]|[kKmMgG][iI][bB])");
  std::smatch match;
  if (!std::regex_match(t, match, grammar)) return std::nullopt;
  const std::string unit = match[2];
  const int shift = unit.empty() || unit == "b" || unit == "B" ? 0
                    : (unit[0] == 'k' || unit[0] == 'K')       ? 10
                    : (unit[0] == 'm' || unit[0] == 'M')       ? 20
                                                               : 30;
  const unsigned __int128 value = static_cast<unsigned __int128>(std::stoull(match[1])) << shift;
  if (value >= (static_cast<unsigned __int128>(1) << 63)) return std::nullopt;
  return static_cast<std::size_t>(value);
}

bool decimal_grammar(const std::string& t) {
  static const std::regex grammar("-?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?");
  return std::regex_match(t, grammar) && !negative_zero(t.substr(0, t.find_first_of("eE")));
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

// Runs `parse`; returns its error's text, or nothing when it accepted. Any other exception fails.
template <class Parse>
std::optional<std::string> rejection(Parse&& parse, const std::string& input) {
  try {
    parse();
  } catch (const Error& e) {
    return std::string(e.what());
  } catch (const std::exception& e) {
    ADD_FAILURE() << "input " << shown(input) << " threw a " << typeid(e).name() << " instead of ringcomm::Error: " << e.what();
    return std::string("(foreign exception)");
  }
  return std::nullopt;
}

TEST(FuzzSettings, IntegersParseExactlyOrNameTheSettingAndTheRange) {
  TextSource source(kSeed);
  const std::vector<std::pair<long long, long long>> ranges = {
      {1, INT_MAX}, {0, LLONG_MAX}, {LLONG_MIN, LLONG_MAX}, {-5, 5}, {2, 1 << 20}, {1, 64}};
  int accepted = 0;
  for (int i = 0; i < kCases; ++i) {
    const std::string text = i % 3 == 0 ? std::to_string(source.integer(-100, 100)) : source.next();
    // Named copies, not a structured binding: lambdas capture bindings only from C++20 on (nvcc warns).
    const auto range = source.pick(ranges);
    const long long min = range.first, max = range.second;
    const auto expected = integer_oracle(text, min, max);
    long long value = 0;
    const auto error = rejection([&] { value = settings::parse_integer(text, "FUZZ_INT", min, max); }, text);
    if (expected) {
      ++accepted;
      EXPECT_FALSE(error) << shown(text) << " in [" << min << ", " << max << "] rejected: " << *error;
      if (!error) EXPECT_EQ(value, *expected) << shown(text);
    } else {
      ASSERT_TRUE(error) << shown(text) << " accepted as " << value << " for [" << min << ", " << max << "]";
      EXPECT_TRUE(contains(*error, "FUZZ_INT='")) << *error;
      EXPECT_TRUE(contains(*error, "expected an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]"))
          << *error;
    }
  }
  EXPECT_GT(accepted, kCases / 10) << "the generator makes too few valid integers to test acceptance";
}

TEST(FuzzSettings, TheGarbageOfTheBriefIsRefused) {
  for (const char* text : {"12abc", "1e3", "-0", "-00", "+5", " 5", "5 ", "\t5", "", " ", "0x10", "5.0",
                           "9223372036854775808", "-9223372036854775809", "99999999999999999999999"}) {
    EXPECT_TRUE(rejection([&] { settings::parse_integer(text, "X", LLONG_MIN, LLONG_MAX); }, text)) << shown(text);
  }
  for (const char* text : {"1e400", "inf", "nan", "-0", "-0.0", " 1", "1 ", "0x1p3", "", ".", "e5", "1e", "+1"})
    EXPECT_TRUE(rejection([&] { settings::parse_real(text, "X", -1e300, 1e300); }, text)) << shown(text);
  for (const char* text : {"", " 4K", "4K ", "4 K", "-4K", "4KK", "1T", "1e3", "1234567890123456", "99999999999G"})
    EXPECT_TRUE(rejection([&] { settings::parse_bytes(text, "X"); }, text)) << shown(text);
}

TEST(FuzzSettings, RealsAreDecimalNumbersInRangeOrNameTheSettingAndTheRange) {
  TextSource source(kSeed + 1);
  const std::vector<std::pair<double, double>> ranges = {{1e-6, 60}, {0.001, 31536000}, {-1e300, 1e300}, {0, 1}};
  int accepted = 0;
  for (int i = 0; i < kCases; ++i) {
    const std::string text = source.next();
    const auto range = source.pick(ranges);
    const double min = range.first, max = range.second;
    double value = 0;
    const auto error = rejection([&] { value = settings::parse_real(text, "FUZZ_REAL", min, max); }, text);
    if (!error) {
      ++accepted;
      EXPECT_TRUE(decimal_grammar(text)) << shown(text) << " accepted although it is not a decimal number";
      EXPECT_TRUE(value >= min && value <= max) << shown(text) << " accepted as " << value;
      continue;
    }
    EXPECT_TRUE(contains(*error, "FUZZ_REAL='")) << *error;
    EXPECT_TRUE(contains(*error, "expected a number in [")) << *error;
    // A well-formed number may only be refused for its range (or for not fitting a double).
    if (decimal_grammar(text)) {
      errno = 0;
      const double parsed = std::strtod(text.c_str(), nullptr);
      EXPECT_TRUE(errno != 0 || !(parsed >= min && parsed <= max)) << shown(text) << " refused: " << *error;
    }
  }
  EXPECT_GT(accepted, 20);
}

TEST(FuzzSettings, ByteCountsParseExactlyOrNameTheSetting) {
  TextSource source(kSeed + 2);
  int accepted = 0;
  for (int i = 0; i < kCases; ++i) {
    const std::string text = source.next();
    const auto expected = bytes_oracle(text);
    std::size_t value = 0;
    const auto error = rejection([&] { value = settings::parse_bytes(text, "FUZZ_BYTES"); }, text);
    if (expected) {
      ++accepted;
      EXPECT_FALSE(error) << shown(text) << " rejected: " << *error;
      if (!error) EXPECT_EQ(value, *expected) << shown(text);
    } else {
      ASSERT_TRUE(error) << shown(text) << " accepted as " << value;
      EXPECT_TRUE(contains(*error, "FUZZ_BYTES='") && contains(*error, "expected a byte count such as 4096, 64K"))
          << *error;
    }
  }
  EXPECT_GT(accepted, 50);
}

TEST(FuzzSettings, ChoicesAcceptExactlyTheirWords) {
  TextSource source(kSeed + 3);
  const std::vector<std::string> allowed = {"mpi", "host", "ucx", "auto", "double", "float"};
  for (int i = 0; i < kCases; ++i) {
    const std::string text = i % 4 == 0 ? source.pick(allowed) : source.next();
    std::string value;
    const auto error = rejection([&] { value = settings::parse_choice(text, "FUZZ_CHOICE", allowed); }, text);
    const bool listed = std::find(allowed.begin(), allowed.end(), text) != allowed.end();
    if (listed) {
      EXPECT_FALSE(error) << shown(text);
      EXPECT_EQ(value, text);
    } else {
      ASSERT_TRUE(error) << shown(text) << " accepted as " << value;
      EXPECT_TRUE(contains(*error, "FUZZ_CHOICE='") &&
                  contains(*error, "expected one of: mpi, host, ucx, auto, double, float"))
          << *error;
    }
  }
}

TEST(FuzzSettings, IntegerListsAcceptOnlyListsOfIntegersInRange) {
  TextSource source(kSeed + 4);
  for (int i = 0; i < kCases; ++i) {
    const std::string text = source.next();
    std::vector<long long> values;
    const auto error = rejection([&] { values = settings::parse_integer_list(text, "FUZZ_LIST", 0, 1000); }, text);
    // Items are separated by commas; blanks next to a comma are allowed, nothing else.
    std::vector<std::optional<long long>> expected;
    std::size_t start = 0;
    for (;;) {
      const std::size_t comma = text.find(',', start);
      std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const auto blank = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
      while (!item.empty() && blank(item.front())) item.erase(item.begin());
      while (!item.empty() && blank(item.back())) item.pop_back();
      expected.push_back(integer_oracle(item, 0, 1000));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    const bool valid = std::all_of(expected.begin(), expected.end(), [](const auto& v) { return v.has_value(); });
    if (valid) {
      EXPECT_FALSE(error) << shown(text) << " rejected: " << *error;
      ASSERT_EQ(values.size(), expected.size()) << shown(text);
      for (std::size_t k = 0; k < values.size(); ++k) EXPECT_EQ(values[k], *expected[k]) << shown(text);
    } else {
      ASSERT_TRUE(error) << shown(text) << " accepted";
      EXPECT_TRUE(contains(*error, "FUZZ_LIST='") && contains(*error, "expected an integer in [0, 1000]")) << *error;
    }
  }
}

TEST(FuzzSettings, RejectedTextIsShownOnOneReadableLine) {
  const std::string nasty = std::string("12\n\x01\xff", 5) + std::string(500, '9');
  const auto error = rejection([&] { settings::parse_integer(nasty, "X", 0, 10); }, nasty);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->find('\n'), std::string::npos) << *error;
  EXPECT_TRUE(contains(*error, "12\\x0a\\x01\\xff")) << *error;
  EXPECT_LT(error->size(), 300u) << "a huge input must not make a huge message";
}

// --- The RINGCOMM_* variables, through the functions that read them ---

// Sets `name` to fuzzed values and checks `read`: accepted values must satisfy `valid`, rejected
// ones must produce an Error naming the variable and `allowed`.
template <class Read, class Valid>
void fuzz_variable(const char* name, std::uint64_t seed, int cases, const std::string& allowed, Read&& read,
                   Valid&& valid) {
  TextSource source(seed);
  for (int i = 0; i < cases; ++i) {
    const std::string text = source.next_for_environment();
    const conformance::ScopedEnv value(name, text);
    const auto error = rejection(read, text);
    if (text.empty()) {
      EXPECT_FALSE(error) << name << " unset (empty) must mean the default: " << *error;
    } else if (error) {
      EXPECT_TRUE(contains(*error, std::string(name) + "='") || contains(*error, std::string(name) + "=" + text))
          << *error;
      EXPECT_TRUE(contains(*error, allowed)) << *error;
      EXPECT_FALSE(valid(text)) << name << "=" << shown(text) << " refused: " << *error;
    } else {
      EXPECT_TRUE(valid(text)) << name << "=" << shown(text) << " accepted";
    }
  }
}

TEST(FuzzEnvironment, RingcommTimeout) {
  fuzz_variable("RINGCOMM_TIMEOUT", kSeed + 10, 1500, "expected a number in [0.001, 3.1536e+07]", [] { timeout_setting(); },
                [](const std::string& t) {
                  if (!decimal_grammar(t)) return false;
                  const double v = std::strtod(t.c_str(), nullptr);
                  return v >= 0.001 && v <= 31536000;
                });
}

TEST(FuzzEnvironment, RingcommRingSize) {
  fuzz_variable("RINGCOMM_RING_SIZE", kSeed + 11, 1500, "expected an integer in [1, 2147483647]",
                [] { requested_ring_size(1, MPI_COMM_WORLD); },
                [](const std::string& t) { return integer_oracle(t, 1, INT_MAX).has_value(); });
}

TEST(FuzzEnvironment, RingcommCheckpointEvery) {
  const conformance::ScopedEnv directory("RINGCOMM_CHECKPOINT", "/unused");
  fuzz_variable("RINGCOMM_CHECKPOINT_EVERY", kSeed + 12, 1500, "expected an integer in [1,",
                [] { checkpoint_settings(MPI_COMM_WORLD); },
                [](const std::string& t) { return integer_oracle(t, 1, LLONG_MAX).has_value(); });
}

TEST(FuzzEnvironment, RingcommHostChunkBytes) {
  TransportContext ctx;
  ctx.memory = data_memory_kind();
  fuzz_variable("RINGCOMM_HOST_CHUNK_BYTES", kSeed + 13, 1500, "expected ",
                [&] { select_transport("host", ctx); },
                [](const std::string& t) {
                  const auto bytes = bytes_oracle(t);
                  return bytes && *bytes >= 1 && *bytes <= static_cast<std::size_t>(INT_MAX);
                });
}

TEST(FuzzEnvironment, RingcommMpiGpuAware) {
  TransportContext ctx;
  ctx.memory = data_memory_kind();
  const BackendInfo* mpi = Registry::instance().find("mpi");
  ASSERT_NE(mpi, nullptr);
  fuzz_variable("RINGCOMM_MPI_GPU_AWARE", kSeed + 14, 1500, "expected one of: 0, 1", [&] { mpi->details(ctx); },
                [](const std::string& t) { return t == "0" || t == "1"; });
}

TEST(FuzzEnvironment, RingcommTransport) {
  TransportContext ctx;
  ctx.memory = data_memory_kind();
  std::vector<std::string> usable = {"auto"};
  for (const auto& backend : Registry::instance().backends())
    if (backend.probe(ctx).usable) usable.push_back(backend.name);
  TextSource source(kSeed + 15);
  for (int i = 0; i < 300; ++i) {
    const std::string text = i % 5 == 0 ? source.pick(usable) : source.next_for_environment();
    if (text.empty()) continue;
    const conformance::ScopedEnv value("RINGCOMM_TRANSPORT", text);
    const auto error = rejection([&] { select_transport(requested_transport(), ctx); }, text);
    const bool is_usable = std::find(usable.begin(), usable.end(), text) != usable.end();
    EXPECT_EQ(!error, is_usable) << "RINGCOMM_TRANSPORT=" << shown(text) << (error ? ": " + *error : std::string());
    // The allowed values are the listing of compiled transports; an unusable one is named as such.
    if (error)
      EXPECT_TRUE(contains(*error, "compiled transports:") &&
                  (contains(*error, "RINGCOMM_TRANSPORT") || contains(*error, "' is not usable here")))
          << *error;
  }
}

// --- Command lines ---

// Random command lines for ring_compare: known options (with values separate or after '='), flags,
// unknown words. Accepted lines must leave every option in its range.
TEST(FuzzCommandLine, RingCompareAcceptsOnlyValuesInRangeAndNamesTheOptionOtherwise) {
  TextSource source(kSeed + 20);
  ring_compare::Options defaults;
  std::vector<std::string> names;
  {
    ring_compare::Options scratch;
    const auto cli = ring_compare::command_line(scratch);
    const std::regex option_name("\n  (--[a-z-]+)");
    const std::string help = cli.help();
    for (auto it = std::sregex_iterator(help.begin(), help.end(), option_name); it != std::sregex_iterator(); ++it)
      names.push_back((*it)[1]);
  }
  ASSERT_GT(names.size(), 10u);
  const std::vector<std::string> plausible = {"1", "2", "4", "0,3", "mpi,host", "float", "ph_charge", "8", "0", "-1"};
  int accepted = 0;
  for (int i = 0; i < kCases; ++i) {
    std::vector<std::string> args = {"ring_compare"};
    const int count = static_cast<int>(source.integer(1, 4));
    for (int k = 0; k < count; ++k) {
      const std::string name = source.integer(0, 9) == 0 ? source.next() : source.pick(names);
      const std::string value = source.integer(0, 1) ? source.pick(plausible) : source.next();
      if (source.integer(0, 2) == 0) args.push_back(name + "=" + value);
      else {
        args.push_back(name);
        if (source.integer(0, 5) != 0) args.push_back(value);
      }
    }
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    ring_compare::Options o;
    const auto cli = ring_compare::command_line(o);
    std::string line;
    for (const auto& a : args) line += " " + shown(a);
    const auto error = rejection([&] { cli.parse(static_cast<int>(argv.size()), argv.data()); }, line);
    if (error) {
      const bool names_option = std::any_of(names.begin(), names.end(), [&](const std::string& n) { return contains(*error, n); });
      EXPECT_TRUE(names_option || contains(*error, "unknown option '")) << line << ": " << *error;
      continue;
    }
    ++accepted;
    EXPECT_TRUE(o.dims.nb >= 1 && o.dims.nb <= 64) << line;
    EXPECT_TRUE(o.dims.Lx >= 1 && o.dims.Lx <= 4096 && o.dims.Ly >= 1 && o.dims.Ly <= 4096) << line;
    EXPECT_TRUE(o.dims.n_freq >= 2 && o.dims.n_freq % 2 == 0) << line;
    EXPECT_GE(o.measurements, 1u) << line;
    EXPECT_TRUE(o.compare_limit >= 1 && o.compare_limit <= INT_MAX / 2) << line;
    for (const int s : o.ring_sizes) EXPECT_GE(s, 1) << line;
    for (const int q : o.dims.exchange_momenta) EXPECT_TRUE(q >= 0 && q < o.dims.Lx * o.dims.Ly) << line;
    for (const int w : o.dims.exchange_frequencies) EXPECT_GE(w, 0) << line;
    EXPECT_NO_THROW(o.dims.validate()) << line;
  }
  EXPECT_GT(accepted, 100) << "too few accepted command lines to test the accepted side";
}

#ifdef RINGCOMM_FUZZ_BENCH
TEST(FuzzCommandLine, BenchmarkSizeListsAreByteCountsOrNameTheOption) {
  TextSource source(kSeed + 21);
  for (int i = 0; i < kCases; ++i) {
    const std::string text = source.next();
    std::vector<std::size_t> sizes;
    const auto error = rejection([&] { sizes = bench::parse_size_list(text, "--sizes"); }, text);
    if (error) {
      EXPECT_TRUE(contains(*error, "--sizes")) << *error;
      continue;
    }
    for (const auto bytes : sizes) EXPECT_GE(bytes, 1u) << shown(text);
  }
}
#endif

}  // namespace
}  // namespace ringcomm::fuzz
