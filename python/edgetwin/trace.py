"""Per-batch trace of a PyTorch training loop, in the CSV that `edgetwin-calibrate import` reads.

This is `edgetwin.trace` of the edgetwin package, and also a file of its own: copy
python/edgetwin_trace.py (a link to python/edgetwin/trace.py) beside a training script and
`import edgetwin_trace`; it needs only the standard library and torch.

The columns and what each one measures are defined in docs/explanation/import.md, section *(b) The
trace CSV*. Two lines in a training script write it:

    import edgetwin_trace

    with edgetwin_trace.Trace("trace.csv", device="cuda") as trace:   # or device="cpu"
        for epoch in range(epochs):
            for x, y in trace.epoch(loader):      # instead of `for x, y in loader:`
                optimizer.zero_grad()
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step()

`trace.epoch(loader)` yields the loader's batches, already on `device`, so the loop body
loses its own `.to(device)`. For each batch it writes one row:

    epoch,batch,batch_size,fetch_s,compute_s,batch_bytes,workers,prefetch_factor,threads,iter_s,fetch_cpu_s,cpu_s,step_cpu_s,cores,other_cpu_s,load_s,batch_tensors[,io_s]

* `fetch_s`: the wait for the batch: the time inside the loader iterator's `next()`, plus,
  for a device other than "cpu", the host-to-device copy of every tensor of the batch
  (`.to(device)`, tuples, lists and dicts walked) and a `torch.cuda.synchronize()`.
* `compute_s`: from the moment the batch is handed to the loop until the loop asks for the
  next one (or the epoch ends), after a `torch.cuda.synchronize()` on a CUDA device.
* `batch_size`: dim 0 of the first tensor found in the batch; `batch_bytes`: the sum of
  `element_size() * nelement()` over all its tensors, what a worker process hands the
  trainer through shared memory.
* `workers`, `prefetch_factor` (empty without workers), `threads`
  (`torch.get_num_threads()` when the epoch starts): the loader's configuration.
* `iter_s`, on batch 0's row only: how long `iter(loader)` took. With workers and
  `persistent_workers=False` that is the launch of the worker processes, every epoch; with
  persistent workers only the first epoch launches them. `iter()` does not wait for the
  workers to be ready: what they do before their first batch (importing modules under the
  "spawn" start method, `worker_init_fn`) shows in `fetch_s` of batch 0, which never
  includes `iter_s`.
* `fetch_cpu_s`: the CPU time the trainer's thread spent inside `next()`
  (`time.thread_time()`), the wait's share that is work rather than sleep. With workers it
  is the receive of a batch (the queue's get, unpickling, rebuilding shared-memory tensors,
  sending the next index), which the wall-clock wait hides when the worker is behind.
* `cpu_s`: the CPU time (user + system, every thread) of the trainer's process and of the
  loader's worker processes since the previous row was timed; on an epoch's first row, since
  just before `iter(loader)`, so the workers' start-up is in it. Summed over an epoch's rows
  it is the CPU the epoch cost up to its last step: with workers that includes what runs
  beside the loop (the queues' feeder threads, the kernel's side of shared memory), which no
  wait shows. Rows are timed back to back, so the sum loses nothing between them. Linux
  only (a worker's clock is read through its process CPU-time clock); empty where a
  worker's clock could not be read (a worker gone before the row was timed).
* `step_cpu_s`: the CPU time the trainer's thread spent in the loop body (`time.thread_time()`
  over `compute_s`'s span). On one intra-op thread, `step_cpu_s / compute_s` is the share of
  a core the step got; beside worker processes that keep the cores busy it tells how far the
  scheduler favours the trainer (docs/explanation/import.md, `--share-trace`). With more intra-op
  threads it holds the calling thread's part only.
* `cores`: how many CPUs the trainer's process may run on when the epoch starts (its CPU
  affinity, which the loader's worker processes inherit): the cores the loop shared, for
  a `step_cpu_s` share taken on fewer cores than the machine has (`taskset -c 0`).
* `other_cpu_s`: the CPU time other processes of the machine took since the previous row was
  timed: the machine's busy CPU time (its CPUs times the wall time, less their idle, I/O-wait
  time from /proc/stat) less `cpu_s`. The idle counter ticks every 10 ms, so a row's value is coarse
  and may be negative; summed over a trace it says whether something else ran beside the
  measurement, and the import refuses a trace that others kept busy (docs/explanation/import.md, *A
  disturbed run*). Empty where `cpu_s` is, or off Linux.
* `load_s`, for a loader built from `timed_loading(dataset)` (below): the wall time the
  process that loaded the batch (a worker, or the trainer with num_workers=0) spent in the
  dataset's `__getitem__` for its samples; empty otherwise. It tells whether a worker was
  behind the trainer (docs/explanation/import.md, *How each cost is derived*).
* `batch_tensors`: how many tensors the batch holds (an `(input, label)` batch holds 2). A
  worker process hands each over as a shared-memory file of its own, so each costs the handoff
  time of its own beyond its bytes (docs/explanation/import.md, *What belongs to the machine*).
* `io_s`, only with `Trace(..., io=True)`: the time the dataset spent in file reads timed
  with `timed_read()` or `read_bytes()` during the batch's fetch; empty for a batch with no
  timed read. It needs `num_workers=0`, since a worker's reads happen in another process.

The rows go to `<path>.partial`, renamed to `<path>` by `close()` (or by leaving the `with`
block normally). An exception out of the `with` block removes the partial file, and so does
a trace that is never closed, so a file under the output name is always complete.

Run the script under `edgetwin-calibrate watch --out host -- python3 train.py` and every trace
it closes (and every file of the scaling measurements below) records when it ran and on which
CPUs in host/host-runs.csv, beside the watch's probes of the CPUs' speed in host/host-probes.csv;
the import's `--host-probes` and `--host-runs` then refuse a trace the CPUs ran slow through
(docs/explanation/import.md, *The host watch*).

Turning a trace into a profile (docs/explanation/import.md, section *Command line*):

    # num_workers=0: the loop itself loads every batch, so fetch_s holds the per-sample
    # loader costs
    edgetwin-calibrate import --workload lenet-mnist --trace trace_w0.csv --sequential

`batch_bytes`, `workers`, `prefetch_factor`, `threads` and `iter_s` are written for the
import to separate the trainer's handoff of a batch from a worker, and the workers'
start-up; a short run with num_workers=1 beside the num_workers=0 one records them.

How the step slows when DataLoader workers take cores, or runs on other intra-op thread
counts, is measured apart, on a batch the script already has:

    edgetwin_trace.measure_step_scaling(lambda x, y: train_step(x, y), (x, y), "scaling.csv")

runs the step on 1..n intra-op threads while 0..n other processes spin on the CPU (standing
in for busy workers), and writes the same columns plus `busy_cores`. Import it after the
traces (`--trace trace_w0.csv --trace trace_w1.csv --trace scaling.csv`); the first trace's
threads are the reference (docs/explanation/import.md, *How each cost is derived*).

Only the standard library and torch are used.
"""

