"""edgetwin from Python: the simulator's commands as functions (docs/reference/python.md).

    import edgetwin

    run = edgetwin.predict("agx-xavier", "resnet18-cifar10", power_mode="MODE_15W", workers=2)
    run.epochs[0].e2e_s
    plan = edgetwin.plan_round("jetson-mixed-resnet18", objective="energy")

Every function takes the command line's option names (`--power-mode` is `power_mode`) and
returns exactly what the command's `--json` writes, as objects with attribute access and
`.to_pandas()` where pandas is installed. Bad input raises `InputError` with the file, line,
column and key of the first problem (all of them in `.diagnostics`); a simulation that fails
raises `SimulationError`; nothing exits or aborts the interpreter.

Each simulation runs in a forked child process (SimGrid holds one engine per process), with
the GIL released: calls from several threads at once are safe and run side by side.

`edgetwin.trace` writes per-batch traces of a PyTorch loop, and `python3 -m edgetwin.profile`
turns a PyTorch script into a profile (docs/explanation/import.md).
"""

import json
import os
import re
import shutil
import subprocess
import tomllib
from dataclasses import dataclass, field

try:
    from . import _native
except ImportError as _missing:  # the source tree, or a build without pybind11: trace and profile still work
    class _NoNative:
        def __init__(self, error):
            self._error = error

        def __getattr__(self, name):
            raise ImportError(f"edgetwin's extension (_native) is not built: {self._error}; build it with "
                              "cmake --build build --target edgetwin_native (needs pybind11-dev) and put "
                              "build/python on PYTHONPATH") from self._error

    _native = _NoNative(_missing)


def _installed_prefix():
    """PREFIX when this package is installed as PREFIX/lib/pythonX.Y/dist-packages/edgetwin
    (`cmake --install`, the .deb), else None (the build tree's package)."""
    parts = os.path.dirname(os.path.abspath(__file__)).split(os.sep)
    if len(parts) >= 5 and parts[-2] in ("dist-packages", "site-packages") and parts[-3].startswith("python") \
            and parts[-4] == "lib":
        return os.sep.join(parts[:-4]) or os.sep
    return None


# An installed package reads the catalogue installed beside it (PREFIX/share/edgetwin, as the
# installed programs do: sim/app/data_dir.hpp), unless EDGETWIN_DATA_DIR says otherwise.
_PREFIX = _installed_prefix()
if _PREFIX and not os.environ.get("EDGETWIN_DATA_DIR") \
        and os.path.isdir(os.path.join(_PREFIX, "share", "edgetwin", "devices")):
    os.environ["EDGETWIN_DATA_DIR"] = os.path.join(_PREFIX, "share", "edgetwin")

__all__ = [
    "Error", "InputError", "SimulationError", "ProgramError", "Diagnostic",
    "devices", "workloads", "fleets", "modes", "load_device", "load_workload", "load_fleet",
    "predict", "sweep", "plan_round", "federate", "program",
    "Record", "Prediction", "Sweep", "Plan", "Device", "Workload", "Fleet",
]


# ---- errors ------------------------------------------------------------------------------------

class Error(Exception):
    """Every error edgetwin raises."""


@dataclass(frozen=True)
class Diagnostic:
    """One problem of the input: where (file "" and line 0 for a command-line option) and what."""
    file: str
    line: int
    column: int
    key: str
    message: str

    def __str__(self):
        place = ":".join(str(p) for p in (self.file, self.line, self.column) if p not in ("", 0))
        return ": ".join(p for p in (place, self.key, self.message) if p)


class InputError(Error, ValueError):
    """Bad input (exit code 2 on the command line): a file, a name or an option.

    `file`, `line`, `column`, `key` and `message` are the first problem's; `diagnostics` holds
    every problem found, as the command line prints them, one per line in str().
    """

    def __init__(self, diagnostics):
        self.diagnostics = [d if isinstance(d, Diagnostic) else Diagnostic(**d) for d in diagnostics]
        first = self.diagnostics[0] if self.diagnostics else Diagnostic("", 0, 0, "", "bad input")
        self.file, self.line, self.column = first.file, first.line, first.column
        self.key, self.message = first.key, first.message
        super().__init__("\n".join(str(d) for d in self.diagnostics))


class SimulationError(Error, RuntimeError):
    """A simulation failed for another reason than its input (exit code 1 on the command line)."""


