// ring_compare: one G_t accumulation with the original algorithm and with the ring over each
// transport and ring size; a table, JSON and optionally a dump for outside checks. See --help.
#include <mpi.h>

#include <algorithm>
#include <complex>
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>

#include "command_line.hpp"
#include "dump.hpp"
#include "measurement.hpp"
#include "npy.hpp"
#include "options.hpp"
#include "report.hpp"
#include "ringcomm/checkpoint.hpp"
#include "ringcomm/collective.hpp"
#include "ringcomm/gt/accumulate.hpp"
#include "ringcomm/gt/l2_set_aside.hpp"
#include "ringcomm/gt/tolerance.hpp"
#include "ringcomm/registry.hpp"
#include "ringcomm/ring_size_choice.hpp"
#include "ringcomm/ring_team.hpp"
#include "ringcomm/topology.hpp"
#include "ringcomm/trace.hpp"
#include "verify_sample.hpp"

namespace ring_compare {
namespace {

using namespace ringcomm;

// Serial reference for the original's own error only while it costs about a second.
constexpr double kReferenceBudget = 1e8;  // measurements × G_t entries

struct Run {
  std::string transport;
  bool ring = true;
  int ring_size = 1;
  int rings = 1;
  WalkerSchedule schedule;  // the original runs one thread, lock-step
  gt::RunStats stats;
  std::size_t message_bytes = 0;
  std::size_t gt_bytes_per_rank = 0;
  std::size_t buffer_bytes_per_rank = 0;
  std::optional<gt::ErrorNorms> errors;  // known on rank 0 only
  std::string errors_against;            // "original", "serial reference", or why there are none
  std::optional<SampleCheck> sample;     // --verify-sample; its error is known on rank 0 only
  json::Value memory;                    // measurement.hpp
  json::Value counters;                  // null for the original

  // Rounds restored from a checkpoint took no time in this run.
  double seconds_per_measurement() const {
    const std::size_t measurements = stats.measurements_run_per_rank();
    return measurements ? stats.seconds / static_cast<double>(measurements) : 0.0;
  }
  // The G_t pass of each message at the copy rate: every measurement reads and writes all of G_t once
  // (split over a sub-ring's ranks, which work at the same time), 2·N·sizeof(G_t scalar) bytes.
  double floor_seconds_per_measurement(std::size_t gt_bytes, double copy_GBps) const {
    return copy_GBps > 0 ? 2.0 * static_cast<double>(gt_bytes) / (copy_GBps * 1e9) : 0.0;
  }
  double effective_bandwidth_GBps() const {
    return static_cast<double>(ring_size - 1) * static_cast<double>(message_bytes) / seconds_per_measurement() / 1e9;
  }
};

struct Skipped {
  std::string transport;
  int ring_size;
  std::string reason;
};

std::size_t max_over_ranks(std::size_t value) {
  return static_cast<std::size_t>(allreduce_value(static_cast<unsigned long long>(value), MPI_MAX, MPI_COMM_WORLD));
}

template <class Scalar>
std::vector<std::complex<double>> widened(const std::vector<Scalar>& values) {
  std::vector<std::complex<double>> out(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = {values[i].real(), values[i].imag()};
  return out;
}

class Comparison {
 public:
  Comparison(const Options& options, const gt::Problem& problem, const std::string& command_line)
      : options_(options), problem_(problem), command_line_(command_line) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks_);
  }

