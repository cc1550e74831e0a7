"""python3 -m edgetwin.profile on a tiny ImageFolder and LeNet: the profile, the host's device file
and the workload it writes load, a prediction runs with them, the workload's dataset bytes are the
files' and its model the census's, a kill mid-run leaves no process and no profile, a disturbed
run is refused.

Needs the extension (the prediction, the device's clocks) and edgetwin-calibrate (the import):
CTest sets EDGETWIN_PYTHON_PATH and EDGETWIN_CALIBRATE.
"""

import csv
import os
import shutil
import signal
import subprocess
import sys
import time
import tomllib
import uuid

import pytest

edgetwin = pytest.importorskip("edgetwin")
try:
    edgetwin.devices()
    edgetwin.program("edgetwin-calibrate")
except (ImportError, edgetwin.ProgramError) as e:
    pytest.skip(f"needs the extension and edgetwin-calibrate: {e}", allow_module_level=True)

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(edgetwin.__file__)))

# The user's module: an ImageFolder of small JPEG files with the shipped JPEG workload's
# transforms at LeNet's size, and LeNet-5 behind a grey front.
USER_MODULE = '''
import os
import torch
import torchvision
from torchvision import transforms

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "images")


def make_transform():
    return transforms.Compose([transforms.Grayscale(), transforms.RandomResizedCrop(28),
                               transforms.RandomHorizontalFlip(), transforms.ToTensor(),
                               transforms.Normalize((0.5,), (0.5,))])


def make_dataset(transform):
    return torchvision.datasets.ImageFolder(ROOT, transform)


class LeNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(1, 6, 5, padding=2), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(6, 16, 5), torch.nn.ReLU(), torch.nn.MaxPool2d(2))
        self.classifier = torch.nn.Sequential(
            torch.nn.Flatten(), torch.nn.Linear(400, 120), torch.nn.ReLU(), torch.nn.Linear(120, 84),
            torch.nn.ReLU(), torch.nn.Linear(84, 10))

    def forward(self, x):
        return self.classifier(self.features(x))


def make_model():
    return LeNet()
'''

SAMPLES = 640


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A directory with the user's module, its images and a workload file for them."""
    from PIL import Image
    import random
    root = tmp_path_factory.mktemp("project")
    (root / "mymodule.py").write_text(USER_MODULE)
    rng = random.Random(1)
    sizes = []
    for i in range(SAMPLES):
        folder = root / "images" / f"class{i % 2}"
        folder.mkdir(parents=True, exist_ok=True)
        image = Image.new("RGB", (48, 48), (rng.randrange(256), rng.randrange(256), rng.randrange(256)))
        path = folder / f"{i}.jpg"
        image.save(path, quality=90)
        sizes.append(path.stat().st_size)
    text = open(os.path.join(SOURCE, "workloads", "lenet-jpeg-folder.toml")).read()
    text = text.replace('name = "lenet-jpeg-folder"', 'name = "tiny-jpeg-lenet"', 1)
    text = text.replace("samples = 20000\n", f"samples = {SAMPLES}\n", 1)
    text = text.replace("sample_bytes = 71851 ", f"sample_bytes = {sum(sizes) // len(sizes)} ", 1)
    assert 'name = "tiny-jpeg-lenet"' in text and f"samples = {SAMPLES}\n" in text
    (root / "tiny.toml").write_text(text)
    return root


def profile_command(project, out, *more, device=("--device", "host-x86-2core"), workload=None):
    workload = workload or ("--workload", str(project / "tiny.toml"))
    return [sys.executable, "-m", "edgetwin.profile", "--dataset", "mymodule:make_dataset",
            "--transform", "mymodule:make_transform", "--model", "mymodule:make_model", "--batch-sizes", "8,16",
            *device, *workload, "--out", str(out), *more]


def environment(**more):
    env = dict(os.environ, PYTHONPATH=PACKAGE_ROOT, **more)
    env.setdefault("EDGETWIN_CALIBRATE", edgetwin.program("edgetwin-calibrate"))
    return env


def host_clock_hz():
    """The host's CPU clock as docs/explanation/calibration.md says calibrate reads it: cpufreq's
    cpuinfo_max_freq (kHz), else the highest "cpu MHz" of /proc/cpuinfo."""
    try:
        with open("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq") as f:
            return float(f.read()) * 1e3
    except OSError:
        with open("/proc/cpuinfo") as f:
            return max(float(line.split(":")[1]) for line in f if line.startswith("cpu MHz")) * 1e6


