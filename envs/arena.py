"""The arena: an episode's ground (terrain and friction) and the World built from it.

A World is kept across resets while the ground stays the same (same terrain parameters and
friction), so an episode on unchanged ground costs no rebuild; a rough heightfield (the
expensive one: seconds at 2 cm cells) is built once per distinct parameter set and laid to
cover every path the task can command over a whole episode.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from gaitsim.scenario import DEFAULT_ROUGHNESS_M, DEFAULT_SLOPE_DEG, TERRAIN_KINDS, Scenario
from gaitsim.sim.engine import DEFAULT_ENGINE, check_engine, make_world
from gaitsim.sim.run import cover_path
from gaitsim.sim.world import World
from gaitsim.terrain import Rough

from .params import Param, check_param, draw

TERRAINS = TERRAIN_KINDS  # flat, slope, rough
DEFAULT_ROUGHNESS = DEFAULT_ROUGHNESS_M  # m, peak bump height (as `gaitsim walk --terrain rough`)
ROUGH_CELL = 0.04  # m: 12 samples a 0.5 m wavelength; a quarter of the 2 cm grid's cells
ROUGH_CACHE = 4  # distinct rough grids kept per env (a roughness range draws new ones)


@dataclass(frozen=True)
class GroundSpec:
    """What the arena may draw: the terrain kind and its (randomizable) parameters."""

    kind: str = "flat"
    slope_deg: Param = 0.0
    uphill_heading_deg: Param = 0.0
    roughness: Param = 0.0
    roughness_wavelength: float = 0.5
    terrain_seed: int = 0
    terrain_cell: float = ROUGH_CELL
    friction: Param = 1.0

    @classmethod
    def from_kwargs(
        cls,
        terrain,
        slope_deg,
        uphill_heading_deg,
        roughness,
        roughness_wavelength,
        terrain_seed,
        terrain_cell,
        friction,
    ) -> GroundSpec:
        """Validate the env's terrain keywords; ``terrain=None`` infers the kind from the
        terrain-specific keywords given (slope_deg: slope, roughness: rough, none: flat)."""
        if terrain is None:
            if slope_deg is not None and roughness is not None:
                raise ValueError("slope_deg and roughness belong to different terrains; give one")
            terrain = (
                "slope" if slope_deg is not None else "rough" if roughness is not None else "flat"
            )
        if terrain not in TERRAINS:
            raise ValueError(f"terrain must be one of {', '.join(TERRAINS)}, got {terrain!r}")
        only = {
            "slope_deg": (slope_deg, "slope"),
            "uphill_heading_deg": (uphill_heading_deg, "slope"),
            "roughness": (roughness, "rough"),
        }
        for name, (value, kind) in only.items():
            if value is not None and terrain != kind:
                raise ValueError(
                    f"{name} applies only to terrain={kind!r}, not terrain={terrain!r}"
                )
        kw = {"kind": terrain, "friction": check_param("friction", friction, positive=True)}
        if terrain == "slope":
            kw["slope_deg"] = check_param(
                "slope_deg", DEFAULT_SLOPE_DEG if slope_deg is None else slope_deg, lo=-80, hi=80
            )
            kw["uphill_heading_deg"] = check_param(
                "uphill_heading_deg", 0.0 if uphill_heading_deg is None else uphill_heading_deg
            )
            for v in np.ravel(kw["uphill_heading_deg"]):
                if not math.isfinite(v):
                    raise ValueError(f"uphill_heading_deg: must be finite, got {v!r}")
        if terrain == "rough":
            kw["roughness"] = check_param(
                "roughness", DEFAULT_ROUGHNESS if roughness is None else roughness, positive=True
            )
            cell = float(terrain_cell)
            if not (math.isfinite(cell) and cell > 0):
                raise ValueError(f"terrain_cell: must be > 0 metres, got {terrain_cell!r}")
            wl = float(roughness_wavelength)
            if not (math.isfinite(wl) and wl > 2 * cell):
                raise ValueError(
                    f"roughness_wavelength: must exceed two terrain cells ({2 * cell} m), "
                    f"got {roughness_wavelength!r}"
                )
            kw.update(roughness_wavelength=wl, terrain_seed=int(terrain_seed), terrain_cell=cell)
        return cls(**kw)

    def draw(self, rng) -> dict[str, float]:
        """This episode's ground parameters, drawn in a fixed order."""
        out = {}
        if self.kind == "slope":
            out["slope_deg"] = draw(self.slope_deg, rng)
            out["uphill_heading_deg"] = draw(self.uphill_heading_deg, rng)
        if self.kind == "rough":
            out["roughness"] = draw(self.roughness, rng)
        out["friction"] = draw(self.friction, rng)
        return out

    def scenario_kwargs(self) -> dict:
        """The ground's fixed keywords of ``Scenario.from_env_kwargs`` (the drawn ones come
        with each episode's parameters)."""
        return {
            "terrain": self.kind,
            "roughness_wavelength": self.roughness_wavelength,
            "terrain_seed": self.terrain_seed,
            "terrain_cell": self.terrain_cell,
        }