  // Scalar: G_t's type; Message: that of G_σ and the ring's messages.
  template <class Scalar, class Message = Scalar>
  void run_all() {
    if (!options_.dump_dir.empty())
      collectively(MPI_COMM_WORLD, [&] {
        check_dump_size<Scalar>(problem_);
        if (rank_ == 0) write_dump_inputs<Message>(options_.dump_dir, problem_);
      });
    if (!options_.trace_path.empty()) trace::start(MPI_COMM_WORLD);
    copy_GBps_ = copy_rate_GBps(problem_.dims.entries() * sizeof(Scalar));
    gt_bytes_ = problem_.dims.entries() * sizeof(Scalar);
    if (options_.run_original) run_original<Scalar, Message>();
    const std::vector<TransportRequest> requests = resolve_transports(options_);
    schedule_ = requested_schedule(MPI_COMM_WORLD, options_.schedule);
    for (const int ring_size : ring_sizes<Scalar, Message>()) {
      const Topology topology(MPI_COMM_WORLD, ring_size);
      for (const auto& request : requests) run_ring<Scalar, Message>(topology, request);
    }
    if (!options_.trace_path.empty()) {
      const std::size_t events = trace::stop_and_write(MPI_COMM_WORLD, options_.trace_path);
      announce("timeline of " + std::to_string(events) + " events written to " + options_.trace_path);
    }
    if (!options_.dump_dir.empty())
      collectively(MPI_COMM_WORLD, [&] {
        if (rank_ == 0)
          write_dump_meta(options_.dump_dir, problem_, scalar_name(options_.precision), npy::descr<Message>(),
                          npy::descr<Scalar>(), dumped_run_);
      });
  }

  void report() const {
    const json::Value results = as_json();
    if (rank_ == 0) std::fputs(table().c_str(), stdout);
    if (!options_.json_path.empty())
      collectively(MPI_COMM_WORLD, [&] {
        if (rank_ == 0) json::write_file(options_.json_path, results);
      });
    if (rank_ == 0 && !options_.quiet && !options_.json_path.empty())
      std::printf("results written to %s\n", options_.json_path.c_str());
  }

 private:
  template <class Scalar, class Message>
  std::vector<int> ring_sizes() const {
    if (!options_.ring_sizes.empty()) return options_.ring_sizes;
    RingMemoryNeeds needs;
    needs.gt_entries = problem_.dims.entries();
    needs.scalar_bytes = sizeof(Scalar);
    needs.message_bytes = problem_.dims.message_entries() * sizeof(Message);
    needs.rings_per_rank = directions_of_thread(schedule_, 0).size() * static_cast<std::size_t>(schedule_.threads);
    return {resolve_ring_size(MPI_COMM_WORLD, ranks_, needs)};
  }

  gt::Progress progress_for(const std::string& label) {
    auto line = std::make_shared<report::ProgressLine>(label, "rounds", rank_ == 0 && !options_.quiet);
    return [line](std::size_t done, std::size_t total) { line->update(done, total); };
  }

  void announce(const std::string& what) const {
    if (rank_ == 0 && !options_.quiet) {
      std::printf("%s\n", what.c_str());
      std::fflush(stdout);
    }
  }

  template <class Scalar, class Message>
  void run_original() {
    announce("original: every rank a full G_t (" + problem_.dims.describe() + "), reduced at the end");
    Run run;
    run.transport = "original";
    run.schedule.steps = StepSchedule::lock_step;
    run.ring = false;
    run.ring_size = 1;
    run.rings = ranks_;
    run.message_bytes = problem_.dims.message_entries() * sizeof(Message);
    run.gt_bytes_per_rank = problem_.dims.entries() * sizeof(Scalar);
    run.buffer_bytes_per_rank = run.message_bytes;
    reset_allocation_high_water();
    const std::vector<Scalar> full = [&] {
      const Phase whole_run("ringcomm::run original");
      return gt::accumulate_original<Scalar, Message>(problem_, MPI_COMM_WORLD, &run.stats, progress_for("original"));
    }();
    run.memory = memory_json({run.gt_bytes_per_rank, run.buffer_bytes_per_rank, 0});
    const double cost = static_cast<double>(problem_.measurements) * static_cast<double>(problem_.dims.entries());
    if (cost <= kReferenceBudget) {
      // Mixed precision: against the reference from G_σ as the walker made it, before rounding to
      // float, so that the error shown is the one mixed precision costs.
      using Unrounded = std::conditional_t<std::is_same_v<Scalar, Message>, Message, Scalar>;
      if (rank_ == 0) run.errors = gt::compare(full, gt::reference_gt<Unrounded>(problem_));
      run.errors_against = std::is_same_v<Scalar, Message> ? "serial reference" : "serial reference from unrounded G_σ";
    } else {
      run.errors_against = "none: the serial reference would take too long";
    }
    verify_sample_of<Scalar>(run, sampled_share(full, sample_indices_()));
    if (rank_ == 0) original_ = widened(full);
    if (!options_.dump_dir.empty())
      collectively(MPI_COMM_WORLD, [&] {
        if (rank_ == 0) write_dump_gt(options_.dump_dir, "gt_original", problem_.dims, full);
      });
    runs_.push_back(run);
  }

