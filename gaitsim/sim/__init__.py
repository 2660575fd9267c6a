"""Everything that touches PyBullet: World, Robot, GaitController, metrics.

This is the only package that imports pybullet. Importing it here first, with the C
module's "pybullet build time" banner sent to stderr, keeps stdout clean for ``--json``.
"""

import os
import sys


def _import_pybullet_quietly():
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):  # no real stdout (e.g. captured): import as is
        import pybullet

        return
    try:
        os.dup2(2, 1)
        import pybullet  # noqa: F401
    finally:
        os.dup2(saved, 1)
        os.close(saved)


_import_pybullet_quietly()
