"""The example of docs/how-to/use-from-python.md, run as the page shows it (a command shown in a doc is one CI
runs): it plans the fleet, prints, and writes its figure."""

import os
import re
import subprocess
import sys

import pytest

edgetwin = pytest.importorskip("edgetwin")
try:
    edgetwin.devices()
except ImportError as e:
    pytest.skip(f"the extension is not built: {e}", allow_module_level=True)
pytest.importorskip("matplotlib")
pytest.importorskip("pandas")

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def python_blocks(page):
    with open(os.path.join(SOURCE, "docs", page)) as f:
        return re.findall(r"```python\n(.*?)```", f.read(), re.S)


def test_the_fleet_example_plans_prints_and_plots(tmp_path):
    blocks = python_blocks("how-to/use-from-python.md")
    assert len(blocks) == 1
    package_root = os.path.dirname(os.path.dirname(os.path.abspath(edgetwin.__file__)))
    done = subprocess.run([sys.executable, "-c", blocks[0]], cwd=tmp_path, capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=package_root), timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("energy: round 1 takes ") and lines[1].startswith("  time: round 1 takes ")
    with open(tmp_path / "frontier.png", "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
