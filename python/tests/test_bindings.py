"""The Python bindings (python/edgetwin/, python/native/) against the command line.

The bindings must return exactly what `edgetwin ... --json` writes, raise InputError with the
location the command line prints, release the GIL while simulating and run calls from several
threads side by side (each in a child process of its own).
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

edgetwin = pytest.importorskip("edgetwin")
try:
    edgetwin.devices()
except ImportError as e:  # the source tree's package without its extension
    pytest.skip(f"the extension is not built: {e}", allow_module_level=True)

EDGETWIN = os.environ.get("EDGETWIN_PROGRAM") or edgetwin._native.programs["edgetwin"]
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def cli(*words):
    """The command line's exit code, standard output and standard error."""
    done = subprocess.run([EDGETWIN, *words], capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def cli_words(options):
    return edgetwin._words(options)


# ---- the catalogue ---------------------------------------------------------------------------

def shipped(kind):
    return sorted(f[:-5] for f in os.listdir(os.path.join(SOURCE, kind)) if f.endswith(".toml"))


def test_catalogue_lists_the_shipped_files():
    assert edgetwin.devices() == shipped("devices")
    assert edgetwin.workloads() == shipped("workloads")
    assert edgetwin.fleets() == shipped("fleets")
    assert "agx-xavier" in edgetwin.devices()


def test_modes_are_the_command_lines():
    modes = edgetwin.modes("agx-xavier")
    # README: the AGX Xavier's custom space is 29,232 modes.
    assert modes.custom_modes == 29232
    assert [m.default for m in modes.modes].count(True) == 1
    code, out, _ = cli("modes", "--device", "agx-xavier")
    assert code == 0
    for m in modes.modes:
        assert f" {m.name} " in out
        assert f"{m.cpu_freq_hz / 1e6:.1f}" in out


def test_loaders_take_a_name_or_a_path():
    by_name = edgetwin.load_device("jetson-nano")
    by_path = edgetwin.load_device(os.path.join(SOURCE, "devices", "jetson-nano.toml"))
    assert by_name == by_path
    assert by_name.name == "jetson-nano" and by_name.spec["cpu"]["cores"] == 4
    assert edgetwin.load_workload("lenet-mnist").spec["loader"]["batch_size"] > 0
    fleet = edgetwin.load_fleet("jetson-mixed-resnet18")
    assert fleet.workload == "resnet18-cifar10"
    assert fleet.devices == sum(g["count"] for g in fleet.groups) > 0


# ---- the numbers are the command line's --------------------------------------------------------

# A few settings per (device, workload): the defaults, and the loader changed.
SETTINGS = [dict(), dict(workers=0, batch_size=32, cache="warm")]


@pytest.mark.parametrize("settings", SETTINGS, ids=["defaults", "w0-b32-warm"])
@pytest.mark.parametrize("workload", shipped("workloads"))
@pytest.mark.parametrize("device", shipped("devices"))
def test_predict_is_the_command_lines_json(device, workload, settings):
    code, out, err = cli("predict", "--json", "--device", device, "--workload", workload, *cli_words(settings))
    if code == 2:  # the configuration cannot run there: the same error, as an exception
        with pytest.raises(edgetwin.InputError) as e:
            edgetwin.predict(device, workload, **settings)
        assert str(e.value) == err.strip()
        return
    assert code == 0, err
    run = edgetwin.predict(device, workload, **settings)
    assert run.to_dict() == json.loads(out)
    assert len(run.epochs) == 1 and run.epochs[0].e2e_s > 0


def test_predict_takes_every_option_of_the_command_line():
    options = dict(power_mode="MODE_15W", workers=2, batch_size=16, epochs=2, prefetch_factor=4,
                   persistent_workers=True, seed=7, dvfs=True)
    code, out, err = cli("predict", "--json", "--device", "agx-xavier", "--workload", "resnet18-cifar10",
                         *cli_words(options))
    assert code == 0, err
    run = edgetwin.predict("agx-xavier", "resnet18-cifar10", **options)
    assert run.to_dict() == json.loads(out)
    assert run.config.prefetch_factor == 4 and run.config.persistent_workers is True
    assert [e.epoch for e in run.epochs] == [0, 1]


def test_sweep_is_the_command_lines_json(tmp_path):
    options = dict(modes="all", workers=[0, 2], batch_size=[16, 32], max_epoch_time=120, max_power=20)
    out = tmp_path / "sweep.json"
    code, _, err = cli("sweep", "--device", "xavier-nx", "--workload", "lenet-mnist", "--quiet",
                       "--json", str(out), *cli_words(options))
    assert code in (0, 2), err
    sweep = edgetwin.sweep("xavier-nx", "lenet-mnist", **options)
    expected = json.loads(out.read_text())
    assert sweep.to_dict() == expected
    best = sweep.recommendation
    assert best is not None and best.feasible == (code == 0)
    assert sweep.best.to_dict() == expected["points"][best.index]
    front = sweep.front
    assert front and all(p.pareto for p in front)
    # The recommendation meets the constraints it was asked for.
    if best.feasible:
        assert sweep.best.e2e_s <= 120 and sweep.best.peak_power_w <= 20


def test_plan_round_is_the_command_lines_json():
    options = dict(objective="time", rounds=2, frontier=3)
    code, out, err = cli("plan-round", "--fleet", "jetson-mixed-resnet18", "--json", "--strict", *cli_words(options))
    assert code in (0, 3), err
    plan = edgetwin.plan_round("jetson-mixed-resnet18", **options)
    assert plan.to_dict() == json.loads(out)
    assert plan.fits == (code == 0)
    assert len(plan.rounds) == 2 and len(plan.frontier) == 3
    assert {d.plan.mode for d in plan.devices}  # every device has a configuration


# ---- errors -------------------------------------------------------------------------------------

def test_input_error_in_a_file_has_its_location(tmp_path):
    # Its storage names media of devices/media/, found beside the file.
    shutil.copytree(os.path.join(SOURCE, "devices", "media"), tmp_path / "media")
    device = tmp_path / "nano.toml"
    text = open(os.path.join(SOURCE, "devices", "jetson-nano.toml")).read()
    good = "\nipc_relative = 0.3 "
    assert good in text
    device.write_text(text.replace(good, "\nipc_relative = -0.3 ", 1))
    line = text[:text.index(good)].count("\n") + 2
    with pytest.raises(edgetwin.InputError) as e:
        edgetwin.load_device(device)
    error = e.value
    assert (error.file, error.line, error.column, error.key) == (str(device), line, 16, "cpu.ipc_relative")
    assert "-0.3" in error.message and len(error.diagnostics) == 1
    # predict says the same as the command line, where the command line says it.
    code, _, err = cli("predict", "--device", str(device), "--workload", "lenet-mnist")
    assert code == 2
    with pytest.raises(edgetwin.InputError) as e:
        edgetwin.predict(device, "lenet-mnist")
    assert str(e.value) == err.strip()
    assert isinstance(e.value, ValueError)


def test_unknown_names_and_options_are_input_errors():
    with pytest.raises(edgetwin.InputError) as e:
        edgetwin.predict("agx-xaver", "lenet-mnist")
    assert e.value.key == "--device" and "agx-xavier" in e.value.message  # lists the valid names
    with pytest.raises(edgetwin.InputError) as e:
        edgetwin.predict("agx-xavier", "lenet-mnist", cache="lukewarm")
    assert "lukewarm" in str(e.value)
    with pytest.raises(edgetwin.InputError) as e:
        edgetwin.predict("agx-xavier", "lenet-mnist", no_such_option=3)
    assert "--no-such-option" in str(e.value)
    with pytest.raises(edgetwin.InputError) as e:
        edgetwin.sweep("agx-xavier", "lenet-mnist", csv="out.csv")
    assert e.value.key == "--csv"
    with pytest.raises(edgetwin.InputError) as e:
        edgetwin.plan_round("no-such-fleet")
    assert e.value.key == "--fleet"


def test_an_error_leaves_the_interpreter_running():
    # A batch larger than the dataset is refused (exit 2 on the command line), then the next
    # call works: nothing exited, no engine is left behind in this process.
    with pytest.raises(edgetwin.InputError):
        edgetwin.predict("host-x86-2core", "lenet-mnist", batch_size=10**9)
    assert edgetwin.predict("host-x86-2core", "lenet-mnist").epochs[0].e2e_s > 0


# ---- the GIL and threads ----------------------------------------------------------------------------

def test_the_gil_is_released_while_simulating():
    # The counting thread sleeps 1 ms between counts, and with a switch interval of 100 s the
    # interpreter never takes the GIL from the main thread: the thread counts during the sweep
    # only if the sweep released the GIL, about once a millisecond of it.
    counted = [0]
    stop = threading.Event()

    def count():
        while not stop.is_set():
            counted[0] += 1
            time.sleep(0.001)

    old = sys.getswitchinterval()
    sys.setswitchinterval(100)
    try:
        counter = threading.Thread(target=count)
        counter.start()
        before = counted[0]
        start = time.monotonic()
        edgetwin.sweep("agx-xavier", "resnet18-cifar10", modes="all", workers=[0, 2], batch_size=[16])
        seconds = time.monotonic() - start
        during = counted[0] - before
    finally:
        stop.set()
        sys.setswitchinterval(old)
        counter.join()
    assert seconds > 0.1  # long enough to tell
    assert during >= 20


def test_calls_from_threads_run_side_by_side_and_agree():
    settings = [dict(workers=w, batch_size=b) for w in (0, 1, 2) for b in (16, 64)]
    alone = [edgetwin.predict("xavier-nx", "lenet-mnist", **s).to_dict() for s in settings]
    with ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda s: edgetwin.predict("xavier-nx", "lenet-mnist", **s).to_dict(), settings))
    assert together == alone
    assert len({json.dumps(r["epochs"]) for r in alone}) == len(settings)  # the settings differ


