// A model census: per layer, the operations of one training step under each convention, the
// parameters, the working set (input and output activations and weights, as the lecture
// defines it) and the bytes kept for backward; then the loss, the optimizer's parts and the
// totals. Plain types: built by census_builder.hpp from a traced step, written by
// census_report.hpp, turned into [model] and [footprint] by census_tables.hpp.
//
// Contract: one layer is one call the model's forward made (consecutive calls on one
// module's parameters, such as a linear layer's transpose and product or a batch norm's
// counter and norm, are one layer); a layer that neither computes nor has a backward (a
// view such as flatten) is left out. Backward operations are the ops autograd ran for the
// layer's nodes, counted with the same rules: not assumed to be 2 x forward. Counts are for
// the whole batch of batch_size samples; *_per_sample divide by it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/config/op_class.hpp"

namespace edgetwin::calibrate {

// Operations and traffic of a group of op calls.
struct OpTally {
  double macs = 0;
  double bias_adds = 0;
  double other_ops = 0;
  double lecture = 0;           // pthflops' count of the ops it counts
  double kernels = 0;           // dispatched ops that compute or copy (views are free)
  double activation_bytes = 0;  // tensors read and written that are not parameters or buffers
  double weight_bytes = 0;      // parameters and buffers read

  double flops() const { return 2 * macs; }
  double ops() const { return 2 * macs + bias_adds + other_ops; }
  OpTally& operator+=(const OpTally& other);
};

struct CensusLayer {
  std::string name;  // the module its parameters belong to ("conv1", "layer1_0.bn1"), else kind + n ("relu3")
  std::string type;  // "Conv2d", "ReLU", "MaxPool2d"
  std::string op;    // the call it was counted from ("aten::conv2d")
  std::string onnx;  // the op name the lecture's table shows ("Conv")
  OpClass op_class = OpClass::elementwise;
  std::vector<std::int64_t> output_shape;
  std::int64_t parameters = 0;  // first use only: a shared weight counts once
  OpTally forward;
  OpTally backward;
  bool lecture_counts = false;  // the lecture's convention counts at least one of its ops
  double input_bytes = 0;
  double output_bytes = 0;
  double weight_bytes = 0;
  double saved_bytes = 0;  // allocated by its forward, still alive when backward starts
  double working_set_bytes() const { return input_bytes + output_bytes + weight_bytes; }
};

struct UncountedOp {
  std::string name;   // "aten::grid_sampler_2d"
  std::string where;  // the layer or part it was in
  int calls = 0;
  // No rule, but the calls inside it were counted: its own kernel, if it has one, is not.
  bool through_calls = false;
};

struct Census {
  std::string model;                      // for reports: "LeNet5", or the TorchScript class
  std::vector<std::int64_t> input_shape;  // one sample: {1, 28, 28}
  int batch_size = 1;
  std::string optimizer;  // "sgd-momentum", "sgd", "adam"
  std::vector<CensusLayer> layers;
  CensusLayer loss;
  OpTally zero_grad;
  OpTally accumulate;  // autograd adding each parameter's gradient into .grad
  OpTally update;      // the optimizer step
  std::int64_t parameters = 0;
  double parameter_bytes = 0;
  double buffer_bytes = 0;           // batch-norm running statistics and the like
  double gradient_bytes = 0;
  double optimizer_state_bytes = 0;  // momentum buffers, Adam's moments
  double input_batch_bytes = 0;      // the inputs and labels of the step
  double saved_bytes = 0;            // every layer's and the loss's saved_bytes
  double workspace_bytes = 0;        // the step's transient peak above what backward started with
  // Both at a second batch size (twice batch_size) give what grows with the batch and what
  // does not (weight gradients in flight, per-channel statistics): the memory model's terms.
  double saved_bytes_per_sample = 0;
  double saved_fixed_bytes = 0;
  double workspace_bytes_per_sample = 0;
  double workspace_fixed_bytes = 0;
  std::vector<UncountedOp> uncounted;
  // Types of layers that compute but that the lecture's convention counts as nothing, with
  // how many such layers there are ("Hardswish" -> 21).
  std::map<std::string, int> lecture_leaves_out;

  OpTally forward_total() const;    // the layers' forward, loss excluded
  OpTally backward_total() const;   // the layers' and the loss's backward
  OpTally step_total() const;       // everything: forward, loss, backward, zero_grad, accumulate, update
  double per_sample(double value) const { return value / batch_size; }
};

}  // namespace edgetwin::calibrate
