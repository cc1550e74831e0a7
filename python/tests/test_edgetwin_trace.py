"""Tests of python/edgetwin_trace.py against the trace CSV of docs/explanation/import.md."""

import collections
import csv
import errno
import gc
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
import tomllib

import pytest
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset

import edgetwin_trace

HEADER = ["epoch", "batch", "batch_size", "fetch_s", "compute_s", "batch_bytes", "workers",
          "prefetch_factor", "threads", "iter_s", "fetch_cpu_s", "cpu_s", "step_cpu_s", "cores", "other_cpu_s",
          "load_s", "batch_tensors"]


def read_trace(path):
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        return header, [dict(zip(header, row)) for row in reader]


def mnist_like(samples):
    """`samples` float32 1x28x28 images with int64 labels, as torchvision's MNIST collates."""
    return TensorDataset(torch.zeros(samples, 1, 28, 28), torch.zeros(samples, dtype=torch.int64))


def expected_mnist_batch_bytes(batch_size):
    # float32 image 1*28*28*4 = 3136 bytes + int64 label 8 bytes per sample.
    return batch_size * (1 * 28 * 28 * 4 + 8)


def expected_batch_sizes(samples, batch_size, drop_last):
    full, rest = divmod(samples, batch_size)
    return [batch_size] * full + ([rest] if rest and not drop_last else [])


def run_epochs(path, loader, epochs=1, body=None, **trace_args):
    with edgetwin_trace.Trace(path, **trace_args) as trace:
        for _ in range(epochs):
            for batch in trace.epoch(loader):
                if body is not None:
                    body(batch)
    return read_trace(path)


class SleepyDataset(Dataset):
    """Each sample takes at least `sample_s` to produce."""

    def __init__(self, samples, sample_s):
        self.samples = samples
        self.sample_s = sample_s

    def __len__(self):
        return self.samples

    def __getitem__(self, index):
        time.sleep(self.sample_s)
        return torch.zeros(4), index


class FileDataset(Dataset):
    """Reads one file per sample through the module's timed reads."""

    def __init__(self, paths, read_s):
        self.paths = paths
        self.read_s = read_s

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        data = edgetwin_trace.read_bytes(self.paths[index])
        with edgetwin_trace.timed_read():
            time.sleep(self.read_s)  # a slow medium, so io_s has a lower bound to check
        return torch.tensor(list(data), dtype=torch.uint8), index


class FailingDataset(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        if index == 5:
            raise RuntimeError("bad sample 5")
        return torch.zeros(2)


WORKER_INIT_S = 0.3


def slow_worker_init(worker_id):
    time.sleep(WORKER_INIT_S)


# --- rows, sizes and bytes -------------------------------------------------------------

def test_rows_batch_sizes_and_bytes_of_a_partial_last_batch(tmp_path):
    header, rows = run_epochs(tmp_path / "t.csv", DataLoader(mnist_like(70), batch_size=16))
    assert header == HEADER
    sizes = expected_batch_sizes(70, 16, drop_last=False)
    assert sizes == [16, 16, 16, 16, 6]
    assert [int(r["batch_size"]) for r in rows] == sizes
    assert [int(r["batch"]) for r in rows] == [0, 1, 2, 3, 4]
    assert {r["epoch"] for r in rows} == {"0"}
    assert [int(r["batch_bytes"]) for r in rows] == [expected_mnist_batch_bytes(s) for s in sizes]
    assert int(rows[0]["batch_bytes"]) == 50304
    assert {r["batch_tensors"] for r in rows} == {"2"}  # the images and the labels
    assert {r["workers"] for r in rows} == {"0"}
    assert {r["prefetch_factor"] for r in rows} == {""}
    assert {r["threads"] for r in rows} == {str(torch.get_num_threads())}
    assert float(rows[0]["iter_s"]) >= 0
    assert [r["iter_s"] for r in rows[1:]] == [""] * 4
    for r in rows:
        assert float(r["fetch_s"]) >= 0 and float(r["compute_s"]) >= 0


def test_drop_last_leaves_the_partial_batch_out(tmp_path):
    _, rows = run_epochs(tmp_path / "t.csv",
                         DataLoader(mnist_like(70), batch_size=16, drop_last=True))
    assert [int(r["batch_size"]) for r in rows] == expected_batch_sizes(70, 16, True) == [16] * 4


def test_exact_multiple_has_no_short_batch(tmp_path):
    _, rows = run_epochs(tmp_path / "t.csv", DataLoader(mnist_like(64), batch_size=16))
    assert [int(r["batch_size"]) for r in rows] == [16] * 4


class DictDataset(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, index):
        return {"image": torch.zeros(3, 2, 2, dtype=torch.float16),
                "extra": (torch.zeros(5, dtype=torch.int32), "a name"),
                "label": index}


def test_nested_dict_batch_counts_every_tensor(tmp_path):
    _, rows = run_epochs(tmp_path / "t.csv", DataLoader(DictDataset(), batch_size=4))
    assert [int(r["batch_size"]) for r in rows] == [4, 4, 2]
    # per sample: float16 3*2*2*2 = 24 bytes, int32 5*4 = 20, int64 label 8; strings carry none
    assert [int(r["batch_bytes"]) for r in rows] == [4 * 52, 4 * 52, 2 * 52]
    # image, extra's int32 and the label: three tensors; the names are a list of strings
    assert {r["batch_tensors"] for r in rows} == {"3"}


def test_batch_without_tensors_is_refused(tmp_path):
    loader = DataLoader(["a", "b", "c"], batch_size=2)
    with pytest.raises(TypeError, match="no tensor"):
        run_epochs(tmp_path / "t.csv", loader)
    assert not os.path.exists(tmp_path / "t.csv")
    assert not os.path.exists(tmp_path / "t.csv.partial")


def test_numbers_keep_nine_significant_digits(tmp_path):
    _, rows = run_epochs(tmp_path / "t.csv", DataLoader(mnist_like(8), batch_size=4),
                         body=lambda batch: time.sleep(0.0123456))
    for r in rows:
        assert r["compute_s"] == format(float(r["compute_s"]), ".9g")
        assert float(r["compute_s"]) >= 0.0123456


# --- what fetch_s and compute_s measure -------------------------------------------------

def test_fetch_holds_the_loading_and_compute_the_loop_body(tmp_path):
    # Loading and the body take the same 100 ms, so time of either counted in the other
    # doubles it: medians under 200 ms say neither leaked.
    sample_s, batch_size, body_s = 0.025, 4, 0.1
    loader = DataLoader(SleepyDataset(16, sample_s), batch_size=batch_size)
    _, rows = run_epochs(tmp_path / "t.csv", loader, body=lambda batch: time.sleep(body_s))
    assert len(rows) == 4
    fetch = [float(r["fetch_s"]) for r in rows]
    compute = [float(r["compute_s"]) for r in rows]
    # w=0: next() runs __getitem__ batch_size times in this process.
    assert all(f >= batch_size * sample_s for f in fetch)
    assert all(c >= body_s for c in compute)
    assert statistics.median(fetch) < batch_size * sample_s + body_s
    assert statistics.median(compute) < body_s + batch_size * sample_s


class WorkingDataset(Dataset):
    """Each sample sleeps `sleep_s`, then keeps the CPU busy for `work_s`."""

    def __init__(self, n, sleep_s, work_s):
        self.n, self.sleep_s, self.work_s = n, sleep_s, work_s

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.sleep_s)
        end = time.thread_time() + self.work_s
        while time.thread_time() < end:
            pass
        return torch.zeros(1)


