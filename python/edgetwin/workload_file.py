"""The workload TOML that `python3 -m edgetwin.profile --workload-out FILE` writes.

Every group of numbers says where it came from (docs/reference/schema.md, *Provenance*):
  [dataset]    measured: the samples counted, the bytes of the files they read summed from
               the files on disk (os.stat), the input tensor's bytes counted from one sample;
  [model]      counted by `edgetwin-calibrate census` on a TorchScript export of the model
               (torch.jit.trace in train mode), at the reference batch size;
  [footprint]  the census's counted bytes; process_bytes and worker_bytes are estimates;
  [costs]      the profile's, measured by the same command and copied in after its import.

The file is made in two steps inside the command's scratch directory: `draft_text` writes
everything this side knows, with placeholders the census (model) and the import (costs)
replace; `with_costs` puts the profile's [costs] in. No placeholder survives into the file
the command publishes.
"""

import json
import os
import re
import resource

# An estimate, not a measurement: a forked DataLoader worker's own pages, as the shipped
# lenet-mnist and resnet18-cifar10 workloads guess it for a PyTorch process.
WORKER_BYTES_GUESS = 150.0e6

# What the import cannot tell apart in a PyTorch trace (docs/explanation/import.md, "How each
# cost is derived"): fetch and collate from preprocess_cpu_s_per_sample, the launches from the
# step. Left 0 in the draft, preprocess_cpu_s_per_sample and compute then hold them whole.
FOLDED = ("fetch_cpu_s_per_sample, collate_cpu_s_per_sample and launch_cpu_s_per_batch: folded into "
          "preprocess_cpu_s_per_sample and compute, which the traces measure whole, so")

# The draft's [costs] until the import's replace them (kept only where the import measures
# nothing, and then named in the profile's provenance as kept from an estimate).
PLACEHOLDER_COMPUTE_S = 1.0


class DatasetFacts:
    """What the dataset is, measured: samples, bytes per sample, layout, the input tensor."""

    def __init__(self, dataset, files, source_name):
        import torch
        self.samples = len(dataset)
        if self.samples < 1:
            raise ValueError(f"{source_name} returned an empty dataset")
        x = dataset[0][0]
        if not isinstance(x, torch.Tensor):
            raise ValueError(f"{source_name}: a sample's input is a {type(x).__name__}, not a tensor: give a "
                             "--transform that ends in ToTensor (the census needs its shape)")
        self.input_shape = list(x.shape)
        self.input_bytes = x.element_size() * x.nelement()
        self.input_dtype = str(x.dtype).removeprefix("torch.")
        kind = type(dataset).__name__
        if files is not None:
            sizes = {path: os.stat(path).st_size for path in set(files)}
            self.layout = "file_per_sample"
            self.sample_bytes = sum(sizes[path] for path in files) / len(files)
            self.total_bytes = sum(sizes.values())
            self.file_count = len(sizes)
            root = os.path.commonpath(list(sizes)) if sizes else ""
            self.name = f"{kind} of {self.file_count} files under {root}"
            self.kind = "measured"
            self.how = (f"{self.file_count} files, {self.total_bytes} bytes in all (their sizes on disk summed); "
                        f"sample_bytes = the mean size of the file each of the {self.samples} samples reads")
            return
        self.layout = "in_ram"
        self.file_count = 0
        held = bytes_held(getattr(dataset, "data", None), self.samples)
        if held is not None:
            self.total_bytes = held
            self.sample_bytes = self.total_bytes / self.samples
            self.kind = "measured"
            self.how = (f"held in memory: the dataset's `data` array, {self.total_bytes} bytes over "
                        f"{self.samples} samples")
        else:
            self.total_bytes = self.input_bytes * self.samples
            self.sample_bytes = float(self.input_bytes)
            self.kind = "estimate"
            self.how = ("held in memory with no files and no `data` array to measure: sample_bytes is an estimate, "
                        "the input tensor's bytes")
        self.name = f"{kind} in memory, {self.samples} samples"


def bytes_held(data, samples):
    """The bytes of an in-memory dataset's array of samples (torchvision's MNIST and CIFAR keep
    theirs in `data`: a tensor or a NumPy array, one row per sample), or None."""
    if data is None or not hasattr(data, "__len__") or len(data) != samples:
        return None
    if hasattr(data, "element_size") and hasattr(data, "nelement"):  # a tensor
        return data.element_size() * data.nelement()
    return int(data.nbytes) if hasattr(data, "nbytes") else None