import collections.abc
import csv
import io
import multiprocessing
import os
import sys
import time
import weakref

import torch

__all__ = ["Trace", "timed_read", "read_bytes", "timed_loading", "measure_step_scaling",
           "measure_loader_scaling"]

_COLUMNS = ["epoch", "batch", "batch_size", "fetch_s", "compute_s", "batch_bytes",
            "workers", "prefetch_factor", "threads", "iter_s", "fetch_cpu_s", "cpu_s", "step_cpu_s",
            "cores", "other_cpu_s", "load_s", "batch_tensors"]
# measure_step_scaling's rows: the step alone, so no wait and no receive.
_STEP_COLUMNS = _COLUMNS[:_COLUMNS.index("threads") + 1] + ["busy_cores", "iter_s"]
# measure_loader_scaling's rows: a batch loaded alone (compute_s 0), with its thread CPU time.
_LOAD_COLUMNS = _STEP_COLUMNS + ["fetch_cpu_s"]


class _IoClock:
    """Read time of the timed reads in this process since the last reset."""

    __slots__ = ("seconds", "reads")

    def __init__(self):
        self.seconds = 0.0
        self.reads = 0

    def reset(self):
        self.seconds = 0.0
        self.reads = 0


# One per process: with num_workers=0 the dataset runs in the trainer's process, so the
# trainer's clock sees every read of a batch (a worker's reads would land in its own copy).
_io_clock = _IoClock()


class timed_read:
    """Context manager around a dataset's file read; its time goes into the batch's `io_s`.

        def __getitem__(self, index):
            path, label = self.samples[index]
            with edgetwin_trace.timed_read():
                with open(path, "rb") as f:
                    data = f.read()
            ...  # decode and transform outside the block: that is preprocessing
    """

    __slots__ = ("_start",)

    def __enter__(self):
        self._start = time.perf_counter()
        return self

    def __exit__(self, exc_type, exc, tb):
        _io_clock.seconds += time.perf_counter() - self._start
        _io_clock.reads += 1
        return False


