#include "calibrate/census/census_report.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "calibrate/census/census_tables.hpp"
#include "sim/config/training_memory.hpp"

namespace edgetwin::calibrate {

namespace {

std::string count(double value) { return grouped_count(std::llround(value)); }
std::string bytes(double value) { return value == 0 ? "0" : binary_bytes(value); }
std::string shape(const std::vector<std::int64_t>& dims) { return dims.empty() ? "-" : fmt::format("{}", fmt::join(dims, "x")); }

// The output's shape of one sample: the batch dimension dropped.
std::string sample_shape(const std::vector<std::int64_t>& dims) {
  if (dims.size() < 2) return shape(dims);
  return shape(std::vector<std::int64_t>(dims.begin() + 1, dims.end()));
}

constexpr const char* kRowFormat =
    "{:<22} {:<18} {:<14} {:>10} {:>10} {:>13} {:>13} {:>13} {:>12} {:>13} {:>10} {:>10} {:>10} {:>10} {:>10}\n";

std::string layer_row(const CensusLayer& l) {
  return fmt::format(kRowFormat, l.name, l.type, op_class_name(l.op_class), sample_shape(l.output_shape),
                     count(static_cast<double>(l.parameters)),
                     count(l.forward.macs), count(l.forward.flops()), count(l.forward.ops()),
                     l.lecture_counts ? count(l.forward.lecture) : std::string("-"), count(l.backward.ops()),
                     bytes(l.input_bytes), bytes(l.output_bytes), bytes(l.weight_bytes), bytes(l.working_set_bytes()),
                     bytes(l.saved_bytes));
}

std::string tally_line(const char* what, const OpTally& t) {
  return fmt::format("  {:<24} MACs {:>15}  FLOPs {:>15}  ops {:>15}  kernels {:>6}  bytes moved {}\n", what,
                     count(t.macs), count(t.flops()), count(t.ops()), count(t.kernels),
                     bytes(t.activation_bytes + t.weight_bytes));
}

std::string totals(const Census& c) {
  OpTally training = c.forward_total();
  training += c.loss.forward;
  training += c.backward_total();
  std::string out = fmt::format("\nTotals for a batch of {} (sample {}):\n", c.batch_size, shape(c.input_shape));
  out += tally_line("forward (model)", c.forward_total());
  out += fmt::format("  {:<24} lecture's convention {:>15}\n", "", count(c.forward_total().lecture));
  out += tally_line("loss", c.loss.forward);
  out += tally_line("backward", c.backward_total());
  out += tally_line("zero_grad", c.zero_grad);
  out += tally_line("gradient accumulation", c.accumulate);
  out += tally_line(("update (" + c.optimizer + ")").c_str(), c.update);
  out += tally_line("training step", c.step_total());
  out += fmt::format("  backward / forward FLOPs: {:.2f} (counted per op, not assumed)\n",
                     c.backward_total().flops() / std::max(1.0, c.forward_total().flops()));
  return out;
}

std::string memory_lines(const Census& c) {
  std::string out = "\nMemory (tensors):\n";
  out += fmt::format("  parameters {} ({}), buffers {}, gradients {}, optimizer state ({}) {}\n",
                     count(static_cast<double>(c.parameters)), bytes(c.parameter_bytes), bytes(c.buffer_bytes),
                     bytes(c.gradient_bytes), c.optimizer, bytes(c.optimizer_state_bytes));
  out += fmt::format("  saved for backward {}, workspace {}, batch {}\n", bytes(c.saved_bytes), bytes(c.workspace_bytes),
                     bytes(c.input_batch_bytes));
  out += fmt::format("  from batches {} and {}: saved {} + B x {}, workspace {} + B x {}\n", c.batch_size,
                     2 * c.batch_size, bytes(c.saved_fixed_bytes), bytes(c.saved_bytes_per_sample),
                     bytes(c.workspace_fixed_bytes), bytes(c.workspace_bytes_per_sample));
  out += fmt::format("  a step at batch B: {} + B x {} (docs/explanation/census.md)\n", bytes(modelled_step_bytes(c, 0)),
                     bytes(modelled_step_bytes(c, 1) - modelled_step_bytes(c, 0)));
  return out;
}

std::string notes(const Census& c) {
  std::string out;
  if (!c.lecture_leaves_out.empty()) {
    std::vector<std::string> types;
    for (const auto& [type, n] : c.lecture_leaves_out) types.push_back(fmt::format("{} ({})", type, n));
    out += fmt::format("\nThe lecture's convention (pthflops) counts these layers as 0: {}\n", fmt::join(types, ", "));
  }
  if (c.uncounted.empty()) {
    out += "\nEvery op of the step was counted (no op without a rule).\n";
    return out;
  }
  out += "\nNot counted (no rule; listed, not taken as 0):\n";
  for (const auto& u : c.uncounted)
    out += fmt::format("  {} in {}: {} call(s){}\n", u.name, u.where, u.calls,
                       u.through_calls ? ", counted only through the calls inside it" : "");
  return out;
}

std::string measured_lines(const CensusReport& r) {
  if (r.measured.empty()) return "";
  std::string out = fmt::format(
      "\nMemory of real training steps ({}), beside the census's model:\n  {:>6} {:>12} {:>14} {:>8} {:>14} {:>14}\n",
      r.measured.front().device, "batch", "model", "allocator peak", "error", "RSS before", "RSS peak");
  for (const auto& m : r.measured) {
    const double model = modelled_step_bytes(r.census, m.batch_size);
    const double measured = m.cuda_max_allocated_bytes > 0 ? m.cuda_max_allocated_bytes : m.allocator_peak_bytes;
    out += fmt::format("  {:>6} {:>12} {:>14} {:>7.1f}% {:>14} {:>14}\n", m.batch_size, bytes(model), bytes(measured),
                       100.0 * (model - measured) / measured, bytes(m.rss_before_bytes), bytes(m.rss_peak_bytes));
  }
  return out;
}

std::string fit_lines(const CensusReport& r) {
  if (r.fits.empty()) return "";
  std::string out = fmt::format("\nLargest batch that fits ({} with {} workers; free = RAM - OS base):\n", r.fits_workload,
                                r.fits_workers);
  out += fmt::format("  {:<16} {:>10} {:>18} {:>14}\n", "device", "free", fmt::format("needs at {}", r.fits_batch_size),
                     "largest batch");
  for (const auto& f : r.fits)
    out += fmt::format("  {:<16} {:>10} {:>18} {:>14}\n", f.device, bytes(f.free_bytes), bytes(f.needed_bytes),
                       grouped_count(f.largest_batch));
  return out;
}

std::string estimate_lines(const CensusReport& r) {
  if (r.estimates.empty()) return "";
  std::string out = "\nStep estimated on each device's roofline (uncalibrated; sim/config/cost_estimator.hpp):\n";
  for (const auto& e : r.estimates) {
    std::vector<std::string> parts;
    for (const auto& [op_class, s] : e.class_s) parts.push_back(fmt::format("{} {:.3g} s", op_class_name(op_class), s));
    out += fmt::format("  {:<16} batch {:>4}: {:.4g} s ({})\n", e.device, e.batch_size, e.seconds, fmt::join(parts, ", "));
  }
  return out;
}

nlohmann::json tally_json(const OpTally& t) {
  return {{"macs", t.macs},         {"flops", t.flops()},  {"ops", t.ops()},
          {"lecture_ops", t.lecture}, {"kernels", t.kernels}, {"activation_bytes", t.activation_bytes},
          {"weight_bytes", t.weight_bytes}};
}

nlohmann::json layer_json(const CensusLayer& l) {
  return {{"name", l.name},
          {"type", l.type},
          {"op", l.op},
          {"class", std::string(op_class_name(l.op_class))},
          {"output_shape", l.output_shape},
          {"parameters", l.parameters},
          {"forward", tally_json(l.forward)},
          {"backward", tally_json(l.backward)},
          {"lecture_counts", l.lecture_counts},
          {"input_bytes", l.input_bytes},
          {"output_bytes", l.output_bytes},
          {"weight_bytes", l.weight_bytes},
          {"working_set_bytes", l.working_set_bytes()},
          {"saved_bytes", l.saved_bytes}};
}

nlohmann::json census_body(const Census& c) {
  nlohmann::json out;
  out["model"] = c.model;
  out["input_shape"] = c.input_shape;
  out["batch_size"] = c.batch_size;
  out["optimizer"] = c.optimizer;
  out["layers"] = nlohmann::json::array();
  for (const auto& l : c.layers) out["layers"].push_back(layer_json(l));
  out["loss"] = layer_json(c.loss);
  out["zero_grad"] = tally_json(c.zero_grad);
  out["accumulate"] = tally_json(c.accumulate);
  out["update"] = tally_json(c.update);
  out["totals"] = {{"forward", tally_json(c.forward_total())},
                   {"backward", tally_json(c.backward_total())},
                   {"step", tally_json(c.step_total())}};
  out["memory"] = {{"parameters", c.parameters},
                   {"parameter_bytes", c.parameter_bytes},
                   {"buffer_bytes", c.buffer_bytes},
                   {"gradient_bytes", c.gradient_bytes},
                   {"optimizer_state_bytes", c.optimizer_state_bytes},
                   {"input_batch_bytes", c.input_batch_bytes},
                   {"saved_bytes", c.saved_bytes},
                   {"workspace_bytes", c.workspace_bytes},
                   {"saved_bytes_per_sample", c.saved_bytes_per_sample},
                   {"saved_fixed_bytes", c.saved_fixed_bytes},
                   {"workspace_bytes_per_sample", c.workspace_bytes_per_sample},
                   {"workspace_fixed_bytes", c.workspace_fixed_bytes}};
  out["uncounted"] = nlohmann::json::array();
  for (const auto& u : c.uncounted)
    out["uncounted"].push_back(
        {{"name", u.name}, {"where", u.where}, {"calls", u.calls}, {"through_calls", u.through_calls}});
  out["lecture_leaves_out"] = c.lecture_leaves_out;
  return out;
}

}  // namespace

std::string census_table(const CensusReport& r) {
  const Census& c = r.census;
  std::string out = fmt::format("edgetwin-calibrate census: {}, one training step at batch {} ({})\n\n", c.model,
                                c.batch_size, c.optimizer);
  out += fmt::format(kRowFormat, "layer", "type", "class", "output", "params", "fwd MACs", "fwd FLOPs", "fwd ops", "lecture",
                     "bwd ops", "input", "output", "weights", "working", "saved");
  for (const auto& l : c.layers) out += layer_row(l);
  out += layer_row(c.loss);
  out += totals(c) + memory_lines(c) + notes(c) + measured_lines(r) + fit_lines(r) + estimate_lines(r);
  return out;
}

std::string census_json(const CensusReport& r) {
  nlohmann::json out = census_body(r.census);
  out["measured_memory"] = nlohmann::json::array();
  for (const auto& m : r.measured)
    out["measured_memory"].push_back({{"batch_size", m.batch_size},
                                      {"device", m.device},
                                      {"model_bytes", modelled_step_bytes(r.census, m.batch_size)},
                                      {"persistent_bytes", m.persistent_bytes},
                                      {"allocator_peak_bytes", m.allocator_peak_bytes},
                                      {"cuda_max_allocated_bytes", m.cuda_max_allocated_bytes},
                                      {"rss_before_bytes", m.rss_before_bytes},
                                      {"rss_peak_bytes", m.rss_peak_bytes}});
  out["fits"] = nlohmann::json::array();
  for (const auto& f : r.fits)
    out["fits"].push_back({{"device", f.device},
                           {"free_bytes", f.free_bytes},
                           {"needed_bytes", f.needed_bytes},
                           {"largest_batch", f.largest_batch}});
  out["estimates"] = nlohmann::json::array();
  for (const auto& e : r.estimates) {
    nlohmann::json classes;
    for (const auto& [op_class, s] : e.class_s) classes[std::string(op_class_name(op_class))] = s;
    out["estimates"].push_back({{"device", e.device}, {"batch_size", e.batch_size}, {"seconds", e.seconds}, {"class_s", classes}});
  }
  return out.dump(2) + "\n";
}

std::string census_csv(const CensusReport& r) {
  std::string out =
      "layer,type,op,class,output_shape,parameters,forward_macs,forward_flops,forward_ops,lecture_ops,backward_macs,"
      "backward_flops,backward_ops,kernels,input_bytes,output_bytes,weight_bytes,working_set_bytes,saved_bytes\n";
  auto row = [&](const CensusLayer& l) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", l.name, l.type, l.op,
                       op_class_name(l.op_class), sample_shape(l.output_shape), l.parameters, l.forward.macs,
                       l.forward.flops(), l.forward.ops(), l.lecture_counts ? fmt::format("{}", l.forward.lecture) : "",
                       l.backward.macs, l.backward.flops(), l.backward.ops(), l.forward.kernels + l.backward.kernels,
                       l.input_bytes, l.output_bytes, l.weight_bytes, l.working_set_bytes(), l.saved_bytes);
  };
  for (const auto& l : r.census.layers) row(l);
  row(r.census.loss);
  return out;
}

std::string lecture_table(const Census& c) {
  std::string out = "Operation OPS\n------------------------------------- -------\n";
  for (const auto& l : c.layers) {
    if (!l.lecture_counts || l.forward.lecture == 0) continue;
    out += fmt::format("{}/{}[{}]/onnx::{} {}\n", c.model, l.type, l.name, l.onnx, std::llround(l.forward.lecture));
  }
  const double total = c.forward_total().lecture;
  std::vector<std::int64_t> input{c.batch_size};
  input.insert(input.end(), c.input_shape.begin(), c.input_shape.end());
  out += fmt::format("------------------------------------ ------\nInput size: ({})\n{} FLOPs or approx. {:.2f} GFLOPs\n",
                     fmt::join(input, ", "), count(total), total / 1e9);
  return out;
}

}  // namespace edgetwin::calibrate
