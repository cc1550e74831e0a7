#!/usr/bin/python3
"""One real training run in PyTorch, for `edgetwin-validate --runner pytorch`.

Trains `--epochs` epochs with torch.utils.data.DataLoader (process workers, prefetch_factor,
persistent_workers) over the files `edgetwin-calibrate make-dataset` writes, with the
transforms of calibrate/training/transform_factory.cpp, and writes:
  --trace CSV    one row per batch: epoch,batch,batch_size,fetch_s,compute_s,batch_bytes,
                 workers,prefetch_factor,threads,iter_s,fetch_cpu_s (calibrate/import reads it)
  --summary JSON per epoch: e2e_s (iterator creation to the end of the last step), stall_s
                 (sum of the waits for a batch), compute_s (sum of the steps), and the mincore
                 probes (file datasets), the fields of validate/real_run.hpp's MeasuredEpoch
Both appear whole or not at all (temp name + os.replace).

Exit codes: 0 done; 2 bad input (arguments, dataset, model); 3 torch or torchvision missing
from this interpreter; 1 anything else.

The trace is python/edgetwin_trace.py's Trace, the one a user's training script writes for
`edgetwin-calibrate import`; the summary's stall and compute are that trace's sums, so the
report and an import of the same run agree. With --step-scaling the script then times the step
alone beside busy cores (edgetwin_trace.measure_step_scaling) for the calibration's import.
"""

import argparse
import csv
import ctypes
import functools
import json
import mmap
import os
import sys
import time


class BadInput(Exception):
    """Input the user can fix: exit 2 with the message."""


FORMATS = ("mnist", "cifar10", "jpeg-folder")
# calibrate/training/model_names.cpp's canonical names (aliases resolved by edgetwin-validate).
MODELS = ("lenet5", "resnet18-cifar", "mobilenetv3-large")
PROBE_NONE = -1  # a sample that was not probed (dataset index not a multiple of probe_every)


def parse_arguments(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dataset", required=True, help="dataset directory")
    p.add_argument("--format", required=True, choices=FORMATS)
    p.add_argument("--model", required=True, help="built-in model name or TorchScript file .pt")
    p.add_argument("--batch-size", type=int, required=True)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--prefetch-factor", type=int, default=2)
    p.add_argument("--persistent-workers", type=int, choices=(0, 1), default=0)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--max-samples", type=int, default=0, help="use samples [0, N); 0 = all")
    p.add_argument("--max-batches-per-epoch", type=int, default=0, help="0 = all")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=1, help="torch.set_num_threads of the trainer")
    p.add_argument("--crop-size", type=int, default=224, help="jpeg-folder RandomResizedCrop side")
    p.add_argument("--probe-every", type=int, default=0, help="mincore-probe every Nth sample's file; 0 = none")
    p.add_argument("--trace", required=True, help="per-batch trace CSV to write")
    p.add_argument("--summary", required=True, help="per-epoch JSON summary to write")
    p.add_argument("--step-scaling", default="", help="also write edgetwin_trace.measure_step_scaling's CSV here")
    p.add_argument("--step-scaling-budget-s", type=float, default=10.0,
                   help="about how long the step-scaling measurement may take")
    p.add_argument("--loader-scaling", default="", help="also write edgetwin_trace.measure_loader_scaling's CSV here")
    a = p.parse_args(argv)
    for name in ("batch_size", "epochs", "threads", "crop_size", "prefetch_factor"):
        if getattr(a, name) < 1:
            raise BadInput(f"--{name.replace('_', '-')}: expected 1 or more, got {getattr(a, name)}")
    for name in ("workers", "max_samples", "max_batches_per_epoch", "probe_every"):
        if getattr(a, name) < 0:
            raise BadInput(f"--{name.replace('_', '-')}: expected 0 or more, got {getattr(a, name)}")
    if a.persistent_workers and a.workers == 0:
        raise BadInput("--persistent-workers: needs --workers > 0, as DataLoader requires")
    return a


# ---- residency probe (validate/residency_probe_dataset.hpp does the same in C++) ----------

