"""The Walker: a walker's whole pose as a pure function of the distance travelled.

``Walker(entry, terrain, path, speed_scale).pose_at(distance)`` gives the body pose, the
world foot centres, the joint angles, stance flags and reach shortfall, vectorized over any
array of distances. Nothing is stored between calls.

Feet in ``planted`` mode (the default) are planned in the world: a stance foot stays at the
point where the body-frame home lies at the middle of that stance, which on a straight path
over flat ground is exactly the seed's body-frame cycle, and on arcs, turns in place and
uneven ground keeps a planted foot still. A swing foot follows the seed's body-frame swing
plus a correction that blends from the previous plant point to the next one. ``body`` mode
is the seed's behaviour (targets fixed in the body frame, dropped onto the ground), kept so
the difference can be measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from . import balance, flight
from .catalog import Entry, Gait, leg_array, load_catalog
from .feet import (
    ankle_joint_angles,
    ankle_offset,
    ground_frame,
    hip_yaws,
    into_hip,
    rot_x,
    rot_y,
    rot_z,
    sole_pitch,
    soles,
)
from .gait import SWING_PROFILES, cycle_length, cycle_position, smoothstep, swing_height
from .geometry import (
    GRAVITY,
    Geometry,
    flight_share,
    geometry,
    half_track,
    knee_height_floor,
    sink_room,
)
from .ik import leg_ik
from .path import Arc, Straight
from .terrain import Flat, Slope, smooth_gradient
from .upper import ARM_MODES, GAZE_MODES, hip_twist, upper_geometry, upper_joints

MODES = ("planted", "body")
BIPED_ROLL = math.radians(3.0)  # default roll over the stance leg for two-legged walkers
TURN_LEAN_MAX = 0.8  # the lean into an arc moves the body at most this share of the feet's
# half track toward its centre (``Walker.turn_shift``): beyond the half track no lean holds it
LEAN_DOWNHILL, LEAN_UPHILL = 0.5, 0.25  # the second seed's lean gains (share of the slope)
# off (tilted with the ground); the seed's lean from the ground's normal; the seed's lean from
# upright; upright without a lean (a biped's default: ``default_lean``)
LEANS = (False, "ground", "upright", "level")
SEED_LEANS = ("ground", "upright")  # the leans that pitch the body by the seed's rule
CADENCE_PER_DEG = 0.06 / 1.6  # upright lean: the step rate rises by this share per degree
# of forward lean (the second seed: +0.06 Hz per degree at 1.6 Hz)


def default_lean(gait) -> str | bool:
    """The body's attitude on a slope unless one is asked for: ``"level"`` for two legs, a
    trunk held upright in the world as people hold theirs (tilted with an uphill slope it
    sits back over the heels: the free mechanic, 10 s up 5 deg from six start points,
    walks 5 level and 4 tilted);
    off (tilted with the ground under the feet) for every other walker, whose body spans
    its feet."""
    return "level" if gait.n_legs == 2 else False


def lean_mode(lean, gait=None) -> str | bool:
    """A ``lean`` option as one of LEANS (True means "ground", the older spelling; None:
    ``default_lean`` of ``gait``, or off without one)."""
    if lean is None:
        return default_lean(gait) if gait is not None else False
    if lean is True:
        return "ground"
    if lean in (False, "off"):
        return False
    if lean not in LEANS:
        raise ValueError(f"lean must be off, ground, upright or level, got {lean!r}")
    return lean


def slope_along(terrain, x: float = 0.0, y: float = 0.0, heading: float = 0.0) -> float:
    """The ground's pitch (rad, + uphill) along ``heading`` at (x, y)."""
    nx, ny, nz = (float(c) for c in np.asarray(terrain.normal(x, y), dtype=float).reshape(3))
    return math.atan2(-(nx * math.cos(heading) + ny * math.sin(heading)), nz)


def lean_pitch(slope):
    """The seed's lean for a ground pitch ``slope`` (rad, + uphill): forward (+, nose down)
    by LEAN_DOWNHILL of a downhill slope, back by LEAN_UPHILL of an uphill one."""
    slope = np.asarray(slope, dtype=float)
    return -np.where(slope < 0, LEAN_DOWNHILL, LEAN_UPHILL) * slope


