#pragma once
// Command-line options of ringcomm's programs (tools, examples, benchmarks), and their main().
//
//   cli::CommandLine cli("ring_compare", "Runs one G_t accumulation with each transport …");
//   cli.option("--nb", "N", "orbitals per site (default 1)",
//              [&](const std::string& v) { nb = settings::parse_integer(v, "--nb", 1, 8); });
//   return cli::run_program(argc, argv, cli, [&] { … return 0; });
//
// Every rank parses the same command line, so a bad value is reported as one collective error by
// every rank, which then exits with status 1 instead of aborting the job.
#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

namespace ringcomm::cli {

class CommandLine {
 public:
  CommandLine(std::string program, std::string summary);

  // --name VALUE or --name=VALUE. `apply` validates and stores the value; it throws ringcomm::Error
  // (settings::parse_* do) naming the option and the allowed values.
  CommandLine& option(std::string name, std::string value_name, std::string help,
                      std::function<void(const std::string&)> apply);
  CommandLine& flag(std::string name, std::string help, std::function<void()> apply);
  // A paragraph printed after the options: environment variables, examples, definitions.
  CommandLine& note(std::string text);
  // Runs after all options were applied: checks that involve several options. Throws like `apply`.
  CommandLine& check(std::function<void()> cross_check);

  std::string help() const;
  // Applies the options in argv[1..argc), then the checks; throws a local ringcomm::Error on an
  // unknown option, a missing value or a value `apply` or a check rejects.
  void parse(int argc, char** argv) const;

 private:
  struct Entry {
    std::string name;
    std::string value_name;  // empty for flags
    std::string help;
    std::function<void(const std::string&)> apply;
  };
  const Entry* find(const std::string& name) const;

  std::string program_;
  std::string summary_;
  std::vector<Entry> entries_;
  std::vector<std::string> notes_;
  std::vector<std::function<void()>> checks_;
};

// The program's main(): with --help (or -h) anywhere, world rank 0 prints cli.help() and every rank
// returns 0; otherwise the options are parsed on every rank and `body` runs, all under
// ringcomm::run_main's error policy. Returns the process exit status.
int run_program(int argc, char** argv, const CommandLine& cli, const std::function<int()>& body,
                int thread_level = MPI_THREAD_FUNNELED);

// argv joined by spaces, with arguments that need it single-quoted, for reports.
std::string command_line_text(int argc, char** argv);

}  // namespace ringcomm::cli