class ResidencyProbe:
    """mincore over a whole file: True when every page is in the page cache (a read is a hit)."""

    def __init__(self):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.mmap.restype = ctypes.c_void_p
        self.libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                   ctypes.c_long)
        self.libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
        self.libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
        self.page = os.sysconf("SC_PAGE_SIZE")

    def resident(self, path):
        fd = os.open(path, os.O_RDONLY)
        try:
            size = os.fstat(fd).st_size
            if size == 0:
                return True
            addr = self.libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
            if addr in (None, ctypes.c_void_p(-1).value):
                raise OSError(ctypes.get_errno(), f"mmap of {path} failed")
            try:
                pages = (size + self.page - 1) // self.page
                vec = (ctypes.c_ubyte * pages)()
                if self.libc.mincore(addr, size, vec) != 0:
                    raise OSError(ctypes.get_errno(), f"mincore of {path} failed")
                return all(v & 1 for v in vec)
            finally:
                self.libc.munmap(addr, size)
        finally:
            os.close(fd)


class ProbedDataset:
    """Wraps a dataset: item i is (input, label, probe) with probe = 1 hit, 0 miss, -1 not probed.

    The probe runs in whichever process fetches the sample (a DataLoader worker), just before
    the file is read; the flags travel back inside the batch and are stripped before the step.
    """

    def __init__(self, inner, paths, probe_every):
        self.inner = inner
        self.paths = paths  # None for in-RAM formats: nothing to probe
        self.probe_every = probe_every
        self.probe = None

    def __len__(self):
        return len(self.inner)

    def __getitem__(self, index):
        flag = PROBE_NONE
        if self.paths is not None and self.probe_every > 0 and index % self.probe_every == 0:
            if self.probe is None:
                self.probe = ResidencyProbe()  # per process: ctypes handles are not forked state
            flag = 1 if self.probe.resident(self.paths[index]) else 0
        x, y = self.inner[index]
        return x, y, torch_int8(flag)


def torch_int8(flag):
    """One byte per sample, so the flags hardly change the batch's bytes; they are a tensor of
    their own, though, which a worker hands over as one more shared-memory file: the trace logs
    batch_tensors = 3, and the import moves the device's handoff terms by it (calibrate/import/machine_terms.hpp)."""
    import torch
    return torch.tensor(flag, dtype=torch.int8)


# ---- datasets ----------------------------------------------------------------------------

def mnist_dataset(directory, transform):
    """torchvision's MNIST on the two IDX files make-dataset writes (calibrate/datasets/mnist_idx.hpp).

    torchvision looks for root/MNIST/raw/ and the t10k files too; the subclass points raw_folder at
    the directory and checks only the training files it reads.
    """
    import torchvision

    class IdxFolderMnist(torchvision.datasets.MNIST):
        @property
        def raw_folder(self):
            return directory

        def _check_exists(self):
            return all(os.path.isfile(os.path.join(directory, f))
                       for f in ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"))

    if not IdxFolderMnist._check_exists(None):
        raise BadInput(f"{directory}: expected train-images-idx3-ubyte and train-labels-idx1-ubyte "
                       "(edgetwin-calibrate make-dataset --format mnist)")
    return IdxFolderMnist(directory, train=True, transform=transform, download=False), None


def cifar10_dataset(directory, transform):
    """torchvision's CIFAR10 sample path over the binary version make-dataset writes.

    torchvision reads the Python pickles (cifar-10-batches-py); make-dataset writes the binary
    records (calibrate/datasets/cifar10_binary.hpp: data_batch_1..5.bin, 1 label byte + 3 x
    32 x 32 CHW planes). The records become the HWC uint8 array and label list torchvision's
    CIFAR10 holds, and its own __getitem__ (Image.fromarray + transform) serves them.
    """
    import numpy as np
    import torchvision

    class BinaryCifar10(torchvision.datasets.CIFAR10):
        def __init__(self, root, transform):
            torchvision.datasets.VisionDataset.__init__(self, root, transform=transform)
            self.train = True
            records = []
            for k in range(1, 6):
                path = os.path.join(root, f"data_batch_{k}.bin")
                if not os.path.isfile(path):
                    raise BadInput(f"{path}: missing (edgetwin-calibrate make-dataset --format cifar10)")
                raw = np.fromfile(path, dtype=np.uint8)
                if raw.size % 3073 != 0:
                    raise BadInput(f"{path}: {raw.size} bytes is not a whole number of 3,073-byte records")
                records.append(raw.reshape(-1, 3073))
            table = np.concatenate(records)
            self.targets = table[:, 0].astype(np.int64).tolist()
            self.data = np.ascontiguousarray(table[:, 1:].reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
            self.classes = [str(c) for c in range(10)]

    return BinaryCifar10(directory, transform), None


class Cutout:
    """Zeroes one size x size square at a random centre, clipped at the border, as
    calibrate/training/augment_transform.cpp does after Normalize (torchvision has no Cutout)."""

    def __init__(self, size):
        self.half = size // 2

    def __call__(self, image):
        import torch
        side_y, side_x = image.shape[1], image.shape[2]
        cy = int(torch.randint(0, side_y, (1,)))
        cx = int(torch.randint(0, side_x, (1,)))
        y1, y2 = max(cy - self.half, 0), min(cy + self.half, side_y)
        x1, x2 = max(cx - self.half, 0), min(cx + self.half, side_x)
        image[:, y1:y2, x1:x2] = 0
        return image


def jpeg_folder_dataset(directory, crop_size):
    """torchvision's ImageFolder (PIL decode, convert("RGB")) with the stack of
    calibrate/training/augment_transform.cpp: RandomResizedCrop, flip, ToTensor, Normalize(0.5), Cutout(16)."""
    import torchvision
    from torchvision import transforms as T
    transform = T.Compose([T.RandomResizedCrop(crop_size), T.RandomHorizontalFlip(), T.ToTensor(),
                           T.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)), Cutout(16)])
    try:
        folder = torchvision.datasets.ImageFolder(directory, transform=transform)
    except (FileNotFoundError, RuntimeError) as e:
        raise BadInput(f"{directory}: {e}")
    return folder, [path for path, _ in folder.samples]