def lean_cadence(terrain, lean) -> float:
    """The step-rate factor of an ``upright`` lean: 1 + CADENCE_PER_DEG x the forward lean
    (degrees) on a uniform slope at the start of the path (heading 0); 1 otherwise."""
    from .terrain import Slope

    if lean_mode(lean) != "upright" or not isinstance(terrain, Slope):
        return 1.0
    forward = math.degrees(float(lean_pitch(slope_along(terrain))))
    return 1.0 + CADENCE_PER_DEG * max(0.0, forward)


@dataclass(frozen=True)
class Pose:
    """A walker's pose at each requested distance (leading shape S = distance.shape).

    body_position (S, 3): body frame origin (centre of the hip plane) in the world;
    body_rotation (S, 3, 3): body-to-world rotation; body_quaternion (S, 4) as (x, y, z, w);
    heading (S,): path heading; feet (S, L, 3): the planned world foot points (sphere
    centres; for soles, the ankle with the sole flat on its plant); ankles (S, L, 3): where
    the IK puts each foot link (``feet`` for spheres; for soles the ankle moved by the
    sole's roll); feet_body (S, L, 3): ``ankles`` in the body frame (the IK's targets,
    ``leg_fk(joints)``); joints (S, L, 3): angles per leg in
    docs/architecture.md chain order; stance (S, L); swing_progress (S, L) (0 in stance);
    shortfall (S, L) and max_shortfall (S,) in metres; upper_joints (S, U): the upper
    body's joints (``gaitsim.upper``; U = 0 for a walker without one). Walkers with soles
    (``gaitsim.feet``): sole_pitch (S, L), the soles' pitch (rad, negative toe up), and
    ankle_joints (S, A), the ankles' angles in ``feet.ankle_joint_names`` order; without
    soles both have a last axis of 0.
    """

    distance: np.ndarray
    body_position: np.ndarray
    body_rotation: np.ndarray
    body_quaternion: np.ndarray
    heading: np.ndarray
    feet: np.ndarray
    feet_body: np.ndarray
    ankles: np.ndarray
    joints: np.ndarray
    stance: np.ndarray
    swing_progress: np.ndarray
    shortfall: np.ndarray
    max_shortfall: np.ndarray
    upper_joints: np.ndarray
    sole_pitch: np.ndarray = None
    ankle_joints: np.ndarray = None


def resolve_entry(entry: Entry | Gait | str) -> Entry:
    """Accept an Entry, a bare Gait, or the name of a built-in walker."""
    if isinstance(entry, Entry):
        return entry
    if isinstance(entry, Gait):
        return Entry("walker", entry)
    if isinstance(entry, str):
        return load_catalog()[entry]
    raise TypeError(f"walker must be an Entry, a Gait or a built-in name, got {entry!r}")


def rotation_to_quaternion(R: np.ndarray) -> np.ndarray:
    """Rotation matrices (..., 3, 3) -> unit quaternions (..., 4) as (x, y, z, w)."""
    from scipy.spatial.transform import Rotation

    flat = R.reshape(-1, 3, 3)
    q = Rotation.from_matrix(flat).as_quat()
    return q.reshape((*R.shape[:-2], 4))


def _rot2(heading, v):
    """Rotate 2-vectors v (..., 2) by heading (...)."""
    c, s = np.cos(heading), np.sin(heading)
    return np.stack([c * v[..., 0] - s * v[..., 1], s * v[..., 0] + c * v[..., 1]], axis=-1)


BOB_SAMPLES = 720  # points of a cycle at which ``bob_fall_per_metre`` samples the bob


def bob_shape(stance, s, gait: Gait):
    """The bob per metre of amplitude, given each leg's stance flag and stance progress
    ``s`` (last axis: the legs): the stance legs' summed load ``sum sin^2(pi s)`` over its
    mean, less 1: highest when the stance legs are mid-stance, mean zero."""
    load = np.sum(np.where(stance, np.sin(np.pi * s) ** 2, 0.0), axis=-1)
    return load / (0.5 * gait.duty * gait.n_legs) - 1.0


@lru_cache(maxsize=256)
def bob_fall_per_metre(gait: Gait) -> float:
    """The bob's fastest downward acceleration (m/s^2) per metre of its amplitude, over a
    cycle at the gait's own speed (at any speed scale the cycle takes as long). A bob
    whose fall outruns gravity leaves the feet unloaded: the fourth catalog's 4 cm bob at
    three steps a second asked 0.84 g and landed about twice a stance in physics; at 2 cm
    (0.42 g) it walks. Positive; at least a tiny number for a bob that never falls."""
    cyc = cycle_length(gait)
    dt = cyc / gait.clip_speed / BOB_SAMPLES
    t = cycle_position(gait, np.arange(BOB_SAMPLES) / BOB_SAMPLES * cyc)
    stance = t < gait.duty
    z = bob_shape(stance, np.where(stance, t / gait.duty, 0.0), gait)
    accel = (np.roll(z, -1) - 2.0 * z + np.roll(z, 1)) / (dt * dt)
    return max(float(-accel.min()), 1e-12)