def test_fetch_cpu_s_is_the_work_inside_next_not_the_sleep(tmp_path):
    # w=0: each batch of 4 sleeps 4 x 30 ms and works 4 x 10 ms inside next().
    loader = DataLoader(WorkingDataset(12, 0.03, 0.01), batch_size=4)
    _, rows = run_epochs(tmp_path / "t.csv", loader)
    assert len(rows) == 3
    for r in rows:
        fetch, cpu = float(r["fetch_s"]), float(r["fetch_cpu_s"])
        assert cpu >= 4 * 0.01
        assert cpu < 4 * 0.01 + 0.02  # the sleeps are not in it
        assert fetch >= 4 * (0.03 + 0.01)


def test_step_cpu_s_is_the_loop_bodys_work_not_its_sleep(tmp_path):
    # The body works 20 ms and sleeps 30 ms per batch: compute_s holds both, step_cpu_s the work.
    def body(_):
        time.sleep(0.03)
        WorkingDataset(1, 0, 0.02)[0]
    loader = DataLoader(WorkingDataset(12, 0, 0.001), batch_size=4)
    _, rows = run_epochs(tmp_path / "t.csv", loader, body=body)
    assert len(rows) == 3
    for r in rows:
        step, cpu = float(r["compute_s"]), float(r["step_cpu_s"])
        assert step >= 0.05
        assert 0.02 <= cpu < 0.02 + 0.015


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="needs Linux CPU affinity")
def test_cores_is_the_cpus_the_process_may_use_when_the_epoch_starts(tmp_path):
    loader = DataLoader(WorkingDataset(8, 0, 0.001), batch_size=4)
    before = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {min(before)})
        _, rows = run_epochs(tmp_path / "t.csv", loader)
    finally:
        os.sched_setaffinity(0, before)
    assert [r["cores"] for r in rows] == ["1", "1"]
    _, rows = run_epochs(tmp_path / "u.csv", loader)
    assert {r["cores"] for r in rows} == {str(len(before))}


def test_other_cpu_s_is_the_machines_busy_time_less_the_runs(tmp_path):
    # The machine's busy CPU time over the rows (CPUs x wall, less /proc/stat's idle, I/O wait
    # time), less the rows' own cpu_s, is what the rows' other_cpu_s sum to, within the
    # counters' ticks.
    cpus = os.sysconf("SC_NPROCESSORS_ONLN")

    def idle():
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return (int(fields[4]) + int(fields[5])) / os.sysconf("SC_CLK_TCK")
    burn = lambda _: WorkingDataset(1, 0, 0.01)[0]
    idle_before, start = idle(), time.perf_counter()
    _, rows = run_epochs(tmp_path / "t.csv", DataLoader(WorkingDataset(120, 0.001, 0.002), batch_size=4), body=burn)
    wall, idle_after = time.perf_counter() - start, idle()
    other = sum(float(r["other_cpu_s"]) for r in rows)
    own = sum(float(r["cpu_s"]) for r in rows)
    busy = wall * cpus - (idle_after - idle_before)
    # The rows cover all but the trace's opening and closing: they can only miss busy time.
    assert other + own <= busy + 0.05
    assert other + own >= busy - 0.05 - 0.2 * wall * cpus


def test_cpu_s_adds_up_to_the_trainers_process_cpu_without_workers(tmp_path):
    # w=0: 3 batches of 4 samples, each working 10 ms and sleeping 5 ms inside next(); the loop
    # body works 20 ms more. The rows cover the epoch back to back, so their sum is the
    # process's CPU from just before iter() to the last row's reading.
    loader = DataLoader(WorkingDataset(12, 0.005, 0.01), batch_size=4)
    burn = lambda _: WorkingDataset(1, 0, 0.02)[0]
    before = time.process_time()
    _, rows = run_epochs(tmp_path / "t.csv", loader, body=burn)
    after = time.process_time()
    cpu = [float(r["cpu_s"]) for r in rows]
    assert all(c >= 4 * 0.01 + 0.02 for c in cpu)
    assert sum(cpu) <= after - before
    assert sum(cpu) >= 3 * (4 * 0.01 + 0.02)