def open_dataset(args):
    from torchvision import transforms as T
    if not os.path.isdir(args.dataset):
        raise BadInput(f"--dataset: {args.dataset} is not a directory")
    if args.format == "mnist":
        return mnist_dataset(args.dataset, T.Compose([T.ToTensor(), T.Normalize((0.1307,), (0.3081,))]))
    if args.format == "cifar10":
        return cifar10_dataset(args.dataset, T.Compose(
            [T.ToTensor(), T.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010))]))
    return jpeg_folder_dataset(args.dataset, args.crop_size)


def class_count(dataset):
    classes = getattr(dataset, "classes", None)
    return len(classes) if classes else 10


# ---- models ------------------------------------------------------------------------------

def lenet5(classes):
    """calibrate/training/lenet5.cpp layer by layer."""
    import torch.nn as nn

    class LeNet5(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, padding=2)
            self.conv2 = nn.Conv2d(6, 16, 5)
            self.fc1 = nn.Linear(16 * 5 * 5, 120)
            self.fc2 = nn.Linear(120, 84)
            self.fc3 = nn.Linear(84, classes)

        def forward(self, x):
            import torch.nn.functional as F
            x = F.max_pool2d(F.relu(self.conv1(x)), 2)
            x = F.max_pool2d(F.relu(self.conv2(x)), 2)
            x = x.flatten(1)
            x = F.relu(self.fc1(x))
            x = F.relu(self.fc2(x))
            return self.fc3(x)

    return LeNet5()


def resnet18_cifar(classes):
    """torchvision's resnet18 with the CIFAR stem of calibrate/training/resnet18_cifar.cpp: 3x3
    stride-1 first conv, no max-pool (the adaptive average pool over 4 x 4 is its avg_pool(4))."""
    import torch.nn as nn
    import torchvision
    model = torchvision.models.resnet18(num_classes=classes)
    model.conv1 = nn.Conv2d(3, 64, 3, stride=1, padding=1, bias=False)
    model.maxpool = nn.Identity()
    return model


def make_model(name, classes):
    import torch
    import torchvision
    if name.endswith((".pt", ".pth")):  # as calibrate/app/workload_target.hpp tells TorchScript
        if not os.path.isfile(name):
            raise BadInput(f"--model: {name}: no such TorchScript file")
        return torch.jit.load(name)
    if name == "lenet5":
        return lenet5(classes)
    if name == "resnet18-cifar":
        return resnet18_cifar(classes)
    if name == "mobilenetv3-large":
        return torchvision.models.mobilenet_v3_large(num_classes=classes)
    raise BadInput(f"--model: unknown model \"{name}\"; valid: {', '.join(MODELS)} or a TorchScript file .pt")


# ---- the run -----------------------------------------------------------------------------

