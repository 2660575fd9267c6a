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