def test_cpu_s_counts_the_worker_processes(tmp_path):
    # Two workers each burn 10 ms of CPU a sample in their own process: 16 samples, 160 ms
    # that the trainer's own clock never sees, and that the rows' sum must hold.
    loader = DataLoader(WorkingDataset(16, 0, 0.01), batch_size=4, num_workers=2)
    trainer_before = time.process_time()
    _, rows = run_epochs(tmp_path / "t.csv", loader)
    trainer_cpu = time.process_time() - trainer_before
    total = sum(float(r["cpu_s"]) for r in rows)
    assert total >= 16 * 0.01
    assert total - trainer_cpu >= 16 * 0.01 * 0.95  # the workers' part, not the trainer's
    assert total < 16 * 0.01 + trainer_cpu + 1.0  # bounded by what ran: no double counting


def test_cpu_s_of_persistent_workers_counts_each_epoch_once(tmp_path):
    loader = DataLoader(WorkingDataset(8, 0, 0.01), batch_size=4, num_workers=1, persistent_workers=True)
    _, rows = run_epochs(tmp_path / "t.csv", loader, epochs=2)
    by_epoch = collections.defaultdict(float)
    for r in rows:
        by_epoch[r["epoch"]] += float(r["cpu_s"])
    # Each epoch's worker burns 80 ms; the second epoch does not count the first's again.
    assert by_epoch["0"] >= 0.08 and by_epoch["1"] >= 0.08
    assert by_epoch["1"] < 0.08 + 0.5


def test_step_scaling_rows_have_no_fetch_cpu_column(tmp_path):
    edgetwin_trace.measure_step_scaling(linear_step(), (torch.zeros(4, 784), torch.zeros(4, dtype=torch.int64)),
                                        tmp_path / "s.csv", threads=[1], busy_cores=[0], steps=1, warmup=0)
    header = next(csv.reader(open(tmp_path / "s.csv", newline="")))
    assert header == HEADER[:9] + ["busy_cores", "iter_s"]


def test_cpu_device_leaves_the_batch_alone(tmp_path):
    images = torch.arange(8.0).reshape(8, 1)
    seen = []
    with edgetwin_trace.Trace(tmp_path / "t.csv", device="cpu") as trace:
        for x, y in trace.epoch(DataLoader(TensorDataset(images, images), batch_size=8)):
            seen.append(x)
    assert seen[0].device.type == "cpu"
    assert torch.equal(seen[0], images)


Pair = collections.namedtuple("Pair", "x y")


def test_move_rebuilds_containers_with_tensors_on_the_device():
    device = torch.device("meta")  # every build has it; only the placement is checked
    batch = {"a": (torch.zeros(2), [torch.ones(3), "s"]), "b": Pair(torch.zeros(1), 7)}
    moved = edgetwin_trace._move(batch, device)
    assert type(moved) is dict and list(moved) == ["a", "b"]
    assert type(moved["a"]) is tuple and type(moved["a"][1]) is list
    assert moved["a"][0].device == device and moved["a"][1][0].device == device
    assert moved["a"][1][1] == "s"
    assert type(moved["b"]) is Pair and moved["b"].x.device == device and moved["b"].y == 7


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no CUDA device")
def test_cuda_device_gets_the_batch_on_the_gpu(tmp_path):
    seen = []
    with edgetwin_trace.Trace(tmp_path / "t.csv", device="cuda") as trace:
        for x, y in trace.epoch(DataLoader(mnist_like(20), batch_size=8)):
            seen.append((x.device.type, y.device.type))
    assert seen == [("cuda", "cuda")] * 3
    _, rows = read_trace(tmp_path / "t.csv")
    assert [int(r["batch_bytes"]) for r in rows] == [expected_mnist_batch_bytes(s)
                                                     for s in (8, 8, 4)]


# --- epochs ---------------------------------------------------------------------------

def test_epochs_count_from_zero_and_restart_batches(tmp_path):
    _, rows = run_epochs(tmp_path / "t.csv", DataLoader(mnist_like(20), batch_size=8), epochs=2)
    assert [(r["epoch"], r["batch"]) for r in rows] == [
        ("0", "0"), ("0", "1"), ("0", "2"), ("1", "0"), ("1", "1"), ("1", "2")]
    assert [r["iter_s"] != "" for r in rows] == [True, False, False, True, False, False]


def test_explicit_epoch_numbers_and_the_default_after_them(tmp_path):
    loader = DataLoader(mnist_like(4), batch_size=4)
    with edgetwin_trace.Trace(tmp_path / "t.csv") as trace:
        for epoch in (3, 5):
            for _ in trace.epoch(loader, epoch=epoch):
                pass
        for _ in trace.epoch(loader):
            pass
        with pytest.raises(ValueError, match="epoch 5 is already"):
            trace.epoch(loader, epoch=5)
        for bad in (-1, 1.0, True, "2"):
            with pytest.raises(ValueError, match="whole number"):
                trace.epoch(loader, epoch=bad)
    _, rows = read_trace(tmp_path / "t.csv")
    assert [r["epoch"] for r in rows] == ["3", "5", "6"]