def die_with_parent(trainer_pid, _worker_id):
    """A DataLoader worker must not outlive the trainer when edgetwin-validate kills it (SIGKILL
    cannot be caught; PR_SET_PDEATHSIG = 1 makes the kernel send it on). A trainer killed
    between the worker's fork and this call sends nothing: the worker, already handed to
    another parent, ends itself (a SIGKILLed session left one behind that way)."""
    import signal
    ctypes.CDLL(None).prctl(1, int(signal.SIGKILL))
    if os.getppid() != trainer_pid:
        os._exit(1)


def make_loader(args, dataset, edgetwin_trace=None):
    """The run's DataLoader; given the trace module, each batch's loading is timed where it ran
    (the trace's load_s, by which the import tells whether the worker was behind)."""
    import torch
    from torch.utils.data import DataLoader, RandomSampler, Subset
    n = len(dataset) if args.max_samples == 0 else min(args.max_samples, len(dataset))
    if args.max_batches_per_epoch:
        # Fewer samples rather than a break: the trace leaves out the row of a batch the loop
        # breaks after (python/edgetwin_trace.py), and the epoch should end as epochs do.
        n = min(n, args.max_batches_per_epoch * args.batch_size)
    subset = Subset(dataset, range(n))
    generator = torch.Generator()
    generator.manual_seed(args.seed)
    extra = {}
    if args.workers > 0:
        extra = dict(prefetch_factor=args.prefetch_factor, persistent_workers=bool(args.persistent_workers),
                     worker_init_fn=functools.partial(die_with_parent, os.getpid()))
    if edgetwin_trace is not None:
        subset, extra["collate_fn"] = edgetwin_trace.timed_loading(subset)
    return DataLoader(subset, batch_size=args.batch_size, sampler=RandomSampler(subset, generator=generator),
                      num_workers=args.workers, drop_last=False, **extra)


def train_step(model, optimizer, x, y):
    import torch
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    loss.item()


def train_epoch(trace, loader, model, optimizer):
    """E2E from iterator creation (the trace's iter()) to the end of the last step, as
    calibrate/training's runner measures it; stall and compute come from the trace's rows."""
    clock = time.perf_counter
    start = clock()
    end_of_last_step = start
    probes = hits = 0
    for x, y, flags in trace.epoch(loader):
        train_step(model, optimizer, x, y)
        end_of_last_step = clock()
        probed = flags[flags >= 0]
        probes += int(probed.numel())
        hits += int(probed.sum())
    return {"e2e_s": end_of_last_step - start, "hit_probes": probes, "hits": hits}


def add_trace_sums(path, epochs):
    """Per epoch: stall = sum of fetch_s (the wait inside next()), compute = sum of compute_s."""
    sums = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            e = sums.setdefault(int(row["epoch"]), [0.0, 0.0, 0])
            e[0] += float(row["fetch_s"])
            e[1] += float(row["compute_s"])
            e[2] += 1
    for number, epoch in enumerate(epochs):
        stall, compute, batches = sums.get(number, (0.0, 0.0, 0))
        epoch.update({"epoch": number, "stall_s": stall, "compute_s": compute, "batches": batches})


def measure_step_scaling(edgetwin_trace, args, loader, model, optimizer):
    """The step alone on the run's own thread count beside 0..cores spinning processes, steps
    chosen to fit the budget (ResNet-18's step is ~1 s here, LeNet's a few ms). Other thread
    counts are left out: the runs use --threads, and a 2-thread step beside 2 busy cores took
    80x its time here (OpenMP barriers), 17 s of a LeNet calibration for a setting no run has."""
    x, y, _ = next(iter(loader))
    start = time.perf_counter()
    train_step(model, optimizer, x, y)
    step_s = max(time.perf_counter() - start, 1e-4)
    settings = len(os.sched_getaffinity(0)) + 1
    steps = max(3, min(20, int(args.step_scaling_budget_s / (settings * step_s))))
    edgetwin_trace.measure_step_scaling(lambda a, b: train_step(model, optimizer, a, b), (x, y), args.step_scaling,
                                        threads=[args.threads], steps=steps, warmup=1)