def process_bytes_estimate():
    """The peak resident memory of this process (ru_maxrss, KiB on Linux) once it has imported
    torch and built the dataset and the model: an estimate of a trainer's runtime."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024.0


def export_model(model, example, path):
    """The model as TorchScript (torch.jit.trace in train mode, as it trains) for the census."""
    import torch
    model.train()
    traced = torch.jit.trace(model, example, check_trace=False)
    traced.save(path)


def toml_value(value):
    """A value tomllib read, written back as TOML (bare keys: the schema's are snake_case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # JSON's escapes are TOML's basic string's
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {type(value).__name__}")


def provenance_line(key, kind, source):
    return f"{key} = {{ kind = {toml_value(kind)}, source = {toml_value(source)} }}\n"


def draft_text(name, model_name, parameters, facts, batch_size, device_name, cpu_hz, gpu_hz, command, date,
               model_callable):
    """The workload before the census and the import: [model] and [costs] hold placeholders."""
    shape = " x ".join(str(d) for d in facts.input_shape)
    process_bytes = process_bytes_estimate()
    return (
        f"# Written by {command} ({date}).\n"
        "# [dataset] measured from the files; [model] and [footprint] counted by edgetwin-calibrate census on\n"
        f"# {name}.pt, {model_callable}() exported with torch.jit.trace; [costs] the profile's that the same\n"
        "# command measured.\n\n"
        "[workload]\n"
        f"name = {toml_value(name)}\n"
        f"description = {toml_value(f'{model_name} on {facts.name}')}\n\n"
        "[model]\n"
        f"name = {toml_value(model_name)}\n"
        f"parameters = {parameters}\n"
        "forward_flops_per_sample = 1\n"
        "training_flops_per_sample = 1\n"
        "memory_bytes_per_sample = 0\n"
        "kernels_per_step = 1\n\n"
        "[dataset]\n"
        f"name = {toml_value(facts.name)}\n"
        f"samples = {facts.samples}\n"
        f"sample_bytes = {facts.sample_bytes!r}\n"
        f"layout = {toml_value(facts.layout)}\n"
        f"input_bytes_per_sample = {facts.input_bytes}  # {facts.input_dtype} {shape} tensor, as the dataset gives a sample\n\n"
        "[loader]\n"
        f"batch_size = {batch_size}  # the profile's reference batch size\n"
        "workers = 0  # PyTorch DataLoader's default; edgetwin predict --workers N for others\n\n"
        "[costs]\n"
        f"device = {toml_value(device_name)}\n"
        f"reference_cpu_freq_hz = {cpu_hz!r}\n"
        f"reference_gpu_freq_hz = {gpu_hz!r}\n"
        "fetch_cpu_s_per_sample = 0.0\n"
        "preprocess_cpu_s_per_sample = 0.0\n"
        "collate_cpu_s_per_sample = 0.0\n"
        "launch_cpu_s_per_batch = 0.0\n"
        "worker_startup_cpu_s = 0.0\n"
        f"compute = {{ batch_size = [{batch_size}], seconds = [{PLACEHOLDER_COMPUTE_S!r}] }}\n\n"
        "[footprint]\n"
        f"process_bytes = {process_bytes!r}\n"
        "model_bytes = 0\n"
        "optimizer_bytes = 0\n"
        "activation_bytes_per_sample = 0\n"
        f"worker_bytes = {WORKER_BYTES_GUESS!r}\n\n"
        "[provenance]\n"
        + provenance_line("dataset", facts.kind, f"{command}, {date}: {facts.how}; input_bytes_per_sample counted "
                                                 "from the first sample's tensor")
        + provenance_line("model", "estimate", "placeholder until edgetwin-calibrate census counts the model")
        + provenance_line("costs", "estimate", f"{FOLDED} 0; the others placeholders until edgetwin-calibrate "
                                               "import measures them")
        + provenance_line("footprint", "estimate",
                          f"process_bytes: the peak resident memory of the profiling command's own Python process "
                          f"(python3 -m edgetwin.profile) once it had imported torch and built the dataset and model "
                          f"(ru_maxrss, {date}), an estimate of the "
                          "trainer's runtime; worker_bytes: guessed for a forked PyTorch DataLoader worker, as the "
                          "shipped lenet-mnist guesses it; not measured")
    )


def census_command(program, name, facts, batch_size, torch_device):
    """`edgetwin-calibrate census` counting the exported model NAME.pt into the draft NAME.toml's
    [model] and [footprint] (run where both are); the census loads what it wrote back through
    the simulator before it renames it over the draft."""
    return [program, "census", "--model", name + ".pt", "--input", "x".join(str(d) for d in facts.input_shape),
            "--batch-size", str(batch_size), "--torch-device", torch_device, "--workload", name + ".toml",
            "--write-workload"]


_SECTION = re.compile(r"^\[(?P<name>[^\]]+)\]\s*(#.*)?$")


def with_costs(text, costs, provenance, profile_name):
    """`text` with its [costs] table and provenance.costs replaced by a profile's (read with
    tomllib), saying they were copied from it."""
    out = []
    section = ""
    for line in text.splitlines(keepends=True):
        header = _SECTION.match(line.strip())
        if header:
            section = header["name"]
            out.append(line)
            if section == "costs":
                out += [f"{key} = {toml_value(value)}\n" for key, value in costs.items()]
                out.append("\n")
            continue
        if section == "costs":
            continue
        if section == "provenance" and line.startswith("costs = "):
            line = provenance_line("costs", provenance["kind"], f"copied from the profile {profile_name}, made by the "
                                                                f"same command: {provenance['source']}; where "
                                                                f"kept from this workload, {FOLDED} 0")
        out.append(line)
    return "".join(out)