class Walker:
    """A walker on a terrain along a path; ``pose_at(distance)`` is its whole state."""

    def __init__(
        self,
        entry: Entry | Gait | str,
        terrain=None,
        path=None,
        speed_scale: float = 1.0,
        *,
        mode: str = "planted",
        swing: str = "sine",
        lean: bool | str | None = None,
        roll: float | None = None,
        sway: float = 0.0,
        arms: str = "swing",
        twist: bool = True,
        gaze: str = "stabilised",
        bob_accel: float | None = None,
        turn_lean: float = 0.0,
    ):
        self.entry = resolve_entry(entry)
        self.gait = self.entry.gait
        self.terrain = terrain if terrain is not None else Flat()
        self.path = path if path is not None else Straight()
        if not (math.isfinite(speed_scale) and speed_scale > 0):
            raise ValueError(f"speed_scale must be a positive number, got {speed_scale!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, got {mode!r}")
        if swing not in SWING_PROFILES:
            raise ValueError(f"swing must be one of {', '.join(SWING_PROFILES)}, got {swing!r}")
        self.speed_scale = float(speed_scale)
        self.mode = mode
        self.swing = swing
        self.lean = lean_mode(lean, self.gait)
        self.cadence = lean_cadence(self.terrain, self.lean)  # the upright lean's step rate
        if not (math.isfinite(sway) and 0.0 <= sway <= 1.5):
            raise ValueError(f"sway must be a share between 0 and 1.5, got {sway!r}")
        self.sway = float(sway)
        if not (math.isfinite(turn_lean) and 0.0 <= turn_lean <= 1.5):
            raise ValueError(f"turn_lean must be a share between 0 and 1.5, got {turn_lean!r}")
        self.turn_lean = float(turn_lean)
        if arms not in ARM_MODES:
            raise ValueError(f"arms must be one of {', '.join(ARM_MODES)}, got {arms!r}")
        if gaze not in GAZE_MODES:
            raise ValueError(f"gaze must be one of {', '.join(GAZE_MODES)}, got {gaze!r}")
        self.arms, self.twist, self.gaze = arms, bool(twist), gaze
        self.upper = upper_geometry(self.gait)  # None without an upper body
        self.roll = (BIPED_ROLL if self.gait.n_legs == 2 else 0.0) if roll is None else float(roll)
        self.geometry: Geometry = geometry(self.gait)
        self._home_xy = self.geometry.homes[:, :2]
        self._home_z = leg_array(self.gait, "home")[:, 2]
        self._side = np.array([leg.side_sign for leg in self.gait.legs])
        self._level = isinstance(self.terrain, Flat)
        self.soles = soles(self.gait)  # each leg's Sole (gaitsim.feet), None on sphere feet
        if self.soles is not None:
            self._sole_dims = tuple(np.array([getattr(x, k) for x in self.soles])
                                    for k in ("heel", "toe", "height", "corner"))  # fmt: skip
            self._sole_reach = 0.5 * max(x.length for x in self.soles)  # ``sole_ground``
        self._sway_table = None  # balance.sway_table, built on first use
        # gaits whose feet are all up for BALLISTIC_FLIGHT of the cycle or more fly: the
        # body's height follows the ballistic plan (``flight``), built on first use; every
        # other gait's body path is unchanged
        self.flies = flight_share(self.gait) >= flight.BALLISTIC_FLIGHT
        self._flight_table = None
        if bob_accel is not None and not (math.isfinite(bob_accel) and bob_accel > 0):
            raise ValueError(f"bob_accel must be a positive share of g, got {bob_accel!r}")
        self.bob = self.geometry.bob  # the bob's amplitude (m): the catalog's, unless its
        if bob_accel is not None:  # fall outruns ``bob_accel`` g (``bob_fall_per_metre``)
            self.bob = min(self.bob, bob_accel * GRAVITY / bob_fall_per_metre(self.gait))

    @property
    def key(self) -> tuple:
        """Everything the walker's poses depend on, hashable: equal keys, identical poses
        (what lets a controller reuse a reference table built for an equal walker)."""
        return (
            self.gait,
            self.terrain,
            self.path,
            self.speed_scale,
            self.mode,
            self.swing,
            self.lean,
            self.roll,
            self.sway,
            self.arms,
            self.twist,
            self.gaze,
            self.bob,
            self.turn_lean,
        )

    # ------------------------------------------------------------------ gait quantities
    @property
    def stride(self) -> float:
        return self.gait.stride * self.speed_scale

    @property
    def cycle(self) -> float:
        return self.stride / self.gait.duty

    @property
    def nominal_speed(self) -> float:
        """Commanded body speed (m/s): the clip speed scaled like the stride (and by the
        upright lean's cadence on a downhill slope)."""
        return self.gait.clip_speed * self.speed_scale * self.cadence

    # ------------------------------------------------------------------ feet in the world
    def _nominal_xy(self, d, slide):
        """World xy of the body-frame target ``home + slide * x`` with the body at ``d``."""
        xy, heading = self.path.pose(d)
        local = self._home_xy + np.stack([slide, np.zeros_like(slide)], axis=-1)
        return xy + _rot2(heading, local)

    def _plant_xy(self, d_mid):
        """Where a foot is planted for the stance whose middle is at distance ``d_mid``."""
        return self._nominal_xy(d_mid, np.zeros_like(d_mid))

    def feet_plan(self, distance):
        """World foot xy, stance flags, swing progress and swing arc share at ``distance``.

        Returns ``(xy (S, L, 2), stance (S, L), u (S, L), arc (S, L))``; ``u`` and ``arc``
        are 0 in stance.
        """
        d = np.asarray(distance, dtype=float)
        g = self.gait
        t = cycle_position(g, d, self.speed_scale)
        stance = t < g.duty
        stride, cycle = self.stride, self.cycle
        u = np.where(stance, 0.0, (t - g.duty) / (1.0 - g.duty))
        sig = smoothstep(u)
        slide = np.where(stance, 0.5 - t / g.duty, sig - 0.5) * stride
        dl = np.broadcast_to(d[..., None], t.shape)
        now = self._nominal_xy(dl, slide)
        if self.mode == "planted":
            # stance: the plant point of this stance
            d_mid = dl - t * cycle + stride / 2
            planted = self._plant_xy(d_mid)
            # swing: seed swing + blend of the end corrections (zero on straight flat paths)
            d_lo = dl - (t - g.duty) * cycle
            d_td = d_lo + (1.0 - g.duty) * cycle
            half = np.full(t.shape, stride / 2)
            corr_prev = self._plant_xy(d_lo - stride / 2) - self._nominal_xy(d_lo, -half)
            corr_next = self._plant_xy(d_td + stride / 2) - self._nominal_xy(d_td, half)
            s3 = sig[..., None]
            swinging = now + (1.0 - s3) * corr_prev + s3 * corr_next
            xy = np.where(stance[..., None], planted, swinging)
        else:
            xy = now
        arc = np.where(stance, 0.0, swing_height(u, self.swing))
        return xy, stance, u, arc

    def ground_point(self, xy):
        """Height of a resting foot-sphere centre over world xy: ground + radius / n_z; for
        soles, of the ankle over a sole resting on the ground there (``sole_ground``)."""
        return self._rest(xy)[0]

    def _rest(self, xy):
        """``ground_point`` and the ground's normal it stands on (..., 3): a sole's
        (``sole_ground``), or the terrain's under a sphere."""
        if self.soles is not None:
            z, n = self.sole_ground(xy)
        else:
            x, y = xy[..., 0], xy[..., 1]
            z, n = self.terrain.height(x, y), self.terrain.normal(x, y)
        return z + self.geometry.foot_radius / n[..., 2], n

    def sole_ground(self, xy):
        """Where a sole whose ankle is over world ``xy`` (..., 2) rests: the ground height
        under the ankle (...) and the ground's normal (..., 3). On rough ground a rigid sole
        spans several bumps, so it lies on the plane of the ground's slope over a disc of
        half the sole's length around its ankle, whatever its heading (``smooth_gradient``
        over that radius), raised until it touches the highest of SOLE_SAMPLES points of
        the disc; on a plane, the plane."""
        x, y = np.asarray(xy[..., 0], dtype=float), np.asarray(xy[..., 1], dtype=float)
        t = self.terrain
        h0 = t.height(x, y)
        if isinstance(t, (Flat, Slope)):
            return h0, t.normal(x, y)
        half = self._sole_reach
        gx, gy = smooth_gradient(t, x, y, half)
        lift = np.zeros_like(h0)
        for dx, dy in _footprint(half):
            rel = t.height(x + dx, y + dy) - (h0 + gx * dx + gy * dy)
            lift = np.maximum(lift, rel)
        n = np.stack([-gx, -gy, np.ones_like(gx)], axis=-1)
        return h0 + lift, n / np.linalg.norm(n, axis=-1, keepdims=True)

    # ------------------------------------------------------------------ body
    def _ground_normal(self, xy_b, c, s):
        """Body z (x, y, z arrays): the mean unit ground normal under the home feet of the
        body at ``xy_b`` heading (cos, sin) = (c, s)."""
        hx, hy = self._home_xy[:, 0], self._home_xy[:, 1]
        cl, sl = c[..., None], s[..., None]
        fx = xy_b[..., 0:1] + (cl * hx - sl * hy)  # the home feet in the world (..., L)
        fy = xy_b[..., 1:2] + (sl * hx + cl * hy)
        gx, gy = smooth_gradient(self.terrain, fx, fy)
        norm = np.sqrt(gx * gx + gy * gy + 1.0)  # the unit normals (-gx, -gy, 1) / norm ...
        nx, ny, nz = _leg_mean(-gx / norm), _leg_mean(-gy / norm), _leg_mean(1.0 / norm)
        zn = np.sqrt(nx * nx + ny * ny + nz * nz)
        return nx / zn, ny / zn, nz / zn

    def _attitude(self, xy_b, heading, stance, u_stance, twist=None):
        """Body-to-world rotation: yaw along the path (plus the hips' ``twist``, rad), tilt
        to the ground under the home feet."""
        # In components: numpy on (..., 3) vectors spends its time on the short last axis.
        c, s = np.cos(heading), np.sin(heading)
        if self._level:  # the normal is up everywhere (the general branch's exact numbers)
            zx, zy, zz = np.zeros(c.shape), np.zeros(c.shape), np.ones(c.shape)
        else:
            zx, zy, zz = self._ground_normal(xy_b, c, s)
        dot = c * zx + s * zy + 0.0 * zz
        xx, xy, xz = c - dot * zx, s - dot * zy, 0.0 - dot * zz  # the heading, on the ground
        xn = np.sqrt(xx * xx + xy * xy + xz * xz)
        xx, xy, xz = xx / xn, xy / xn, xz / xn
        yx, yy, yz = zy * xz - zz * xy, zz * xx - zx * xz, zx * xy - zy * xx  # z cross x
        R = np.stack([xx, yx, zx, xy, yy, zy, xz, yz, zz], axis=-1).reshape(*c.shape, 3, 3)
        pitch = np.zeros(heading.shape)
        if self.lean in SEED_LEANS:
            slope = np.arctan2(xz, np.hypot(xx, xy))  # ground pitch, + uphill
            pitch = lean_pitch(slope)  # nose down going downhill, back going uphill
        # the seed's lean is from upright, and a level body is upright: level the frame
        if self.lean == "upright" or (self.lean == "level" and not self._level):
            z0 = np.zeros(c.shape)
            R = np.stack([c, -s, z0, s, c, z0, z0, z0, np.ones(c.shape)],
                         axis=-1).reshape(*c.shape, 3, 3)  # fmt: skip
        roll = np.zeros(heading.shape)
        if self.roll:
            w = np.where(stance, np.sin(np.pi * u_stance), 0.0)
            roll = -self.roll * np.sum(self._side * w, axis=-1)  # lean over the stance foot
        if twist is not None:
            R = R @ rot_z(twist)
        if self.lean in SEED_LEANS or self.roll:
            R = R @ rot_y(pitch) @ rot_x(roll)
        return R

    @property
    def turn_shift(self) -> float:
        """How far (m, positive to the left) the body moves toward the centre of an arc
        (``Arc`` paths only) so that the ground's push stays under it while the body turns
        at ``nominal_speed``: ``turn_lean`` times the standing height times the centripetal
        acceleration v^2 / r over g (the zero-moment point of a body accelerated sideways
        moves that far outward of its centre of mass), at most TURN_LEAN_MAX of the feet's
        half track. 0 on every other path, without ``turn_lean`` and for bipeds, whose
        single support balances by where the next foot lands (a free mechanic leaning so
        fell on a 1 m arc it walks upright)."""
        if not self.turn_lean or not isinstance(self.path, Arc) or self.gait.n_legs < 3:
            return 0.0
        v = self.nominal_speed
        shift = self.turn_lean * self.geometry.standing_height * v * v / (
            self.path.radius * GRAVITY)
        cap = TURN_LEAN_MAX * half_track(self.geometry)
        return max(-cap, min(cap, shift))

    def _sway_offset(self, d, heading):
        """The balancing sway at distance ``d``: ``sway`` times the body offset that keeps
        its pendulum's zero-moment point inside the planned support (``balance``), turned
        to the heading."""
        if self._sway_table is None:
            self._sway_table = self._balance_table()
        local = balance.table_lookup(self._sway_table, d / self.cycle)
        return self.sway * _rot2(heading, local)

    def _balance_table(self) -> np.ndarray:
        """``balance.sway_table`` for this walker, over its ``_balance_plan``."""
        return balance.sway_table(*self._balance_plan())

    def _balance_plan(self) -> tuple:
        """What the sway table is built from: the planned feet over one cycle seen from the
        (unswayed) body (``SWAY_SAMPLES``, L, 2), their stance flags, the cycle's
        ``cycle / nominal_speed`` seconds, the standing height and the soles (or None)."""
        d = np.arange(balance.SWAY_SAMPLES) / balance.SWAY_SAMPLES * self.cycle
        xy, stance = self.feet_plan(d)[:2]
        body_xy, heading = self.path.pose(d)
        local = _rot2(-heading[:, None], xy - body_xy[:, None, :])
        period = self.cycle / self.nominal_speed
        soles = None if self.soles is None else [(q.heel, q.toe, 0.5 * q.width)
                                                  for q in self.soles]  # fmt: skip
        return local, stance, period, self.geometry.standing_height, soles

    def flight_height(self, distance):
        """The body's ballistic height offset (m) at ``distance`` (any shape): the
        ``flight.flight_table`` of this walker's cycle, at most 0 while a foot is down (0
        where a symmetric gait lands and takes off), above 0 through its flights; 0 for a
        gait whose flights are shorter than ``flight.BALLISTIC_FLIGHT`` of its cycle (or
        that has none)."""
        d = np.asarray(distance, dtype=float)
        if not self.flies:
            return np.zeros(d.shape)
        if self._flight_table is None:
            self._flight_table = self._flight_plan()
        return balance.table_lookup(self._flight_table[:, None], d / self.cycle)[..., 0]

    def flight_rise(self, distance):
        """How far a swing foot is raised at ``distance`` (``flight.swing_rise``): with the
        body while it flies above its landing height."""
        return flight.swing_rise(self.flight_height(distance))

    def _flight_plan(self) -> np.ndarray:
        """``flight.flight_table`` over one cycle (``SWAY_SAMPLES``) of the gait's stance
        flags, the cycle lasting ``cycle / nominal_speed`` seconds, scaled down where its
        dip through a stance would sink the body more than SINK_ROOM_SHARE of the way to
        the lowest hip height that keeps every lifted foot out of its leg's inner reach
        (``geometry.sink_room``), or below the knee floor (``knee_height_floor``: a body
        already raised to it gets no dip, a level path): ``flight.fit_dip``."""
        n = balance.SWAY_SAMPLES
        t = cycle_position(self.gait, np.arange(n) / n * self.cycle, self.speed_scale)
        stance = t < self.gait.duty
        progress = np.where(stance, t / self.gait.duty, 0.0)
        table = flight.flight_table(stance, progress, self.cycle / self.nominal_speed)
        hip = self.geometry.hip_height
        room = min(flight.SINK_ROOM_SHARE * sink_room(self.gait, hip),
                   hip - knee_height_floor(self.gait))  # fmt: skip
        return flight.fit_dip(table, room)

    def _bob(self, stance, s):
        """Vertical bob: highest when stance legs are mid-stance, mean zero over a cycle."""
        return self.bob * bob_shape(stance, s, self.gait)

    # ------------------------------------------------------------------ the pose
    def _body(self, d, xy, stance, s, flight_h=None):
        """Body position (S, 3), rotation (S, 3, 3) and heading (S,) given the feet plan;
        ``flight_h``: ``flight_height(d)`` where the caller has it already."""
        geo = self.geometry
        xy_b, heading = self.path.pose(d)
        if self.sway:
            xy_b = xy_b + self._sway_offset(d, heading)
        lean = self.turn_shift
        if lean:  # toward the turn's centre, across the heading
            xy_b = xy_b + lean * np.stack([-np.sin(heading), np.cos(heading)], axis=-1)
        if xy is None:  # level ground: the ground under the feet is the level
            ground_under = self.terrain.height(xy_b[..., 0], xy_b[..., 1])
        else:
            ground_under = self.terrain.height(xy[..., 0], xy[..., 1]).mean(axis=-1)
        z_b = ground_under + geo.standing_height + self._bob(stance, s)
        if self.flies:
            z_b = z_b + (self.flight_height(d) if flight_h is None else flight_h)
        body_pos = np.concatenate([xy_b, z_b[..., None]], axis=-1)
        return body_pos, self._attitude(xy_b, heading, stance, s, self._twist(d)), heading

    def _twist(self, d):
        """The hips' twist about the heading (rad), None without a twisting torso."""
        if self.upper is None or self.upper.torso is None or not self.twist:
            return None
        return hip_twist(self.upper, self.gait, d, self.speed_scale)

    def upper_at(self, d, stance, s, R, heading):
        """The upper body's joints (S, U) for the planned body (see ``gaitsim.upper``)."""
        if self.upper is None:
            return np.zeros((*np.shape(d), 0))
        bob = self._bob(stance, s)
        pitch = np.arcsin(np.clip(-R[..., 2, 0], -1.0, 1.0))  # + nose down
        ahead = self.path.pose(d + self.nominal_speed * self.upper.head.preview_s)[1] if (
            self.upper.head is not None) else heading  # fmt: skip
        tw = self._twist(d)
        gaze = (ahead - heading + np.pi) % (2 * np.pi) - np.pi - (0.0 if tw is None else tw)
        return upper_joints(self.upper, self.gait, d, speed_scale=self.speed_scale,
                            arms=self.arms, twist=self.twist, gaze=self.gaze, bob=bob,
                            body_pitch=pitch, gaze_yaw=gaze)  # fmt: skip

    def body_at(self, distance):
        """The body's pose alone: position (S, 3), rotation (S, 3, 3), heading (S,).

        The same numbers as ``pose_at`` without the feet's IK: what a controller's
        reference needs. On level ground the feet's places do not move the body, so they
        are not planned (the controller's reference table costs a third).
        """
        d = np.asarray(distance, dtype=float)
        t = cycle_position(self.gait, d, self.speed_scale)
        stance = t < self.gait.duty
        xy = None if self._level else self.feet_plan(d)[0]
        return self._body(d, xy, stance, np.where(stance, t / self.gait.duty, 0.0))

    def pose_at(self, distance) -> Pose:
        d = np.asarray(distance, dtype=float)
        geo = self.geometry
        g = self.gait
        xy, stance, u, arc = self.feet_plan(d)
        t = cycle_position(g, d, self.speed_scale)
        s = np.where(stance, t / g.duty, 0.0)
        ground, normal = self._rest(xy)
        z = ground + self._home_z + g.lift * arc
        flight_h = None
        if self.flies:  # swing feet rise with a flying body (``flight_rise``)
            flight_h = self.flight_height(d)
            z = z + np.where(stance, 0.0, flight.swing_rise(flight_h)[..., None])
        feet = np.concatenate([xy, z[..., None]], axis=-1)
        body_pos, R, heading = self._body(d, xy, stance, s, flight_h)
        ankles = feet
        if self.soles is not None:
            facing = self._sole_headings(d, R, stance, u)
            ankles, pitch = self._roll_soles(feet, facing, stance, s, u, normal)
        feet_body = np.einsum("...ji,...lj->...li", R, ankles - body_pos[..., None, :])
        turn = None  # the legs' hip yaws (soles on legs with a hip yaw joint)
        if self.soles is not None and any(q.hip_yaw for q in self.soles):
            turn = hip_yaws(self.soles, facing, np.arctan2(R[..., 1, 0], R[..., 0, 0]))
        joints, short = leg_ik(geo.chain, feet_body if turn is None else
                               into_hip(feet_body, geo.chain.mount, turn))  # fmt: skip
        if self.soles is not None:
            ankle_q = self._ankles(joints, R, normal, facing, pitch, turn)
        else:
            pitch = ankle_q = np.zeros((*d.shape, 0))
        return Pose(
            distance=d,
            body_position=body_pos,
            body_rotation=R,
            body_quaternion=rotation_to_quaternion(R),
            heading=heading,
            feet=feet,
            feet_body=feet_body,
            ankles=ankles,
            joints=joints,
            stance=stance,
            swing_progress=u,
            shortfall=short,
            max_shortfall=short.max(axis=-1),
            upper_joints=self.upper_at(d, stance, s, R, heading),
            sole_pitch=pitch,
            ankle_joints=ankle_q,
        )

    def foot_headings(self, distance):
        """Each foot's planned heading (S, L): a planted foot faces the path's heading at
        the middle of its stance (where it is planted, ``feet_plan``); a swinging one turns
        from its last plant's heading to its next's on the swing's smoothstep; in
        ``mode="body"`` every foot faces the path's heading now."""
        d = np.asarray(distance, dtype=float)
        g = self.gait
        t = cycle_position(g, d, self.speed_scale)
        dl = np.broadcast_to(d[..., None], t.shape)
        if self.mode != "planted":
            return np.broadcast_to(self.path.pose(d)[1][..., None], t.shape).copy()
        stride, cycle = self.stride, self.cycle
        stance = t < g.duty
        _, mid = self.path.pose(dl - t * cycle + stride / 2)
        d_lo = dl - (t - g.duty) * cycle
        _, before = self.path.pose(d_lo - stride / 2)
        _, after = self.path.pose(d_lo + (1.0 - g.duty) * cycle + stride / 2)
        sig = smoothstep(np.where(stance, 0.0, (t - g.duty) / (1.0 - g.duty)))
        turn = (after - before + np.pi) % (2.0 * np.pi) - np.pi
        return np.where(stance, mid, before + sig * turn)

    def _sole_headings(self, d, R, stance, u):
        """Where each sole faces (S, L): its foot's planned heading with a yawing ankle or a
        hip yaw (``foot_headings``); without one, the body's (its yaw, the hips' twist
        included), for a hanging leg cannot turn its foot about the vertical."""
        body_yaw = np.arctan2(R[..., 1, 0], R[..., 0, 0])[..., None]
        yaws = np.array([q.turns for q in self.soles])
        if not yaws.any():
            return np.broadcast_to(body_yaw, stance.shape).copy()
        return np.where(yaws, self.foot_headings(d), body_yaw)

    def _ankles(self, joints, R, normal, facing, pitch, hip_yaw=None):
        """The foot joints (S, A) laying each sole on the ground under it, facing
        ``facing``, pitched by ``pitch``: exact for a yawing ankle (``ankle_euler``), and
        for the others the nearest sole they can reach (``sole_in_body``); ``hip_yaw``:
        the legs' hip yaws (``feet.hip_yaws``), if any leg has one."""
        n_body = np.einsum("...ji,...lj->...li", R, normal)
        sole_body = None
        if any(q.yaws for q in self.soles):
            world = ground_frame(normal, facing) @ rot_y(pitch)
            sole_body = np.einsum("...ji,...ljk->...lik", R, world)
        return ankle_joint_angles(self.soles, joints, n_body, pitch, sole_body, hip_yaw)

    def _roll_soles(self, feet, facing, stance, s, u, n):
        """The soles' roll (``gaitsim.feet``): each flat ankle point moved by its sole's
        pitch about the heel or toe edge (the sole facing ``facing``, (S, L), on the
        ground whose normal under each foot is ``n``, (S, L, 3): the ankle folds by the
        ground's angle), and the pitch (S, L)."""
        heel, toe, h, corner = self._sole_dims
        pitch = sole_pitch(stance, s, u)
        G = ground_frame(n, facing)
        dx, dz = ankle_offset(heel, toe, h, pitch, corner)
        return feet + G[..., :, 0] * dx[..., None] + G[..., :, 2] * dz[..., None], pitch


SOLE_SAMPLES = 16  # footprint points a sole on rough ground is checked against


def _footprint(radius: float) -> list[tuple[float, float]]:
    """SOLE_SAMPLES offsets covering a disc of ``radius``: two rings of eight (a sole's
    footprint whatever its heading)."""
    out = []
    for r in (0.5 * radius, radius):
        for k in range(SOLE_SAMPLES // 2):
            a = 2.0 * math.pi * k / (SOLE_SAMPLES // 2)
            out.append((r * math.cos(a), r * math.sin(a)))
    return out


def _leg_mean(a):
    """Mean over the last axis (legs), summed from 0.0 in leg order (as numpy's mean)."""
    total = 0.0
    for j in range(a.shape[-1]):
        total = total + a[..., j]
    return total / a.shape[-1]

