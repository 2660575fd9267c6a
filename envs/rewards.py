"""The walking reward: small named terms, one frozen dataclass of weights.

Each term is a plain function of one control step's measurements. The env reports every
weighted, signed term as ``info["reward_<term>"]``; they add up to the reward exactly as
``combine`` adds them (a test checks it). Pure Python: no simulator, no gymnasium.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields

from gaitsim.geometry import GRAVITY
from gaitsim.sim.metrics import tilt_cos


@dataclass(frozen=True)
class RewardWeights:
    """Weights of the reward terms (all >= 0; the sign of each term is fixed).

    Typical per-step sizes for the fox walking well at 60 Hz: progress ~1, overspeed 0 to
    ~0.1, slip ~1e-4 m, energy ~3e-3, tilt ~1e-3, action_rate 0 (prior) to ~8 (random 12-D
    actions), alive 1.
    """

    progress: float = 1.0  # + measured progress / commanded progress of the step
    overspeed: float = 0.0  # - the share of progress beyond the command (1: progress capped)
    slip: float = 20.0  # - metres that stance feet slid horizontally this step
    energy: float = 20.0  # - sum |tau qdot| dt / (m g): metres lifted with the work done
    tilt: float = 1.0  # - 1 - cos(tilt of the body from upright)
    action_rate: float = 0.01  # - |a - a_prev|^2
    alive: float = 0.1  # + 1 per step without a fall

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= 0):
                raise ValueError(f"reward_weights.{f.name}: must be a number >= 0, got {v!r}")

    @classmethod
    def of(cls, value) -> RewardWeights:
        """A RewardWeights, or one built from a mapping of overrides (registration kwargs)."""
        if value is None:
            return cls()
        if isinstance(value, cls):
            return value
        if isinstance(value, dict):
            names = {f.name for f in fields(cls)}
            unknown = sorted(set(value) - names)
            if unknown:
                raise ValueError(
                    f"reward_weights: unknown term(s) {', '.join(unknown)}; "
                    f"terms are {', '.join(TERMS)}"
                )
            return cls(**value)
        raise TypeError(f"reward_weights must be a RewardWeights or a dict, got {value!r}")

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


# sign of each term in the reward, in the order the terms are added
SIGNS = {
    "progress": 1.0,
    "overspeed": -1.0,
    "slip": -1.0,
    "energy": -1.0,
    "tilt": -1.0,
    "action_rate": -1.0,
    "alive": 1.0,
}
TERMS = tuple(SIGNS)


def progress(step_m: float, speed: float, dt: float) -> float:
    """Measured progress along the commanded path this step, per commanded progress."""
    return step_m / (speed * dt)


def overspeed(progress_ratio: float) -> float:
    """How far a step's progress ratio (``progress``) exceeds the command: max(0, r - 1).

    Weighted 1 against a progress weight of 1, the sum is min(r, 1): progress capped at
    the commanded speed, so a policy gains nothing by outrunning its command (the default
    weight 0 leaves progress uncapped)."""
    return progress_ratio - 1.0 if progress_ratio > 1.0 else 0.0


def slip(prev_feet, feet, prev_contacts, contacts) -> float:
    """Horizontal distance (m) moved since the last step by feet in contact at both steps."""
    total = 0.0
    for a, b, c0, c1 in zip(prev_feet, feet, prev_contacts, contacts, strict=True):
        if c0 and c1:
            total += math.hypot(b[0] - a[0], b[1] - a[1])
    return total


def energy(torques, velocities, dt: float, mass: float) -> float:
    """Mechanical joint work this step, |tau qdot| dt summed, over the weight m g (metres)."""
    work = 0.0
    for t, v in zip(torques, velocities, strict=True):
        work += abs(t * v)
    work *= dt
    return work / (mass * GRAVITY)


def tilt(quaternion) -> float:
    """1 - cos of the angle between the body's z axis and world up (0 upright, 2 upside down)."""
    return 1.0 - tilt_cos(quaternion)


def action_rate(action, prev_action) -> float:
    """Squared change of the action since the last step (0 for an empty action)."""
    return sum((a - b) * (a - b) for a, b in zip(action, prev_action, strict=True))


def alive(fallen: bool) -> float:
    """1 for a step that ends upright, 0 for the step that falls."""
    return 0.0 if fallen else 1.0


def signed_weights(weights: RewardWeights) -> tuple[tuple[str, str, float], ...]:
    """(term, info key, sign * weight) in TERMS order: what ``combine`` applies each step."""
    return tuple(
        (name, f"reward_{name}", SIGNS[name] * w if (w := getattr(weights, name)) else 0.0)
        for name in TERMS
    )  # a weight of 0 gives parts of +0.0, not -0.0


def combine(
    values: dict[str, float], signed: tuple[tuple[str, str, float], ...]
) -> tuple[float, dict[str, float]]:
    """The reward and its parts ``{"reward_<term>": sign * weight * value}``; the reward is
    the parts added in TERMS order, so the parts sum to it. ``signed``: the weights'
    ``signed_weights``, worked out once per task rather than every step."""
    parts = {}
    total = 0.0
    for name, key, k in signed:
        v = k * values[name]
        parts[key] = v
        total += v
    return total, parts