def read_bytes(path):
    """The whole file at `path`, its open and read timed as by `timed_read()`."""
    with timed_read():
        with open(path, "rb") as f:
            return f.read()


class _LoadClock:
    """Wall time this process spent in a `timed_loading` dataset since its last collate."""

    __slots__ = ("seconds",)

    def __init__(self):
        self.seconds = 0.0


# One per process: a worker forked for an epoch inherits the trainer's, which the trace zeroes
# just before iter(loader).
_load_clock = _LoadClock()


class _TimedDataset(torch.utils.data.Dataset):
    """The dataset, each `__getitem__` timed into this process's load clock."""

    def __init__(self, dataset):
        self.dataset = dataset

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, index):
        start = time.perf_counter()
        try:
            return self.dataset[index]
        finally:
            _load_clock.seconds += time.perf_counter() - start

    def __getattr__(self, name):
        # The wrapped dataset's own attributes (ImageFolder's `samples`, `classes`). `dataset`
        # itself is looked up here only while unpickling, before __init__'s state is back.
        if name == "dataset":
            raise AttributeError(name)
        return getattr(self.dataset, name)


class _LoadedBatch:
    """A collated batch with the time the process that loaded it took (`load_s`)."""

    __slots__ = ("batch", "load_s")

    def __init__(self, batch, load_s):
        self.batch = batch
        self.load_s = load_s

    def pin_memory(self):
        # DataLoader(pin_memory=True) calls this for a type it does not know.
        from torch.utils.data._utils.pin_memory import pin_memory
        return _LoadedBatch(pin_memory(self.batch), self.load_s)


class _TimedCollate:
    """The collate function, handing on the batch's samples' loading time as `load_s`.

    The collate itself is left out: in a worker it writes the batch into shared memory, which
    the trainer's own collate (num_workers=0) does not, so it belongs to the worker's send."""

    def __init__(self, collate_fn):
        self.collate_fn = collate_fn

    def __call__(self, samples):
        load_s = _load_clock.seconds
        _load_clock.seconds = 0.0
        return _LoadedBatch(self.collate_fn(samples), load_s)


def timed_loading(dataset, collate_fn=None):
    """`(dataset, collate_fn)` to build the DataLoader from, so that the trace's `load_s`
    column holds each batch's loading as the process that loaded it timed it:

        dataset, collate_fn = edgetwin_trace.timed_loading(dataset)
        loader = DataLoader(dataset, batch_size=16, num_workers=1, collate_fn=collate_fn)

    `collate_fn`: the loader's own collate function (default: torch's `default_collate`). The
    batches come out of `trace.epoch(loader)` as the collate function made them; iterated
    without the trace they are wrapped. Needs automatic batching (a `batch_size`)."""
    if not isinstance(dataset, torch.utils.data.Dataset) and not hasattr(dataset, "__getitem__"):
        raise TypeError(f"edgetwin_trace: timed_loading needs a map-style dataset (with "
                        f"__getitem__), got {type(dataset).__name__}")
    if collate_fn is None:
        collate_fn = torch.utils.data.default_collate
    return _TimedDataset(dataset), _TimedCollate(collate_fn)


def _tensors(batch):
    """The tensors of a collated batch, depth first, in the order the batch holds them."""
    if isinstance(batch, torch.Tensor):
        yield batch
    elif isinstance(batch, collections.abc.Mapping):
        for value in batch.values():
            yield from _tensors(value)
    elif isinstance(batch, (list, tuple)):
        for item in batch:
            yield from _tensors(item)


def _batch_shape(batch):
    """The batch's sample count, its tensors' bytes and how many tensors it holds."""
    size = None
    total_bytes = 0
    count = 0
    for t in _tensors(batch):
        if size is None and t.dim() > 0:
            size = t.shape[0]
        total_bytes += t.element_size() * t.nelement()
        count += 1
    if size is None:
        raise TypeError(
            f"edgetwin_trace: the batch ({type(batch).__name__}) holds no tensor with a "
            "dimension 0, so its sample count is unknown; the trace needs collated tensors")
    return size, total_bytes, count


def _batch_size_and_bytes(batch):
    size, total_bytes, _ = _batch_shape(batch)
    return size, total_bytes


