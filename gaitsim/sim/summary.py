"""A run's summary as a typed, frozen record: what ``simulate`` measured and its verdict.

``RunSummary`` has one attribute per figure of a run (the names are the keys that
``gaitsim walk --json`` prints and a sweep's results.csv columns use); ``to_dict()`` gives
them back as the plain dict, key for key and in the same order, and ``from_dict`` reads one.
The body-assist figures exist only for runs with the assist, the soles' only for walkers
with soles (None, and left out of the dict, otherwise). A figure this class does not name
yet (a newer ``summarize``) is kept in ``extra`` and returned by ``to_dict()`` after the
named ones.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

# figures only a run with the body assist has: absent from the dict, None here, otherwise
ASSIST_KEYS = (
    "assist_work_j",
    "assist_mean_force_n",
    "assist_mean_force_per_weight",
    "assist_net_lift_per_weight",
    "assist_mean_torque_nm",
)
# figures only a walker with soles has (``metrics.sole_figures``): the same rule
SOLE_KEYS = (
    "sole_pitch_deg_at_touchdown",
    "sole_pitch_deg_at_liftoff",
    "stance_phase_share",
    "cop_margin_mm_min",
    "cop_margin_mm_mean",
)


@dataclass(frozen=True, kw_only=True)
class RunSummary:
    """The figures of one run (units in the names: m, s, mm, deg, N, J); see
    ``gaitsim.sim.metrics.summarize`` for how each is measured."""

    # -- progress and tracking, up to a fall
    duration_s: float
    distance_m: float
    speed_m_s: float
    commanded_speed_m_s: float
    speed_ratio: float  # measured progress / commanded (nan for a zero command)
    heading_error_deg: float  # mean absolute heading error
    slip_mm_per_stance: float
    slip_mm_per_stance_by_leg: list[float]
    slip_path_mm_per_stance: float
    foot_travel_mm_per_stance: float
    slip_mm_per_m: float | None  # None when the walker made less than 1 cm of progress
    stances: int
    max_shortfall_m: float  # largest reach shortfall of any foot target
    shortfall_m_by_leg: list[float]
    foot_tracking_error_mm: float
    max_foot_tracking_error_mm: float
    min_support_margin_m: float  # -inf when no sample had a foot in contact (soles: the
    # ground their soles bear on, ``metrics.sole_support_points``)
    mean_support_margin_m: float
    max_roll_deg: float
    max_pitch_deg: float
    # -- gait fidelity (whole cycles after the first)
    duty_by_leg: list[float]
    swing_scuff_share: float
    touchdowns_per_stance: float | None
    touchdowns_per_stance_by_leg: list[float | None]
    contact_timing_error: float
    # whole gait cycles after the first that those figures span (0: the run held fewer than
    # two, and they span all of it, start-up and part cycles included; None: a summary
    # from before this figure)
    contact_cycles: int | None = None
    cost_of_transport: float | None
    # -- the fall rule
    finite: bool
    fell: bool
    fall_reason: str
    time_to_fall_s: float | None
    sole_pitch_deg_at_touchdown: float | None = None  # soles only (SOLE_KEYS)
    sole_pitch_deg_at_liftoff: float | None = None
    stance_phase_share: dict[str, float] | None = None
    cop_margin_mm_min: float | None = None
    cop_margin_mm_mean: float | None = None
    # -- what only the run knows
    simulated_s: float
    mass_kg: float = float("nan")  # the robot's mass (a summary from before: nan)
    leg_scuff_share: float
    # the ground's mean normal force on the thighs and shins / the weight (the verdict's
    # ``kneeling``; None: a summary from before this figure)
    leg_load_per_weight: float | None = None
    gait_distance_m: float
    gait_per_progress: float | None
    assist_work_j: float | None = None
    assist_mean_force_n: float | None = None
    assist_mean_force_per_weight: float | None = None  # its mean |vertical force| / weight
    assist_net_lift_per_weight: float | None = None  # its mean vertical force / weight
    assist_mean_torque_nm: float | None = None
    duty_error_max: float
    duty_error_mean: float
    # -- yaw balance and the upper body (gaitsim.sim.upper_metrics; None: no such part, or
    # a summary from before these figures)
    yaw_moment_rms_nm: float | None = None
    yaw_moment_com_rms_nm: float | None = None
    hip_twist_deg: float | None = None
    shoulder_twist_deg: float | None = None
    shoulder_hip_ratio: float | None = None
    base_bob_mm: float | None = None
    head_bob_mm: float | None = None
    head_pitch_deg_rms: float | None = None
    gaze_lead_s: float | None = None
    arms: str | None = None  # the upper-body modes it ran (None: no upper body)
    twist: bool | None = None
    gaze: str | None = None
    lean: str | bool = False
    # -- the scenario it ran
    walker: str
    terrain: str  # Terrain.describe()
    path: str  # the path's class name: Straight, Arc, TurnInPlace
    speed_scale: float
    body: str
    distance_source: str
    swing: str
    catalog_duty: float
    # how many-fold a drift across the support grows over the gait's longest stand on point
    # feet that cannot hold the body: fewer than three, or a whole side's that leave its
    # centre outside (``run.line_drift_growth``, ``stance.weak_support``; 1: none, or soles)
    line_drift_growth: float = 1.0
    # standing height over half the sideways spread of the feet's homes
    # (``stance.tipping_ratio``; None: feet in one line along the body, or a summary from
    # before it): from 4 a point-footed free body balances sideways by its load split and
    # its steps, not its stance legs (``stance.narrow_share``); over 6 it gets the assist by
    # default (``run.default_body``)
    tipping_ratio: float | None = None
    # the stride (each stance's sweep) over the hip height (``run.stride_ratio``; None: a
    # summary from before it): a biped over 0.8 gets the assist by default
    # (``run.LONG_STRIDE``)
    stride_ratio: float | None = None
    seconds: float
    seed: int | None
    friction: float  # as simulated (a seed draws it around the one asked for)
    engine: str = "pybullet"  # the physics engine (a summary from before engines: pybullet)
    sim_hz: float = 240.0  # the physics rate (a summary from before derived rates: 240)
    control_hz: float = 60.0  # the control rate (a summary from before derived rates: 60)
    # how many times stiffer per second than the tuned gains the joint servos ran
    # (``geometry.servo_clock``: above 1 for small walkers on soles; before it: 1)
    servo_clock: float = 1.0
    # the soles' slow-walk stance ran (``ControlConfig.slow_walk``; before it: False)
    slow_walk: bool = False
    # the controller settings the run set away from their defaults, by ControlConfig field
    # (``run.control_settings``: the body, distance source and rates are recorded above)
    control: dict[str, Any] = field(default_factory=dict)
    push_at_s: float | None = None  # a sideways push's time, None without one
    push_velocity_m_s: float = 0.0  # its velocity change, m/s (positive to the left)
    # -- the verdict (gaitsim.sim.metrics.verdict)
    verdict: str
    verdict_reason: str
    extra: dict[str, Any] = field(default_factory=dict, repr=False)

    @property
    def walked(self) -> bool:
        """Whether the verdict is ``walked``."""
        return self.verdict == "walked"

    @classmethod
    def keys(cls) -> tuple[str, ...]:
        """The figures' names in ``to_dict`` order (the assist ones included)."""
        return tuple(f.name for f in dataclasses.fields(cls) if f.name != "extra")

    @classmethod
    def from_dict(cls, summary) -> RunSummary:
        """A summary dict (``simulate``'s, a JSON file's) as a RunSummary; keys it does not
        name go to ``extra``. A missing figure raises a ValueError naming it."""
        known = set(cls.keys())
        optional = {f.name for f in dataclasses.fields(cls)
                    if f.default is not dataclasses.MISSING}  # fmt: skip
        missing = [k for k in cls.keys() if k not in summary and k not in optional]
        if missing:
            raise ValueError(f"run summary: missing {', '.join(missing)}")
        extra = {k: v for k, v in summary.items() if k not in known}
        return cls(**{k: v for k, v in summary.items() if k in known}, extra=extra)

    def to_dict(self) -> dict[str, Any]:
        """The plain dict: every figure under its name, in the order ``simulate`` wrote
        them (the assist figures only for a run with the assist), then ``extra``."""
        out: dict[str, Any] = {}
        for name in self.keys():
            value = getattr(self, name)
            if value is None and (name in ASSIST_KEYS or name in SOLE_KEYS):
                continue
            out[name] = (list(value) if isinstance(value, list)
                         else dict(value) if isinstance(value, dict) else value)  # fmt: skip
        out.update(self.extra)
        return out