  template <class Scalar, class Message>
  void run_ring(const Topology& topology, const TransportRequest& request) {
    TransportContext ctx;
    ctx.world = MPI_COMM_WORLD;
    ctx.memory = data_memory_kind();
    if (!request.named_by_user) {
      const BackendInfo* backend = Registry::instance().find(request.name);
      const Usability availability = probe_on_all_ranks(*backend, ctx);
      if (!availability.usable) return skip(request.name, topology, availability.reason);
    }
    Run run;
    run.ring_size = topology.ring_size();
    run.rings = topology.ring_count();
    run.message_bytes = problem_.dims.message_entries() * sizeof(Message);
    reset_allocation_high_water();
    run.schedule = schedule_;
    Selection selection;
    std::unique_ptr<RingTeam> team;
    try {
      selection = select_transport(request.name, ctx);
      announce(selection.transport->name() + ": " + topology.describe() + ", messages of " +
               format_bytes(static_cast<double>(run.message_bytes)));
      team = std::make_unique<RingTeam>(*selection.transport, topology, run.message_bytes, schedule_);
      run.schedule.steps = team->ring(0, 0).schedule();
    } catch (const Error& e) {
      // A transport the user named must run. One from the default list may still fail where its
      // probe passed (NCCL with two ranks on one GPU); the error is collective, so every rank skips it.
      // A bad setting is refused whichever transport met it.
      if (request.named_by_user || !e.collective() || dynamic_cast<const SettingError*>(&e)) throw;
      return skip(request.name, topology, e.what());
    }
    run.transport = selection.transport->name();
    DistributedArray<Scalar> gt(topology, problem_.dims.entries());
    run.gt_bytes_per_rank = max_over_ranks(gt.bytes_per_rank());
    run.buffer_bytes_per_rank = max_over_ranks(team->buffer_bytes());
    const CheckpointSettings checkpoint = checkpoint_for(run);
    {
      const Phase whole_run(trace::lasting_name("ringcomm::run " + run.transport + " S=" + std::to_string(run.ring_size)));
      run.stats = gt::accumulate_with_ring<Scalar, Message>(problem_, topology, *team, gt, ring_progress_for(run),
                                                            checkpoint);
    }
    run.memory = memory_json({gt.bytes_per_rank(), team->slots() * team->message_bytes(), team->staging_bytes()});
    run.counters = counters_json(team->counters());
    if (run.stats.first_round > 0)
      announce("  continued from the checkpoint of round " + std::to_string(run.stats.first_round) + " of " +
               std::to_string(run.stats.rounds) + " in " + checkpoint.directory);
    gt.sum_across_rings();
    if (!options_.write_path.empty() && !written_) {
      gt.write_npy(options_.write_path, gt_shape(problem_.dims));
      written_ = true;
      announce("  G_t written to " + options_.write_path + " (MPI-IO, by the ranks of sub-ring 0)");
    }
    verify_sample_of<Scalar>(run, sampled_share(gt, topology, sample_indices_()));
    compare_with_original(gt, run);
    runs_.push_back(run);
  }

  // Each ring run keeps its own checkpoints, so that a sweep does not continue one run from another's.
  CheckpointSettings checkpoint_for(const Run& run) const {
    CheckpointSettings settings = checkpoint_settings(MPI_COMM_WORLD);
    if (settings.enabled())
      settings.directory += "/" + run.transport + "_S" + std::to_string(run.ring_size);
    return settings;
  }