def _move(batch, device):
    """The batch with every tensor copied to `device`, the containers rebuilt alike."""
    if isinstance(batch, torch.Tensor):
        return batch.to(device, non_blocking=False)
    if isinstance(batch, collections.abc.Mapping):
        moved = {key: _move(value, device) for key, value in batch.items()}
        try:
            return type(batch)(moved)
        except TypeError:
            return moved
    if isinstance(batch, tuple) and hasattr(batch, "_fields"):
        return type(batch)(*(_move(item, device) for item in batch))
    if isinstance(batch, (list, tuple)):
        return type(batch)(_move(item, device) for item in batch)
    return batch


def _number(x):
    # 9 significant digits keep sub-microsecond steps of a perf_counter difference.
    return format(x, ".9g")


def _parse_device(device):
    if device is None:
        return None
    try:
        parsed = torch.device(device)
    except (RuntimeError, TypeError) as e:
        raise ValueError(f"edgetwin_trace: device {device!r} is not a torch device: {e}") from None
    if parsed.type == "cpu":
        return None
    if parsed.type != "cuda":
        # Without a way to wait for the device, the copy and the step would not end where
        # the clock is read.
        raise ValueError(f"edgetwin_trace: device {device!r}: unsupported type "
                         f"{parsed.type!r}; valid: cpu, cuda")
    if not torch.cuda.is_available():
        raise ValueError(f"edgetwin_trace: device {device!r}: CUDA is not available in this "
                         "PyTorch")
    return parsed


def _process_cpu_clock(pid):
    # The clock id glibc's clock_getcpuclockid(pid) returns on Linux (MAKE_PROCESS_CPUCLOCK
    # with CPUCLOCK_SCHED): the process's CPU time over all its threads, in nanoseconds.
    return (~pid << 3) | 2


class _LoaderCpuClock:
    """CPU time of this process and of the loader's worker processes, read at each row.

    The workers are the iterator's (`_workers` of torch's multi-process iterator; none with
    num_workers=0). A worker first seen at a reading counts from zero, since it was forked for
    this iterator; a persistent worker counts on from its previous reading, in the previous
    epoch if need be."""

    def __init__(self):
        self._seen = {}  # worker pid -> its CPU time at the last reading
        self._self = 0.0
        self._broken = False

    def start(self):
        """Called just before iter(loader): the epoch's first row counts from here."""
        self._self = time.process_time()
        self._broken = False

    def since_last(self, iterator):
        """CPU seconds since the previous reading; None for the rest of the epoch once a
        worker's clock cannot be read (then the rows would no longer add up to the epoch)."""
        if self._broken:
            return None
        now = time.process_time()
        readings = {}
        try:
            for worker in getattr(iterator, "_workers", []):
                readings[worker.pid] = time.clock_gettime(_process_cpu_clock(worker.pid))
        except (OSError, TypeError, AttributeError):
            self._broken = True
            return None
        # A pid whose clock went back is a new worker that reuses an old worker's pid.
        seconds = now - self._self + sum(r - self._seen.get(pid, 0.0) if r >= self._seen.get(pid, 0.0) else r
                                         for pid, r in readings.items())
        self._seen, self._self = readings, now
        return seconds


class _MachineCpuClock:
    """CPU time every process of the machine spent since the previous reading: the machine's
    CPUs times the wall time, less the time they were idle or waited for I/O (/proc/stat's "cpu"
    line, summed over the CPUs; ticks of 10 ms): a CPU waiting for the run's own reads is no
    other process at work. Less the trace's own `cpu_s`, it is what
    other processes took while the run was measured (`other_cpu_s`): the import refuses a trace
    that others disturbed (docs/explanation/import.md, *A disturbed run*). None where /proc/stat cannot be
    read (not Linux)."""

    def __init__(self):
        self._cpus = os.sysconf("SC_NPROCESSORS_ONLN") if hasattr(os, "sysconf") else 0
        self._last = None

    @staticmethod
    def _idle_s():
        try:
            with open("/proc/stat", "rb") as f:
                fields = f.readline().split()
            if fields[0] != b"cpu":
                return None
            # cpu user nice system idle iowait irq softirq steal ... (proc(5)), in clock ticks
            return (int(fields[4]) + int(fields[5])) / os.sysconf("SC_CLK_TCK")
        except (OSError, ValueError, IndexError):
            return None

    def start(self):
        idle = self._idle_s()
        self._last = None if idle is None or self._cpus <= 0 else (time.perf_counter(), idle)

    def since_last(self):
        if self._last is None:
            return None
        idle = self._idle_s()
        if idle is None:
            self._last = None
            return None
        now = time.perf_counter()
        busy = (now - self._last[0]) * self._cpus - (idle - self._last[1])
        self._last = (now, idle)
        return busy


