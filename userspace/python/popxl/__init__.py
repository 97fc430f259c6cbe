# SPDX-License-Identifier: (LGPL-2.1-or-later OR MIT)
"""``import popxl``: the ipu package under PopXL's name, so that a PopXL
program runs unchanged when this directory is on the path.

``popxl`` *is* ``ipu`` (the same module object), and ``popxl.X`` is
``ipu.X`` for every submodule (``import popxl.ops``, ``from popxl.dtypes
import float32``, ...): one copy of each module, so the classes and the
graph scopes are shared whichever name imported them.

Not installed by the packages: a ``popxl`` in dist-packages would shadow
Graphcore's own.
"""
import importlib
import importlib.abc
import importlib.util
import sys

import ipu

_PREFIX = __name__ + "."


class _Alias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``popxl.X`` as the module ``ipu.X``."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(_PREFIX):
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        # The module object itself, not a copy: its __name__ and __spec__
        # stay ipu's.
        return importlib.import_module("ipu." + spec.name[len(_PREFIX):])

    def exec_module(self, module):
        pass  # already executed as ipu.X


if not any(isinstance(f, _Alias) for f in sys.meta_path):
    sys.meta_path.insert(0, _Alias())
# Each ipu submodule imported so far is popxl's too.
for _name, _mod in list(sys.modules.items()):
    if _name.startswith("ipu."):
        sys.modules.setdefault(__name__ + _name[3:], _mod)
sys.modules[__name__] = ipu
