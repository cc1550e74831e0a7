"""python3 -m edgetwin.profile: from a PyTorch dataset and model to a profile, in one command.

    python3 -m edgetwin.profile --dataset mymodule:make_dataset --model mymodule:make_model \\
        --batch-sizes 16,32 --device host-x86-2core --workload my.toml --out profile.toml
    python3 -m edgetwin.profile ... --device-out host.toml --workload-out my.toml --out profile.toml

runs every short run of docs/explanation/import.md's table "Which short runs a profile needs", the way the
table says, each in a fresh process with glibc's malloc thresholds fixed, then
`edgetwin-calibrate import` on their traces. One progress line per run with its wall time,
then a summary of what was measured and what was kept from the workload.

The plan (--quick: the first four, shorter):
  1. at each batch size, num_workers=0 over the files read once before (warm): the step and
     the loader's costs; the first batch size's trace is the longest (the reference);
  2. at each batch size, num_workers=1, persistent_workers=False: the handoff of a batch from
     a worker, the step's lengthening beside one, a worker's start-up;
  3. the step alone on 1..n intra-op threads beside 0..n spinning processes (step scaling);
  4. a batch loaded alone beside 0..n processes loading too (loader scaling);
  5. at each batch size, num_workers = the cores on one intra-op thread: the trainer's share of
     a core; then the same pinned to one CPU at the first batch size;
  6. a dataset of files (a `samples` list of (path, label), as torchvision's ImageFolder has):
     two epochs over its first samples, the files evicted first: what a miss costs;
  7. the placement probe (the import's --measure-placement; about 150 s on 2 cores);
  8. with --device-out, the handoff probe (python/edgetwin/handoff_probe.py): runs 1 and 2 on a
     dataset whose loading costs no CPU, at batches of 64 KB to 1 MB, and at batches with two
     tensors more, imported into the device.

--device-out FILE (instead of --device) first measures this host with `edgetwin-calibrate run
--write-device` (LeNet-5 on a small synthetic MNIST; the storage benchmark beside the dataset's
files) and profiles on the device file it writes, named after FILE: the profile's reference
clock is then the host's own. Its [worker_processes] holds what a worker process costs on this
machine: the handoff terms from the handoff probe (8), the step's share and the placement from
the workload's runs (5, 7). --workload-out FILE (instead of --workload) writes the workload,
named after FILE: the dataset's bytes measured from its files, [model] and [footprint] counted by
`edgetwin-calibrate census` on a TorchScript export of the model, [costs] the profile's
(python/edgetwin/workload_file.py).

Every trace records what other processes took of the CPUs (other_cpu_s), and the command watches
how fast the CPUs themselves ran during each run (calibrate/hardware/host_speed_monitor.hpp;
--no-host-watch leaves it out); the import refuses a disturbed run (docs/explanation/import.md, *A
disturbed run*), and the command measures such a run again, --retries times at most, before it
gives up with exit 2 naming the trace.

--dataset and --model name callables `module:function` (the module found from the current
directory, as `python3 -c` would): make_dataset() returns a torch Dataset of (input, label)
samples (anything after the label is handed over with the batch and left alone by the step),
or make_dataset(transform) with --transform module:function naming a callable that
returns the transform; make_model() returns the nn.Module. The step is SGD (lr 0.01, momentum
0.9) on cross-entropy, as edgetwin-calibrate's runs and validate's PyTorch runner train.

Kill-safe: every process it starts dies with it (PR_SET_PDEATHSIG, even on SIGKILL), SIGINT
and SIGTERM stop it with exit 130 and 143 after removing its traces, and what it writes (the
profile, the device and workload files) is made in a scratch directory and renamed into place
only at the end, each whole (a kill leaves none). Exit 2 for bad input (an option, a
callable that cannot be imported, a disturbed run measured again too often), 1 for a failure.
"""

import argparse
import csv
import ctypes
import datetime
import errno
import importlib
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib

import edgetwin
from edgetwin import workload_file

# glibc's thresholds fixed as validate/pytorch_train.py's settle_glibc_malloc fixes them: left
# dynamic, a process's step takes 5 or 12-17 ms at random (docs/explanation/import.md).
MALLOC_ENVIRONMENT = {"MALLOC_MMAP_THRESHOLD_": "33554432", "MALLOC_TRIM_THRESHOLD_": "67108864"}

# validate/pytorch_calibration.cpp's numbers: at most 1000 batches over the sequential traces
# (a median of a thousand batches is as steady as this machine gets), 20 at the other batch
# sizes, 100 with one worker and for the share; ~200 batches of 16 cold then warm.
FULL = dict(reference_batches=1000, other_batches=20, worker_batches=100, share_batches=100,
            cold_samples=3200, scaling_steps=20, loader_batches=20, loader_rounds=3)
QUICK = dict(reference_batches=100, other_batches=20, worker_batches=40, share_batches=0,
             cold_samples=0, scaling_steps=8, loader_batches=8, loader_rounds=1)


# How the command starts its own children: the first argument, then the run's spec as JSON.
CHILD_OPTION = "--run-one"


# The parts of the plan --skip leaves out, by the roles of their runs (placement: the import's probe).
SKIPPABLE = {"scaling", "share", "cold", "placement", "probe"}

