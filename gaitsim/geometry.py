"""A walker's body geometry: hip mounts, standing height, foot radius, body box and mass.

Each quantity comes from an optional catalog key when present, otherwise from a documented
rule below, so the Walker, the URDF and the physics all agree on one body.

Frames: the catalog frame C has its origin on the foot plane below the body centre (a home
with z = 0 rests on the ground); the body frame B (the URDF base link) is C raised by the
hip height, so hip mounts sit at z = 0 in B.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .catalog import KNEES, CatalogError, Gait
from .ik import KNEE_UP, LegChain

REACH_FRACTION = 0.85  # a default-height leg reaches this share of its length at stance ends
UP_HIP_INSET = 0.4  # an 'up' leg's default hip sits at this share of its home's lateral offset
BOB_FRACTION = 0.015  # default bob amplitude as a share of the hip height
FOOT_RADIUS_FRACTION = 0.12  # default foot radius as a share of the shortest shin
BODY_DENSITY = 600.0  # kg/m^3 for the default mass of the body box
LEG_DENSITY = 400.0  # kg/m^3 for the leg cylinders (light legs, like real walkers)


@dataclass(frozen=True)
class Geometry:
    """Resolved body geometry of one gait (every field an explicit number)."""

    hip_height: float
    foot_radius: float
    bob: float
    mounts: np.ndarray  # (L, 3) hip mounts in body frame B
    homes: np.ndarray  # (L, 3) mid-stance foot centres in body frame B
    chain: LegChain
    body: tuple[float, float, float]  # box length, width, height (m)
    leg_radius: np.ndarray  # (L,) radius of the thigh and shin cylinders
    body_mass: float  # mass of the body box alone (kg)
    leg_masses: np.ndarray  # (L, 2) thigh and shin masses (kg)
    foot_mass: float

    @property
    def total_mass(self) -> float:
        return float(self.body_mass + self.leg_masses.sum() + self.foot_mass * len(self.homes))


def _default_mount_xy(leg) -> tuple[float, float]:
    """Hip mount (x, y) in C: above the home for hanging legs, inset toward the body for 'up'."""
    hx, hy, _ = leg.home
    if leg.knee == "up":
        return hx, hy * UP_HIP_INSET
    return hx, hy


def default_hip_height(gait: Gait) -> float:
    """The tallest stance for which every foot reaches REACH_FRACTION of its leg at stance ends.

    For leg i with horizontal hip-to-home offset r_i, the stance-end foot lies stride/2
    further along x, so H = min_i sqrt((f L_i)^2 - r_i^2 - (stride/2)^2).
    """
    best = math.inf
    for i, leg in enumerate(gait.legs):
        mx, my = (leg.hip[0], leg.hip[1]) if leg.hip is not None else _default_mount_xy(leg)
        r2 = (leg.home[0] - mx) ** 2 + (leg.home[1] - my) ** 2
        h2 = (REACH_FRACTION * leg.reach) ** 2 - r2 - (gait.stride / 2) ** 2
        if h2 <= 0:
            raise CatalogError(
                f"segments[{i}] ({leg.name}): legs of {leg.reach:.3f} m cannot reach a stride "
                f"of {gait.stride} m from this hip; shorten the stride or set 'hip_height'"
            )
        best = min(best, math.sqrt(h2) + leg.home[2])
    return best


@lru_cache(maxsize=256)
def geometry(gait: Gait) -> Geometry:
    """Resolve a gait's body geometry (cached: gaits are frozen)."""
    H = gait.hip_height if gait.hip_height is not None else default_hip_height(gait)
    min_lower = min(leg.lower for leg in gait.legs)
    r = gait.foot_radius
    if r is None:
        r = float(np.clip(FOOT_RADIUS_FRACTION * min_lower, 0.004, 0.03))
    bob = gait.bob if gait.bob is not None else BOB_FRACTION * H
    mounts_c = []
    for leg in gait.legs:
        if leg.hip is not None:
            mounts_c.append(leg.hip)
        else:
            mx, my = _default_mount_xy(leg)
            mounts_c.append((mx, my, H))
    lift = np.array([0.0, 0.0, H])
    mounts = np.array(mounts_c, dtype=float) - lift
    homes = np.array([leg.home for leg in gait.legs], dtype=float) - lift
    kind = np.array([KNEES.index(leg.knee) for leg in gait.legs])
    d = homes - mounts
    yaw0 = np.where(kind == KNEE_UP, np.arctan2(d[:, 1], d[:, 0]), 0.0)
    upper = np.array([leg.upper for leg in gait.legs])
    lower = np.array([leg.lower for leg in gait.legs])
    chain = LegChain(mounts, upper, lower, kind, yaw0)
    leg_radius = np.clip(0.1 * np.minimum(upper, lower), 0.003, 0.02)

    if gait.body is not None:
        body = gait.body
    else:
        length = float(np.ptp(mounts[:, 0]) + 2 * leg_radius.max() + 0.2 * upper.mean())
        width = float(max(np.ptp(mounts[:, 1]), 0.2 * length) + 2 * leg_radius.max())
        height = float(np.clip(0.3 * H, 0.02, 0.6 * width))
        body = (length, width, height)
    body_mass_default = BODY_DENSITY * body[0] * body[1] * body[2]
    leg_masses = LEG_DENSITY * math.pi * leg_radius[:, None] ** 2 * np.stack([upper, lower], 1)
    foot_mass = float(LEG_DENSITY * 4 / 3 * math.pi * r**3)
    if gait.mass is not None:
        body_mass = gait.mass - leg_masses.sum() - foot_mass * gait.n_legs
        if body_mass <= 0.1 * gait.mass:
            body_mass = 0.5 * gait.mass  # legs too heavy for the total: rescale them
            scale = 0.5 * gait.mass / (leg_masses.sum() + foot_mass * gait.n_legs)
            leg_masses = leg_masses * scale
            foot_mass *= scale
    else:
        body_mass = body_mass_default
    return Geometry(
        float(H),
        float(r),
        float(bob),
        mounts,
        homes,
        chain,
        tuple(body),
        leg_radius,
        float(body_mass),
        leg_masses,
        foot_mass,
    )