class ProgramError(Error, RuntimeError):
    """A program edgetwin runs (edgetwin-federate) failed, or could not be found."""


def _result(outcome, text, exit_code):
    if outcome == "ok":
        return json.loads(text), exit_code
    if outcome == "input":
        raise InputError(json.loads(text))
    if outcome == "interrupted":
        raise KeyboardInterrupt(text)
    raise SimulationError(text)


# ---- results ---------------------------------------------------------------------------------

class Record:
    """One record of a result (an epoch, a sweep point, a device's plan): its JSON object, with
    attribute access (`record.e2e_s`) beside item access (`record["e2e_s"]`)."""

    __slots__ = ("_data",)

    def __init__(self, data):
        object.__setattr__(self, "_data", data)

    def __getattr__(self, name):
        try:
            value = self._data[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}; fields: "
                                 f"{', '.join(self._data)}") from None
        return _wrapped(value)

    def __getitem__(self, name):
        return self._data[name]

    def __contains__(self, name):
        return name in self._data

    def __iter__(self):
        return iter(self._data)

    def __eq__(self, other):
        return isinstance(other, Record) and self._data == other._data

    def __setattr__(self, name, value):
        raise AttributeError("results are read-only")

    def keys(self):
        return self._data.keys()

    def to_dict(self):
        """The JSON object as the command wrote it."""
        return self._data

    def __repr__(self):
        shown = ", ".join(f"{k}={v!r}" for k, v in list(self._data.items())[:6])
        return f"{type(self).__name__}({shown}{', ...' if len(self._data) > 6 else ''})"


def _wrapped(value):
    if isinstance(value, dict):
        return Record(value)
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return [Record(v) for v in value]
    return value


def _frame(rows):
    try:
        import pandas
    except ImportError as e:
        raise ImportError("to_pandas() needs pandas (Debian: python3-pandas)") from e
    return pandas.DataFrame.from_records(rows)


def _flat(row, prefix=""):
    """A JSON object's nested objects as prefix_key columns, lists left out."""
    out = {}
    for key, value in row.items():
        if isinstance(value, dict):
            out.update(_flat(value, f"{prefix}{key}_"))
        elif not isinstance(value, list):
            out[prefix + key] = value
    return out


class Prediction(Record):
    """`edgetwin predict --json`: device, workload, estimated, estimates, config and epochs (one
    record per epoch: e2e_s, stall_s, compute_s, ... as docs/reference/schema.md defines them)."""

    __slots__ = ()

    def to_pandas(self):
        """One row per epoch."""
        return _frame([dict(e) for e in self._data["epochs"]])


class Sweep(Record):
    """`edgetwin sweep --json FILE`: every configuration in `points` (its mode, clocks, workers,
    batch size, storage, figures and `pareto`, on the time-energy front), and `recommendation`,
    the best under the constraints given (None without constraints; `feasible` False: the
    closest to meeting them)."""

    __slots__ = ()

    @property
    def front(self):
        """The points on the time-energy Pareto front."""
        return [Record(p) for p in self._data["points"] if p.get("pareto")]

    @property
    def best(self):
        """The recommended point, or None."""
        r = self._data["recommendation"]
        return None if r is None else Record(self._data["points"][r["index"]])

    def to_pandas(self):
        """One row per configuration."""
        return _frame(self._data["points"])


class Plan(Record):
    """`edgetwin plan-round --json`: per device its plan (mode, clocks, workers, batch size) and
    its rounds, the rounds, the energy-deadline frontier, FedScale's estimate beside them.
    `fits` is False where `plan-round --strict` exits 3 (a device misses the deadline in every
    configuration, or goes over an energy budget)."""

    __slots__ = ("fits",)

    def __init__(self, data, fits):
        super().__init__(data)
        object.__setattr__(self, "fits", fits)

    def to_pandas(self):
        """One row per device: its name, group and plan (plan_* columns)."""
        rows = []
        for d in self._data["devices"]:
            row = {k: v for k, v in d.items() if not isinstance(v, (dict, list))}
            row.update(_flat(d.get("plan") or {}, "plan_"))
            rows.append(row)
        return _frame(rows)

    def rounds_to_pandas(self):
        """One row per round."""
        return _frame([_flat(r) for r in self._data["rounds"]])

    def frontier_to_pandas(self):
        """The energy-deadline frontier, one row per deadline."""
        return _frame(self._data["frontier"])


