"""gaitsim: procedural walk cycles (Gaitkit catalog format) turned into physics.

The kinematic core (catalog, gait, ik, terrain, path, walker, validate, urdf) is pure
numpy; ``gaitsim.sim`` wraps PyBullet and ``gaitsim.envs`` Gymnasium.
"""

from .catalog import (
    Catalog,
    CatalogError,
    Entry,
    Gait,
    Leg,
    load_catalog,
    loads_catalog,
    save_catalog,
)
from .gait import foot_targets, stance_phase_labels, swing_height, swing_time_below
from .ik import leg_fk, leg_ik, two_bone
from .path import Arc, Schedule, Straight, TurnInPlace
from .terrain import Flat, Rough, Slope
from .walker import Pose, Walker

__version__ = "0.1.0"

# Gymnasium ids: keyword presets of one env class, registered by entry-point string so that
# `import gaitsim` is enough for gymnasium.make without importing gaitsim.envs or pybullet.
ENV_ENTRY_POINT = "gaitsim.envs.walk:WalkEnv"
ENV_EPISODE_STEPS = 1000  # control steps: 16.7 s at 60 Hz, then TimeLimit truncates
ENV_PRESETS = {
    "gaitsim/Walk-v0": {},
    "gaitsim/Slope-v0": {"slope_deg": 10.0},
    "gaitsim/Rough-v0": {"terrain": "rough", "roughness": 0.02},
    "gaitsim/Turn-v0": {"turn": 1.0},
}


def _register_envs() -> None:
    from gymnasium.envs.registration import register, registry

    for env_id, kwargs in ENV_PRESETS.items():
        if env_id not in registry:  # a reload of gaitsim must not re-register
            register(
                id=env_id,
                entry_point=ENV_ENTRY_POINT,
                kwargs=dict(kwargs),
                max_episode_steps=ENV_EPISODE_STEPS,
            )


_register_envs()

__all__ = [
    "Arc",
    "Catalog",
    "CatalogError",
    "Entry",
    "Flat",
    "Gait",
    "Leg",
    "Pose",
    "Rough",
    "Schedule",
    "Slope",
    "Straight",
    "TurnInPlace",
    "Walker",
    "foot_targets",
    "leg_fk",
    "leg_ik",
    "load_catalog",
    "loads_catalog",
    "save_catalog",
    "stance_phase_labels",
    "swing_height",
    "swing_time_below",
    "two_bone",
]
