#include "calibrate/census/census_tables.hpp"

#include <cmath>

namespace edgetwin::calibrate {

namespace {

void add_layer(std::map<OpClass, OpClassCost>& classes, const CensusLayer& layer, double batch) {
  OpClassCost& c = classes[layer.op_class];
  c.ops_per_sample += (layer.forward.ops() + layer.backward.ops()) / batch;
  c.bytes_per_sample += (layer.forward.activation_bytes + layer.backward.activation_bytes) / batch;
  c.bytes_per_step += layer.forward.weight_bytes + layer.backward.weight_bytes;
  c.kernels_per_step += layer.forward.kernels + layer.backward.kernels;
}

void add_step_part(std::map<OpClass, OpClassCost>& classes, const OpTally& part) {
  if (part.kernels == 0) return;
  OpClassCost& c = classes[OpClass::optimizer];
  c.ops_per_step += part.ops();
  c.bytes_per_step += part.activation_bytes + part.weight_bytes;
  c.kernels_per_step += part.kernels;
}

}  // namespace

std::map<OpClass, OpClassCost> census_op_classes(const Census& census) {
  std::map<OpClass, OpClassCost> classes;
  const double batch = census.batch_size;
  for (const CensusLayer& layer : census.layers) add_layer(classes, layer, batch);
  add_layer(classes, census.loss, batch);
  for (const OpTally* part : {&census.zero_grad, &census.accumulate, &census.update}) add_step_part(classes, *part);
  return classes;
}

ModelSpec census_model_spec(const Census& census, const std::string& name, const Provenance& provenance) {
  ModelSpec m;
  m.name = name;
  m.parameters = census.parameters;
  const OpTally forward = census.forward_total();
  OpTally training = forward;
  training += census.loss.forward;
  training += census.backward_total();
  m.forward_flops_per_sample = census.per_sample(forward.flops());
  m.training_flops_per_sample = census.per_sample(training.flops());
  m.memory_bytes_per_sample = census.per_sample(training.activation_bytes);
  m.kernels_per_step = static_cast<int>(std::lround(census.step_total().kernels));
  m.ops = census_op_classes(census);
  m.provenance = provenance;
  return m;
}

FootprintSpec census_footprint(const Census& census, const FootprintSpec& kept, const Provenance& provenance) {
  FootprintSpec f;
  f.process_bytes = kept.process_bytes;
  f.worker_bytes = kept.worker_bytes;
  f.model_bytes = census.parameter_bytes + census.buffer_bytes + census.gradient_bytes;
  f.optimizer_bytes = census.optimizer_state_bytes;
  f.activation_bytes_per_sample = census.saved_bytes_per_sample;
  f.workspace_bytes_per_sample = census.workspace_bytes_per_sample;
  f.workspace_bytes = census.saved_fixed_bytes + census.workspace_fixed_bytes;
  f.provenance = provenance;
  return f;
}

double modelled_step_bytes(const Census& census, int batch_size) {
  const double fixed = census.parameter_bytes + census.buffer_bytes + census.gradient_bytes +
                       census.optimizer_state_bytes + census.saved_fixed_bytes + census.workspace_fixed_bytes;
  const double per_sample = census.per_sample(census.input_batch_bytes) + census.saved_bytes_per_sample +
                            census.workspace_bytes_per_sample;
  return fixed + per_sample * batch_size;
}

}  // namespace edgetwin::calibrate