# ---- the catalogue and inputs -----------------------------------------------------------------

def devices():
    """The shipped devices' names (devices/)."""
    return _native.shipped("devices")


def workloads():
    """The shipped workloads' names (workloads/)."""
    return _native.shipped("workloads")


def fleets():
    """The shipped fleets' names (fleets/)."""
    return _native.shipped("fleets")


def modes(device):
    """A device's named power modes (id, name, cores, clocks at the caps, default) and the size
    of its custom mode space, as `edgetwin modes` lists them."""
    data, _ = _result(*_native.modes(_name(device)))
    return Record(data)


@dataclass(frozen=True)
class Device:
    """A device file, loaded and checked by the simulator's loader; `spec` is its TOML."""
    name: str
    path: str
    spec: dict = field(repr=False)


@dataclass(frozen=True)
class Workload:
    """A workload file, loaded and checked by the simulator's loader; `spec` is its TOML."""
    name: str
    path: str
    spec: dict = field(repr=False)


@dataclass(frozen=True)
class Fleet:
    """A fleet file with its devices instantiated (groups, device count); `spec` is its TOML."""
    name: str
    path: str
    workload: str
    devices: int
    groups: list
    spec: dict = field(repr=False)


def _name(value):
    """A shipped name or a path, or a loaded Device/Workload/Fleet (its path)."""
    if isinstance(value, (Device, Workload, Fleet)):
        return value.path
    return os.fspath(value)


def _loaded(kind, value):
    data, _ = _result(*_native.load(kind, _name(value)))
    with open(data["path"], "rb") as f:
        data["spec"] = tomllib.load(f)
    return data


def load_device(name_or_path):
    """Load a device (shipped name or TOML file) as `--device` does; InputError if it is bad."""
    return Device(**_loaded("devices", name_or_path))


def load_workload(name_or_path):
    """Load a workload (shipped name or TOML file) as `--workload` does; InputError if it is bad."""
    return Workload(**_loaded("workloads", name_or_path))


def load_fleet(name_or_path):
    """Load a fleet (shipped name or TOML file) and every device, workload, network and trace it
    names, as plan-round does before planning; InputError if anything is bad."""
    return Fleet(**_loaded("fleets", name_or_path))


# ---- the commands ------------------------------------------------------------------------------

# Options that are flags on the command lines (present or absent).
_FLAGS = {"dvfs", "single_engine", "json", "csv", "quiet", "mpi", "fedscale", "stop_at_target"}


def _words(options):
    """Keyword arguments as the command line's words: workers=2 -> --workers 2, a list ->
    a comma list, a flag -> present when true, None -> left out."""
    words = []
    for name, value in options.items():
        if value is None:
            continue
        option = "--" + name.replace("_", "-")
        if name in _FLAGS:
            if not isinstance(value, bool):
                raise InputError([Diagnostic("", 0, 0, option, f"expected True or False, got {value!r}")])
            if value:
                words.append(option)
            continue
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            text = ",".join(str(v) for v in value)
        elif isinstance(value, (Device, Workload, Fleet)):
            text = value.path
        else:
            text = os.fspath(value) if isinstance(value, os.PathLike) else str(value)
        words += [option, text]
    return words


def _run(command, options):
    return _result(*_native.run_command(command, _words(options)))


def predict(device, workload, *, profile=None, power_mode=None, workers=None, batch_size=None, storage=None,
            epochs=1, cache="cold", **options):
    """`edgetwin predict --json`: simulate training `workload` on `device` and return each epoch.

    device, workload: shipped names, paths or loaded objects. Other options as on the command
    line (`edgetwin predict --help`): prefetch_factor, persistent_workers, drop_last, seed,
    cores, cpu_freq ("1190.4MHz"), gpu_freq, emc_freq, dvfs, accelerators.
    """
    data, _ = _run("predict", dict(device=device, workload=workload, profile=profile, power_mode=power_mode,
                                   workers=workers, batch_size=batch_size, storage=storage, epochs=epochs,
                                   cache=cache, **options))
    return Prediction(data)