# Set by `edgetwin-calibrate watch` for the command it runs: the file each closed trace appends
# its run's span to, for the import's --host-runs (docs/explanation/import.md, *The host watch*).
_HOST_RUNS_VARIABLE = "EDGETWIN_HOST_RUNS"


class _RunSpan:
    """When a trace's run began and ended, on the clock of the watch's probes (the steady clock,
    CLOCK_MONOTONIC, which time.monotonic() reads on Linux), and the CPUs it could run on."""

    def __init__(self):
        self.start = None
        self.cpus = []

    def begin(self):
        if self.start is None:
            self.start = time.monotonic()
            self.cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []

    def record(self, path):
        """Appends `path`'s row to the watch's runs file, when the script runs under
        `edgetwin-calibrate watch`: one write of one whole line to a file opened for appending, so
        that the rows of several processes never interleave. A row that cannot be written is
        said on stderr; the trace stays whole, and the import says it was not judged."""
        runs = os.environ.get(_HOST_RUNS_VARIABLE)
        if not runs or self.start is None:
            return
        line = io.StringIO()
        csv.writer(line).writerow([os.path.abspath(path), repr(self.start), repr(time.monotonic()),
                                   " ".join(map(str, self.cpus))])
        try:
            fd = os.open(runs, os.O_WRONLY | os.O_APPEND)  # the watch wrote its header
            try:
                os.write(fd, line.getvalue().encode())
            finally:
                os.close(fd)
        except OSError as e:
            sys.stderr.write(f"edgetwin_trace: cannot record the run of {path} in {runs} "
                             f"({_HOST_RUNS_VARIABLE}): {e.strerror}\n")


def _discard_unclosed(file, partial, path):
    # Runs when a Trace is garbage collected or the interpreter exits without close():
    # the rows may stop anywhere, so they must not look like a finished trace.
    try:
        file.close()
    finally:
        try:
            os.remove(partial)
        except FileNotFoundError:
            pass
    sys.stderr.write(f"edgetwin_trace: {path} was not closed; removed {partial}\n")