  // The progress line, and for --abort-after-round the crash that checkpoint/restart tests need.
  gt::Progress ring_progress_for(const Run& run) {
    gt::Progress line = progress_for(run.transport + " S=" + std::to_string(run.ring_size));
    const std::size_t abort_after = ring_runs_++ == 0 ? options_.abort_after_round : 0;
    return [line, abort_after](std::size_t done, std::size_t total) {
      line(done, total);
      if (done == abort_after) {
        std::fprintf(stderr, "ring_compare: --abort-after-round %zu: rank 0 kills itself now\n", abort_after);
        std::fflush(stderr);
        std::raise(SIGKILL);
      }
    };
  }

  std::vector<std::size_t> sample_indices_() const {
    return sample_indices(problem_.dims.entries(), options_.verify_sample, problem_.seed);
  }

  template <class Scalar>
  void verify_sample_of(Run& run, std::vector<std::complex<double>> share) {
    if (options_.verify_sample == 0) return;
    run.sample = check_sample<Scalar>(MPI_COMM_WORLD, problem_, sample_indices_(), std::move(share));
  }

  void skip(const std::string& transport, const Topology& topology, const std::string& reason) {
    skipped_.push_back({transport, topology.ring_size(), reason});
    announce(transport + " (S=" + std::to_string(topology.ring_size()) + "): skipped, " + reason);
  }

  template <class Scalar>
  void compare_with_original(const DistributedArray<Scalar>& gt, Run& run) {
    if (!options_.run_original) {
      run.errors_against = "none: --no-original";
      return;
    }
    if (gt.total() > options_.compare_limit) {
      run.errors_against = "none: G_t larger than --compare-limit";
      return;
    }
    const std::vector<Scalar> full = gt.gather();
    run.errors_against = "original";
    if (rank_ == 0) run.errors = gt::compare(full, original_);
    if (!options_.dump_dir.empty() && dumped_run_.kind() == json::Value::Kind::null)
      collectively(MPI_COMM_WORLD, [&] {
        if (rank_ == 0) write_dump_gt(options_.dump_dir, "gt", problem_.dims, full);
      });
    if (dumped_run_.kind() == json::Value::Kind::null) dumped_run_ = run_json(run);
  }

  json::Value run_json(const Run& run) const {
    json::Value r = json::Value::object();
    r["transport"] = run.transport;
    r["ranks"] = ranks_;
    r["ring_size"] = run.ring_size;
    r["rings"] = run.rings;
    r["threads"] = run.schedule.threads;
    r["direction"] = to_string(run.schedule.directions);
    r["overlap"] = run.schedule.steps == StepSchedule::overlap;
    r["channel"] = gt::to_string(problem_.channel);
    r["scalar"] = scalar_name(options_.precision);
    r["measurements"] = problem_.measurements;
    r["rounds"] = run.stats.rounds;
    r["seconds"] = run.stats.seconds;
    r["seconds_per_measurement"] = run.seconds_per_measurement();
    const double floor = run.floor_seconds_per_measurement(gt_bytes_, copy_GBps_);
    r["copy_GBps"] = copy_GBps_;
    r["floor_seconds_per_measurement"] = floor;
    r["fraction_of_floor"] = floor > 0 ? run.seconds_per_measurement() / floor : 0.0;
    r["gt_batch"] = run.stats.batch;
    r["gt_work_bytes_per_rank"] = run.stats.work_bytes;
    r["message_bytes"] = run.message_bytes;
    r["effective_bandwidth_GBps"] = run.ring ? json::Value(run.effective_bandwidth_GBps()) : json::Value();
    r["gt_entries"] = problem_.dims.entries();
    r["gt_bytes_per_rank"] = run.gt_bytes_per_rank;
    r["buffer_bytes_per_rank"] = run.buffer_bytes_per_rank;
    r["memory"] = run.memory;
    r["counters"] = run.counters;
    r["errors_against"] = run.errors_against;
    r["l1_error"] = run.errors ? json::Value(run.errors->l1) : json::Value();
    r["l2_error"] = run.errors ? json::Value(run.errors->l2) : json::Value();
    r["linf_error"] = run.errors ? json::Value(run.errors->linf) : json::Value();
    r["tolerance"] = tolerance();
    r["sample_entries"] = run.sample ? json::Value(run.sample->entries) : json::Value();
    r["sample_max_relative_error"] = run.sample ? json::Value(run.sample->max_relative_error) : json::Value();
    r["sample_worst_entry"] = run.sample ? json::Value(run.sample->worst_entry) : json::Value();
    return r;
  }

