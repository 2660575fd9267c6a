"""The walking task: the command (speed and path), the reward and the fall rule.

The task draws each episode's command from the env's generator, reports the command the
policy observes, scores a control step with the terms of ``rewards`` and says when the
walker has fallen (gaitsim.sim.metrics' rule, the one ``simulate`` uses).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from gaitsim.path import Arc, Schedule, Straight, TurnInPlace
from gaitsim.sim.metrics import fall_reason
from gaitsim.sim.run import make_path
from gaitsim.validate import turn_radius as natural_turn_radius

from . import rewards
from .params import Param, check_param, draw, extremes, span

PATH_TYPES = (Straight, Arc, TurnInPlace, Schedule)
COVER_SAMPLES = 9  # paths per randomized turn used to lay rough ground under all of them


@dataclass(frozen=True)
class Command:
    """One episode's command: the speed scale, the speed (m/s) and the path."""

    speed_scale: float
    speed: float
    path: object
    curvature: float | None  # rad per metre when constant along the path, else None

    def yaw_rate(self, s: float) -> float:
        """Commanded yaw rate (rad/s) at gait distance ``s``: path curvature times speed."""
        k = self.curvature
        if k is None:
            k = float(self.path.curvature(s))
        return k * self.speed


class WalkTask:
    """Walk the commanded path at the commanded speed without falling.

    ``turn``: None (straight), a signed radius in metres (0 turns in place, inf is straight),
    a (low, high) range of radii of one sign, or a path (Straight, Arc, TurnInPlace,
    Schedule) walked as given. ``yaw_rate_deg``: instead of ``turn``, a yaw rate (deg/s,
    constant or range): an arc of radius speed / yaw rate.
    """

    def __init__(self, entry, *, speed_scale, start_phase, turn, yaw_rate_deg, weights):
        self.entry = entry
        self._weights = rewards.RewardWeights.of(weights)
        self._signed = rewards.signed_weights(self._weights)
        self.speed_scale = check_param("speed_scale", speed_scale, positive=True)
        self.start_phase = check_param("start_phase", start_phase)
        if not all(0.0 <= v <= 1.0 for v in extremes(self.start_phase)):
            raise ValueError(
                f"start_phase: must lie in [0, 1] (a share of the gait cycle), got {start_phase!r}"
            )
        if turn is not None and yaw_rate_deg is not None:
            raise ValueError("give either turn or yaw_rate_deg, not both")
        self.path = None
        self.turn: Param | None = None
        self.yaw_rate_deg: Param | None = None
        if isinstance(turn, PATH_TYPES):
            self.path = turn
        elif turn is not None:
            t = check_param("turn", turn)
            if isinstance(t, tuple):
                t = check_param("turn", t, nonzero=True)
                if not all(math.isfinite(v) for v in t):
                    raise ValueError(f"turn: a range of radii must be finite, got {t}")
            self.turn = t
        elif yaw_rate_deg is not None:
            y = check_param("yaw_rate_deg", yaw_rate_deg)
            if not all(math.isfinite(v) for v in extremes(y)):
                raise ValueError(f"yaw_rate_deg: must be finite, got {yaw_rate_deg!r}")
            self.yaw_rate_deg = y
        self.clip_speed = entry.gait.clip_speed
        self.cadence_max = 1.0  # the largest step-rate factor of a lean (the env sets it)

    @property
    def weights(self) -> rewards.RewardWeights:
        """The reward weights (fixed for the task's life: build a new env to change them)."""
        return self._weights

    # ------------------------------------------------------------------ episodes
    def draw(self, rng) -> dict[str, float]:
        """This episode's command parameters, drawn in a fixed order."""
        out = {
            "speed_scale": draw(self.speed_scale, rng),
            "start_phase": draw(self.start_phase, rng),
        }
        if self.turn is not None:
            out["turn"] = draw(self.turn, rng)
        if self.yaw_rate_deg is not None:
            out["yaw_rate_deg"] = draw(self.yaw_rate_deg, rng)
        return out

    def command(self, params: dict, cadence: float = 1.0) -> Command:
        """The episode's command; ``cadence``: the upright lean's step-rate factor on this
        episode's slope (``gaitsim.walker.lean_cadence``), which speeds the walk up as it
        does in ``simulate``."""
        scale = params["speed_scale"]
        speed = self.clip_speed * scale * cadence
        path = self.path if self.path is not None else self._path(speed, params)
        return Command(scale, speed, path, _constant_curvature(path))

    def _path(self, speed: float, params: dict):
        if "yaw_rate_deg" in params:
            return make_path(self.entry, speed, yaw_rate=math.radians(params["yaw_rate_deg"]))
        return make_path(self.entry, speed, turn_radius=params.get("turn"))

    def speed_max(self) -> float:
        return self.clip_speed * extremes(self.speed_scale)[1] * self.cadence_max

    def start_max(self) -> float:
        """The longest gait distance (m) an episode can start at: start_phase of a cycle."""
        cycle = self.entry.gait.stride / self.entry.gait.duty * extremes(self.speed_scale)[1]
        return extremes(self.start_phase)[1] * cycle

    def cover_paths(self) -> list:
        """Paths spanning every command this task can draw (rough ground must cover them)."""
        if self.path is not None:
            return [self.path]
        paths = []
        for scale in span(self.speed_scale, 2):
            speed = self.clip_speed * scale
            if self.turn is not None:
                paths += [self._path(speed, {"turn": r}) for r in span(self.turn, COVER_SAMPLES)]
            elif self.yaw_rate_deg is not None:
                paths += [
                    self._path(speed, {"yaw_rate_deg": y})
                    for y in span(self.yaw_rate_deg, COVER_SAMPLES)
                ]
            else:
                paths.append(Straight())
        return paths

    def yaw_rate_max(self) -> float:
        """The largest |commanded yaw rate| (rad/s) any episode can see."""
        v = self.speed_max()
        if self.path is not None:
            pieces = (
                [p for p, _ in self.path.segments]
                if isinstance(self.path, Schedule)
                else [self.path]
            )
            return max(abs(_constant_curvature(p) or 0.0) for p in pieces) * v
        if self.yaw_rate_deg is not None:
            return math.radians(max(abs(y) for y in extremes(self.yaw_rate_deg)))
        if self.turn is not None:
            r = min(abs(x) for x in extremes(self.turn))
            if r == 0:
                r = natural_turn_radius(self.entry)
            return v / r if math.isfinite(r) else 0.0
        return 0.0

    # ------------------------------------------------------------------ a step
    def score(self, values: dict[str, float]) -> tuple[float, dict[str, float]]:
        """The reward of one step and its parts ``reward_<term>``."""
        return rewards.combine(values, self._signed)

    # the one fall rule, shared with gaitsim.sim.run
    fall = staticmethod(fall_reason)


def _constant_curvature(path) -> float | None:
    if isinstance(path, Straight):
        return 0.0
    if isinstance(path, (Arc, TurnInPlace)):
        return 1.0 / path.radius
    if isinstance(path, Schedule):
        return None
    k = np.asarray(path.curvature(np.array([0.0, 1.0, 10.0])))
    return float(k[0]) if np.all(k == k[0]) else None