class Trace:
    """Writes one trace CSV; see the module docstring for the columns and their meaning.

    `path`: the output file (`str` or path-like), written as `<path>.partial` until closed.
    `device`: where the loop trains: "cpu" (the default; batches are left where the loader
    puts them) or a CUDA device, to which each batch is copied inside `fetch_s`.
    `io`: add the `io_s` column, the batch's reads timed with `timed_read()`/`read_bytes()`.
    """

    def __init__(self, path, device="cpu", io=False):
        if not isinstance(path, (str, os.PathLike)):
            raise TypeError(f"edgetwin_trace: path must be a str or path-like, "
                            f"got {type(path).__name__}")
        path = os.fspath(path)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if path == "":
            raise ValueError("edgetwin_trace: path is empty; give the trace CSV's file name")
        if os.path.isdir(path):
            raise ValueError(f"edgetwin_trace: path {path!r} is a directory; give the trace "
                             "CSV's file name")
        if not isinstance(io, bool):
            raise TypeError(f"edgetwin_trace: io must be True or False, got {io!r}")
        self._device = _parse_device(device)
        self._io = io
        self._path = path
        self._partial = path + ".partial"
        self._columns = _COLUMNS + (["io_s"] if io else [])
        self._epochs_written = set()
        self._span = _RunSpan()
        self._cpu = _LoaderCpuClock()
        self._machine = _MachineCpuClock()
        self._next_epoch = 0
        self._in_epoch = False
        self._closed = False
        try:
            self._file = open(self._partial, "w", newline="")
        except OSError as e:
            raise OSError(e.errno, f"edgetwin_trace: cannot create {self._partial}: "
                                   f"{e.strerror}") from e
        self._writer = csv.writer(self._file)
        self._finalizer = weakref.finalize(self, _discard_unclosed, self._file, self._partial,
                                           self._path)
        self._write(self._columns)

    @property
    def path(self):
        """The output file (the rows are in `path + ".partial"` until `close()`)."""
        return self._path

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        else:
            self.discard()
        return False

    def close(self):
        """Finishes the file and renames it to `path`. A second call does nothing."""
        if self._closed:
            return
        self._closed = True
        self._finalizer.detach()
        try:
            self._file.close()
        except OSError as e:
            self._remove_partial()
            raise OSError(e.errno, f"edgetwin_trace: cannot write {self._partial}: "
                                   f"{e.strerror}; removed it") from e
        try:
            os.replace(self._partial, self._path)
        except OSError as e:
            # The rows are whole; leave them where the message says rather than lose them.
            raise OSError(e.errno, f"edgetwin_trace: cannot rename {self._partial} to "
                                   f"{self._path}: {e.strerror}; the rows are in "
                                   f"{self._partial}") from e
        self._span.record(self._path)

    def discard(self):
        """Closes the trace without writing `path`, removing the partial file."""
        if self._closed:
            return
        self._closed = True
        self._finalizer.detach()
        try:
            self._file.close()
        except OSError:
            pass  # the rows are being thrown away; a failed flush of them changes nothing
        self._remove_partial()

    def epoch(self, loader, epoch=None):
        """Iterates `loader` once, yielding its batches (on the device) and tracing each.

        `epoch`: the number written in the `epoch` column; by default one more than the
        previous epoch of this trace, 0 for the first.
        """
        if self._closed:
            raise ValueError(f"edgetwin_trace: the trace of {self._path} is closed")
        if self._in_epoch:
            raise ValueError("edgetwin_trace: the previous trace.epoch() loop has not "
                             "finished; one trace times one loop at a time")
        workers = getattr(loader, "num_workers", None)
        if workers is None:
            raise TypeError(f"edgetwin_trace: expected a torch.utils.data.DataLoader (an "
                            f"object with num_workers), got {type(loader).__name__}")
        if not isinstance(workers, int) or isinstance(workers, bool) or workers < 0:
            raise TypeError(f"edgetwin_trace: loader.num_workers must be a whole number "
                            f">= 0, got {workers!r}")
        if self._io and workers > 0:
            raise ValueError(
                f"edgetwin_trace: io=True needs num_workers=0, the loader has {workers}: a "
                "worker's reads are timed in the worker's process and never reach the trace")
        if epoch is None:
            epoch = self._next_epoch
        elif not isinstance(epoch, int) or isinstance(epoch, bool) or epoch < 0:
            raise ValueError(f"edgetwin_trace: epoch must be a whole number >= 0, got {epoch!r}")
        if epoch in self._epochs_written:
            raise ValueError(f"edgetwin_trace: epoch {epoch} is already in {self._path}")
        prefetch = getattr(loader, "prefetch_factor", None) if workers > 0 else None
        self._epochs_written.add(epoch)
        self._next_epoch = epoch + 1
        return self._batches(loader, epoch, workers, prefetch)

    def _batches(self, loader, epoch, workers, prefetch):
        if self._in_epoch:
            raise ValueError("edgetwin_trace: the previous trace.epoch() loop has not "
                             "finished; one trace times one loop at a time")
        self._in_epoch = True
        try:
            fixed = [workers, "" if prefetch is None else prefetch, torch.get_num_threads()]
            cores = _cores()
            sync = (lambda: torch.cuda.synchronize(self._device)) if self._device else None
            self._span.begin()
            self._cpu.start()
            self._machine.start()
            _load_clock.seconds = 0.0  # what the trainer loaded before (a sample to look at) is not a batch's
            start = time.perf_counter()
            iterator = iter(loader)
            iter_s = time.perf_counter() - start
            batch_index = 0
            while True:
                _io_clock.reset()
                fetch_start = time.perf_counter()
                fetch_cpu_start = time.thread_time()
                try:
                    batch = next(iterator)
                except StopIteration:
                    break
                fetch_cpu_s = time.thread_time() - fetch_cpu_start
                load_s = None
                if isinstance(batch, _LoadedBatch):
                    batch, load_s = batch.batch, batch.load_s
                if sync is not None:
                    batch = _move(batch, self._device)
                    sync()
                fetch_end = time.perf_counter()
                io_s = _io_clock.seconds if _io_clock.reads else None
                size, nbytes, tensors = _batch_shape(batch)
                compute_start = time.perf_counter()
                step_cpu_start = time.thread_time()
                # A break out of the loop closes this generator here; that batch's row is
                # left out, since its compute may not end when the generator is closed.
                yield batch
                if sync is not None:
                    sync()
                compute_end = time.perf_counter()
                step_cpu_s = time.thread_time() - step_cpu_start
                cpu_s = self._cpu.since_last(iterator)
                machine_s = self._machine.since_last()
                other_cpu_s = None if cpu_s is None or machine_s is None else machine_s - cpu_s
                batch = None  # the loop's own names keep it as long as it needs it
                row = [epoch, batch_index, size, _number(fetch_end - fetch_start),
                       _number(compute_end - compute_start), nbytes, *fixed,
                       _number(iter_s) if batch_index == 0 else "", _number(fetch_cpu_s),
                       "" if cpu_s is None else _number(cpu_s), _number(step_cpu_s), cores,
                       "" if other_cpu_s is None else _number(other_cpu_s),
                       "" if load_s is None else _number(load_s), tensors]
                if self._io:
                    row.append("" if io_s is None else _number(io_s))
                self._write(row)
                batch_index += 1
        finally:
            self._in_epoch = False
        self._flush()

    def _write(self, row):
        try:
            self._writer.writerow(row)
        except OSError as e:
            raise OSError(e.errno, f"edgetwin_trace: cannot write {self._partial}: "
                                   f"{e.strerror}") from e

    def _flush(self):
        try:
            self._file.flush()
        except OSError as e:
            raise OSError(e.errno, f"edgetwin_trace: cannot write {self._partial}: "
                                   f"{e.strerror}") from e

    def _remove_partial(self):
        try:
            os.remove(self._partial)
        except FileNotFoundError:
            pass