def test_break_keeps_the_finished_batches(tmp_path):
    loader = DataLoader(mnist_like(40), batch_size=8)
    with edgetwin_trace.Trace(tmp_path / "t.csv") as trace:
        for batch_index, _ in enumerate(trace.epoch(loader)):
            if batch_index == 2:
                break
        for _ in trace.epoch(loader):
            pass
    _, rows = read_trace(tmp_path / "t.csv")
    # batch 2's compute had no end the trace saw, so it has no row
    assert [(r["epoch"], r["batch"]) for r in rows] == [
        ("0", "0"), ("0", "1"), ("1", "0"), ("1", "1"), ("1", "2"), ("1", "3"), ("1", "4")]


def test_nested_epochs_are_refused(tmp_path):
    loader = DataLoader(mnist_like(8), batch_size=4)
    with edgetwin_trace.Trace(tmp_path / "t.csv") as trace:
        for _ in trace.epoch(loader):
            with pytest.raises(ValueError, match="has not finished"):
                trace.epoch(loader)
        for _ in trace.epoch(loader):  # allowed again once the first loop is over
            pass


# --- workers --------------------------------------------------------------------------

@pytest.mark.parametrize("workers,persistent", [(1, False), (2, False), (2, True)])
def test_worker_rows_and_where_their_start_up_shows(tmp_path, workers, persistent):
    loader = DataLoader(mnist_like(10), batch_size=4, num_workers=workers, prefetch_factor=3,
                        persistent_workers=persistent, worker_init_fn=slow_worker_init)
    _, rows = run_epochs(tmp_path / "t.csv", loader, epochs=2)
    assert [(r["epoch"], r["batch"], r["batch_size"]) for r in rows] == [
        ("0", "0", "4"), ("0", "1", "4"), ("0", "2", "2"),
        ("1", "0", "4"), ("1", "1", "4"), ("1", "2", "2")]
    assert {r["workers"] for r in rows} == {str(workers)}
    assert {r["prefetch_factor"] for r in rows} == {"3"}
    assert [int(r["batch_bytes"]) for r in rows] == [expected_mnist_batch_bytes(s)
                                                     for s in (4, 4, 2) * 2]
    first = [r for r in rows if r["batch"] == "0"]
    assert all(r["iter_s"] != "" for r in first)
    assert all(r["iter_s"] == "" for r in rows if r["batch"] != "0")
    # iter() launches the workers without waiting for worker_init_fn, which runs from the
    # launch on; batch 0 waits for the rest of it.
    start_up = [float(r["iter_s"]) + float(r["fetch_s"]) for r in first]
    assert all(float(r["iter_s"]) < WORKER_INIT_S for r in first)
    assert start_up[0] >= WORKER_INIT_S
    if persistent:
        assert start_up[1] < WORKER_INIT_S  # the same workers, already up
    else:
        assert start_up[1] >= WORKER_INIT_S  # new workers each epoch


# --- io_s -----------------------------------------------------------------------------

def test_io_s_sums_the_timed_reads_of_each_batch(tmp_path):
    paths = []
    for i in range(6):
        paths.append(tmp_path / f"sample{i}.bin")
        paths[-1].write_bytes(bytes(range(i, i + 3)))
    read_s, batch_size = 0.003, 4
    header, rows = run_epochs(tmp_path / "t.csv",
                              DataLoader(FileDataset(paths, read_s), batch_size=batch_size),
                              io=True)
    assert header == HEADER + ["io_s"]
    assert [int(r["batch_size"]) for r in rows] == [4, 2]
    for r in rows:
        io_s, fetch_s = float(r["io_s"]), float(r["fetch_s"])
        assert io_s >= int(r["batch_size"]) * read_s
        assert io_s <= fetch_s  # the reads happen inside the fetch


def test_io_s_is_empty_without_timed_reads(tmp_path):
    header, rows = run_epochs(tmp_path / "t.csv", DataLoader(mnist_like(8), batch_size=4),
                              io=True)
    assert header[-1] == "io_s"
    assert [r["io_s"] for r in rows] == ["", ""]


def test_io_s_with_workers_is_refused(tmp_path):
    loader = DataLoader(mnist_like(8), batch_size=4, num_workers=1)
    with pytest.raises(ValueError, match="num_workers=0"):
        run_epochs(tmp_path / "t.csv", loader, io=True)
    assert os.listdir(tmp_path) == []


def test_without_io_there_is_no_io_column(tmp_path):
    header, _ = run_epochs(tmp_path / "t.csv", DataLoader(mnist_like(4), batch_size=4))
    assert "io_s" not in header


# --- load_s ---------------------------------------------------------------------------

@pytest.mark.parametrize("workers", [0, 1])
def test_load_s_is_each_batchs_loading_where_it_ran(tmp_path, workers):
    sample_s, batch_size = 0.004, 4
    dataset, collate = edgetwin_trace.timed_loading(SleepyDataset(10, sample_s))
    batches = []
    _, rows = run_epochs(tmp_path / "t.csv", DataLoader(dataset, batch_size=batch_size, num_workers=workers,
                                                        collate_fn=collate),
                         body=batches.append)
    assert [int(r["batch_size"]) for r in rows] == [4, 4, 2]
    for r in rows:
        # Not finished before its samples' sleeps; and a batch loaded in the loop is inside its wait.
        assert float(r["load_s"]) >= int(r["batch_size"]) * sample_s
        if workers == 0:
            assert float(r["load_s"]) <= float(r["fetch_s"])
    # The loop gets the collated batch, not the timing's wrapper.
    assert all(isinstance(b, list) and isinstance(b[0], torch.Tensor) for b in batches)


def test_load_s_leaves_out_what_the_trainer_loaded_before_the_epoch(tmp_path):
    dataset, collate = edgetwin_trace.timed_loading(SleepyDataset(4, 0.05))
    dataset[0]  # the trainer looks at a sample first: 50 ms on no batch's account
    _, rows = run_epochs(tmp_path / "t.csv", DataLoader(dataset, batch_size=4, collate_fn=collate, num_workers=1))
    assert 4 * 0.05 <= float(rows[0]["load_s"]) < 5 * 0.05