# The host-speed watch's pace, as edgetwin-validate's (validate/validation_session.cpp): a probe
# on each CPU every half second, 0.2 % of a core.
HOST_PROBE_INTERVAL_S = 0.5


class UsageError(Exception):
    """Bad input: exit 2."""


class Terminated(Exception):
    def __init__(self, signal_number):
        super().__init__(signal.Signals(signal_number).name)
        self.signal_number = signal_number


def die_with_parent():
    """Linux kills this process when its parent dies (PR_SET_PDEATHSIG), even by SIGKILL."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)
    except (OSError, AttributeError):
        pass


# What a SIGKILL of this process would leave: removed by a janitor process once this one is gone,
# whatever the way. It waits on a pipe only this process holds open; the kernel closes it at
# this process's end, a SIGKILL's too, and the read returns.
JANITOR = """
import shutil, signal, sys
signal.signal(signal.SIGINT, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
sys.stdin.read()
for path in sys.argv[1:]:
    shutil.rmtree(path, ignore_errors=True)
"""


def start_janitor(paths):
    return subprocess.Popen([sys.executable, "-c", JANITOR, *paths], stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, start_new_session=True)


# ---- the runs, each in a child process -----------------------------------------------------------

def callable_named(text, option):
    module_name, _, function = text.partition(":")
    if not module_name or not function:
        raise UsageError(f"{option}: expected module:function, got {text!r}")
    try:
        module = importlib.import_module(module_name)
    except Exception as e:  # noqa: BLE001 - the user's module: any error is theirs to see
        raise UsageError(f"{option}: cannot import {module_name}: {type(e).__name__}: {e}") from e
    try:
        found = getattr(module, function)
    except AttributeError:
        raise UsageError(f"{option}: {module_name} has no {function}") from None
    if not callable(found):
        raise UsageError(f"{option}: {text} is not callable")
    return found


def files_of(dataset):
    """The files a dataset reads, one per sample in index order (torchvision's DatasetFolder
    `samples`), or None for a dataset held in memory."""
    samples = getattr(dataset, "samples", None)
    if isinstance(samples, list) and samples and isinstance(samples[0], (tuple, list)) \
            and isinstance(samples[0][0], (str, os.PathLike)):
        return [os.fspath(s[0]) for s in samples]
    return None


def spread_indices(count, wanted):
    """`wanted` indices spread over 0..count-1 (all of them when there are fewer)."""
    if wanted >= count:
        return list(range(count))
    return [i * count // wanted for i in range(wanted)]


def read_files(paths):
    for path in paths:
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass


def evict_files(paths):
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def worker_init(_worker_id):
    die_with_parent()


def run_child(spec):
    """One short run, as `spec` says; writes its trace to spec["path"]."""
    die_with_parent()
    if os.getppid() != spec["parent"]:
        return 1
    sys.path.insert(0, spec["cwd"])
    import torch
    from torch.utils.data import DataLoader, Subset
    from edgetwin import trace as edgetwin_trace

    make_dataset = callable_named(spec["dataset"], "--dataset")
    make_model = callable_named(spec["model"], "--model")
    transform = callable_named(spec["transform"], "--transform")() if spec["transform"] else None
    dataset = make_dataset(transform) if spec["transform"] else make_dataset()
    if spec["pin_cpu"] is not None:
        os.sched_setaffinity(0, {spec["pin_cpu"]})
    torch.manual_seed(0)
    if spec["threads"]:
        torch.set_num_threads(spec["threads"])
    device = torch.device(spec["torch_device"])
    model = make_model().to(device)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step(x, y):
        optimizer.zero_grad()
        loss_fn(model(x.to(device)), y.to(device)).backward()
        optimizer.step()

    indices = spread_indices(len(dataset), spec["samples"])
    subset = Subset(dataset, indices)
    files = files_of(dataset)
    if files is not None:
        chosen = [files[i] for i in indices]
        if spec["cold"]:
            evict_files(chosen)
        else:
            read_files(chosen)  # the loader's costs are the warm page cache's
    batch = spec["batch_size"]
    if spec["kind"] == "trace":
        workers = spec["workers"]
        # Each batch's loading timed where it ran (the trace's load_s): a worker's send is its
        # period less its own loading, not less the num_workers = 0 run's.
        timed, collate = edgetwin_trace.timed_loading(subset)
        loader = DataLoader(timed, batch_size=batch, shuffle=True, num_workers=workers, collate_fn=collate,
                            persistent_workers=False, worker_init_fn=worker_init if workers else None,
                            **({"prefetch_factor": 2} if workers else {}))
        with edgetwin_trace.Trace(spec["path"], device=spec["torch_device"]) as trace:
            for _ in range(spec["epochs"]):
                for batch in trace.epoch(loader):  # (input, label, anything the step leaves alone)
                    step(batch[0], batch[1])
    elif spec["kind"] == "step-scaling":
        x, y = next(iter(DataLoader(subset, batch_size=batch)))[:2]
        edgetwin_trace.measure_step_scaling(step, (x, y), spec["path"], steps=spec["steps"])
    else:  # loader-scaling
        loader = DataLoader(subset, batch_size=batch, shuffle=True)
        state = {"it": iter(loader)}

        def load():
            try:
                return next(state["it"])
            except StopIteration:
                state["it"] = iter(loader)
                return next(state["it"])
        edgetwin_trace.measure_loader_scaling(load, spec["path"], batches=spec["steps"],
                                              rounds=spec["rounds"])
    return 0


# ---- the plan ----------------------------------------------------------------------------------

class Run:
    def __init__(self, name, role, **spec):
        self.name = name      # the trace's file name, without .csv
        self.role = role      # trace | share | cold: how the import reads it
        self.spec = dict(kind="trace", workers=0, epochs=1, threads=0, pin_cpu=None, cold=False,
                         steps=0, rounds=1)
        self.spec.update(spec)
        self.part = "scaling" if self.spec["kind"] != "trace" else role  # what --skip names it by

    def describe(self):
        s = self.spec
        if s["kind"] != "trace":
            return f"{s['kind']} at batch {s['batch_size']}"
        what = {"trace": f"num_workers={s['workers']}", "share": f"the step's share, {s['workers']} workers",
                "cold": "cold then warm"}[self.role]
        pinned = ", pinned to CPU 0" if s["pin_cpu"] is not None else ""
        return f"{what}{pinned}, batch {s['batch_size']}, {s['samples']} samples"


def cores():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def make_plan(batch_sizes, numbers, quick, files_dataset, dataset_samples):
    first = batch_sizes[0]
    plan = [Run(f"w0-b{first}", "trace", batch_size=first, samples=numbers["reference_batches"] * first)]
    plan += [Run(f"w0-b{b}", "trace", batch_size=b, samples=numbers["other_batches"] * b) for b in batch_sizes[1:]]
    plan += [Run(f"w1-b{b}", "trace", batch_size=b, workers=1, samples=numbers["worker_batches"] * b)
             for b in batch_sizes]
    scaling_samples = 64 * first
    plan.append(Run("scaling", "trace", kind="step-scaling", batch_size=first, samples=scaling_samples,
                    steps=numbers["scaling_steps"]))
    plan.append(Run("loader-scaling", "trace", kind="loader-scaling", batch_size=first, samples=scaling_samples,
                    steps=numbers["loader_batches"], rounds=numbers["loader_rounds"]))
    if not quick:
        plan += contention_runs(batch_sizes, numbers, files_dataset)
    for run in plan:  # what the runs read of a smaller dataset: all of it
        run.spec["samples"] = min(run.spec["samples"], dataset_samples)
    return plan


def contention_runs(batch_sizes, numbers, files_dataset):
    """The full plan's runs beyond the quick one's: the step's share, a miss's costs."""
    first = batch_sizes[0]
    n = cores()
    plan = []
    plan += [Run(f"share-w{n}-b{b}", "share", batch_size=b, workers=n, threads=1,
                 samples=numbers["share_batches"] * b) for b in batch_sizes]
    plan.append(Run(f"share-w{n}-b{first}-1core", "share", batch_size=first, workers=n, threads=1, pin_cpu=0,
                    samples=numbers["share_batches"] * first))
    if files_dataset:
        plan.append(Run(f"cold-then-warm-b{first}", "cold", batch_size=first, epochs=2, cold=True,
                        samples=numbers["cold_samples"]))
    return plan


# ---- the parent --------------------------------------------------------------------------------

def say(text):
    sys.stderr.write(f"edgetwin.profile: {text}\n")
    sys.stderr.flush()


class Children:
    """The one child running now; killed on the way out, whatever the way."""

    def __init__(self):
        self.process = None

    def run(self, command, env=None, cwd=None):
        self.process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        text=True, preexec_fn=die_with_parent)
        out, err = self.process.communicate()
        code = self.process.returncode
        self.process = None
        return code, out, err

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


def device_name_and_clocks(device):
    """The device file's name and its CPU and GPU clocks (Hz; GPU 0 without one): the clocks the
    traces are taken at, so that the profile and the device agree (costs.reference_*_freq_hz)."""
    loaded = edgetwin.load_device(device)
    return loaded.name, float(loaded.spec["cpu"]["freq_hz"]), float(loaded.spec.get("gpu", {}).get("freq_hz", 0.0))


class HostWatch:
    """How fast the CPUs ran during each run: calibrate's host-speed watch
    (calibrate/hardware/host_speed_monitor.hpp) in this process, its probes and the runs' spans
    handed to the import (--host-probes, --host-runs), which refuses a run the CPUs ran slow
    through as disturbed (calibrate/import/host_watch_check.hpp); such a run is then measured
    again like any other disturbed one."""

    def __init__(self, monitor, directory):
        self.monitor = monitor
        self.spans = {}  # trace path -> (from_s, to_s, cpus)
        self.probes_csv = os.path.join(directory, "host-probes.csv")
        self.runs_csv = os.path.join(directory, "host-runs.csv")

    @staticmethod
    def start(args, directory):
        """The watch over this command's runs; None with --no-host-watch or without the extension."""
        if args.no_host_watch:
            return None
        try:
            cpus = sorted(os.sched_getaffinity(0))
            return HostWatch(edgetwin._native.HostSpeedMonitor(cpus, HOST_PROBE_INTERVAL_S), directory)
        except ImportError as e:
            say(f"the CPUs' speed is not watched during the runs: {e}")
            return None

    def now(self):
        """The watch's clock, for a run's start. Unlike edgetwin-validate, the command does not
        wait for CPUs that read fast before a run: on a VM where an idle CPU's probes read slow
        most of the time (session_slow_probe_rate, calibrate/hardware/host_speed_monitor.hpp),
        the wait would last its whole limit."""
        return self.monitor.now_s()

    def after_run(self, trace, start, cpus):
        self.spans[trace] = (start, self.monitor.now_s(), cpus)

    def import_options(self):
        return ["--host-probes", self.probes_csv, "--host-runs", self.runs_csv]

    def write(self):
        """The probes so far and every run's latest span, for the import's options: each import
        judges the runs of its own traces."""
        with open(self.probes_csv, "w") as f:
            f.write("at_s,cpu,seconds\n")
            f.writelines(f"{at!r},{cpu},{seconds!r}\n" for at, cpu, seconds in self.monitor.probes())
        with open(self.runs_csv, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(["trace", "from_s", "to_s", "cpus"])
            writer.writerows([trace, repr(start), repr(end), " ".join(map(str, cpus))]
                             for trace, (start, end, cpus) in self.spans.items())


def run_cpus(run):
    """The CPUs a run may use, as the watch judges it: its pinned CPU, or all (empty)."""
    return [run.spec["pin_cpu"]] if run.spec["pin_cpu"] is not None else []


def disturbed_traces(stderr):
    """The traces the import refused as disturbed, by path."""
    return {d.file for d in edgetwin._diagnostics_of(stderr) if "the run was disturbed" in d.message}


def import_command(args, plan, trace_dir, cpu_hz, gpu_hz, out):
    command = [edgetwin.program("edgetwin-calibrate"), "import", "--workload", args.workload, "--device",
               args.device, "--reference-cpu-freq-hz", repr(cpu_hz), "--reference-gpu-freq-hz", repr(gpu_hz),
               "--out", out]
    option = {"trace": "--trace", "share": "--share-trace", "cold": "--cold-then-warm-trace"}
    for run in plan:
        command += [option[run.role], os.path.join(trace_dir, run.name + ".csv")]
    if args.host is not None:
        command += args.host.import_options()
    if any(run.role == "cold" for run in plan) and args.storage_name:
        command += ["--storage-name", args.storage_name]
    if not args.quick and "placement" not in args.skip:
        command.append("--measure-placement")
    if args.device_out and any(run.spec.get("workers", 0) > 0 for run in plan):
        # What worker processes cost belongs to the machine: kept in its device file, where an
        # import of num_workers = 0 traces alone finds it (docs/explanation/import.md). The
        # handoff probe's import then replaces the handoff terms and keeps the share and placement.
        command += ["--device-out", args.device]
    return command


def import_with_retries(args, children, command, plan, trace_dir, measure):
    """Runs the import `command` over `plan`'s traces; a run it refuses as disturbed is measured
    again (`measure(run, label)`), --retries times at most. Returns its stderr."""
    command = command + (["--accept-disturbed"] if args.accept_disturbed else [])
    for attempt in range(args.retries + 1):
        last = attempt == args.retries
        label = "import" + (" and the placement probe" if "--measure-placement" in command else "")
        if args.host is not None:
            args.host.write()
        start = time.monotonic()
        code, _, err = children.run(command)
        say(f"{label}: {time.monotonic() - start:.1f} s")
        disturbed = disturbed_traces(err) if code == 2 else set()
        if code == 0 or not disturbed or last:
            break
        again = [run for run in plan if os.path.join(trace_dir, run.name + ".csv") in disturbed]
        say(f"disturbed: {', '.join(os.path.basename(p) for p in sorted(disturbed))}; measuring again "
            f"({attempt + 1} of {args.retries})")
        for run in again:
            measure(run, "[again]")
    for line in err.splitlines():
        if "warning:" in line:
            say(line)
    if code == 2:
        sys.stderr.write(err)
        raise UsageError("the import refused the runs" + (" (disturbed: measured again "
                                                          f"{args.retries} times)" if disturbed else ""))
    if code != 0:
        raise RuntimeError(f"edgetwin-calibrate import failed (exit {code}):\n{err.strip()}")
    return err


def parse_arguments(argv):
    p = argparse.ArgumentParser(prog="python3 -m edgetwin.profile",
                                description="Run the short runs a profile needs and import them (docs/explanation/import.md)")
    p.add_argument("--dataset", required=True, help="module:function returning the torch Dataset")
    p.add_argument("--model", required=True, help="module:function returning the nn.Module")
    p.add_argument("--transform", help="module:function returning the transform given to the dataset's function")
    p.add_argument("--batch-sizes", required=True, help="comma list, the first one the reference: 16,32")
    p.add_argument("--device", help="the device this machine is: a shipped name or a device file")
    p.add_argument("--device-out", metavar="FILE",
                   help="instead of --device: measure this host as `edgetwin-calibrate run --write-device` does, "
                        "write its device file (named after FILE: host.toml is device host) and profile on it")
    p.add_argument("--workload", help="the workload: a shipped name or a TOML file")
    p.add_argument("--workload-out", metavar="FILE",
                   help="instead of --workload: write the workload (named after FILE): dataset bytes measured from "
                        "its files, [model] and [footprint] counted by `edgetwin-calibrate census` on a TorchScript "
                        "export of the model, [costs] the profile's")
    p.add_argument("--out", required=True, help="the profile to write")
    p.add_argument("--quick", action="store_true",
                   help="shorter traces; no share traces, no cold-then-warm trace, no placement probe")
    p.add_argument("--keep-traces", metavar="DIR", help="write the traces into DIR and keep them")
    p.add_argument("--torch-device", default="cpu", help="where the model trains: cpu or cuda (default cpu)")
    p.add_argument("--storage-name", help="the medium the dataset's files are on, as the device file names it")
    p.add_argument("--skip", default="", metavar="PARTS",
                   help="leave parts of the plan out, a comma list of: scaling (steps 3-4), share (5), cold (6), "
                        "placement (7), probe (8, with --device-out); the import keeps the workload's values for "
                        "what they measure")
    p.add_argument("--retries", type=int, default=2, help="measure a disturbed run again at most this often (2)")
    p.add_argument("--accept-disturbed", action="store_true",
                   help="import disturbed runs with a warning instead of measuring them again")
    p.add_argument("--no-host-watch", action="store_true",
                   help="do not watch the CPUs' speed during the runs (a run the CPUs ran slow through is then "
                        "imported like any other)")
    args = p.parse_args(argv)
    args.command = "python3 -m edgetwin.profile " + shlex.join(argv)  # for the written files' provenance
    args.date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    try:
        args.batch_sizes = [int(b) for b in args.batch_sizes.split(",")]
    except ValueError:
        raise UsageError(f"--batch-sizes: expected whole numbers joined by commas, got {args.batch_sizes!r}") from None
    if not args.batch_sizes or any(b < 1 for b in args.batch_sizes) or len(set(args.batch_sizes)) != len(args.batch_sizes):
        raise UsageError(f"--batch-sizes: expected distinct whole numbers >= 1, got {args.batch_sizes}")
    args.skip = set(filter(None, args.skip.split(",")))
    if not args.skip <= SKIPPABLE:
        raise UsageError(f"--skip: expected some of {', '.join(sorted(SKIPPABLE))}, got "
                         f"{', '.join(sorted(args.skip - SKIPPABLE))}")
    if args.retries < 0:
        raise UsageError(f"--retries: expected a whole number >= 0, got {args.retries}")
    for given, written in (("--device", "--device-out"), ("--workload", "--workload-out")):
        has = [o for o in (given, written) if getattr(args, o[2:].replace("-", "_"))]
        if len(has) != 1:
            raise UsageError(f"{given} or {written}: expected one of them ({given} names an existing file, "
                             f"{written} writes one and uses it), got " + (" and ".join(has) or "neither"))
    outputs = {"--out": args.out, "--device-out": args.device_out, "--workload-out": args.workload_out}
    seen = {}
    for option, path in outputs.items():
        if path is None:
            continue
        if os.path.isdir(path):
            raise UsageError(f"{option}: {path} is a directory")
        if os.path.splitext(path)[1] != ".toml" and option != "--out":
            raise UsageError(f"{option}: expected a .toml file (its name is the {option[2:-4]}'s), got {path}")
        same = seen.setdefault(os.path.abspath(path), option)
        if same != option:
            raise UsageError(f"{option}: {path} is also {same}'s file")
    return args


def output_name(path):
    """The name a written file gives its device or workload: host.toml is host."""
    return os.path.splitext(os.path.basename(path))[0]


def publish(staged, target):
    """`staged` put at `target` whole: renamed there, or across file systems copied beside it
    first and then renamed, so that no reader ever sees part of it."""
    directory = os.path.dirname(os.path.abspath(target))
    os.makedirs(directory, exist_ok=True)
    try:
        os.replace(staged, target)
        return
    except OSError as e:
        if e.errno != errno.EXDEV:
            raise
    temporary = os.path.join(directory, f".{os.path.basename(target)}.{os.getpid()}.tmp")
    try:
        shutil.copyfile(staged, temporary)
        os.replace(temporary, target)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def checked_run(children, command, what, cwd=None):
    """One of edgetwin's programs, run as a child: exit 2 is the user's input (UsageError with its
    messages), any other failure RuntimeError."""
    code, out, err = children.run(command, cwd=cwd)
    if code == 2:
        raise UsageError(f"{what}:\n{err.strip()}")
    if code != 0:
        raise RuntimeError(f"{what} failed (exit {code}):\n{err.strip()}")
    return out, err


# The host run of --device-out: `edgetwin-calibrate run --write-device` as docs/how-to/calibrate-a-jetson.md
# runs it on a development machine, LeNet-5 on a small synthetic MNIST (its profile is thrown away:
# the device file is what it is for). 2,000 samples: what that how-to makes.
HOST_RUN_WORKLOAD = "lenet-mnist"
HOST_RUN_SAMPLES = 2000


def bench_directory(files, scratch):
    """Where the host run's storage benchmark writes its scratch file: beside the dataset's files
    (their file system is the one that matters), in a directory of its own outside the dataset's
    root (an ImageFolder would take a directory inside it for a class); else the scratch."""
    if files:
        try:
            return tempfile.mkdtemp(prefix=".edgetwin-profile-bench-", dir=os.path.dirname(os.path.commonpath(files)))
        except OSError:
            pass
    return tempfile.mkdtemp(prefix="bench-", dir=scratch)


def measure_host_device(args, children, scratch, files):
    """--device-out: the host's device file, written by `edgetwin-calibrate run --write-device`
    into the scratch directory. Returns its path."""
    calibrate = edgetwin.program("edgetwin-calibrate")
    name = output_name(args.device_out)
    data = os.path.join(scratch, "host-run-mnist")
    staged = os.path.join(scratch, "device.toml")
    start = time.monotonic()
    checked_run(children, [calibrate, "make-dataset", "--format", "mnist", "--samples", str(HOST_RUN_SAMPLES),
                           "--out", data], "edgetwin-calibrate make-dataset")
    bench = bench_directory(files, scratch)
    try:
        command = [calibrate, "run", "--workload", HOST_RUN_WORKLOAD, "--dataset", data, "--device-name", name,
                   "--write-device", "--device-out", staged, "--out", os.path.join(scratch, "host-run-profile.toml"),
                   "--quiet", "--bench-dir", bench, "--torch-device", args.torch_device, "--retries", str(args.retries)]
        command += ["--quick"] if args.quick else []
        command += ["--storage-name", args.storage_name] if args.storage_name else []
        command += ["--accept-disturbed"] if args.accept_disturbed else []
        checked_run(children, command, "edgetwin-calibrate run --write-device")
    finally:
        children.kill()  # before its scratch file goes
        shutil.rmtree(bench, ignore_errors=True)
    say(f"device {name}: edgetwin-calibrate run --write-device{' --quick' if args.quick else ''} "
        f"({HOST_RUN_WORKLOAD} on {HOST_RUN_SAMPLES} synthetic samples): {time.monotonic() - start:.1f} s")
    return staged


def draft_workload(args, children, scratch, facts, model, example, device_name, cpu_hz, gpu_hz):
    """--workload-out: the workload with the dataset measured and the model counted by the census
    on a TorchScript export, its [costs] still placeholders (the import's to replace). Returns its path."""
    start = time.monotonic()
    name = output_name(args.workload_out)
    try:
        draft = workload_draft(args, children, os.path.join(scratch, "workload"), name, facts, model, example,
                               args.model, device_name, cpu_hz, gpu_hz)
    except WorkloadExportError as e:
        raise UsageError(f"--model: cannot export {args.model} with torch.jit.trace: {e}") from None
    say(f"workload {name}: {facts.samples} samples of {facts.sample_bytes:.6g} bytes "
        f"({facts.kind}), the model counted by edgetwin-calibrate census: {time.monotonic() - start:.1f} s")
    return draft


class WorkloadExportError(Exception):
    """torch.jit.trace could not export the model."""


def workload_draft(args, children, directory, name, facts, model, example, model_callable, device_name, cpu_hz,
                   gpu_hz):
    # In a directory of their own under the names they will have, so that the census's command in
    # the provenance reads as the shipped workloads' do: census --model NAME.pt --workload NAME.toml.
    os.makedirs(directory)
    try:
        workload_file.export_model(model, example, os.path.join(directory, name + ".pt"))
    except Exception as e:  # noqa: BLE001 - the user's model: any error is theirs to see
        raise WorkloadExportError(f"{type(e).__name__}: {e}") from e
    draft = os.path.join(directory, name + ".toml")
    with open(draft, "w") as f:
        f.write(workload_file.draft_text(name, type(model).__name__,
                                         sum(p.numel() for p in model.parameters() if p.requires_grad), facts,
                                         args.batch_sizes[0], device_name, cpu_hz, gpu_hz, args.command, args.date,
                                         model_callable))
    checked_run(children, workload_file.census_command(edgetwin.program("edgetwin-calibrate"), name, facts,
                                                       args.batch_sizes[0], args.torch_device),
                "edgetwin-calibrate census", cwd=directory)
    return draft


# The handoff probe of --device-out (python/edgetwin/handoff_probe.py): its runs, named apart
# from the workload's traces, and the workload its import reads.
PROBE_MODULE = "edgetwin.handoff_probe"
PROBE_WORKLOAD = "handoff-probe"
PROBE_ROUNDS = 3
PROBE_BATCHES = 100  # each run's, fewer where the probe's 6,000 samples end first


def probe_plan(quick):
    """Each round: num_workers = 0 and 1 at each of the probe's batch sizes, then at the first one
    with the extra tensors (`-t` runs). The import pools the rounds' rows, since one round's terms
    scatter (the send 0.5-1.6 ms, the step's lengthening 0-1.1 ns a byte over three single rounds
    on the 2-core VM; docs/explanation/import.md)."""
    from edgetwin import handoff_probe  # torch, imported where a run needs it
    plan = []
    for round_number in range(1, (1 if quick else PROBE_ROUNDS) + 1):
        for workers in (0, 1):
            plan += [Run(f"probe-r{round_number}-w{workers}-b{b}", "trace", batch_size=b, workers=workers,
                         samples=min(PROBE_BATCHES * b, handoff_probe.SAMPLES))
                     for b in handoff_probe.BATCH_SIZES]
        first = handoff_probe.BATCH_SIZES[0]
        plan += [Run(f"probe-r{round_number}-w{workers}-b{first}-t", "trace", batch_size=first, workers=workers,
                     samples=min(PROBE_BATCHES * first, handoff_probe.SAMPLES)) for workers in (0, 1)]
    return plan


def probe_code(run):
    """The callables a probe run trains with: the `-t` runs' dataset has the extra tensors."""
    dataset = "make_dataset_with_extra_tensors" if run.name.endswith("-t") else "make_dataset"
    return dict(dataset=f"{PROBE_MODULE}:{dataset}", model=f"{PROBE_MODULE}:make_model", transform=None)


def measure_handoff_probe(args, children, scratch, trace_dir, cpu_hz, gpu_hz, measure):
    """--device-out: the handoff probe's runs and their import into the staged device file, which
    then holds the probe's handoff terms and keeps the workload's share and placement."""
    import torch
    from edgetwin import handoff_probe
    dataset, model = handoff_probe.make_dataset(), handoff_probe.make_model()
    facts = workload_file.DatasetFacts(dataset, None, f"{PROBE_MODULE}:make_dataset")
    example = torch.stack([dataset[i][0] for i in range(2)])
    probe_args = argparse.Namespace(**vars(args))
    probe_args.batch_sizes = list(handoff_probe.BATCH_SIZES)
    probe_args.workload = workload_draft(probe_args, children, os.path.join(scratch, "probe-workload"),
                                         PROBE_WORKLOAD, facts, model, example, f"{PROBE_MODULE}:make_model",
                                         args.device_name, cpu_hz, gpu_hz)
    probe_args.skip = args.skip | {"placement"}  # the workload's own placement stays in the device
    plan = probe_plan(args.quick)

    def measure_probe(run, label):
        measure(run, label, code=probe_code(run))
    for i, run in enumerate(plan):
        measure_probe(run, f"[probe {i + 1}/{len(plan)}]")
    command = import_command(probe_args, plan, trace_dir, cpu_hz, gpu_hz, os.path.join(scratch, "probe-profile.toml"))
    import_with_retries(probe_args, children, command, plan, trace_dir, measure_probe)


def profile(args, children):
    if args.device:
        try:
            args.device_name, cpu_hz, gpu_hz = device_name_and_clocks(args.device)
        except edgetwin.InputError as e:
            raise UsageError(f"--device: {e}") from None
    numbers = QUICK if args.quick else FULL
    sys.path.insert(0, os.getcwd())
    dataset = model = None
    try:  # whether the dataset is one of files: the plan's cold-then-warm run needs their paths
        transform = callable_named(args.transform, "--transform")() if args.transform else None
        make = callable_named(args.dataset, "--dataset")
        dataset = make(transform) if args.transform else make()
        make_model = callable_named(args.model, "--model")
        files = files_of(dataset)
        if args.workload_out:
            try:
                facts = workload_file.DatasetFacts(dataset, files, f"--dataset {args.dataset}")
            except ValueError as e:
                raise UsageError(str(e)) from None
            import torch
            example = torch.stack([dataset[i][0] for i in range(min(2, len(dataset)))])
            model = make_model()
    finally:
        sys.path.pop(0)
    plan = [run for run in make_plan(args.batch_sizes, numbers, args.quick, files is not None, len(dataset))
            if run.part not in args.skip]
    del dataset
    trace_dir = args.keep_traces or tempfile.mkdtemp(prefix="edgetwin-profile-")
    os.makedirs(trace_dir, exist_ok=True)
    # What the command writes is made here and published (renamed into place) only at the end.
    scratch = tempfile.mkdtemp(prefix="edgetwin-profile-out-") if args.keep_traces else os.path.join(trace_dir, "out")
    os.makedirs(scratch, exist_ok=True)
    janitor = start_janitor([scratch] if args.keep_traces else [trace_dir])
    staged_profile = os.path.join(scratch, "profile.toml")
    env = dict(os.environ, **MALLOC_ENVIRONMENT)
    # The children import this package from where this process found it.
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH")) if p)
    timings = []
    try:
        args.host = HostWatch.start(args, trace_dir)  # its files kept with the traces, for an import by hand
        if args.device_out:
            staged_device = measure_host_device(args, children, scratch, files)
            args.device = staged_device  # the import's, by its file
            args.device_name, cpu_hz, gpu_hz = device_name_and_clocks(staged_device)
        if args.workload_out:
            args.workload = draft_workload(args, children, scratch, facts, model, example, args.device_name, cpu_hz,
                                           gpu_hz)
            del model

        user_code = dict(dataset=args.dataset, model=args.model, transform=args.transform)

        def measure(run, label, code=user_code):
            spec = dict(run.spec, path=os.path.join(trace_dir, run.name + ".csv"), cwd=os.getcwd(), parent=os.getpid(),
                        torch_device=args.torch_device, **code)
            watched_from = args.host.now() if args.host is not None else None
            start = time.monotonic()
            exit_code, _, err = children.run([sys.executable, "-m", "edgetwin.profile", CHILD_OPTION,
                                              json.dumps(spec)], env=env)
            seconds = time.monotonic() - start
            if args.host is not None:
                args.host.after_run(spec["path"], watched_from, run_cpus(run))
            if exit_code == 2:
                raise UsageError(err.strip().splitlines()[-1] if err.strip() else "bad input")
            if exit_code != 0:
                raise RuntimeError(f"{run.name} failed (exit {exit_code}):\n{err.strip()}")
            timings.append((run, seconds))
            say(f"{label} {run.name}: {run.describe()}: {seconds:.1f} s")

        for i, run in enumerate(plan):
            measure(run, f"[{i + 1}/{len(plan)}]")
        command = import_command(args, plan, trace_dir, cpu_hz, gpu_hz, staged_profile)
        import_with_retries(args, children, command, plan, trace_dir, measure)
        with open(staged_profile, "rb") as f:
            written = tomllib.load(f)
        outputs = [(staged_profile, args.out)]
        if args.device_out:
            if "probe" not in args.skip:
                measure_handoff_probe(args, children, scratch, trace_dir, cpu_hz, gpu_hz, measure)
            outputs.append((staged_device, args.device_out))
        if args.workload_out:
            with open(args.workload) as f:
                text = workload_file.with_costs(f.read(), written["costs"], written["provenance"]["costs"],
                                                os.path.basename(args.out))
            with open(args.workload, "w") as f:
                f.write(text)
            try:  # the simulator's own validator, as for a hand-written file
                edgetwin.load_workload(args.workload)
            except edgetwin.InputError as e:
                raise RuntimeError(f"the workload written is not one the simulator loads: {e}") from None
            outputs.append((args.workload, args.workload_out))
        for staged, target in outputs:
            publish(staged, target)
        summarise(args, timings, written)
    finally:
        children.kill()  # before its traces go
        args.host = None  # its thread stopped and joined
        if not args.keep_traces:
            shutil.rmtree(trace_dir, ignore_errors=True)
        shutil.rmtree(scratch, ignore_errors=True)
        janitor.stdin.close()
        janitor.wait()


HANDOFF_TERMS = ("receive_cpu_s_per_batch", "receive_cpu_s_per_byte", "send_cpu_s_per_batch",
                 "step_with_workers_s_per_batch", "step_with_workers_s_per_byte", "background_cpu_s_per_batch",
                 "worker_startup_cpu_s")


def summarise(args, timings, written):
    costs = written["costs"]
    source = written.get("provenance", {}).get("costs", {}).get("source", "")
    probe = [s for run, s in timings if run.name.startswith("probe-")]
    own = [s for run, s in timings if not run.name.startswith("probe-")]
    say(f"wrote {args.out}: {len(own)} runs in {sum(own):.1f} s" +
        (f" (and the handoff probe's {len(probe)} in {sum(probe):.1f} s)" if probe else ""))
    compute = costs.get("compute", {})
    for b, s in zip(compute.get("batch_size", []), compute.get("seconds", [])):
        say(f"  step at batch {b}: {s * 1e3:.3f} ms")
    for key in ("preprocess_cpu_s_per_sample", "receive_cpu_s_per_batch", "send_cpu_s_per_batch",
                "worker_startup_cpu_s", "step_with_workers_s_per_batch", "background_cpu_s_per_batch"):
        if key in costs:
            say(f"  {key} = {costs[key]:.6g}")
    for part in source.split("; "):
        if part.startswith(("from the logs", "kept from", "from device")):
            say(f"  {part}")
    if args.device_out:
        with open(args.device_out, "rb") as f:
            terms = tomllib.load(f).get("worker_processes", {})
        measured = ", ".join(k for k in terms if k != "reference_cpu_freq_hz") or "none"
        say(f"wrote {args.device_out}: device {args.device_name}, CPU clock {costs['reference_cpu_freq_hz'] / 1e9:.4g} "
            f"GHz (the profile's reference clock); what its worker processes cost ([worker_processes]): {measured}")
        for key in HANDOFF_TERMS:
            if key in terms:
                say(f"  {key} = {terms[key]:.6g}")
        if "probe" not in args.skip:
            say("  the handoff terms from the handoff probe; the step's share and the placement, where measured, "
                "from this workload's runs")
    if args.workload_out:
        say(f"wrote {args.workload_out}: workload {written['profile']['workload']}, its [costs] the profile's")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [CHILD_OPTION]:
        try:
            return run_child(json.loads(argv[1]))
        except UsageError as e:
            say(str(e))
            return 2
    try:
        args = parse_arguments(argv)
    except UsageError as e:
        say(str(e))
        return 2
    children = Children()

    def terminate(signal_number, _frame):
        raise Terminated(signal_number)
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, terminate)
    try:
        profile(args, children)
        return 0
    except Terminated as e:
        say(f"stopped by {e}")
        return 128 + e.signal_number
    except UsageError as e:
        say(str(e))
        return 2
    except Exception as e:  # noqa: BLE001 - reported, exit 1
        say(f"{type(e).__name__}: {e}")
        return 1
    finally:
        children.kill()


if __name__ == "__main__":
    sys.exit(main())