  json::Value as_json() const {
    json::Value out = json::Value::object();
    out["metadata"] = report::run_metadata("ring_compare", command_line_);
    out["dims"] = report::dims_json(problem_.dims);
    out["channel"] = gt::to_string(problem_.channel);
    out["scalar"] = scalar_name(options_.precision);
    out["seed"] = problem_.seed;
    out["measurements"] = problem_.measurements;
    // The GPU's L2 set-aside the kernels ran under (what the first accumulator found and left; bytes,
    // -1 off CUDA): the kernels' times depend on it (ringcomm/gt/l2_set_aside.hpp).
    const gt::L2SetAside& aside = gt::l2_set_aside_once();
    out["gt_l2_set_aside"] = json::Value::object();
    out["gt_l2_set_aside"]["wanted_bytes"] = aside.wanted;
    out["gt_l2_set_aside"]["found_bytes"] = aside.before;
    out["gt_l2_set_aside"]["bytes"] = aside.after;
    out["gt_l2_set_aside"]["problem"] = aside.problem.empty() ? json::Value() : json::Value(aside.problem);
    out["runs"] = json::Value::array();
    for (const auto& run : runs_) out["runs"].push_back(run_json(run));
    out["skipped"] = json::Value::array();
    for (const auto& s : skipped_) {
      json::Value entry = json::Value::object();
      entry["transport"] = s.transport;
      entry["ring_size"] = s.ring_size;
      entry["reason"] = s.reason;
      out["skipped"].push_back(entry);
    }
    return out;
  }

  std::string table() const {
    report::Table t({"transport", "S", "T", "rings", "s/measurement", "x floor", "batch", "eff. GB/s", "G_t/rank",
                     "buffers/rank", "l1 error", "l2 error", "linf error"});
    auto error_cell = [](const Run& run, double gt::ErrorNorms::*norm) {
      return run.errors ? report::format("%.2e", (*run.errors).*norm) : std::string("-");
    };
    for (const auto& run : runs_)
      t.add_row({run.transport, std::to_string(run.ring_size), std::to_string(run.schedule.threads),
                 std::to_string(run.rings),
                 report::format("%.3e", run.seconds_per_measurement()),
                 report::format("%.3f", run.seconds_per_measurement() /
                                            run.floor_seconds_per_measurement(gt_bytes_, copy_GBps_)),
                 std::to_string(run.stats.batch),
                 run.ring ? report::format("%.3f", run.effective_bandwidth_GBps()) : "-",
                 format_bytes(static_cast<double>(run.gt_bytes_per_rank)),
                 format_bytes(static_cast<double>(run.buffer_bytes_per_rank)), error_cell(run, &gt::ErrorNorms::l1),
                 error_cell(run, &gt::ErrorNorms::l2), error_cell(run, &gt::ErrorNorms::linf)});
    std::string text = "\n" + problem_.dims.describe() + "; channel " + gt::to_string(problem_.channel) + ", " +
                       scalar_name(options_.precision) + ", " + std::to_string(problem_.measurements) +
                       " measurements on " + std::to_string(ranks_) + " ranks\n" + t.render();
    for (const auto& s : skipped_)
      text += "skipped " + s.transport + " (S=" + std::to_string(s.ring_size) + "): " + s.reason + "\n";
    text += "errors: the ring runs against the original; the original against the serial reference\n";
    text += "floor: G_t read and written once per measurement at this run's copy rate (" +
            report::format("%.1f", copy_GBps_) + " GB/s): " +
            report::format("%.3e", Run{}.floor_seconds_per_measurement(gt_bytes_, copy_GBps_)) + " s/measurement\n";
    for (const auto& run : runs_)
      if (run.sample)
        text += "verify-sample " + run.transport + " S=" + std::to_string(run.ring_size) + ": " +
                std::to_string(run.sample->entries) +
                " entries against the serial reference formula, largest relative error " +
                report::format("%.2e", run.sample->max_relative_error) + " (entry " +
                std::to_string(run.sample->worst_entry) + ")\n";
    return text;
  }

