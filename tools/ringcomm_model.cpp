// ringcomm-model: predicted time per measurement and memory per rank of the ring for a sweep of rank
// counts and ring sizes, and the recommended ring size (core/src/internal/model.hpp). See --help.
#include <climits>
#include <cstdio>
#include <string>
#include <vector>

#include "command_line.hpp"
#include "report.hpp"
#include "ringcomm/error.hpp"
#include "ringcomm/json.hpp"
#include "ringcomm/memory.hpp"
#include "internal/model.hpp"
#include "ringcomm/settings.hpp"

namespace {

using namespace ringcomm;
using model::ModelInputs;
using model::Prediction;

struct Options {
  ModelInputs base;
  std::vector<int> ranks = {1, 2, 4, 8, 16, 64, 256, 1024, 4096, 16384, 65536, 100000};
  std::vector<int> ring_sizes;  // empty: the recommended one, 1 and p
  bool every_ring_size = false;
  std::size_t memory_budget = std::size_t(16) << 30;
  std::string json_path;
};

std::vector<int> ints(const std::string& text, const std::string& option) {
  std::vector<int> out;
  for (long long v : settings::parse_integer_list(text, option, 1, 1 << 30)) out.push_back(static_cast<int>(v));
  return out;
}

cli::CommandLine command_line(Options& o) {
  cli::CommandLine cli("ringcomm-model",
                       "Predicts the ring's time per measurement and memory per rank (docs/performance_model.md) "
                       "for a sweep of rank counts p and ring sizes S, and recommends for each p the fastest S "
                       "dividing p whose memory per rank fits the budget.");
  ModelInputs& b = o.base;
  cli.option("--message-bytes", "BYTES", "bytes of one ring message, (2M^2+1)*s (ring_compare's message_bytes)",
             [&](const std::string& v) { b.message_bytes = settings::parse_bytes(v, "--message-bytes"); });
  cli.option("--gt-entries", "N", "entries of the whole G_t (ring_compare's gt_entries)", [&](const std::string& v) {
    b.gt_entries = static_cast<std::size_t>(settings::parse_integer(v, "--gt-entries", 1, LLONG_MAX));
  });
  cli.option("--scalar-bytes", "B", "bytes per G_t entry: 16 complex<double> (default), 8 complex<float>",
             [&](const std::string& v) { b.scalar_bytes = static_cast<std::size_t>(settings::parse_integer(v, "--scalar-bytes", 1, 64)); });
  cli.option("--threads", "T", "rings per rank, sharing its link and kernel rate (default 1)",
             [&](const std::string& v) { b.threads = static_cast<int>(settings::parse_integer(v, "--threads", 1, 1024)); });
  cli.option("--schedule", "lock-step|overlap", "step schedule (default lock-step)", [&](const std::string& v) {
    b.schedule = settings::parse_choice(v, "--schedule", {"lock-step", "overlap"}) == "overlap" ? model::Schedule::overlap
                                                                                               : model::Schedule::lock_step;
  });
  cli.option("--reduction", "tree|ring", "final allreduce across sub-rings (default tree)", [&](const std::string& v) {
    b.reduction = settings::parse_choice(v, "--reduction", {"tree", "ring"}) == "ring" ? model::Reduction::ring
                                                                                    : model::Reduction::tree;
  });
  cli.option("--latency", "SECONDS", "alpha: latency of one neighbour exchange (fit: scripts/fit_machine.py)",
             [&](const std::string& v) { b.latency_seconds = settings::parse_real(v, "--latency", 0, 1e3); });
  cli.option("--bandwidth", "BYTES_PER_S", "beta: bandwidth of one rank's link, both directions busy",
             [&](const std::string& v) { b.bandwidth_bytes_per_second = settings::parse_real(v, "--bandwidth", 1, 1e15); });
  cli.option("--kernel-rate", "ENTRIES_PER_S", "G_t entries one rank updates per second from one message",
             [&](const std::string& v) { b.kernel_entries_per_second = settings::parse_real(v, "--kernel-rate", 1, 1e18); });
  cli.option("--walker-seconds", "SECONDS", "time to produce one measurement (default 0)",
             [&](const std::string& v) { b.walker_seconds = settings::parse_real(v, "--walker-seconds", 0, 1e6); });
  cli.option("--staging-bytes", "BYTES", "transport staging per ring (Channel::extra_bytes; default 0)",
             [&](const std::string& v) { b.staging_bytes_per_thread = settings::parse_bytes(v, "--staging-bytes"); });
  cli.option("--measurements-per-rank", "N",
             "measurements each rank makes in the run, to amortise the final reduction (default 0: left out)",
             [&](const std::string& v) {
               b.measurements_per_rank = static_cast<std::size_t>(settings::parse_integer(v, "--measurements-per-rank", 0, LLONG_MAX));
             });
  cli.option("--ranks", "LIST", "rank counts p (default 1,2,4,8,16,64,256,1024,4096,16384,65536,100000)",
             [&](const std::string& v) { o.ranks = ints(v, "--ranks"); });
  cli.option("--ring-size", "LIST", "ring sizes S to show (those dividing p); default the recommended one, 1 and p",
             [&](const std::string& v) { o.ring_sizes = ints(v, "--ring-size"); });
  cli.flag("--all-ring-sizes", "show every S dividing p", [&] { o.every_ring_size = true; });
  cli.option("--memory-budget", "BYTES", "memory per rank the recommendation must fit (default 16GiB)",
             [&](const std::string& v) { o.memory_budget = settings::parse_bytes(v, "--memory-budget"); });
  cli.option("--json", "FILE", "also write every prediction and recommendation as JSON to FILE",
             [&](const std::string& v) { o.json_path = v; });
  cli.check([&] {
    if (b.message_bytes == 0 || b.gt_entries == 0) throw Error("--message-bytes and --gt-entries are required");
    if (b.bandwidth_bytes_per_second <= 0 || b.kernel_entries_per_second <= 0)
      throw Error("--bandwidth and --kernel-rate are required (scripts/fit_machine.py measures them)");
  });
  cli.note("Lock-step: round = T*(t_walker + t_slice) + (S-1)*(alpha + T*B/beta + T*t_slice), t_slice = ceil(N/S) / "
           "kernel rate; overlap replaces each step's sum by its max. seconds/measurement = (round + reduction / rounds) / T. "
           "Memory per rank = ceil(N/S)*s + T*2*B + T*staging.");
  cli.note("Machine rates from benchmarks: ringcomm-model $(python3 scripts/fit_machine.py ring_overhead.json "
           "ring_compare.json) --message-bytes ... --gt-entries ...");
  return cli;
}

std::vector<int> shown_ring_sizes(const Options& o, int p, int recommended) {
  if (o.every_ring_size) return model::divisors(p);
  std::vector<int> wanted = o.ring_sizes.empty() ? std::vector<int>{1, recommended, p} : o.ring_sizes;
  std::vector<int> out;
  for (int S : model::divisors(p))
    for (int w : wanted)
      if (S == w) {
        out.push_back(S);
        break;
      }
  return out;
}

json::Value prediction_json(int p, int S, const Prediction& pr) {
  json::Value r = json::Value::object();
  r["ranks"] = p;
  r["ring_size"] = S;
  r["seconds_per_measurement"] = pr.seconds_per_measurement;
  r["seconds_per_round"] = pr.seconds_per_round;
  r["slice_seconds"] = pr.slice_seconds;
  r["exchange_seconds"] = pr.exchange_seconds;
  r["step_seconds"] = pr.step_seconds;
  r["reduction_seconds"] = pr.reduction_seconds;
  r["bound"] = pr.bound;
  r["gt_bytes_per_rank"] = pr.gt_bytes_per_rank;
  r["ring_buffer_bytes"] = pr.ring_buffer_bytes;
  r["staging_bytes"] = pr.staging_bytes;
  r["bytes_per_rank"] = pr.bytes_per_rank;
  return r;
}

int run(const Options& o, const std::string& command) {
  report::Table table({"p", "S", "s/measurement", "bound", "memory/rank", "G_t/rank", "fits", "recommended"});
  json::Value out = json::Value::object();
  out["command_line"] = command;
  out["threads"] = o.base.threads;
  out["schedule"] = model::to_string(o.base.schedule);
  out["memory_budget_bytes"] = o.memory_budget;
  out["predictions"] = json::Value::array();
  out["recommendations"] = json::Value::array();
  for (int p : o.ranks) {
    std::string why;
    const int best = model::recommend_ring_size(o.base, p, o.memory_budget, &why);
    json::Value rec = json::Value::object();
    rec["ranks"] = p;
    rec["ring_size"] = best == 0 ? json::Value() : json::Value(best);
    rec["why"] = why;
    out["recommendations"].push_back(rec);
    for (int S : shown_ring_sizes(o, p, best)) {
      ModelInputs in = o.base;
      in.ranks = p;
      in.ring_size = S;
      const Prediction pr = model::predict(in);
      table.add_row({std::to_string(p), std::to_string(S), report::format("%.3e", pr.seconds_per_measurement), pr.bound,
                     format_bytes(static_cast<double>(pr.bytes_per_rank)),
                     format_bytes(static_cast<double>(pr.gt_bytes_per_rank)),
                     pr.bytes_per_rank <= o.memory_budget ? "yes" : "no", S == best ? "<-" : ""});
      out["predictions"].push_back(prediction_json(p, S, pr));
    }
  }
  std::printf("%s", table.render().c_str());
  std::printf("memory budget %s per rank, %d thread(s), %s\n", format_bytes(static_cast<double>(o.memory_budget)).c_str(),
              o.base.threads, model::to_string(o.base.schedule));
  if (!o.json_path.empty()) json::write_file(o.json_path, out);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  const cli::CommandLine cli = command_line(options);
  const std::string text = cli::command_line_text(argc, argv);
  return cli::run_program(argc, argv, cli, [&] {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank == 0 ? run(options, text) : 0;
  });
}
