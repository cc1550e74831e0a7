#!/usr/bin/env python3
"""What a DataLoader worker process spends on a batch beyond loading it, for loaders that hold
the GIL and one that lets it go: the measurement behind the send rule and the handoff probe's
sleep (docs/explanation/import.md, *Why the handoff rules hold*).

For each loader and batch size, a num_workers = 0 run and then a num_workers = 1 run whose
trainer only takes the batches, so that the worker is behind; prints L(b), the sequential run's
loading of a batch (median load_s), L_w, the worker's own (median load_s), the period between
batches in the worker's run, and the period less each of them.

    PYTHONPATH=build/python python3 scripts/measure-worker-handoff.py [--jpeg DIR] [--rounds 2]

Loaders: the handoff probe's sample (python/edgetwin/handoff_probe.py) with its sleep keeping
the GIL, with a sleep that lets it go, and spinning in Python for as long; with --jpeg, an
ImageFolder of DIR through Grayscale, Resize(32), CenterCrop(28) (`edgetwin-calibrate
make-dataset --format jpeg-folder` writes one). Keep the machine otherwise idle."""

import argparse
import statistics
import time

import torch
from torch.utils.data import DataLoader, RandomSampler

from edgetwin import handoff_probe
from edgetwin import trace


class SleepLettingTheGilGo(handoff_probe.HandoffProbe):
    def __getitem__(self, index):
        time.sleep(handoff_probe.LOAD_SLEEP_US * 1e-6)
        return self.inputs[index % 64].clone(), index % 10


class SpinHoldingTheGil(handoff_probe.HandoffProbe):
    def __getitem__(self, index):
        start = time.perf_counter()
        while time.perf_counter() - start < handoff_probe.LOAD_SLEEP_US * 1e-6:
            pass
        return self.inputs[index % 64].clone(), index % 10


def jpeg_folder(directory):
    import torchvision
    from torchvision import transforms
    transform = transforms.Compose([transforms.Grayscale(), transforms.Resize(32), transforms.CenterCrop(28),
                                    transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    return torchvision.datasets.ImageFolder(directory, transform)


def timed_run(dataset, workers, batch_size, batches):
    """Medians of load_s and of the time between batches, the first batch left out."""
    timed, collate = trace.timed_loading(dataset)
    loader = DataLoader(timed, batch_size=batch_size, sampler=RandomSampler(timed), num_workers=workers,
                        collate_fn=collate)
    loads, periods = [], []
    batches_left = iter(loader)
    next(batches_left)
    since = time.perf_counter()
    for _ in range(batches):
        batch = next(batches_left)
        now = time.perf_counter()
        periods.append(now - since)
        loads.append(batch.load_s)
        since = now
    del batches_left  # ends the worker before the next run
    return statistics.median(loads), statistics.median(periods)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--jpeg", help="a JPEG folder (class subdirectories) to load as well")
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--batches", type=int, default=60, help="timed batches a run")
    args = p.parse_args()
    torch.set_num_threads(1)
    loaders = [("probe, GIL kept", handoff_probe.make_dataset(), (4, 16, 64)),
               ("probe, GIL let go", SleepLettingTheGilGo(), (4, 16, 64)),
               ("probe, spinning", SpinHoldingTheGil(), (4, 16, 64))]
    if args.jpeg:
        loaders.append(("jpeg folder", jpeg_folder(args.jpeg), (16, 32)))
    print("round  loader             batch   L(b) ms   L_w ms  period ms  period-L_w  period-L(b)")
    for round_ in range(1, args.rounds + 1):
        for name, dataset, sizes in loaders:
            for size in sizes:
                sequential, _ = timed_run(dataset, 0, size, args.batches)
                own, period = timed_run(dataset, 1, size, args.batches)
                print(f"{round_:5d}  {name:17s} {size:6d} {sequential * 1e3:9.2f} {own * 1e3:8.2f} {period * 1e3:10.2f}"
                      f" {(period - own) * 1e3:11.2f} {(period - sequential) * 1e3:12.2f}", flush=True)


if __name__ == "__main__":
    main()
