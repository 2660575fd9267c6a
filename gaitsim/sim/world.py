"""One PyBullet physics client and the ground built from a gaitsim terrain.

``World`` owns its client: every call names ``physicsClientId`` explicitly, there is no
global client, and ``close()`` (or leaving the ``with`` block) disconnects it. The ground is
built from the same terrain object the kinematics use, so ``terrain.height(x, y)`` and the
physics surface agree (a test casts rays to hold them within 1 mm).
"""

from __future__ import annotations

import logging
import math
import os
import sys

import numpy as np
import pybullet as p

from ..terrain import Flat, Rough, Slope
from .common import WorldBase

log = logging.getLogger(__name__)

RAY_BATCH = 16384  # pybullet's MAX_RAY_INTERSECTION_BATCH_SIZE
# Bullet keeps a contact point while the two bodies' points stay within this share of the
# foot's size of each other (it scales the value by each shape's extent). Its default, 0.02,
# dropped the point of a rolling foot still pressed into its pad for a step at a time: a
# stance broken into pieces (generated walker 8 up a 5 deg slope: 1.62 touchdowns per
# stance, 1.00 with 0.1; a step that touches nothing has no contact force either, so this
# is the physics, not only its sensing). A point kept apart from the ground carries no
# force and does not count as a touch (``robot.is_touch``).
CONTACT_BREAKING_THRESHOLD = 0.1
HEIGHTFIELD_PAD = 8  # edge cells repeated around a Rough field (its height clamps outside)
# A heightfield of more than 2^21 points may lose its collision. Spheres dropped on square
# fields of n x n points (2 cm cells) all came to rest for every n up to 1448 (1448^2 <
# 2^21 = 2,097,152) and fell through at 1449, 1472-1488, 1512, 1520, 1536-1560 and
# 1576-1600 (the sizes between held): a 10 s run of a 2 m/s walker on rough ground laid a
# field of 1587 points a side and fell through it at 0.27 s. ``sim.run.cover_path`` lays
# wider rough ground on coarser cells; the World refuses a larger field
MAX_HEIGHTFIELD_POINTS = 2**21


class DisplayError(RuntimeError):
    """A GUI was requested but no display is available."""


def display_available() -> bool:
    """True unless we are on Linux/BSD without an X display (where p.GUI kills the process)."""
    if sys.platform.startswith(("win", "darwin")):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


def heightfield(grid, cell: float, origin, *, client: int) -> tuple[int, list[float]]:
    """A heightfield collision shape for ``grid`` and the base position that places it.

    ``grid[i, j]`` is the height at ``origin + (j, i) * cell``: rows run along y, columns
    along x (gaitsim.terrain.Rough's layout). Returns ``(shape_id, base_position)``.
    """
    grid = np.asarray(grid, dtype=float)
    n_y, n_x = grid.shape
    # Bullet's heightfield is "width" (numHeightfieldRows) points along x by "length"
    # (numHeightfieldColumns) along y, read as data[iy * n_x + ix]: numpy's row-major
    # flattening of grid[iy, ix]. A non-square test grid checks this with rays.
    shape = p.createCollisionShape(
        p.GEOM_HEIGHTFIELD,
        meshScale=[float(cell), float(cell), 1.0],
        heightfieldData=grid.ravel().tolist(),  # a list parses faster than an ndarray
        numHeightfieldRows=n_x,
        numHeightfieldColumns=n_y,
        # without it, contacts on the triangles' shared edges get tilted normals that kick
        # a resting sphere foot sideways (Bullet's internal-edge problem)
        flags=p.GEOM_CONCAVE_INTERNAL_EDGE,
        physicsClientId=client,
    )
    # Bullet centres the field on its bounding box: xy on the grid centre, z on
    # (min + max) / 2, so the base goes there.
    position = [
        float(origin[0]) + (n_x - 1) * cell / 2,
        float(origin[1]) + (n_y - 1) * cell / 2,
        float(grid.min() + grid.max()) / 2,
    ]
    return shape, position


