"""The handoff probe: a dataset whose samples cost no CPU to load, for what a DataLoader worker
process costs on this machine whatever the workload (the device's [worker_processes];
docs/explanation/import.md, *What belongs to the machine*).

A sample is a sleep that keeps the GIL, then a copy of one of 64 fixed tensors of 16 KB. The
worker thus falls behind the trainer (its batch of 16 takes 6.4-8 ms to load, the step about
6 ms on the 2-core VM) without taking a core from it, so that the trainer's receive, the
worker's send, the step's lengthening beside a worker and the CPU beside the critical path
show alone: not the contention for cores, which the step's scaling and share model, nor what a
workload's own loading does to them. `python3 -m edgetwin.profile --device-out` runs it at
batches of 4, 16 and 64 (64 KB to 1 MB a batch), and at 16 with two one-byte tensors more a
sample (WithExtraTensors), and writes those terms from it: the handoff per batch, per byte and
per tensor.

Why not the user's workload: its loading's CPU shares the cores with the step and the handoff,
and two batch sizes of one workload span too few bytes to fit a per-byte term. The step's
lengthening per byte from a JPEG workload's two short traces came out at 0 to 14.6 ns a byte
in three profiles of the same files; this probe's, 0 to 1.1 ns (docs/explanation/import.md,
*What belongs to the machine*). A spinning loader in place of the sleep lengthened the step at
batch 64 by 15-29 %: that is contention, which the probe is to leave out.

The sleep keeps the GIL because a real loader's Python (PIL, torchvision's transforms) holds it
nearly throughout, and the worker's queue feeder thread needs it to pickle the batch before:
with a sleep that lets the GIL go, the feeder ran in the sleeps and a worker handed a batch of 16
over in 0.4-0.9 ms beyond its loading; with the GIL kept, in 1.1-1.2 ms, as with a spinning
loader (1.5-1.9 ms) and as JPEG loaders did (1.1-1.5 ms; docs/explanation/import.md, *Why the
handoff rules hold*).
"""

import ctypes

import torch

SAMPLE_FLOATS = 4096          # 16 KB a sample in float32
LOAD_SLEEP_US = 400           # a sample's loading: a sleep, no CPU, with the GIL held
SAMPLES = 6000
BATCH_SIZES = (16, 4, 64)     # the first is the import's reference trace
# The tensors of the probe's batches with extra tensors: (input, label, two one-byte flags). Its
# runs at the reference batch size give the handoff's cost per tensor against the (input, label)
# batches: a batch of 16 from a worker took 0.46-0.61 ms longer to hand over with each one-byte
# tensor more on the 2-core VM (2026-12-07, docs/explanation/import.md).
EXTRA_TENSORS = 2


# A foreign call through PyDLL keeps the GIL (ctypes' CDLL would let it go).
sleep_keeping_the_gil = ctypes.PyDLL(None).usleep  # microseconds


class HandoffProbe(torch.utils.data.Dataset):
    def __init__(self, samples=SAMPLES):
        generator = torch.Generator().manual_seed(0)
        self.inputs = torch.randn(64, SAMPLE_FLOATS, generator=generator)
        self.samples = samples

    def __len__(self):
        return self.samples

    def __getitem__(self, index):
        sleep_keeping_the_gil(LOAD_SLEEP_US)
        return self.inputs[index % 64].clone(), index % 10


class WithExtraTensors(torch.utils.data.Dataset):
    """The probe's samples with EXTRA_TENSORS one-byte tensors more, as a dataset that returns a
    mask or a flag beside its input and label does."""

    def __init__(self, samples=SAMPLES):
        self.probe = HandoffProbe(samples)

    def __len__(self):
        return len(self.probe)

    def __getitem__(self, index):
        x, y = self.probe[index]
        return (x, y) + tuple(torch.tensor(k, dtype=torch.int8) for k in range(EXTRA_TENSORS))


def make_dataset():
    return HandoffProbe()


def make_dataset_with_extra_tensors():
    return WithExtraTensors()


def make_model():
    """A step of a few milliseconds at batch 16 on a CPU core, near the loading's 6.4 ms."""
    return torch.nn.Sequential(torch.nn.Linear(SAMPLE_FLOATS, 64), torch.nn.ReLU(), torch.nn.Linear(64, 10))
