#include "command_line.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "ringcomm/collective.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/runtime.hpp"

namespace ringcomm::cli {

namespace {

constexpr std::size_t kHelpColumn = 30;
constexpr std::size_t kLineWidth = 100;

// Words of `text` filled into lines of at most kLineWidth, each starting at column `indent`; explicit
// newlines in `text` are kept.
std::string wrapped(const std::string& text, std::size_t indent, std::size_t first_column) {
  std::string out;
  std::size_t column = first_column;
  std::istringstream lines(text);
  std::string line;
  bool first_line = true;
  while (std::getline(lines, line)) {
    if (!first_line) {
      out += '\n' + std::string(indent, ' ');
      column = indent;
    }
    first_line = false;
    std::istringstream words(line);
    std::string word;
    bool line_start = true;
    while (words >> word) {
      if (!line_start && column + 1 + word.size() > kLineWidth) {
        out += '\n' + std::string(indent, ' ');
        column = indent;
        line_start = true;
      }
      if (!line_start) {
        out += ' ';
        ++column;
      }
      out += word;
      column += word.size();
      line_start = false;
    }
  }
  return out;
}

bool is_help(const char* arg) { return std::strcmp(arg, "--help") == 0 || std::strcmp(arg, "-h") == 0; }

// The RINGCOMM_* variables of this rank's environment as NAME=VALUE, sorted; an empty value counts as
// unset, as settings::env reads it.
std::vector<std::string> ringcomm_environment() {
  std::vector<std::string> found;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text = *entry;
    const auto eq = text.find('=');
    if (text.rfind("RINGCOMM_", 0) == 0 && eq != std::string::npos && eq + 1 < text.size()) found.push_back(text);
  }
  std::sort(found.begin(), found.end());
  return found;
}

}  // namespace

CommandLine::CommandLine(std::string program, std::string summary)
    : program_(std::move(program)), summary_(std::move(summary)) {}

CommandLine& CommandLine::option(std::string name, std::string value_name, std::string help,
                                 std::function<void(const std::string&)> apply) {
  entries_.push_back({std::move(name), std::move(value_name), std::move(help), std::move(apply)});
  return *this;
}

CommandLine& CommandLine::flag(std::string name, std::string help, std::function<void()> apply) {
  entries_.push_back({std::move(name), "", std::move(help), [apply = std::move(apply)](const std::string&) { apply(); }});
  return *this;
}

CommandLine& CommandLine::note(std::string text) {
  notes_.push_back(std::move(text));
  return *this;
}

std::string CommandLine::help() const {
  std::string out = "Usage: " + program_ + " [options]\n\n" + wrapped(summary_, 0, 0) + "\n\nOptions:\n";
  auto add = [&out](const std::string& left, const std::string& text) {
    out += "  " + left;
    std::size_t column = 2 + left.size();
    if (column + 2 > kHelpColumn) {
      out += '\n';
      column = 0;
    }
    out += std::string(kHelpColumn - column, ' ') + wrapped(text, kHelpColumn, kHelpColumn) + '\n';
  };
  for (const auto& e : entries_) add(e.value_name.empty() ? e.name : e.name + " " + e.value_name, e.help);
  add("-h, --help", "print this help and exit");
  for (const auto& n : notes_) out += '\n' + wrapped(n, 0, 0) + '\n';
  return out;
}

CommandLine& CommandLine::check(std::function<void()> cross_check) {
  checks_.push_back(std::move(cross_check));
  return *this;
}

const CommandLine::Entry* CommandLine::find(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.name == name) return &e;
  return nullptr;
}

void CommandLine::parse(int argc, char** argv) const {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline_value = false;
    if (const auto eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);
      arg.resize(eq);
      has_inline_value = true;
    }
    const Entry* entry = find(arg);
    if (entry == nullptr)
      throw Error("unknown option '" + arg + "' (" + program_ + " --help lists the options)");
    if (entry->value_name.empty()) {
      if (has_inline_value) throw Error("option " + arg + " takes no value");
    } else if (!has_inline_value) {
      if (i + 1 >= argc) throw Error("option " + arg + " needs a value: " + arg + " " + entry->value_name);
      value = argv[++i];
    }
    entry->apply(value);
  }
  for (const auto& cross_check : checks_) cross_check();
}

int run_program(int argc, char** argv, const CommandLine& cli, const std::function<int()>& body,
                int thread_level) {
  // Kokkos gets only argv[0] and its --kokkos-* options: it would answer --help with its own text and
  // take our --threads for its legacy unprefixed one. The rest is ours.
  std::vector<char*> kokkos_args{argv[0]};
  std::vector<char*> own_args{argv[0]};
  bool help = false;
  for (int i = 1; i < argc; ++i) {
    if (is_help(argv[i])) help = true;
    else if (std::string(argv[i]).rfind("--kokkos-", 0) == 0) kokkos_args.push_back(argv[i]);
    else own_args.push_back(argv[i]);
  }
  int kokkos_count = static_cast<int>(kokkos_args.size());
  kokkos_args.push_back(nullptr);
  char** kokkos_argv = kokkos_args.data();
  return run_main(kokkos_count, kokkos_argv, [&] {
    // Agreement before divergence: options (--help, --json, --dump …) and settings (RINGCOMM_TRANSPORT
    // set or not …) decide which collectives a rank enters, so every rank must hold the same before
    // any acts on them; otherwise ranks would wait in different collectives for good.
    agree_on_strings(MPI_COMM_WORLD, std::vector<std::string>(argv + 1, argv + argc), "the command line");
    agree_on_strings(MPI_COMM_WORLD, ringcomm_environment(), "the RINGCOMM_* environment variables");
    if (help) {
      int rank = 0;
      MPI_Comm_rank(MPI_COMM_WORLD, &rank);
      if (rank == 0) std::fputs(cli.help().c_str(), stdout);
      return 0;
    }
    collectively(MPI_COMM_WORLD, [&] { cli.parse(static_cast<int>(own_args.size()), own_args.data()); });
    return body();
  }, thread_level);
}

std::string command_line_text(int argc, char** argv) {
  std::string text;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool plain = !arg.empty() && arg.find_first_of(" \t\n'\"\\$`*?;&|<>()") == std::string::npos;
    std::string quoted = "'";
    for (char c : arg) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    quoted += "'";
    text += (i ? " " : "") + (plain ? arg : quoted);
  }
  return text;
}

}  // namespace ringcomm::cli