def _die_with_parent():
    """A spinning or loading process must not outlive the measurement that forked it: Linux
    sends it SIGKILL when its parent dies (PR_SET_PDEATHSIG), even by SIGKILL. A no-op off
    Linux."""
    try:
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(1, 9)  # PR_SET_PDEATHSIG, SIGKILL
    except (OSError, AttributeError):
        return
    parent = multiprocessing.parent_process()
    if parent is not None and os.getppid() != parent.pid:  # it died before prctl took effect
        os._exit(0)


def _spin():
    _die_with_parent()
    while True:
        pass


# How long the processes loading beside the timed one may take to load two batches each: a
# load that waits on something the fork left locked would otherwise hang the measurement.
_CO_RUNNER_START_S = 120.0


def _load_forever(load, loaded):
    _die_with_parent()
    while True:
        load()
        loaded.value += 1  # this process's own counter, without a lock a kill could leave held


class _Spinners:
    """`count` processes that keep a core each busy, as running DataLoader workers do: by
    spinning, or by calling `work` over and over where given."""

    def __init__(self, count, work=None):
        context = multiprocessing.get_context("fork")
        self._loaded = [context.Value("q", 0, lock=False) for _ in range(count)]  # work() calls done by each
        self._processes = [context.Process(target=_spin, daemon=True) if work is None else
                           context.Process(target=_load_forever, args=(work, loaded), daemon=True)
                           for loaded in self._loaded]
        self._work = work

    def __enter__(self):
        for p in self._processes:
            p.start()
        time.sleep(0.05 if self._processes else 0)  # let the kernel place them
        # Forked from a big trainer, a loading process spends its first batches in copy-on-write
        # faults: timing began before it loaded at full pace measured 1.0x where 1.1-1.2x held.
        deadline = time.monotonic() + _CO_RUNNER_START_S
        while self._work is not None and any(loaded.value < 2 for loaded in self._loaded):
            problem = ("died" if not all(p.is_alive() for p in self._processes) else
                       f"loaded no two batches in {_CO_RUNNER_START_S:g} s" if time.monotonic() > deadline else None)
            if problem:
                self.__exit__(None, None, None)
                raise RuntimeError(f"edgetwin_trace: a process loading beside the timed one {problem}")
            time.sleep(0.01)
        return self

    def __exit__(self, exc_type, exc, tb):
        for p in self._processes:
            p.kill()
        for p in self._processes:
            p.join()


def _cores():
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def _step_rows(step, batch, threads, busy, steps, warmup, size, nbytes):
    torch.set_num_threads(threads)
    rows = []
    with _Spinners(busy):
        for i in range(warmup + steps):
            start = time.perf_counter()
            step(*batch) if isinstance(batch, (tuple, list)) else step(batch)
            seconds = time.perf_counter() - start
            if i >= warmup:
                rows.append([0, len(rows), size, _number(0.0), _number(seconds), nbytes, 0, "", threads, busy, ""])
    return rows


def _load_rows(load, busy, batches, warmup):
    rows = []
    with _Spinners(busy, work=load):
        for i in range(warmup + batches):
            start, cpu_start = time.perf_counter(), time.thread_time()
            batch = load()
            seconds, cpu = time.perf_counter() - start, time.thread_time() - cpu_start
            if i >= warmup:
                size, nbytes = _batch_size_and_bytes(batch)
                rows.append([0, len(rows), size, _number(seconds), _number(0.0), nbytes, 0, "",
                             torch.get_num_threads(), busy, "", _number(cpu)])
    return rows