class World(WorldBase):
    """A PyBullet client with gravity, a fixed time step and a ground matching ``terrain``
    (the keywords: ``common.WorldBase``).

    Contacts are paired deterministically (``DETERMINISTIC_PAIRS``), so a world reused for
    another episode behaves exactly like a new one.

    ``client`` is the pybullet client id, ``dt`` the time step (s), ``ground_id`` the ground
    body, ``terrain`` the terrain it was built from (``Flat()`` by default).
    """

    DETERMINISTIC_PAIRS = True
    engine = "pybullet"

    client = -1

    def _start(self, gui: bool) -> None:
        """Connect a client (a GUI one if asked and a display exists) and build the ground."""
        if gui and not display_available():
            raise DisplayError(
                "World(gui=True): no display is available (DISPLAY is not set); run headless "
                "with gui=False, or under a virtual display: xvfb-run -a python ..."
            )
        self._holders: list = []  # robots whose feedforward torques each substep re-applies
        # p.connect rather than bullet_client.BulletClient, which prints argv[0]= from C.
        client = p.connect(p.GUI if gui else p.DIRECT)
        if client < 0:
            raise RuntimeError("pybullet.connect failed (no free physics client slot?)")
        self.client = client
        self._open = True
        try:
            cid = self.client
            p.setTimeStep(self.dt, physicsClientId=cid)
            p.setGravity(0.0, 0.0, -self.gravity, physicsClientId=cid)
            # deterministic overlapping pairs: the solver meets contacts in the same order
            # whatever happened before, so a reused world replays an episode exactly
            p.setPhysicsEngineParameter(
                numSolverIterations=self.solver_iterations,
                deterministicOverlappingPairs=1,
                contactBreakingThreshold=CONTACT_BREAKING_THRESHOLD,
                physicsClientId=cid,
            )
            self.ground_id = self._build_ground(self.terrain)
            p.changeDynamics(self.ground_id, -1, lateralFriction=self.friction, physicsClientId=cid)
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ ground
    def _build_ground(self, terrain) -> int:
        cid = self.client
        if isinstance(terrain, Flat):
            shape = p.createCollisionShape(
                p.GEOM_PLANE, planeNormal=[0.0, 0.0, 1.0], physicsClientId=cid
            )
            position = [0.0, 0.0, float(terrain.level)]
        elif isinstance(terrain, Slope):
            # The plane through (origin, 0) with the slope's normal has exactly
            # z = grade . (xy - origin), which is Slope.height.
            n = terrain.normal(terrain.origin[0], terrain.origin[1])
            shape = p.createCollisionShape(
                p.GEOM_PLANE, planeNormal=[float(v) for v in n], physicsClientId=cid
            )
            position = [float(terrain.origin[0]), float(terrain.origin[1]), 0.0]
        elif isinstance(terrain, Rough):
            # Rough clamps to its edge heights outside the square: repeat the edge for a few
            # cells so rays and feet at the very edge still meet ground.
            grid = np.pad(terrain.grid, HEIGHTFIELD_PAD, mode="edge")
            if grid.size > MAX_HEIGHTFIELD_POINTS:
                raise ValueError(
                    f"World: rough ground of {terrain.size:g} m on {terrain.cell:g} m cells "
                    f"needs a heightfield of {grid.size} points, more than PyBullet holds "
                    f"reliably ({MAX_HEIGHTFIELD_POINTS}: bodies fall through larger ones); "
                    "lay it on coarser cells or smaller (simulate() does: sim.run.cover_path)"
                )
            ox, oy = np.subtract(terrain.origin, HEIGHTFIELD_PAD * terrain.cell)
            shape, position = heightfield(grid, terrain.cell, (ox, oy), client=cid)
        else:
            raise TypeError(
                f"World: no physics ground for terrain {terrain!r}; expected Flat, Slope or Rough"
            )
        if shape < 0:
            raise RuntimeError(f"World: pybullet could not create the ground for {terrain!r}")
        return p.createMultiBody(
            baseMass=0.0,
            baseCollisionShapeIndex=shape,
            basePosition=position,
            physicsClientId=cid,
        )

    def ray_heights(self, xy, *, top: float = 20.0, bottom: float = -20.0) -> np.ndarray:
        """Height of the first surface hit by a vertical ray over each world ``xy`` (..., 2).

        Rays run from z = ``top`` down to ``bottom``; a miss gives NaN. Any body can be hit,
        so cast them before adding robots to measure the ground alone.
        """
        xy = np.asarray(xy, dtype=float)
        if xy.shape[-1] != 2:
            raise ValueError(f"ray_heights: xy must be shaped (..., 2), got {xy.shape}")
        flat = xy.reshape(-1, 2)
        out = np.full(len(flat), np.nan)
        for start in range(0, len(flat), RAY_BATCH):
            chunk = flat[start : start + RAY_BATCH]
            frm = np.column_stack([chunk, np.full(len(chunk), top)]).tolist()
            to = np.column_stack([chunk, np.full(len(chunk), bottom)]).tolist()
            hits = p.rayTestBatch(frm, to, physicsClientId=self.client)
            for k, hit in enumerate(hits):
                if hit[0] >= 0:
                    out[start + k] = hit[3][2]
        return out.reshape(xy.shape[:-1])

    def set_friction(self, friction: float) -> None:
        """Change the ground's friction coefficient (feet have 1.0, so this is the pair's)."""
        if not (math.isfinite(friction) and friction > 0):
            raise ValueError(f"friction must be a positive number, got {friction!r}")
        self.friction = float(friction)
        p.changeDynamics(
            self.ground_id, -1, lateralFriction=self.friction, physicsClientId=self.client
        )

    # ------------------------------------------------------------------ time
    def step(self, n: int = 1, before=None) -> None:
        """Advance the simulation by ``n`` fixed time steps. Each robot's held feedforward
        torques (``Robot.command_torque_list``) act in every one of them: PyBullet applies a
        torque command for one step only, so it is sent again before each. ``before(dt)``,
        if given, is called before each of the engine's own steps with its length (s): here
        once per world step (the assist's explicit wrench)."""
        cid, n = self.client, int(n)
        held = [r for r in self._holders if r._held is not None or r._ankle_bias is not None]
        dt = self.dt
        for _ in range(n):
            for r in held:
                r._apply_held()
            if before is not None:
                before(dt)
            p.stepSimulation(physicsClientId=cid)
        self._steps += n

    def close(self) -> None:
        """Disconnect the client; calling it again does nothing.

        Only the first call disconnects: pybullet reuses client ids, so a stale id may by now
        belong to another World.
        """
        if not getattr(self, "_open", False):
            return
        self._open = False
        try:
            if p.isConnected(physicsClientId=self.client):
                p.disconnect(physicsClientId=self.client)
        except Exception:  # interpreter shutdown: the module may be half torn down
            log.debug("World.close: disconnect of client %s failed", self.client)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        state = "closed" if self.closed else f"client {self.client}"
        return f"World({self.terrain.describe()}, {state}, t={self.time:.3f} s)"


_display_available = display_available  # the old private name
