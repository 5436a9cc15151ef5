#include "overlap_report.hpp"

#include "report.hpp"

namespace ringcomm::bench {

namespace {

std::string ms(double seconds) { return report::format("%.3f", seconds * 1e3); }

template <class Field>
json::Value each_sample(const VariantSamples& v, Field field) {
  std::vector<double> values;
  for (const Sample& s : v.samples) values.push_back(s.*field);
  return values;
}

json::Value variant_json(const VariantSamples& v) {
  json::Value o = json::Value::object();
  o["name"] = v.name;
  o["consume"] = v.consume;
  o["threads"] = v.threads;
  o["schedule"] = v.schedule;
  o["updates"] = v.updates;
  o["measurements_per_sample"] = v.samples.empty() ? 0 : v.samples.front().measurements;
  o["seconds_per_measurement"] = v.median_seconds();
  o["consume_seconds_per_round"] = v.median_consume_seconds();  // NaN (null) without a ring
  o["exchange_seconds_per_round"] = v.median_exchange_seconds();
  json::Value& raw = o["samples"];
  raw["seconds_per_measurement"] = each_sample(v, &Sample::seconds_per_measurement);
  raw["consume_seconds_per_round"] = each_sample(v, &Sample::consume_seconds_per_round);
  raw["exchange_seconds_per_round"] = each_sample(v, &Sample::exchange_seconds_per_round);
  return o;
}

}  // namespace

json::Value transport_json(const TransportRun& run) {
  const OverlapFigures f = figures_of(run);
  json::Value t = json::Value::object();
  t["transport"] = run.transport;
  t["stream_ordered"] = run.stream_ordered;
  t["overlap_schedule"] = run.variant("overlap").schedule;
  t["lock_step_schedule"] = run.variant("lock_step").schedule;
  json::Value& seconds = t["seconds_per_measurement"];
  seconds["compute"] = f.compute;
  seconds["communication"] = f.communication;
  seconds["max_compute_communication"] = f.bound;
  seconds["overlap"] = f.overlap;
  seconds["lock_step"] = f.lock_step;
  t["overlap_over_max"] = f.overlap_over_bound();
  t["target"] = kOverlapTarget;
  t["met"] = f.overlap_over_bound() <= kOverlapTarget;
  t["lock_step_over_overlap"] = f.lock_step_over_overlap();
  t["threads"] = json::Value::array();
  for (const ThreadsFigure& figure : threads_figures(run)) {
    json::Value row = json::Value::object();
    row["threads"] = figure.threads;
    row["seconds_per_measurement"] = figure.seconds;
    row["measurements_per_second_per_rank"] = figure.measurements_per_second();
    row["speedup_over_1"] = figure.speedup;
    row["updates"] = run.with_threads(figure.threads).updates;
    t["threads"].push_back(row);
  }
  t["variants"] = json::Value::array();
  for (const VariantSamples& v : run.variants) t["variants"].push_back(variant_json(v));
  return t;
}

std::string overlap_table(const std::vector<TransportRun>& runs) {
  report::Table table({"transport", "schedule", "compute ms", "comm ms", "max ms", "overlap ms", "lock-step ms",
                       "overlap/max", "target", "lock-step/overlap"});
  for (const TransportRun& run : runs) {
    const OverlapFigures f = figures_of(run);
    const bool met = f.overlap_over_bound() <= kOverlapTarget;
    table.add_row({run.transport, run.variant("overlap").schedule, ms(f.compute), ms(f.communication), ms(f.bound),
                   ms(f.overlap), ms(f.lock_step), report::format("%.3f", f.overlap_over_bound()),
                   report::format("<= %.1f ", kOverlapTarget) + (met ? "met" : "missed"),
                   report::format("%.3f", f.lock_step_over_overlap())});
  }
  return table.render();
}

std::string threads_table(const std::vector<TransportRun>& runs) {
  report::Table table({"transport", "threads", "ms/measurement", "measurements/s per rank", "speed-up vs T=1", "updates"});
  for (const TransportRun& run : runs)
    for (const ThreadsFigure& f : threads_figures(run))
      table.add_row({run.transport, std::to_string(f.threads), ms(f.seconds), report::format("%.1f", f.measurements_per_second()),
                     report::format("%.3f", f.speedup), run.with_threads(f.threads).updates});
  return table.render();
}

std::string counters_table(const std::vector<TransportRun>& runs) {
  report::Table table({"transport", "variant", "consume ms/round", "exchange ms/round", "measured ms/measurement"});
  for (const TransportRun& run : runs)
    for (const VariantSamples& v : run.variants)
      if (v.schedule != "none")
        table.add_row({run.transport, v.name, ms(v.median_consume_seconds()), ms(v.median_exchange_seconds()),
                       ms(v.median_seconds())});
  return table.render();
}

}  // namespace ringcomm::bench