def test_load_s_is_empty_without_timed_loading(tmp_path):
    header, rows = run_epochs(tmp_path / "t.csv", DataLoader(mnist_like(8), batch_size=4))
    assert header == HEADER
    assert [r["load_s"] for r in rows] == ["", ""]


def test_timed_loading_keeps_the_datasets_attributes_and_a_given_collate(tmp_path):
    inner = SleepyDataset(4, 0.0)
    dataset, collate = edgetwin_trace.timed_loading(inner, collate_fn=lambda samples: [torch.stack([x for x, _ in samples])])
    assert dataset.sample_s == 0.0 and len(dataset) == 4
    _, rows = run_epochs(tmp_path / "t.csv", DataLoader(dataset, batch_size=2, collate_fn=collate))
    assert [int(r["batch_size"]) for r in rows] == [2, 2]


# --- the file: complete or absent -------------------------------------------------------

def test_rows_stay_in_the_partial_file_until_close(tmp_path):
    path = tmp_path / "t.csv"
    trace = edgetwin_trace.Trace(path)
    for _ in trace.epoch(DataLoader(mnist_like(8), batch_size=4)):
        pass
    assert not path.exists()
    assert (tmp_path / "t.csv.partial").exists()
    trace.close()
    trace.close()
    assert path.exists() and not (tmp_path / "t.csv.partial").exists()
    assert len(read_trace(path)[1]) == 2
    with pytest.raises(ValueError, match="closed"):
        trace.epoch(DataLoader(mnist_like(8), batch_size=4))


def test_an_exception_in_the_loop_leaves_no_file(tmp_path):
    loader = DataLoader(mnist_like(20), batch_size=4)
    with pytest.raises(ZeroDivisionError):
        with edgetwin_trace.Trace(tmp_path / "t.csv") as trace:
            for _ in trace.epoch(loader):
                pass
            for batch_index, _ in enumerate(trace.epoch(loader)):
                if batch_index == 3:
                    1 / 0
    assert os.listdir(tmp_path) == []


def test_an_exception_in_the_dataset_leaves_no_file(tmp_path):
    with pytest.raises(RuntimeError, match="bad sample 5"):
        run_epochs(tmp_path / "t.csv", DataLoader(FailingDataset(), batch_size=2))
    assert os.listdir(tmp_path) == []


def test_a_trace_never_closed_removes_its_partial_file(tmp_path, capfd):
    trace = edgetwin_trace.Trace(tmp_path / "t.csv")
    for _ in trace.epoch(DataLoader(mnist_like(8), batch_size=4)):
        pass
    assert (tmp_path / "t.csv.partial").exists()
    del trace
    gc.collect()
    assert os.listdir(tmp_path) == []
    assert "t.csv was not closed" in capfd.readouterr().err