 public:
  // Collective: throws on every rank when any error (or the sample's) exceeds the scalar type's
  // tolerance or is NaN, so that the exit status says whether the results are right.
  void require_within_tolerance() const {
    std::string found;
    if (rank_ == 0)
      for (const auto& run : runs_) {
        const std::string who = run.transport + " S=" + std::to_string(run.ring_size);
        if (run.errors)
          for (const double value : {run.errors->l1, run.errors->l2, run.errors->linf})
            if (!(value <= tolerance()))  // NaN fails
              found += "\n  " + who + ": error against the " + run.errors_against + " " + report::format("%.3e", value);
        if (run.sample && !(run.sample->max_relative_error <= tolerance()))
          found += "\n  " + who + ": --verify-sample error " + report::format("%.3e", run.sample->max_relative_error);
      }
    const std::string verdict = allgather_strings(MPI_COMM_WORLD, found).front();
    if (!verdict.empty())
      throw Error("results beyond the tolerance of " + scalar_name(options_.precision) + " (" +
                      report::format("%.0e", tolerance()) + " relative):" + verdict,
                  true);
  }

 private:
  // The tolerance table's entry for --scalar (ringcomm/gt/tolerance.hpp).
  double tolerance() const {
    switch (options_.precision) {
      case Precision::double_precision:
        return gt::relative_tolerance("double");
      case Precision::single_precision:
        return gt::relative_tolerance("float");
      case Precision::mixed_precision:
        return gt::relative_tolerance("mixed");
    }
    throw Error("no tolerance for this --scalar");
  }

  const Options& options_;
  const gt::Problem& problem_;
  std::string command_line_;
  int rank_ = 0;
  int ranks_ = 1;
  std::vector<std::complex<double>> original_;  // rank 0
  double copy_GBps_ = 0;    // copy_rate_GBps() of this run
  std::size_t gt_bytes_ = 0;  // all of G_t
  std::vector<Run> runs_;
  WalkerSchedule schedule_;
  std::vector<Skipped> skipped_;
  json::Value dumped_run_;  // the ring run whose G_t went to the dump
  bool written_ = false;    // --write done
  int ring_runs_ = 0;
};

}  // namespace
}  // namespace ring_compare

int main(int argc, char** argv) {
  using namespace ring_compare;
  Options options;
  const ringcomm::cli::CommandLine cli = command_line(options);
  const std::string text = ringcomm::cli::command_line_text(argc, argv);
  return ringcomm::cli::run_program(argc, argv, cli, [&] {
    const ringcomm::gt::Problem problem{options.dims, options.channel, options.seed, options.measurements};
    Comparison comparison(options, problem, text);
    if (options.precision == Precision::double_precision) comparison.run_all<Kokkos::complex<double>>();
    else if (options.precision == Precision::mixed_precision)
      comparison.run_all<Kokkos::complex<double>, Kokkos::complex<float>>();
    else comparison.run_all<Kokkos::complex<float>>();
    comparison.report();
    comparison.require_within_tolerance();
    return 0;
  },
  // Walker threads (--threads, RINGCOMM_THREADS) each drive a ring; one thread needs no more than funneled.
  MPI_THREAD_MULTIPLE);
}
