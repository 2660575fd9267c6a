"""A walker resolved once into the body that physics loads: ``compile_body(walker)``.

Everything an engine, the controller and the Gymnasium env need to know about a walker's
body, worked out from its catalog entry in one place: the geometry (mounts, homes, leg
chain, masses, foot radius), the joint and foot-link names in chain order (and the
ankles' and the upper body's, each their own group), the joint
limits and torque limits, the foot pads' contact stiffness and damping, and the URDF file
(written once per distinct text, see ``urdf.cached_urdf``). ``Robot``, ``simulate()`` and
the env take a ``Body``; each of them used to ask ``walker.py``, ``geometry.py`` and
``urdf.py`` for these again.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .catalog import Entry, Gait
from .feet import SOLE_CORNERS, Sole, ankle_joint_names, corner_pad, soles
from .geometry import (
    GRAVITY,
    Geometry,
    control_hz,
    foot_pad,
    geometry,
    physics_hz,
    servo_clock,
)
from .upper import UpperGeometry, upper_geometry
from .urdf import (
    ankle_limits,
    cached_urdf,
    effort_limits,
    foot_link_names,
    joint_limits,
    joint_names,
    n_stance_min,
    upper_joint_names,
    upper_limits,
)
from .walker import resolve_entry


@dataclass(frozen=True, eq=False)
class Body:
    """One walker's compiled body (see the module docstring). Arrays are read-only."""

    entry: Entry
    geometry: Geometry
    joint_names: tuple[str, ...]  # 3 per leg, chain order, legs in catalog order
    foot_links: tuple[str, ...]  # one per leg; the link origin is the foot-sphere centre
    lower: np.ndarray = field(repr=False)  # (legs, 3) joint limits, radians
    upper: np.ndarray = field(repr=False)
    effort: np.ndarray = field(repr=False)  # (legs,) torque limit of each joint of a leg
    pad: tuple[float, float]  # foot contact stiffness (N/m) and damping (N s/m)
    urdf_path: Path
    upper_body: UpperGeometry | None = None  # the torso, arms and head (gaitsim.upper), if any
    upper_joint_names: tuple[str, ...] = ()  # their joints, gaitsim.upper order
    upper_lower: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    upper_upper: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    upper_effort: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    soles: tuple[Sole, ...] | None = None  # each leg's sole and ankle (gaitsim.feet), if any
    ankle_joint_names: tuple[str, ...] = ()  # their joints, legs in order, pitch then roll
    ankle_lower: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    ankle_upper: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    ankle_effort: np.ndarray = field(repr=False, default_factory=lambda: np.zeros(0))
    sole_pad: tuple[float, float] | None = None  # each sole corner's contact stiffness and
    # damping (``feet.corner_pad``), None on sphere feet

    @property
    def gait(self) -> Gait:
        return self.entry.gait

    @property
    def n_legs(self) -> int:
        return self.entry.gait.n_legs

    @property
    def mass(self) -> float:
        return self.geometry.total_mass

    @property
    def standing_height(self) -> float:
        return self.geometry.standing_height

    @property
    def sole_stiffness(self) -> float | None:
        """A flat sole's contact stiffness (N/m): its SOLE_CORNERS corners' ``sole_pad``
        together; None on sphere feet."""
        return None if self.sole_pad is None else SOLE_CORNERS * self.sole_pad[0]

    @property
    def servo_clock(self) -> float:
        """How many times faster per second than the tuned gains its joint servos close
        their errors when it walks free (``geometry.servo_clock``: above 1 only for small
        walkers; ``sim.run.run_rates`` picks a run's)."""
        return servo_clock(self.geometry, self.soles is not None)

    def rates(self, clock: float = 1.0) -> tuple[float, float]:
        """The default control and physics rates (Hz) of this body with its servos on
        ``clock`` (``geometry.control_hz``, ``geometry.physics_hz``; on soles, for
        ``sole_stiffness``)."""
        return (control_hz(self.geometry, clock),
                physics_hz(self.geometry, stiffness=self.sole_stiffness, clock=clock))  # fmt: skip

    @property
    def control_hz(self) -> float:
        """The default control rate for this body on the tuned gains (servo clock 1; a free
        body on its own clock: ``rates(servo_clock)``)."""
        return self.rates()[0]

    @property
    def sim_hz(self) -> float:
        """The default physics rate for this body on the tuned gains (servo clock 1; a free
        body on its own clock: ``rates(servo_clock)``)."""
        return self.rates()[1]


def compile_body(walker, cache_dir: str | os.PathLike | None = None) -> Body:
    """The compiled body of ``walker`` (a Body, returned as is; an Entry, a Gait or a
    built-in name). ``cache_dir``: where the URDF file is written (default: the URDF
    cache, see ``urdf.cached_urdf``)."""
    if isinstance(walker, Body):
        return walker
    entry = resolve_entry(walker)
    gait = entry.gait
    geo = geometry(gait)
    lower, upper = joint_limits(gait)
    effort = np.array(effort_limits(gait), dtype=float)
    effort.setflags(write=False)
    ulo, uhi, ueff = upper_limits(gait)
    alo, ahi, aeff = ankle_limits(gait)
    for a in (ulo, uhi, ueff, alo, ahi, aeff):
        a.setflags(write=False)
    return Body(
        entry=entry,
        geometry=geo,
        joint_names=tuple(joint_names(gait)),
        foot_links=tuple(foot_link_names(gait)),
        lower=lower,
        upper=upper,
        effort=effort,
        pad=foot_pad(geo),
        sole_pad=_sole_pad(gait, geo),
        urdf_path=cached_urdf(entry, cache_dir=cache_dir),
        upper_body=upper_geometry(gait),
        upper_joint_names=tuple(upper_joint_names(gait)),
        upper_lower=ulo,
        upper_upper=uhi,
        upper_effort=ueff,
        soles=soles(gait),
        ankle_joint_names=tuple(ankle_joint_names(gait)),
        ankle_lower=alo,
        ankle_upper=ahi,
        ankle_effort=aeff,
    )


def _sole_pad(gait: Gait, geo: Geometry) -> tuple[float, float] | None:
    """Each sole corner's pad (``feet.corner_pad``) for the heaviest load a foot carries:
    the weight over the fewest feet down at any stretch of the cycle with a foot down
    (``urdf.n_stance_min``)."""
    feet = soles(gait)
    if feet is None:
        return None
    load = geo.total_mass * GRAVITY / n_stance_min(gait)
    return corner_pad(foot_pad(geo), load, min(s.corner for s in feet))
