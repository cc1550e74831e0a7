// Builds a Census from a traced training step (step_trace.hpp).
//
// Contract: every root call of the forward phase is counted with count_op (op_rules.hpp); a
// call without a rule is counted through the calls inside it, and a leaf call without a rule
// goes to Census::uncounted by name (an autograd node's own record with nothing inside, such
// as AddBackward0, does no work). A backward container goes to the layer whose forward call
// consumed its node's sequence number, AccumulateGrad to Census::accumulate. Saved bytes are
// the allocations alive when backward started, given to the layer whose call made them.
// Layer names come from the parameters a call reads (parameter_names: storage identity ->
// "conv1.weight"), parameters are counted where first read; the memory figures that need the
// live tensors (gradients, optimizer state, input batch) are the runner's to fill in.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "calibrate/census/census.hpp"
#include "calibrate/census/step_trace.hpp"

namespace edgetwin::calibrate {

struct CensusContext {
  std::string model;
  std::vector<std::int64_t> input_shape;
  int batch_size = 1;
  std::string optimizer;
  std::map<std::string, std::int64_t> parameter_sizes;  // trainable parameters by name (not buffers)
};

Census build_census(const StepTrace& trace, const CensusContext& context);

}  // namespace edgetwin::calibrate
