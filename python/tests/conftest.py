import os
import sys

# Tests run from the source tree (CTest, a developer's shell): leave no __pycache__ in it.
sys.dont_write_bytecode = True
# edgetwin_trace.py is a single file beside tests/ (the one-file copy of edgetwin/trace.py).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The built package (its extension beside its Python files, python/CMakeLists.txt) goes before the
# source tree's, which has no extension; CTest sets EDGETWIN_PYTHON_PATH.
if os.environ.get("EDGETWIN_PYTHON_PATH"):
    sys.path.insert(0, os.environ["EDGETWIN_PYTHON_PATH"])
