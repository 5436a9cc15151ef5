// The helpers ringcomm's programs share: JSON output, .npy files and command-line parsing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <limits>

#include "command_line.hpp"
#include "npy.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/json.hpp"

namespace {

using ringcomm::json::Value;

TEST(Json, QuotesEscapeWhatJsonRequires) {
  EXPECT_EQ(ringcomm::json::quote("plain"), "\"plain\"");
  EXPECT_EQ(ringcomm::json::quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(ringcomm::json::quote("line\nnext\ttab\r"), "\"line\\nnext\\ttab\\r\"");
  EXPECT_EQ(ringcomm::json::quote(std::string("nul\0x", 5)), "\"nul\\u0000x\"");
  EXPECT_EQ(ringcomm::json::quote("\x1f"), "\"\\u001f\"");
  EXPECT_EQ(ringcomm::json::quote("G_σ Ω"), "\"G_σ Ω\"");  // UTF-8 passes through
}

TEST(Json, NumbersReadBackExactly) {
  for (const double x : {0.1, 1.0 / 3.0, 1e-300, 6.02214076e23, -2.5, 0.0}) {
    const std::string text = Value(x).dump();
    EXPECT_EQ(std::strtod(text.c_str(), nullptr), x) << text;
  }
  EXPECT_EQ(Value(std::numeric_limits<double>::quiet_NaN()).dump(), "null");
  EXPECT_EQ(Value(std::numeric_limits<double>::infinity()).dump(), "null");
  EXPECT_EQ(Value(std::size_t(18446744073709551615u)).dump(), "18446744073709551615");
  EXPECT_EQ(Value(-7).dump(), "-7");
  EXPECT_EQ(Value(true).dump(), "true");
  EXPECT_EQ(Value().dump(), "null");
}

TEST(Json, ObjectsKeepInsertionOrderAndNest) {
  Value v = Value::object();
  v["zeta"] = 1;
  v["alpha"]["inner"] = "x";
  v["list"] = std::vector<int>{1, 2, 3};
  v["runs"].push_back(Value::object());
  v["zeta"] = 2;  // replaces, keeps its place
  EXPECT_EQ(v.dump(-1), "{\"zeta\": 2, \"alpha\": {\"inner\": \"x\"}, \"list\": [1, 2, 3], \"runs\": [{}]}");
  EXPECT_EQ(Value::array().dump(), "[]");
  EXPECT_THROW(Value(1)["key"], ringcomm::Error);
}

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

TEST(Npy, HeaderIsVersionOneAlignedAndDescribesTheArray) {
  const std::string path = ::testing::TempDir() + "ringcomm_npy_test.npy";
  const std::vector<Kokkos::complex<double>> values{{1, 2}, {3, 4}, {5, 6}, {7, 8}, {9, 10}, {11, 12}};
  ringcomm::npy::write(path, {2, 3}, values);
  const std::string bytes = read_file(path);
  std::remove(path.c_str());
  ASSERT_GE(bytes.size(), 10u);
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(bytes[6], 1);
  EXPECT_EQ(bytes[7], 0);
  const std::size_t header_length = static_cast<unsigned char>(bytes[8]) + 256u * static_cast<unsigned char>(bytes[9]);
  EXPECT_EQ((10 + header_length) % 64, 0u);
  const std::string header = bytes.substr(10, header_length);
  EXPECT_NE(header.find("'descr': '<c16'"), std::string::npos) << header;
  EXPECT_NE(header.find("'fortran_order': False"), std::string::npos) << header;
  EXPECT_NE(header.find("'shape': (2,3)"), std::string::npos) << header;
  EXPECT_EQ(header.back(), '\n');
  EXPECT_EQ(bytes.size(), 10 + header_length + values.size() * 16);
}

TEST(Npy, OneDimensionalShapesHaveATrailingComma) {
  const std::string path = ::testing::TempDir() + "ringcomm_npy_test_1d.npy";
  ringcomm::npy::write(path, {4}, std::vector<double>{1, 2, 3, 4});
  const std::string bytes = read_file(path);
  std::remove(path.c_str());
  EXPECT_NE(bytes.find("'shape': (4,)"), std::string::npos);
  EXPECT_THROW(ringcomm::npy::write(path, {5}, std::vector<double>{1, 2}), ringcomm::Error);
}

struct Parsed {
  std::string name;
  int count = 0;
  bool verbose = false;
};

ringcomm::cli::CommandLine test_command_line(Parsed& p) {
  ringcomm::cli::CommandLine cli("prog", "Test program.");
  cli.option("--name", "TEXT", "a name", [&](const std::string& v) { p.name = v; });
  cli.option("--count", "N", "a count", [&](const std::string& v) {
    if (v != "1" && v != "2") throw ringcomm::Error("--count='" + v + "' is not valid: expected 1 or 2");
    p.count = std::stoi(v);
  });
  cli.flag("--verbose", "talk", [&] { p.verbose = true; });
  cli.check([&] {
    if (p.verbose && p.count == 2) throw ringcomm::Error("--verbose cannot go with --count 2");
  });
  return cli;
}

void parse(const ringcomm::cli::CommandLine& cli, std::vector<std::string> args) {
  args.insert(args.begin(), "prog");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  cli.parse(static_cast<int>(argv.size()), argv.data());
}

std::string error_of(const ringcomm::cli::CommandLine& cli, const std::vector<std::string>& args) {
  try {
    parse(cli, args);
  } catch (const ringcomm::Error& e) {
    return e.what();
  }
  return "";
}

TEST(CommandLine, TakesValuesSeparateOrAfterAnEqualsSign) {
  Parsed p;
  const auto cli = test_command_line(p);
  parse(cli, {"--name", "a b", "--count=2"});
  EXPECT_EQ(p.name, "a b");
  EXPECT_EQ(p.count, 2);
  Parsed q;
  parse(test_command_line(q), {"--verbose", "--name=x=y"});
  EXPECT_TRUE(q.verbose);
  EXPECT_EQ(q.name, "x=y");
}

TEST(CommandLine, NamesTheOptionInEveryError) {
  Parsed p;
  const auto cli = test_command_line(p);
  EXPECT_EQ(error_of(cli, {"--colour"}), "unknown option '--colour' (prog --help lists the options)");
  EXPECT_EQ(error_of(cli, {"--name"}), "option --name needs a value: --name TEXT");
  EXPECT_EQ(error_of(cli, {"--verbose=yes"}), "option --verbose takes no value");
  EXPECT_EQ(error_of(cli, {"--count", "3"}), "--count='3' is not valid: expected 1 or 2");
  EXPECT_EQ(error_of(cli, {"--verbose", "--count", "2"}), "--verbose cannot go with --count 2");
}

TEST(CommandLine, HelpListsEveryOptionAndNote) {
  Parsed p;
  auto cli = test_command_line(p);
  cli.note("A closing note.");
  const std::string help = cli.help();
  for (const char* text : {"Usage: prog [options]", "Test program.", "--name TEXT", "--count N", "--verbose",
                           "-h, --help", "A closing note."})
    EXPECT_NE(help.find(text), std::string::npos) << text << " missing from:\n" << help;
}

TEST(CommandLine, QuotesArgumentsThatNeedIt) {
  std::vector<std::string> args{"prog", "--name", "two words", "it's"};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  EXPECT_EQ(ringcomm::cli::command_line_text(4, argv.data()), "prog --name 'two words' 'it'\\''s'");
}

}  // namespace
