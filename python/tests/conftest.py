import os
import sys

# Tests run from the source tree (CTest, a developer's shell): leave no __pycache__ in it.
sys.dont_write_bytecode = True
# The module is a single file beside tests/, not an installed package.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