def _check_counts(function, name, values, lowest):
    if not values or any(not isinstance(v, int) or v < lowest for v in values):
        raise ValueError(f"edgetwin_trace.{function}: {name} must be integers >= {lowest}, got {values!r}")


def _write_rows_atomically(path, columns, settings, rows_of):
    """Writes `columns`, then rows_of(setting) for each setting as one epoch, to `path` through
    `<path>.partial`, renamed once whole."""
    path = os.fspath(path)
    partial = path + ".partial"
    span = _RunSpan()
    span.begin()
    try:
        with open(partial, "w", newline="") as f:
            writer = csv.writer(f)
            writer.writerow(columns)
            for epoch, setting in enumerate(settings):  # one epoch per setting keeps (epoch, batch) unique
                for row in rows_of(setting):
                    writer.writerow([epoch] + row[1:])
        os.replace(partial, path)
    except BaseException:
        if os.path.exists(partial):
            os.remove(partial)
        raise
    span.record(path)


def measure_loader_scaling(load, path, busy_cores=None, batches=20, warmup=3, rounds=3):
    """Times `load()`, which returns one collated batch (say, a sequential DataLoader's next
    batch), `batches` times after `warmup` untimed calls, beside each count of `busy_cores`
    other processes (default 0..cores) that call `load()` over and over themselves, as
    DataLoader workers load beside each other; visits the settings `rounds` times, interleaved,
    so that a drift of the machine falls on every setting alike. Writes one trace row per timed
    batch to `path` (atomically), with its wall time in fetch_s and its thread CPU time in
    fetch_cpu_s. `load` runs in forked processes too, so it must not depend on this process's
    threads."""
    if not callable(load):
        raise TypeError("edgetwin_trace.measure_loader_scaling: load must be callable")
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise ValueError("edgetwin_trace.measure_loader_scaling: path must be a file name")
    busy_cores = list(busy_cores) if busy_cores is not None else list(range(_cores() + 1))
    _check_counts("measure_loader_scaling", "busy_cores", busy_cores, 0)
    if not all(isinstance(n, int) for n in (batches, warmup, rounds)) or batches < 1 or warmup < 0 or rounds < 1:
        raise ValueError("edgetwin_trace.measure_loader_scaling: batches and rounds must be >= 1 and warmup >= 0")
    _write_rows_atomically(path, _LOAD_COLUMNS, busy_cores * rounds,
                           lambda busy: _load_rows(load, busy, batches, warmup))


def measure_step_scaling(step, batch, path, threads=None, busy_cores=None, steps=20, warmup=3):
    """Times `step(*batch)` on each intra-op thread count of `threads` (default 1..cores) with
    each count of `busy_cores` other processes spinning (default 0..cores), `steps` times
    after `warmup` untimed steps, and writes one trace row per timed step to `path` (atomically:
    `<path>.partial`, then renamed). The thread count in force before the call is restored."""
    if not callable(step):
        raise TypeError("edgetwin_trace.measure_step_scaling: step must be callable")
    if not isinstance(path, (str, os.PathLike)) or not os.fspath(path):
        raise ValueError("edgetwin_trace.measure_step_scaling: path must be a file name")
    cores = _cores()
    threads = list(threads) if threads is not None else list(range(1, cores + 1))
    # Up to as many spinners as cores: the trainer and `cores` workers are more runnable
    # threads than cores, where fair sharing misses most.
    busy_cores = list(busy_cores) if busy_cores is not None else list(range(cores + 1))
    for name, values, lowest in (("threads", threads, 1), ("busy_cores", busy_cores, 0)):
        _check_counts("measure_step_scaling", name, values, lowest)
    if not isinstance(steps, int) or steps < 1 or not isinstance(warmup, int) or warmup < 0:
        raise ValueError("edgetwin_trace.measure_step_scaling: steps must be >= 1 and warmup >= 0")
    size, nbytes = _batch_size_and_bytes(batch)
    before = torch.get_num_threads()
    settings = [(n, busy) for n in threads for busy in busy_cores]
    try:
        _write_rows_atomically(path, _STEP_COLUMNS, settings,
                               lambda s: _step_rows(step, batch, s[0], s[1], steps, warmup, size, nbytes))
    finally:
        torch.set_num_threads(before)