class PathUnion:
    """Several paths as one for ``cover_path``: ``pose(s)`` stacks their samples."""

    def __init__(self, paths):
        self.paths = tuple(paths)

    def pose(self, s):
        xy, heading = zip(*(p.pose(s) for p in self.paths), strict=True)
        return np.concatenate(xy), np.concatenate(heading)


def reusable(terrain) -> bool:
    """Whether a World on ``terrain`` can serve another episode exactly as a new one would.

    On a plane, every link's broadphase pair with the ground lives as long as the link, so
    the solver meets contacts in the same order in every episode. A heightfield's pairs come
    and go as feet leave its bounding box, and without Bullet's deterministic overlapping
    pairs their order (and so the rollout) depends on earlier episodes: rough ground is
    rebuilt each episode until World turns that option on (``World.DETERMINISTIC_PAIRS``).
    """
    return not isinstance(terrain, Rough) or World.DETERMINISTIC_PAIRS


class Arena:
    """Owns the World of the current ground; ``ground(params)`` reuses or rebuilds it."""

    def __init__(self, spec: GroundSpec, *, sim_hz: float, solver_iterations: int, gui: bool,
                 engine: str = DEFAULT_ENGINE):  # fmt: skip
        self.spec = spec
        self.engine = check_engine(engine)
        self.sim_hz = float(sim_hz)
        self.solver_iterations = int(solver_iterations)
        self.gui = bool(gui)
        self.world: World | None = None
        self.terrain = None
        self.builds = 0  # Worlds built so far (a test counts reuse)
        self._key = None
        self._rough: OrderedDict = OrderedDict()
        self._cover = None  # (paths, distance, reach) that rough ground must cover

    def set_cover(self, paths, distance: float, reach: float) -> None:
        """Rough ground is laid to cover ``paths`` up to ``distance`` with ``reach`` to spare."""
        cover = (PathUnion(paths), float(distance), float(reach))
        if self._cover is None or self._cover[1:] != cover[1:]:
            self._rough.clear()
        self._cover = cover

    def _laid(self, terrain):
        if not isinstance(terrain, Rough) or self._cover is None:
            return terrain
        if terrain in self._rough:
            self._rough.move_to_end(terrain)
            return self._rough[terrain]
        path, distance, reach = self._cover
        laid = cover_path(terrain, path, distance, reach)
        self._rough[terrain] = laid
        while len(self._rough) > ROUGH_CACHE:
            self._rough.popitem(last=False)
        return laid

    def ground(self, scenario: Scenario) -> tuple[World, bool]:
        """The World for this episode's ground (``scenario``'s terrain and friction), and
        whether it was (re)built."""
        terrain = self._laid(scenario.terrain.build())
        friction = scenario.friction
        key = terrain
        if (
            self.world is not None
            and not self.world.closed
            and key == self._key
            and reusable(terrain)
        ):
            if self.world.friction != friction:
                self.world.set_friction(friction)  # no rebuild for a new friction
            return self.world, False
        self.close()  # one GUI at a time; free the old client before the new one
        self.world = make_world(
            self.engine,
            terrain,
            gui=self.gui,
            time_step=1.0 / self.sim_hz,
            friction=friction,
            solver_iterations=self.solver_iterations,
        )
        self.terrain = terrain
        self._key = key
        self.builds += 1
        return self.world, True

    def close(self) -> None:
        if self.world is not None:
            self.world.close()
        self.world = None
        self._key = None