def sweep(device, workload, *, modes="named", workers=None, batch_size=None, storage=None, max_power=None,
          max_epoch_time=None, energy_budget=None, epochs=1, cache="cold", profile=None, **options):
    """`edgetwin sweep --json FILE`: every combination of modes (named, all, or a list of names),
    workers, batch sizes and storage media (lists), the Pareto flag of each, and the best under
    max_power (W), max_epoch_time (s) and energy_budget (J) in `.recommendation`.

    Other options as on the command line: window (batches simulated per epoch, 200), jobs
    (processes at once, 2), chunk_size, max_configurations.
    """
    data, _ = _run("sweep", dict(device=device, workload=workload, modes=modes, workers=workers,
                                 batch_size=batch_size, storage=storage, max_power=max_power,
                                 max_epoch_time=max_epoch_time, energy_budget=energy_budget, epochs=epochs,
                                 cache=cache, profile=profile, **options))
    return Sweep(data)


def plan_round(fleet, *, objective="energy", **options):
    """`edgetwin plan-round --json`: each device's configuration for the fleet's rounds
    (objective energy, time or balanced), the rounds verified with network contention, the
    energy-deadline frontier.

    Other options as on the command line: deadline ("600" or "600s"), rounds,
    clients_per_round, over_commitment, frontier (deadlines on the frontier), jobs,
    single_engine, max_devices.
    """
    data, exit_code = _run("plan-round", dict(fleet=fleet, objective=objective, **options))
    return Plan(data, exit_code == 0)


# ---- programs: the learning runs ------------------------------------------------------------------

def program(name):
    """The path of one of edgetwin's programs (edgetwin, edgetwin-calibrate, edgetwin-federate):
    $EDGETWIN_FEDERATE etc. where set, else the one installed beside this package, else this
    build's, else the one on PATH."""
    variable = "EDGETWIN_" + name.removeprefix("edgetwin").removeprefix("-").upper().replace("-", "_")
    variable = "EDGETWIN_PROGRAM" if variable == "EDGETWIN_" else variable
    try:
        built = _native.programs.get(name)
    except ImportError:  # the source tree's package: the environment or PATH
        built = None
    installed = os.path.join(_PREFIX, "bin", name) if _PREFIX else None
    for candidate in (os.environ.get(variable), installed, built, shutil.which(name)):
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise ProgramError(f"{name} not found: build it (cmake --build build --target {name}), put it on PATH, "
                       f"or set {variable}")


_LOCATION = re.compile(r"^(?P<file>.*?)(?::(?P<line>\d+))?(?::(?P<column>\d+))?$")


def _diagnostics_of(stderr):
    """A program's lines on stderr as diagnostics: `file[:line[:column]]: key: message` (as
    sim/config/config_error.cpp writes them), `--option: message`, and any other line as a
    diagnostic without a location (less a leading `edgetwin...: `)."""
    diagnostics = []
    for line in stderr.splitlines():
        if not line.strip():
            continue
        head, _, rest = line.partition(": ")
        place = _LOCATION.match(head)
        if rest and head.startswith("--") and " " not in head:
            diagnostics.append(Diagnostic("", 0, 0, head, rest))
        elif (rest and place["file"] and " " not in place["file"] and not place["file"].startswith("edgetwin")
              and (place["line"] or "/" in place["file"] or "." in place["file"])):
            key, _, message = rest.partition(": ")
            if not message or " " in key:
                key, message = "", rest
            diagnostics.append(Diagnostic(place["file"], int(place["line"] or 0), int(place["column"] or 0),
                                          key, message))
        else:
            diagnostics.append(Diagnostic("", 0, 0, "", rest if head.startswith("edgetwin") and rest else line))
    return diagnostics


def run_program(name, words):
    """Run one of edgetwin's programs with these words; return its standard output. Exit 2
    raises InputError with its located messages, any other failure ProgramError."""
    done = subprocess.run([program(name), *words], capture_output=True, text=True)
    if done.returncode == 2:
        raise InputError(_diagnostics_of(done.stderr))
    if done.returncode != 0:
        raise ProgramError(f"{name} exited with {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def federate(fleet, **options):
    """`edgetwin-federate --fleet FLEET --json`: federated training with real learning on
    edgetwin's clock (docs/explanation/federated.md); returns the parsed JSON report. Options as on its
    command line: rounds, target_accuracy, jobs, compare, fedscale, seed, ...

    It runs the program (LibTorch), which the bindings do not link: errors come back as
    InputError (exit 2, with their locations) or ProgramError.
    """
    return json.loads(run_program("edgetwin-federate",
                                  _words(dict(fleet=fleet, json=True, quiet=True, **options))))
