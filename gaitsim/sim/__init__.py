"""Everything that touches PyBullet: World, Robot, GaitController, metrics.

This is the only package that imports pybullet. Importing it here first, with the C
module's "pybullet build time" banner discarded (pybullet writes it straight to the
process's file descriptors), keeps stdout clean for ``--json`` and stderr clean for ``-q``.
"""

import os
import sys


def _import_pybullet_quietly():
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        saved = (os.dup(1), os.dup(2))
    except (OSError, ValueError):  # no real stdout/stderr (e.g. captured): import as is
        import pybullet

        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        import pybullet  # noqa: F401
    finally:
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        for fd in (*saved, devnull):
            os.close(fd)


_import_pybullet_quietly()