def measure_loader_scaling(edgetwin_trace, args, dataset):
    """A batch loaded by a sequential DataLoader over the run's samples, alone and beside
    1..cores processes loading the same way, as workers load beside each other; about 40 batches
    a setting over 3 interleaved rounds (LeNet's JPEG batch of 16 is ~7 ms here), fewer where a
    batch is slow."""
    sequential = make_loader(argparse.Namespace(**{**vars(args), "workers": 0}), dataset)
    state = {"batches": iter(sequential)}

    def load():
        try:
            x, y, _ = next(state["batches"])
        except StopIteration:
            state["batches"] = iter(sequential)
            x, y, _ = next(state["batches"])
        return x, y
    start = time.perf_counter()
    load()
    load_s = max(time.perf_counter() - start, 1e-4)
    settings = len(os.sched_getaffinity(0)) + 1
    rounds = 3
    batches = max(3, min(15, int(args.step_scaling_budget_s / (rounds * settings * load_s))))
    edgetwin_trace.measure_loader_scaling(load, args.loader_scaling, batches=batches, warmup=2, rounds=rounds)


def write_atomically(path, write):
    temporary = f"{path}.tmp-{os.getpid()}"
    try:
        with open(temporary, "w", newline="") as f:
            write(f)
        os.replace(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.remove(temporary)


def import_trace_module():
    """python/edgetwin_trace.py of the same source tree."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, os.pardir, "python"))
    import edgetwin_trace
    return edgetwin_trace


# glibc's mallopt parameters (malloc.h) and the values its dynamic mmap threshold settles at on
# 64-bit Linux (DEFAULT_MMAP_THRESHOLD_MAX, and twice that for trimming, as glibc sets them).
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
SETTLED_MMAP_THRESHOLD = 32 << 20


def settle_glibc_malloc():
    """Fixes glibc's mmap and trim thresholds at what its dynamic threshold settles at.

    Left dynamic, the threshold starts at 128 KiB and rises when a mapped block is freed, and
    whether a process's step buffers end up above or below it is a lottery per process: on the
    dev VM a LeNet step at batch 32 took 4.7-5.1 ms in every process with the thresholds fixed,
    and 5.0 or 12-17 ms, at random, without (the slow processes map and fault in their buffers
    at every step: 49-61 thousand minor faults against 36 thousand). The C++ programs fix the
    same threshold (calibrate/training/process_memory.cpp, use_repeatable_allocator;
    docs/explanation/validation.md, item 9). Forked DataLoader workers inherit
    the setting. A no-op where libc has no mallopt (not glibc)."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return
    mallopt(M_MMAP_THRESHOLD, SETTLED_MMAP_THRESHOLD)
    mallopt(M_TRIM_THRESHOLD, 2 * SETTLED_MMAP_THRESHOLD)


def run(args):
    settle_glibc_malloc()
    import torch
    import torchvision
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    inner, paths = open_dataset(args)
    dataset = ProbedDataset(inner, paths, args.probe_every)
    model = make_model(args.model, class_count(inner))
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)  # calibrate/training/run_spec.hpp
    edgetwin_trace = import_trace_module()
    loader = make_loader(args, dataset, edgetwin_trace)
    epochs = []
    with edgetwin_trace.Trace(args.trace, device="cpu") as trace:
        for _ in range(args.epochs):
            epochs.append(train_epoch(trace, loader, model, optimizer))
    add_trace_sums(args.trace, epochs)
    if args.step_scaling:
        measure_step_scaling(edgetwin_trace, args, make_loader(args, dataset), model, optimizer)
    if args.loader_scaling:
        measure_loader_scaling(edgetwin_trace, args, dataset)
    summary = {"tool": "pytorch_train.py", "torch_version": torch.__version__,
               "torchvision_version": torchvision.__version__, "threads": torch.get_num_threads(),
               "samples": len(loader.dataset), "epochs": epochs}
    write_atomically(args.summary, lambda f: json.dump(summary, f, indent=1))


def main(argv):
    try:
        args = parse_arguments(argv)
    except BadInput as e:
        print(f"pytorch_train.py: {e}", file=sys.stderr)
        return 2
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as e:
        print(f"pytorch_train.py: {sys.executable} has no torch/torchvision ({e}); install python3-torch and "
              "python3-torchvision (README) or give another interpreter", file=sys.stderr)
        return 3
    try:
        run(args)
    except BadInput as e:
        print(f"pytorch_train.py: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        if "shape" in str(e) or "size" in str(e) or "channels" in str(e):
            print(f"pytorch_train.py: --model {args.model} cannot train on {args.dataset}: {e}", file=sys.stderr)
            return 2
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
