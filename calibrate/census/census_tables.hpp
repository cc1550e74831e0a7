// From a census to the simulator's inputs: the [model] and [footprint] tables of a workload,
// and the census's memory model of a training step.
//
// Contract: census_model_spec gives [model] per sample at the census's batch size: FLOPs as
// 2 x MACs (forward; training = forward + loss + backward counted per op), memory bytes as
// every op's activation bytes read and written, kernels as every dispatched op of the step,
// and [model.ops.<class>] per class (the optimizer's parts are per step). census_footprint
// keeps `kept`'s process and worker bytes (a census does not see the Python process or the
// DataLoader) and takes the rest from the census: weights, buffers and gradients as
// model_bytes, optimizer state, saved activations and workspace per sample, and what of
// them does not grow with the batch as workspace_bytes.
// modelled_step_bytes is the tensor memory of one step at batch B that model gives:
// weights, buffers, gradients, optimizer state, the fixed terms, and B x (batch + saved +
// workspace) per sample; measure_step_memory (census_runner.hpp) measures the same quantity.
#pragma once

#include "calibrate/census/census.hpp"
#include "sim/config/specs.hpp"

namespace edgetwin::calibrate {

std::map<OpClass, OpClassCost> census_op_classes(const Census& census);
ModelSpec census_model_spec(const Census& census, const std::string& name, const Provenance& provenance);
FootprintSpec census_footprint(const Census& census, const FootprintSpec& kept, const Provenance& provenance);
double modelled_step_bytes(const Census& census, int batch_size);

}  // namespace edgetwin::calibrate
