#include "sim/config/physical_range.hpp"

#include <array>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace edgetwin {
namespace {

// Bounds are orders of magnitude beyond the catalogue (docs/reference/catalogue.md): the tightest is the
// dataset size, whose sample order the simulator keeps in memory (8 bytes a sample).
constexpr std::array kRanges{
    PhysicalRange{"Hz", 1e6, 1e10, "1 MHz", "10 GHz", "a clock an edge device runs at"},
    PhysicalRange{"bytes", 1, 1e15, "1 byte", "1 PB", "a size a device or a dataset sample can have"},
    PhysicalRange{"bytes/s", 1e3, 1e12, "1 kB/s", "1 TB/s", "a bandwidth a memory or a storage medium reaches"},
    PhysicalRange{"bytes/sample", 1, 1e12, "1 byte", "1 TB", "per sample"},
    PhysicalRange{"W", 1e-6, 1e4, "1 uW", "10 kW", "the power of an edge device or one of its parts"},
    PhysicalRange{"J", 1e-6, 1e12, "1 uJ", "1 TJ", "the energy of an epoch"},
    PhysicalRange{"s", 1e-12, 1e8, "1 ps", "1e8 s (3 years)", "a duration the simulation can hold"},
    PhysicalRange{"s/sample", 1e-12, 1e3, "1 ps", "1000 s", "the CPU time of one sample"},
    PhysicalRange{"s/byte", 1e-15, 1e-3, "1 fs", "1 ms", "the CPU time of one byte handed over"},
    PhysicalRange{"times the compute curve's step", 1e-3, 1e3, "0.001", "1000", "a measured slowdown of a step"},
    PhysicalRange{"times the loader's time with the other cores idle", 1e-3, 1e3, "0.001", "1000", "a measured slowdown of loading"},
    PhysicalRange{"of a core", 1e-3, 1.0, "0.001", "1", "a share of one core"},
    PhysicalRange{"s/batch", 1e-12, 1e4, "1 ps", "10000 s", "the time of one batch"},
    PhysicalRange{"s per batch", 1e-9, 1e4, "1 ns", "10000 s", "the time of one training step"},
    PhysicalRange{"FLOP/cycle", 1e-3, 1e6, "0.001", "1e6", "the peak of an edge GPU per clock"},
    PhysicalRange{"FLOP/sample", 1, 1e16, "1", "1e16", "the work of one sample"},
    PhysicalRange{"kernels/step", 1, 1e6, "1", "1e6", "GPU kernels of one training step"},
    PhysicalRange{"operations/sample", 1, 1e16, "1", "1e16", "the work of one class of operation for one sample"},
    PhysicalRange{"operations/step", 1, 1e16, "1", "1e16", "the work of one class of operation once a step"},
    PhysicalRange{"bytes/step", 1, 1e15, "1 byte", "1 PB", "what one class of operation moves once a step"},
    PhysicalRange{"FLOP/cycle of one core", 1e-3, 1e4, "0.001", "1e4", "the peak of one CPU core per clock"},
    PhysicalRange{"accelerators", 1, 1024, "1", "1024", "the accelerators of one machine"},
    PhysicalRange{"cores", 1, 1024, "1", "1024", "the cores of an edge device"},
    PhysicalRange{"CPUs", 1, 1024, "1", "1024", "the CPUs of a machine"},
    PhysicalRange{"threads (0: every core)", 1, 1024, "1", "1024", "the threads of a step"},
    PhysicalRange{"samples", 1, 1e8, "1", "1e8", "the samples of a dataset edgetwin simulates"},
    PhysicalRange{"worker processes", 1, 1024, "1", "1024", "the DataLoader workers of a run"},
    PhysicalRange{"batches per worker", 1, 1024, "1", "1024", "a DataLoader's prefetch"},
    PhysicalRange{"tensors", 1, 1e6, "1", "1e6", "the tensors one batch holds"},
    PhysicalRange{"s/tensor", 1e-12, 1e3, "1 ps", "1000 s", "the CPU time of handing one tensor over"},
    PhysicalRange{"batches", 1, 1e9, "1", "1e9", "the batches of an epoch"},
    PhysicalRange{"nvpmodel id", 1, 1e6, "1", "1e6", "an nvpmodel mode number"},
    PhysicalRange{"parameters", 1, 1e13, "1", "1e13", "the parameters of a network"},
    PhysicalRange{"epochs", 1, 1000, "1", "1000", "the epochs of one run"},
    PhysicalRange{"runs", 1, 1000, "1", "1000", "the repeats of a configuration"},
    PhysicalRange{"repetitions", 1, 1e9, "1", "1e9", "the repetitions of a measurement (a trace's batches)"},
    PhysicalRange{"processes", 1, 1024, "1", "1024", "processes running at once"},
    PhysicalRange{"steps", 1, 1e9, "1", "1e9", "the training steps of one run"},
    PhysicalRange{"rounds", 1, 1e5, "1", "1e5", "the rounds of one federated plan"},
    PhysicalRange{"clients", 1, 1e7, "1", "1e7", "the clients of one federated round"},
    PhysicalRange{"updates", 1, 1e7, "1", "1e7", "the updates one buffered aggregation applies"},
    PhysicalRange{"tasks", 1, 1e7, "1", "1e7", "the tasks in flight in one federated fleet"},
    PhysicalRange{"devices", 1, 1e7, "1", "1e7", "the devices of one fleet group"},
    PhysicalRange{"deadlines", 1, 1e4, "1", "1e4", "the deadlines of a frontier"},
    PhysicalRange{"learning rate", 1e-9, 1e3, "1e-9", "1000", "an SGD step size"},
    PhysicalRange{"concentration", 1e-6, 1e6, "1e-6", "1e6", "a Dirichlet concentration"},
    PhysicalRange{"classes", 1, 1e5, "1", "1e5", "the classes of a data set"},
    PhysicalRange{"pixels", 1, 1e5, "1", "1e5", "the side of an image"},
    PhysicalRange{"test accuracy", 1e-9, 1, "1e-9", "1", "an accuracy"},
    PhysicalRange{"chance per round", 1e-9, 1, "1e-9", "1", "a probability"},
    PhysicalRange{"s/update", 1e-12, 1e4, "1 ps", "10000 s", "the server's time to aggregate one update"},
    PhysicalRange{"configurations", 1, 1e9, "1", "1e9", "the configurations of a sweep"},
    PhysicalRange{"work per cycle relative to host-x86-2core's core", 1e-3, 1e3, "0.001", "1000",
                  "a core's speed per clock against the reference host"},
    PhysicalRange{"share", 1e-9, 1, "1e-9", "1", "a share"},
    PhysicalRange{"share of peak FLOP/s", 1e-9, 1, "1e-9", "1", "a share"},
    PhysicalRange{"share of the roofline", 1e-9, 1, "1e-9", "1", "a share"},
    PhysicalRange{"share of the compute step that scales with the memory clock", 1e-9, 1, "1e-9", "1", "a share"},
    PhysicalRange{"of the dataset's page-cache footprint", 1e-9, 1, "1e-9", "1", "a share"},
    PhysicalRange{"exponent of f / f_max", 1e-3, 1e3, "0.001", "1000", "an exponent"},
    PhysicalRange{"", 0, HUGE_VAL, "", "", ""},
};

}  // namespace

const PhysicalRange& physical_range(std::string_view unit) {
  for (const PhysicalRange& range : kRanges)
    if (range.unit == unit) return range;
  throw std::logic_error(fmt::format("no physical range for the unit \"{}\" (sim/config/physical_range.cpp)", unit));
}

std::optional<std::string> outside_physical_range(double value, std::string_view unit) {
  const PhysicalRange& range = physical_range(unit);
  const double magnitude = std::abs(value);
  if (value == 0 || (magnitude >= range.smallest && magnitude <= range.largest)) return std::nullopt;
  if (magnitude > range.largest) return fmt::format("of at most {} ({})", range.largest_text, range.why);
  return fmt::format("of at least {} ({})", range.smallest_text, range.why);
}

}  // namespace edgetwin