def children_of_this_process():
    me = str(os.getpid())
    children = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if fields[1] == me:
            children.append(pid)
    return children


def test_no_child_is_left_behind():
    edgetwin.predict("host-x86-2core", "lenet-mnist")
    with pytest.raises(edgetwin.InputError):
        edgetwin.sweep("agx-xavier", "lenet-mnist", workers=[10**6])
    assert children_of_this_process() == []


def test_sigint_during_a_call_is_a_keyboard_interrupt_and_leaves_no_child():
    # Every AGX Xavier mode takes seconds (README: 2.5 s on 2 cores); SIGINT comes after 0.3 s,
    # while the children simulate: they are killed, the call raises, the next call works.
    timer = threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT))
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt, match="interrupted by Interrupt"):
            edgetwin.sweep("agx-xavier", "resnet18-cifar10", modes="all")
    finally:
        timer.join()
    assert children_of_this_process() == []
    assert edgetwin.predict("host-x86-2core", "lenet-mnist").epochs[0].e2e_s > 0


# ---- pandas ----------------------------------------------------------------------------------------

def test_to_pandas():
    pandas = pytest.importorskip("pandas")
    run = edgetwin.predict("jetson-nano", "lenet-mnist", epochs=3)
    frame = run.to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame["epoch"]) == [0, 1, 2]
    assert list(frame["e2e_s"]) == [e.e2e_s for e in run.epochs]
    plan = edgetwin.plan_round("jetson-mixed-resnet18", rounds=1, frontier=2)
    devices = plan.to_pandas()
    assert len(devices) == len(plan.devices) and "plan_mode" in devices