def census_of(project, tmp_path):
    """What `edgetwin-calibrate census --write-workload` counts for the user's LeNet, exported
    here on its own, at the profile's reference batch size and input."""
    sys.path.insert(0, str(project))
    try:
        import mymodule
        import torch
        torch.jit.trace(mymodule.make_model().train(), torch.zeros(2, 1, 28, 28)).save(str(tmp_path / "lenet.pt"))
    finally:
        sys.path.pop(0)
    counted = tmp_path / "census.toml"
    done = subprocess.run([edgetwin.program("edgetwin-calibrate"), "census", "--model", str(tmp_path / "lenet.pt"),
                           "--input", "1x28x28", "--batch-size", "8", "--workload", str(project / "tiny.toml"),
                           "--write-workload", "--out", str(counted)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with open(counted, "rb") as f:
        return tomllib.load(f)


def test_quick_profile_writes_the_device_and_workload_loads_and_predicts(project, tmp_path):
    out = tmp_path / "profile.toml"
    keep = tmp_path / "traces"
    device = tmp_path / "host.toml"
    workload = tmp_path / "tiny-out.toml"
    # --accept-disturbed --retries 0: this test checks the command's plumbing, on a machine CI
    # may share, and times nothing again; the refusal of a disturbed run is the next tests'.
    command = profile_command(project, out, "--quick", "--keep-traces", str(keep), "--accept-disturbed", "--retries", "0",
                              device=("--device-out", str(device)), workload=("--workload-out", str(workload)))
    start = time.monotonic()
    done = subprocess.run(command, cwd=project, env=environment(), capture_output=True, text=True, timeout=600)
    print(f"python3 -m edgetwin.profile --quick --device-out --workload-out: {time.monotonic() - start:.1f} s")
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    # A progress line per run with its wall time, the host's and the workload's, the import's, then the summary.
    runs = [line for line in lines if line.startswith("edgetwin.profile: [")]
    assert len(runs) == 14 and all(line.endswith(" s") for line in runs), done.stderr
    assert sum(line.startswith("edgetwin.profile: [probe ") for line in runs) == 8, done.stderr
    assert any(line.startswith("edgetwin.profile: device host: edgetwin-calibrate run --write-device") for line in lines)
    assert any(line.startswith("edgetwin.profile: workload tiny-out: ") for line in lines)
    assert any(line.startswith("edgetwin.profile: wrote ") for line in lines)
    probe = [f"probe-r1-w{w}-b{b}.csv" for w in (0, 1) for b in (4, 16, 64)]
    probe += [f"probe-r1-w{w}-b16-t.csv" for w in (0, 1)]  # the batches with two tensors more
    traces = ["w0-b8.csv", "w0-b16.csv", "w1-b8.csv", "w1-b16.csv", "scaling.csv", "loader-scaling.csv", *probe]
    assert sorted(os.listdir(keep)) == sorted([*traces, "host-probes.csv", "host-runs.csv"])
    # The host watch: probes of every CPU through the runs, and each run's span on their clock,
    # which the imports judged (--host-probes, --host-runs).
    with open(keep / "host-runs.csv") as f:
        spans = {os.path.basename(row["trace"]): (float(row["from_s"]), float(row["to_s"])) for row in csv.DictReader(f)}
    with open(keep / "host-probes.csv") as f:
        probes = [(float(row["at_s"]), int(row["cpu"])) for row in csv.DictReader(f)]
    assert sorted(spans) == sorted(traces)
    assert {cpu for _, cpu in probes} == set(os.sched_getaffinity(0))
    assert all(sum(start <= at <= end for at, _ in probes) >= 1 for start, end in spans.values() if end - start > 1)
    # Nothing but the three files it was asked for lands beside them.
    assert sorted(os.listdir(tmp_path)) == sorted(["profile.toml", "host.toml", "tiny-out.toml", "traces"])
    with open(out, "rb") as f:
        written = tomllib.load(f)
    with open(workload, "rb") as f:
        counted = tomllib.load(f)
    assert written["profile"]["device"] == "host"
    assert written["profile"]["workload"] == "tiny-out"
    assert written["costs"]["compute"]["batch_size"] == [8, 16]

    # The device file: edgetwin-calibrate run --write-device's, with the host's clock, which is
    # the profile's reference clock: the profile and the device agree.
    host = edgetwin.load_device(device)
    assert host.name == "host"
    assert host.spec["cpu"]["freq_hz"] == pytest.approx(host_clock_hz(), rel=1e-6)
    assert written["costs"]["reference_cpu_freq_hz"] == host.spec["cpu"]["freq_hz"]
    assert host.spec["provenance"]["cpu"]["kind"] == "measured"
    # What worker processes cost belongs to the machine: the device keeps what the handoff probe's
    # w1 traces measured, at the profile's clock, and an import of the w0 traces alone on that
    # device takes it. The probe's terms are not the workload's own (its loading is a sleep).
    terms = host.spec["worker_processes"]
    per_tensor = ("tensors_per_batch", "receive_cpu_s_per_tensor", "send_cpu_s_per_tensor")
    # The handoff per tensor, from the runs of 4 tensors a batch against those of (input, label).
    assert terms["tensors_per_batch"] == 2 and terms["send_cpu_s_per_tensor"] >= 0, terms
    assert terms["receive_cpu_s_per_tensor"] >= 0
    measured = [k for k, v in terms.items()
                if k != "reference_cpu_freq_hz" and k not in per_tensor and not isinstance(v, list)]
    assert measured and "worker_startup_cpu_s" in measured and "send_cpu_s_per_batch" in measured, terms
    assert terms["reference_cpu_freq_hz"] == written["costs"]["reference_cpu_freq_hz"]
    assert host.spec["provenance"]["worker_processes"]["kind"] == "measured"
    assert "edgetwin-calibrate import of workload handoff-probe's traces" in \
        host.spec["provenance"]["worker_processes"]["source"], host.spec["provenance"]["worker_processes"]
    assert any(terms[key] != written["costs"].get(key, 0.0) for key in measured), terms
    w0_only = tmp_path / "w0-only" / "profile.toml"
    done = subprocess.run([edgetwin.program("edgetwin-calibrate"), "import", "--workload", str(workload), "--device",
                           str(device), "--trace", str(keep / "w0-b8.csv"), "--trace", str(keep / "w0-b16.csv"),
                           "--accept-disturbed", "--out", str(w0_only)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    with open(w0_only, "rb") as f:
        from_w0 = tomllib.load(f)
    for key in measured:
        assert from_w0["costs"].get(key, 0.0) == terms[key], key
    assert "from device host's [worker_processes]" in from_w0["provenance"]["costs"]["source"]

    # The dataset's bytes, measured: the files' sizes summed, over the samples.
    sizes = [p.stat().st_size for p in (project / "images").rglob("*.jpg")]
    assert len(sizes) == SAMPLES
    assert counted["dataset"]["samples"] == SAMPLES
    assert counted["dataset"]["sample_bytes"] == sum(sizes) / SAMPLES
    assert counted["dataset"]["layout"] == "file_per_sample"
    assert counted["dataset"]["input_bytes_per_sample"] == 1 * 28 * 28 * 4  # float32 Grayscale 28 x 28
    assert counted["provenance"]["dataset"]["kind"] == "measured"
    assert f"{SAMPLES} files, {sum(sizes)} bytes in all" in counted["provenance"]["dataset"]["source"]
    # The model: what calibrate's census counts for the same LeNet at the same batch and input;
    # LeNet-5's parameters by hand: 156 + 2,416 + 48,120 + 10,164 + 850.
    census = census_of(project, tmp_path)
    assert counted["model"] == dict(census["model"], name="LeNet")
    assert counted["model"]["parameters"] == 61_706
    assert counted["provenance"]["model"]["kind"] == "counted"
    assert counted["footprint"]["model_bytes"] == census["footprint"]["model_bytes"]
    # Estimates say so; the costs are the profile's; no placeholder is left.
    assert counted["provenance"]["footprint"]["kind"] == "estimate"
    assert counted["costs"] == written["costs"]
    assert counted["provenance"]["costs"]["source"].startswith("copied from the profile profile.toml")
    assert "placeholder" not in workload.read_text()

    # Both load, and a prediction runs with them; the workload alone predicts as the profile does.
    with_profile = edgetwin.predict(device, workload, profile=out, workers=1, batch_size=16)
    assert with_profile.epochs[0].e2e_s > 0 and with_profile.epochs[0].batches == SAMPLES // 16
    alone = edgetwin.predict(device, workload, workers=1, batch_size=16)
    assert alone.epochs[0].e2e_s == with_profile.epochs[0].e2e_s


def test_an_in_memory_datasets_bytes_are_its_arrays_or_an_estimate_that_says_so():
    import torch
    from edgetwin.workload_file import DatasetFacts

    class Held(torch.utils.data.Dataset):  # as torchvision's MNIST keeps its samples: `data`, uint8
        data = torch.zeros(10, 28, 28, dtype=torch.uint8)

        def __len__(self):
            return 10

        def __getitem__(self, i):
            return self.data[i].float().unsqueeze(0), 0

    held = DatasetFacts(Held(), None, "--dataset m:f")
    assert (held.layout, held.sample_bytes, held.kind) == ("in_ram", 28 * 28, "measured")
    assert held.input_bytes == 28 * 28 * 4
    tensors = DatasetFacts(torch.utils.data.TensorDataset(torch.zeros(10, 3, 8, 8), torch.zeros(10)), None, "x")
    assert (tensors.sample_bytes, tensors.kind) == (3 * 8 * 8 * 4, "estimate")
    assert "sample_bytes is an estimate" in tensors.how


def test_the_handoff_probes_loading_takes_no_cpu_and_its_batches_span_64_kb_to_1_mb():
    """What makes the probe's terms the machine's: a worker that loads it waits rather than
    competes for a core, and its batch sizes span the bytes the per-byte terms are fitted over."""
    from edgetwin import handoff_probe
    probe = handoff_probe.make_dataset()
    x, label = probe[65]
    assert x.dtype == handoff_probe.torch.float32 and x.nelement() * x.element_size() == 16384
    assert label == 5 and len(probe) == handoff_probe.SAMPLES
    assert probe[1][0].equal(probe[65][0]) and not probe[1][0].equal(probe[2][0])
    wall, cpu = time.perf_counter(), time.thread_time()
    for i in range(50):
        probe[i]
    wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
    assert wall >= 50 * handoff_probe.LOAD_SLEEP_US * 1e-6
    assert cpu < 0.25 * wall, (cpu, wall)
    extra = handoff_probe.make_dataset_with_extra_tensors()[65]
    assert len(extra) == 2 + handoff_probe.EXTRA_TENSORS and extra[0].equal(x) and extra[1] == label
    assert all(t.dtype == handoff_probe.torch.int8 and t.nelement() == 1 for t in extra[2:])
    bytes_per_batch = sorted(b * 16384 for b in handoff_probe.BATCH_SIZES)
    assert (bytes_per_batch[0], bytes_per_batch[-1]) == (64 * 1024, 1024 * 1024)


def test_the_handoff_probes_loading_keeps_the_gil():
    """A real loader's Python holds the GIL, which the worker's queue feeder thread needs: the
    probe's sleep keeps it, so that no other thread of the process runs while it sleeps (with
    the GIL let go, a thread that stamps the clock stamps inside every sleep). The sample's copy
    is torch's, which lets the GIL go as any torch op does."""
    import bisect
    import threading
    from edgetwin import handoff_probe
    stamps, stop = [], threading.Event()

    def stamp():
        while not stop.is_set():
            stamps.append(time.perf_counter())

    # The stamper may take the GIL from a thread that holds it only after the switch interval;
    # at 0.1 s that is past the 20 sleeps (8 ms), so only a sleep that lets the GIL go lets it in.
    interval = sys.getswitchinterval()
    sys.setswitchinterval(0.1)
    stamper = threading.Thread(target=stamp)
    sleeps = []
    try:
        stamper.start()
        time.sleep(0.01)  # the stamper holds the GIL; the main thread takes it back below
        for _ in range(20):
            start = time.perf_counter()
            handoff_probe.sleep_keeping_the_gil(handoff_probe.LOAD_SLEEP_US)
            sleeps.append((start, time.perf_counter()))
    finally:
        stop.set()
        stamper.join()
        sys.setswitchinterval(interval)
    assert stamps, "the stamping thread never ran"
    quiet = [bisect.bisect_right(stamps, start) == bisect.bisect_left(stamps, end) for start, end in sleeps]
    assert sum(quiet) >= 18, quiet


@pytest.mark.parametrize("given, written", [("--device", "--device-out"), ("--workload", "--workload-out")])
def test_an_existing_file_or_one_written_not_both(project, tmp_path, given, written):
    both = profile_command(project, tmp_path / "p.toml", given, "x.toml", written, str(tmp_path / "y.toml"))
    done = subprocess.run(both, cwd=project, env=environment(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert f"{given} or {written}: expected one of them" in done.stderr and f"got {given} and {written}" in done.stderr
    assert not (tmp_path / "p.toml").exists() and not (tmp_path / "y.toml").exists()


def processes_with(marker):
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                if marker.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            continue
    return found


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_kill_mid_run_leaves_no_process_and_no_profile(project, tmp_path, how):
    out = tmp_path / "profile.toml"
    marker = f"EDGETWIN_PROFILE_TEST={uuid.uuid4()}"
    name, value = marker.split("=")
    scratch = tmp_path / "tmp"  # where its temporary traces go
    scratch.mkdir()
    process = subprocess.Popen(profile_command(project, out, "--quick", "--accept-disturbed"), cwd=project,
                               env=environment(**{name: value}, TMPDIR=str(scratch)), stderr=subprocess.PIPE, text=True)
    try:
        # Kill it in the middle of its third run (a worker trace: DataLoader worker processes alive).
        for line in process.stderr:
            if line.startswith("edgetwin.profile: [2/"):
                break
        time.sleep(0.5)
        assert process.poll() is None
        process.send_signal(how)
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == (-9 if how == signal.SIGKILL else 128 + signal.SIGTERM)
    # Every process it started dies with it (PR_SET_PDEATHSIG): give the kernel a moment.
    deadline = time.monotonic() + 10
    while processes_with(marker) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert processes_with(marker) == []
    assert not out.exists()
    assert [p for p in os.listdir(tmp_path) if p.startswith("profile")] == []
    assert os.listdir(scratch) == []  # the traces and staged outputs go too, also on SIGKILL


def test_a_run_beside_spinning_processes_is_measured_again_then_refused(project, tmp_path):
    # Processes spin on the CPUs the whole time: every trace shows other processes' CPU, the
    # import refuses them, the command measures them again once (--retries 1), then gives up
    # with exit 2 naming the traces, and writes no profile.
    out = tmp_path / "profile.toml"
    # Twice as many as the CPUs: beside two on two CPUs, a run once kept a whole core and passed.
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * os.cpu_count())]
    try:
        command = profile_command(project, out, "--quick", "--retries", "1", "--skip", "scaling")
        command[command.index("8,16")] = "8"
        done = subprocess.run(command, cwd=project, env=environment(), capture_output=True, text=True, timeout=900)
    finally:
        for s in spinners:
            s.kill()
            s.wait()
    assert done.returncode == 2, done.stderr
    assert "measuring again (1 of 1)" in done.stderr
    # Which traces the import names depends on how the scheduler shared the CPUs: a trace with
    # under 0.5 s of rows is judged by its step's share alone, which may pass (w0-b8 did once).
    assert "[again] w0-b8" in done.stderr or "[again] w1-b8" in done.stderr
    # A trace with half a second of rows or more is refused for the other processes' CPU; a
    # shorter one (a fast run) for its step's share of a core, which the spinners took.
    assert "other_cpu_s: other processes kept" in done.stderr or "step_cpu_s: the step had" in done.stderr
    assert "the run was disturbed" in done.stderr
    assert not out.exists()


def test_skip_leaves_parts_out_and_names_the_valid_ones(project, tmp_path):
    command = profile_command(project, tmp_path / "p.toml", "--skip", "share,sclaing")
    done = subprocess.run(command, cwd=project, env=environment(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "--skip: expected some of cold, placement, probe, scaling, share, got sclaing" in done.stderr


def test_bad_callables_are_input_errors(project, tmp_path):
    command = profile_command(project, tmp_path / "p.toml", "--quick")
    command[command.index("mymodule:make_model")] = "mymodule:no_such_function"
    done = subprocess.run(command, cwd=project, env=environment(), capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "--model: mymodule has no no_such_function" in done.stderr
