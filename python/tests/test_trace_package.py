"""edgetwin.trace is the package's trace writer, and python/edgetwin_trace.py its one-file copy.

The copy is a link to the package's module, so the two cannot drift; a user copies the file
(the link's target) beside a training script and imports it alone.
"""

import csv
import os
import shutil
import subprocess
import sys
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

import edgetwin.trace
import edgetwin_trace

PYTHON_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def loader():
    data = TensorDataset(torch.zeros(40, 1, 28, 28), torch.zeros(40, dtype=torch.int64))
    return DataLoader(data, batch_size=8)


def rows_of(module, path):
    with module.Trace(path) as trace:
        for x, _ in trace.epoch(loader()):
            x.sum()
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_the_package_and_the_copy_write_the_same_columns(tmp_path):
    package = rows_of(edgetwin.trace, tmp_path / "package.csv")
    copy = rows_of(edgetwin_trace, tmp_path / "copy.csv")
    assert list(package[0]) == list(copy[0])
    assert [r["batch_size"] for r in package] == [r["batch_size"] for r in copy] == ["8"] * 5
    assert "other_cpu_s" in package[0]


def test_the_copy_is_the_package_module():
    with open(os.path.join(PYTHON_DIR, "edgetwin_trace.py"), "rb") as copy, \
            open(os.path.join(PYTHON_DIR, "edgetwin", "trace.py"), "rb") as module:
        assert copy.read() == module.read()


def test_the_copy_works_alone_beside_a_script(tmp_path):
    # As docs/explanation/import.md says: copy the file beside the script, import it; no package around it.
    shutil.copy(os.path.join(PYTHON_DIR, "edgetwin_trace.py"), tmp_path / "edgetwin_trace.py")
    script = tmp_path / "train.py"
    script.write_text(
        "import torch, edgetwin_trace\n"
        "from torch.utils.data import DataLoader, TensorDataset\n"
        "data = TensorDataset(torch.zeros(16, 3), torch.zeros(16))\n"
        "with edgetwin_trace.Trace('t.csv') as trace:\n"
        "    for x, y in trace.epoch(DataLoader(data, batch_size=4)):\n"
        "        (x * 2).sum()\n"
        "print(edgetwin_trace.__file__)\n")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True,
                          env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(tmp_path / "edgetwin_trace.py")
    with open(tmp_path / "t.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 4


def test_other_cpu_s_sees_a_spinning_neighbour(tmp_path):
    # Two processes spinning beside the loop keep the machine's CPUs busy: the trace's rows
    # sum to most of a core or more of other processes' CPU time (not the loop's: cpu_s).
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        data = TensorDataset(torch.zeros(160, 8), torch.zeros(160))
        path = tmp_path / "busy.csv"
        with edgetwin.trace.Trace(path) as trace:
            for _ in trace.epoch(DataLoader(data, batch_size=4)):
                deadline = time.perf_counter() + 0.02  # a 20 ms step of the loop's own
                while time.perf_counter() < deadline:
                    pass
    finally:
        for s in spinners:
            s.kill()
            s.wait()
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    other = sum(float(r["other_cpu_s"]) for r in rows)
    wall = sum(float(r["fetch_s"]) + float(r["compute_s"]) for r in rows)
    assert wall >= 40 * 0.02
    # Two spinners and the loop on the machine's CPUs: the spinners get at least half a core.
    assert other / wall > 0.5