# ---- the learning runs: edgetwin-federate ------------------------------------------------------------

def test_federate_errors_are_input_errors(tmp_path):
    try:
        edgetwin.program("edgetwin-federate")
    except edgetwin.ProgramError as e:
        pytest.skip(str(e))
    fleet = tmp_path / "fleet.toml"
    fleet.write_text('name = "x"\n[round]\nworkload = 3\n')
    with pytest.raises(edgetwin.InputError) as e:
        edgetwin.federate(fleet)
    assert edgetwin.Diagnostic(str(fleet), 3, 12, "round.workload", "expected a non-empty string, got 3") \
        in e.value.diagnostics
    assert e.value.file == str(fleet)
    # The program's messages, parsed back, are the bindings' own for the same file.
    with pytest.raises(edgetwin.InputError) as loaded:
        edgetwin.load_fleet(fleet)
    assert e.value.diagnostics == loaded.value.diagnostics
    code = subprocess.run([edgetwin.program("edgetwin-federate"), "--fleet", str(fleet), "--json"],
                          capture_output=True, text=True)
    assert code.returncode == 2
    assert str(e.value) == "\n".join(line for line in code.stderr.splitlines() if line.strip())


def test_federate_returns_the_programs_json():
    try:
        federate = edgetwin.program("edgetwin-federate")
    except edgetwin.ProgramError as e:
        pytest.skip(str(e))
    options = dict(rounds=1, max_test_samples=200, jobs=1)
    report = edgetwin.federate("jetson-mixed-lenet-fashion-mnist", **options)
    done = subprocess.run([federate, "--fleet", "jetson-mixed-lenet-fashion-mnist", "--json", "--quiet",
                           *cli_words(options)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert report == json.loads(done.stdout)  # the same seeds: the same learning, byte for byte
    assert report["fleet"] == "jetson-mixed-lenet-fashion-mnist" and len(report["runs"][0]["rounds"]) == 1


# ---- the host-speed watch (calibrate/hardware/host_speed_monitor.hpp) -------------------------

def test_the_host_speed_monitor_probes_every_cpu_on_the_steady_clock():
    cpus = sorted(os.sched_getaffinity(0))
    before = edgetwin._native.HostSpeedMonitor.now_s()
    monitor = edgetwin._native.HostSpeedMonitor(cpus, 0.02)
    time.sleep(0.3)
    probes = monitor.probes()
    after = edgetwin._native.HostSpeedMonitor.now_s()
    assert {cpu for _, cpu, _ in probes} == set(cpus)
    assert all(before <= at <= after and 0 < seconds < 1 for at, _, seconds in probes)
    assert [at for at, _, _ in probes] == sorted(at for at, _, _ in probes)
    # The steady clock is Python's monotonic one: the profile's spans and the probes agree.
    assert abs(edgetwin._native.HostSpeedMonitor.now_s() - time.monotonic()) < 0.05
    with pytest.raises(ValueError, match="interval_s must be > 0"):
        edgetwin._native.HostSpeedMonitor(cpus, 0)
    del monitor  # its thread stopped and joined