def test_an_existing_trace_is_replaced_only_on_close(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("old\n")
    with pytest.raises(KeyError):
        with edgetwin_trace.Trace(path) as trace:
            for _ in trace.epoch(DataLoader(mnist_like(4), batch_size=4)):
                raise KeyError("stop")
    assert path.read_text() == "old\n"
    run_epochs(path, DataLoader(mnist_like(4), batch_size=4))
    assert read_trace(path)[0] == HEADER


def test_a_write_error_names_the_file(tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full to run out of space on")
    os.symlink("/dev/full", tmp_path / "t.csv.partial")
    with pytest.raises(OSError) as error:
        run_epochs(tmp_path / "t.csv", DataLoader(mnist_like(4), batch_size=4))
    assert error.value.errno == errno.ENOSPC
    assert "t.csv.partial" in str(error.value)
    assert os.listdir(tmp_path) == []


def test_a_rename_error_names_both_files_and_keeps_the_rows(tmp_path):
    path = tmp_path / "t.csv"
    trace = edgetwin_trace.Trace(path)
    for _ in trace.epoch(DataLoader(mnist_like(4), batch_size=4)):
        pass
    path.mkdir()  # something took the name while training ran
    with pytest.raises(OSError, match="cannot rename .*t.csv.partial to .*t.csv"):
        trace.close()
    assert len(read_trace(tmp_path / "t.csv.partial")[1]) == 1


def test_an_unwritable_place_names_the_file(tmp_path):
    with pytest.raises(OSError, match="missing/t.csv.partial"):
        edgetwin_trace.Trace(tmp_path / "missing" / "t.csv")


# --- arguments ------------------------------------------------------------------------

@pytest.mark.parametrize("path,error,match", [
    ("", ValueError, "empty"),
    (3, TypeError, "str or path-like"),
    (None, TypeError, "str or path-like"),
])
def test_bad_paths_are_refused(path, error, match):
    with pytest.raises(error, match=match):
        edgetwin_trace.Trace(path)


def test_a_directory_path_is_refused(tmp_path):
    with pytest.raises(ValueError, match="is a directory"):
        edgetwin_trace.Trace(tmp_path)


@pytest.mark.parametrize("device,match", [("mps", "valid: cpu, cuda"),
                                          ("no-such-device", "not a torch device")])
def test_bad_devices_are_refused(tmp_path, device, match):
    with pytest.raises(ValueError, match=match):
        edgetwin_trace.Trace(tmp_path / "t.csv", device=device)
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(torch.cuda.is_available(), reason="CUDA is available here")
def test_cuda_without_cuda_is_refused(tmp_path):
    with pytest.raises(ValueError, match="CUDA is not available"):
        edgetwin_trace.Trace(tmp_path / "t.csv", device="cuda")


def test_bad_io_flag_is_refused(tmp_path):
    with pytest.raises(TypeError, match="io must be True or False"):
        edgetwin_trace.Trace(tmp_path / "t.csv", io="yes")


def test_a_loader_without_num_workers_is_refused(tmp_path):
    with edgetwin_trace.Trace(tmp_path / "t.csv") as trace:
        with pytest.raises(TypeError, match="expected a torch.utils.data.DataLoader"):
            trace.epoch([torch.zeros(2)])


# --- edgetwin-calibrate import reads what the module writes -----------------------------

def calibrate_binary():
    binary = os.environ.get("EDGETWIN_CALIBRATE")
    if not binary:
        pytest.skip("EDGETWIN_CALIBRATE is not set to the edgetwin-calibrate binary")
    return binary


def import_profile(tmp_path, *arguments):
    result = subprocess.run([calibrate_binary(), "import", "--workload", "lenet-mnist",
                             *arguments, "--out", str(tmp_path / "profile.toml")],
                            cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    with open(tmp_path / "profile.toml", "rb") as f:
        return tomllib.load(f)


def test_import_reads_a_sequential_trace(tmp_path):
    run_epochs(tmp_path / "w0.csv", DataLoader(mnist_like(70), batch_size=16), epochs=2)
    profile = import_profile(tmp_path, "--trace", "w0.csv", "--sequential")
    assert "costs" in profile
    assert profile["costs"]["compute"]["batch_size"] == [6, 16]
    assert profile["measurements"]["compute_s_bs16"]["repetitions"] == 8
    assert profile["measurements"]["compute_s_bs6"]["repetitions"] == 2


def test_import_reads_io_s_and_pools_a_worker_trace(tmp_path):
    paths = []
    for i in range(8):
        paths.append(tmp_path / f"sample{i}.bin")
        paths[-1].write_bytes(b"\0" * 16)
    run_epochs(tmp_path / "w0.csv", DataLoader(FileDataset(paths, 0.001), batch_size=4),
               io=True)
    profile = import_profile(tmp_path, "--trace", "w0.csv", "--sequential")
    assert profile["measurements"]["io_s_per_sample"]["median"] >= 0.001
    run_epochs(tmp_path / "w1.csv", DataLoader(mnist_like(8), batch_size=4, num_workers=1))
    profile = import_profile(tmp_path, "--trace", "w0.csv", "--trace", "w1.csv")
    assert profile["costs"]["compute"]["batch_size"] == [4]


# --- measure_step_scaling -----------------------------------------------------------------

def linear_step():
    model = torch.nn.Linear(784, 10)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)

    def step(x, y):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(model(x.flatten(1)), y).backward()
        optimizer.step()
    return step


def test_step_scaling_writes_a_row_per_timed_step_of_each_setting(tmp_path):
    before = torch.get_num_threads()
    batch = (torch.zeros(16, 1, 28, 28), torch.zeros(16, dtype=torch.int64))
    calls = []
    step = linear_step()

    def counted(x, y):
        calls.append(torch.get_num_threads())
        step(x, y)
    edgetwin_trace.measure_step_scaling(counted, batch, tmp_path / "s.csv", threads=[1, 2],
                                        busy_cores=[0, 1], steps=3, warmup=2)
    rows = list(csv.DictReader(open(tmp_path / "s.csv", newline="")))
    assert len(rows) == 2 * 2 * 3
    assert len(calls) == 2 * 2 * (3 + 2)  # warm-up steps run, untimed
    assert [(r["threads"], r["busy_cores"]) for r in rows[::3]] == [("1", "0"), ("1", "1"), ("2", "0"), ("2", "1")]
    assert {r["epoch"] for r in rows} == {"0", "1", "2", "3"}
    assert all(r["batch_bytes"] == str(expected_mnist_batch_bytes(16)) and r["workers"] == "0" for r in rows)
    assert all(float(r["compute_s"]) > 0 and float(r["fetch_s"]) == 0 for r in rows)
    assert calls[:5] == [1] * 5 and calls[-5:] == [2] * 5
    assert torch.get_num_threads() == before
    assert not (tmp_path / "s.csv.partial").exists()


def test_step_scaling_spinners_are_gone_afterwards(tmp_path):
    children_before = set(multiprocessing.active_children())
    edgetwin_trace.measure_step_scaling(linear_step(), (torch.zeros(4, 784), torch.zeros(4, dtype=torch.int64)),
                                        tmp_path / "s.csv", threads=[1], busy_cores=[2], steps=2, warmup=0)
    assert set(multiprocessing.active_children()) == children_before


def test_a_failing_step_leaves_no_scaling_file(tmp_path):
    def failing(x):
        raise RuntimeError("boom")
    with pytest.raises(RuntimeError, match="boom"):
        edgetwin_trace.measure_step_scaling(failing, torch.zeros(4, 3), tmp_path / "s.csv", threads=[1],
                                            busy_cores=[1], steps=1)
    assert not (tmp_path / "s.csv").exists() and not (tmp_path / "s.csv.partial").exists()


@pytest.mark.parametrize("arguments, match", [
    (dict(threads=[0]), "threads must be integers >= 1"),
    (dict(busy_cores=[-1]), "busy_cores must be integers >= 0"),
    (dict(threads=[]), "threads must be integers"),
    (dict(steps=0), "steps must be >= 1"),
])
def test_bad_scaling_arguments_are_refused(tmp_path, arguments, match):
    with pytest.raises(ValueError, match=match):
        edgetwin_trace.measure_step_scaling(linear_step(), torch.zeros(4, 784), tmp_path / "s.csv", **arguments)


def test_import_turns_a_scaling_file_into_step_factors(tmp_path):
    run_epochs(tmp_path / "w0.csv", DataLoader(mnist_like(64), batch_size=16), epochs=2)
    batch = (torch.zeros(16, 1, 28, 28), torch.zeros(16, dtype=torch.int64))
    edgetwin_trace.measure_step_scaling(linear_step(), batch, tmp_path / "s.csv", threads=[1],
                                        busy_cores=[0, 1], steps=5, warmup=1)
    profile = import_profile(tmp_path, "--trace", "w0.csv", "--trace", "s.csv")
    points = profile["costs"]["cpu_step_scaling"]
    assert [(p["threads"], p["busy_cores"], p["batch_size"]) for p in points] == [(1, 1, 16)]
    assert points[0]["factor"] > 0
    assert profile["costs"]["compute_threads"] == 1


def counting_load(counter):
    # No lock: a co-runner killed while holding one would leave the next load waiting for ever.
    def load():
        counter.value += 1
        return torch.zeros(8, 3, 4, 4), torch.zeros(8, dtype=torch.int64)
    return load


def test_loader_scaling_writes_a_row_per_timed_batch_of_each_setting(tmp_path):
    counter = multiprocessing.get_context("fork").Value("q", 0, lock=False)
    edgetwin_trace.measure_loader_scaling(counting_load(counter), tmp_path / "l.csv", busy_cores=[0, 1],
                                          batches=3, warmup=2, rounds=1)
    rows = list(csv.DictReader(open(tmp_path / "l.csv", newline="")))
    assert len(rows) == 2 * 3
    assert [r["busy_cores"] for r in rows] == ["0"] * 3 + ["1"] * 3
    assert [r["epoch"] for r in rows] == ["0"] * 3 + ["1"] * 3
    assert all(r["batch_size"] == "8" and r["batch_bytes"] == str(8 * 48 * 4 + 8 * 8) for r in rows)
    # compute_s 0 marks a load timed alone for edgetwin-calibrate import (docs/explanation/import.md)
    assert all(float(r["compute_s"]) == 0 and float(r["fetch_s"]) > 0 and float(r["fetch_cpu_s"]) >= 0 for r in rows)
    # this process loaded 2 x (3 + 2) batches; the busy process loaded more beside it
    assert counter.value > 2 * (3 + 2)  # (racy increments undercount, never overcount)
    assert not (tmp_path / "l.csv.partial").exists()


def test_loader_scaling_visits_the_settings_round_after_round(tmp_path):
    counter = multiprocessing.get_context("fork").Value("q", 0, lock=False)
    edgetwin_trace.measure_loader_scaling(counting_load(counter), tmp_path / "l.csv", busy_cores=[0, 1],
                                          batches=2, warmup=0, rounds=2)
    rows = list(csv.DictReader(open(tmp_path / "l.csv", newline="")))
    assert [(r["epoch"], r["busy_cores"]) for r in rows[::2]] == [("0", "0"), ("1", "1"), ("2", "0"), ("3", "1")]


def test_loader_scaling_co_runners_are_gone_afterwards(tmp_path):
    children_before = set(multiprocessing.active_children())
    counter = multiprocessing.get_context("fork").Value("q", 0, lock=False)
    edgetwin_trace.measure_loader_scaling(counting_load(counter), tmp_path / "l.csv", busy_cores=[2], batches=2,
                                          warmup=0)
    assert set(multiprocessing.active_children()) == children_before


def test_a_failing_load_leaves_no_loader_scaling_file(tmp_path):
    def failing():
        raise RuntimeError("boom")
    with pytest.raises(RuntimeError, match="boom"):
        edgetwin_trace.measure_loader_scaling(failing, tmp_path / "l.csv", busy_cores=[0], batches=1)
    assert not (tmp_path / "l.csv").exists() and not (tmp_path / "l.csv.partial").exists()


@pytest.mark.parametrize("arguments, match", [
    (dict(busy_cores=[-1]), "busy_cores must be integers >= 0"),
    (dict(busy_cores=[]), "busy_cores must be integers"),
    (dict(batches=0), "batches and rounds must be >= 1"),
    (dict(rounds=0), "batches and rounds must be >= 1"),
])
def test_bad_loader_scaling_arguments_are_refused(tmp_path, arguments, match):
    with pytest.raises(ValueError, match=match):
        edgetwin_trace.measure_loader_scaling(lambda: torch.zeros(2, 2), tmp_path / "l.csv", **arguments)


def test_a_load_that_never_returns_beside_the_timed_one_is_an_error(tmp_path, monkeypatch):
    parent = os.getpid()

    def load():
        while os.getpid() != parent:
            time.sleep(1)  # as a load would that waits on a lock the fork left held
        return torch.zeros(2, 2)
    monkeypatch.setattr(edgetwin_trace, "_CO_RUNNER_START_S", 0.3)
    with pytest.raises(RuntimeError, match="loaded no two batches in 0.3 s"):
        edgetwin_trace.measure_loader_scaling(load, tmp_path / "l.csv", busy_cores=[1], batches=1)
    assert not (tmp_path / "l.csv").exists()


def test_a_load_that_dies_beside_the_timed_one_is_an_error(tmp_path):
    parent = os.getpid()

    def load():
        if os.getpid() != parent:
            os._exit(3)  # a loading process that dies before it loads a batch
        return torch.zeros(2, 2)
    with pytest.raises(RuntimeError, match="a process loading beside the timed one died"):
        edgetwin_trace.measure_loader_scaling(load, tmp_path / "l.csv", busy_cores=[1], batches=1)
    assert not (tmp_path / "l.csv").exists() and not (tmp_path / "l.csv.partial").exists()


# --- under edgetwin-calibrate watch: each run's span for the import's --host-runs ---------------

def watched_runs_file(tmp_path, monkeypatch):
    """The runs file as `edgetwin-calibrate watch` starts it, named to the module as it names it."""
    runs = tmp_path / "host-runs.csv"
    runs.write_text("trace,from_s,to_s,cpus\n")
    monkeypatch.setenv("EDGETWIN_HOST_RUNS", str(runs))
    return runs


def test_a_closed_trace_records_its_run_on_the_watchs_clock(tmp_path, monkeypatch):
    runs = watched_runs_file(tmp_path, monkeypatch)
    before = time.monotonic()
    run_epochs(tmp_path / "w0.csv", DataLoader(mnist_like(32), batch_size=16), epochs=2)
    after = time.monotonic()
    rows = list(csv.DictReader(open(runs, newline="")))
    assert len(rows) == 1
    assert rows[0]["trace"] == str(tmp_path / "w0.csv")  # absolute, whatever the script called it
    assert before <= float(rows[0]["from_s"]) <= float(rows[0]["to_s"]) <= after
    assert rows[0]["cpus"] == " ".join(map(str, sorted(os.sched_getaffinity(0))))


def test_a_discarded_trace_records_no_run_and_scaling_files_do(tmp_path, monkeypatch):
    runs = watched_runs_file(tmp_path, monkeypatch)
    with pytest.raises(RuntimeError):
        with edgetwin_trace.Trace(tmp_path / "lost.csv") as trace:
            for _ in trace.epoch(DataLoader(mnist_like(32), batch_size=16)):
                raise RuntimeError("the loop failed")
    batch = (torch.zeros(16, 1, 28, 28), torch.zeros(16, dtype=torch.int64))
    edgetwin_trace.measure_step_scaling(linear_step(), batch, tmp_path / "s.csv", threads=[1],
                                        busy_cores=[0], steps=2, warmup=1)
    assert [r["trace"] for r in csv.DictReader(open(runs, newline=""))] == [str(tmp_path / "s.csv")]


def test_a_runs_file_that_cannot_be_written_is_said_and_the_trace_kept(tmp_path, monkeypatch, capfd):
    monkeypatch.setenv("EDGETWIN_HOST_RUNS", str(tmp_path / "gone" / "host-runs.csv"))
    run_epochs(tmp_path / "w0.csv", DataLoader(mnist_like(16), batch_size=16))
    assert (tmp_path / "w0.csv").exists()
    assert "cannot record the run of" in capfd.readouterr().err


WATCHED_SCRIPT = """
import time, torch, edgetwin_trace
from torch.utils.data import DataLoader, TensorDataset
loader = DataLoader(TensorDataset(torch.zeros(160, 1, 28, 28), torch.zeros(160, dtype=torch.int64)), batch_size=16)
for name in ("t0.csv", "t1.csv", "t2.csv"):
    with edgetwin_trace.Trace(name) as trace:
        for x, y in trace.epoch(loader):
            end = time.perf_counter() + 0.03  # a step's CPU work: the import checks its share of a core
            while time.perf_counter() < end:
                pass
"""


def test_a_script_under_the_watch_is_judged_by_the_import(tmp_path):
    """The whole path: the watch runs the script, each trace records its span, and the import
    judges each trace by the watch's probes of that span. The probes' times and CPUs are the
    watch's own; their seconds are set here (those in t1's span 3x the others), since a slow
    host cannot be made to order."""
    (tmp_path / "train.py").write_text(WATCHED_SCRIPT)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    watch = subprocess.run([calibrate_binary(), "watch", "--out", "host", "--interval-ms", "20", "--",
                            sys.executable, "train.py"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert watch.returncode == 0, watch.stderr
    assert "of 3 recorded runs ran on CPUs slower than the session's other runs" in watch.stderr
    runs = list(csv.DictReader(open(tmp_path / "host" / "host-runs.csv", newline="")))
    assert [r["trace"] for r in runs] == [str(tmp_path / n) for n in ("t0.csv", "t1.csv", "t2.csv")]
    probes = list(csv.DictReader(open(tmp_path / "host" / "host-probes.csv", newline="")))
    assert {int(p["cpu"]) for p in probes} == set(os.sched_getaffinity(0))
    t1_from, t1_to = float(runs[1]["from_s"]), float(runs[1]["to_s"])
    in_t1 = [t1_from <= float(p["at_s"]) <= t1_to for p in probes]
    assert sum(in_t1) >= 4 and len(probes) - sum(in_t1) >= 20
    with open(tmp_path / "host" / "host-probes.csv", "w") as f:
        f.write("at_s,cpu,seconds\n")
        f.writelines(f"{p['at_s']},{p['cpu']},{0.003 if slow else 0.001}\n" for p, slow in zip(probes, in_t1))
    def imported(trace, *options):
        return subprocess.run([calibrate_binary(), "import", "--workload", "lenet-mnist", "--trace", trace,
                               "--sequential", "--host-probes", "host/host-probes.csv", "--host-runs",
                               "host/host-runs.csv", *options, "--out", trace + ".toml"],
                              cwd=tmp_path, capture_output=True, text=True, timeout=60)
    # Under a loaded test run the spinning step may get under 0.8 of a core, which the import's
    # other checks call disturbed: only the host's verdict is this test's.
    for fast in ("t0.csv", "t2.csv"):
        kept = imported(fast, "--accept-disturbed")
        assert kept.returncode == 0 and "host:" not in kept.stderr, kept.stderr
    refused = imported("t1.csv")
    assert refused.returncode == 2
    assert "t1.csv: host: the CPUs ran slow while it ran" in refused.stderr
    assert not (tmp_path / "t1.csv.toml").exists()
