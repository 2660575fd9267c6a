"""GaitController: the walker's distance-driven foot targets as joint position commands.

Each control step:

1. the gait distance ``s`` advances (``command``: at the commanded speed; ``odometry``: by
   the body's measured progress along the path, see ``advance_odometry``);
2. every foot gets a world target. A stance foot holds the world point where it touched
   down (stored at touchdown, the second seed's plant lock). A swing foot eases from where
   it lifted off to the Walker's planned plant point for its next stance, on a smoothstep
   with zero world velocity at both ends, lifted by the gait's swing arc;
3. the targets go into the frame of the *reference body*, the Walker's body pose at ``s``
   (the ideal path, the ground-following height and attitude), and the leg IK gives joint
   angles, sent with position control at the URDF's force limits. Because the stance feet
   are fixed in the world and the reference body moves on, the legs push the real body
   along the path; the measured body pose feeds the odometry, the assist and the metrics;
4. the physics runs ``sim_hz / control_hz`` substeps (with the body assist or the
   kinematic base updated every substep), and the step is recorded for the metrics.

Body modes: ``free`` (plain physics), ``assist`` (a virtual spring-damper on height, roll
and pitch toward the reference; its effort is reported), ``kinematic`` (the base follows
the reference exactly through a fixed constraint; the legs are simulated).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pybullet as p

from ..gait import swing_height
from ..ik import ScalarLeg
from ..path import pose_one
from ..terrain import Flat, Rough
from ..walker import Walker
from .metrics import Recorder
from .robot import Robot
from .world import World

DISTANCE_SOURCES = ("command", "odometry")
BODY_MODES = ("free", "assist", "kinematic")
PLANT_LOCKS = ("measured", "planned")
TABLE_SAMPLES_PER_CYCLE = 240  # reference-body table resolution
TABLE_CHUNK_CYCLES = 4  # the table grows by this many cycles at a time


@dataclass(frozen=True)
class AssistGains:
    """The assist's spring-dampers: height frequency (Hz), attitude stiffness, damping ratio."""

    height_hz: float = 3.0
    attitude_hold: float = 10.0  # roll/pitch stiffness as a multiple of m g h
    damping_ratio: float = 1.0


@dataclass(frozen=True)
class ControlConfig:
    """How the controller runs; every field has a sane default.

    Distance sources: ``command`` advances the gait at the commanded speed; ``odometry``
    advances it by the body's measured progress along the path (at least ``odometry_floor``
    of the commanded speed, so it starts from rest and never stalls), while the reference
    body the legs push toward runs at the commanded speed, at most ``odometry_lead`` cycles
    ahead of the gait.
    """

    control_hz: float = 60.0
    distance_source: str = "command"
    body: str = "free"
    kp: float = 0.05  # PyBullet position gain of stance legs (compliant: share load, slip less)
    kp_swing: float = 0.3  # ... of swing legs (stiff: track the swing arc)
    kd: float | None = None
    force_scale: float = 1.0
    plant_lock: str = "measured"  # touchdown locks the foot where it is ("planned": where planned)
    placement_gain: float = 1.0  # Raibert foot-placement feedback on the body velocity error
    preload: float = 0.25  # stance feet aim this share of a foot radius into the ground
    track_gain: float = 1.0  # share of the x, y, yaw error to the reference closed per step
    odometry_floor: float = 0.25  # odometry: the gait advances at least this share of speed
    odometry_lead: float = 0.25  # odometry: the reference leads the gait by at most this
    # many cycles
    body_speed_ratio: float = 1.0  # kinematic body: base speed / commanded gait speed (the
    # second seed's speed mismatch, e.g. 0.82)
    assist: AssistGains = field(default_factory=AssistGains)

    def __post_init__(self):
        if self.distance_source not in DISTANCE_SOURCES:
            raise ValueError(
                f"distance_source must be one of {', '.join(DISTANCE_SOURCES)}, "
                f"got {self.distance_source!r}"
            )
        if self.body not in BODY_MODES:
            raise ValueError(f"body must be one of {', '.join(BODY_MODES)}, got {self.body!r}")
        if not (math.isfinite(self.control_hz) and self.control_hz > 0):
            raise ValueError(f"control_hz must be positive, got {self.control_hz!r}")
        if self.plant_lock not in PLANT_LOCKS:
            raise ValueError(
                f"plant_lock must be one of {', '.join(PLANT_LOCKS)}, got {self.plant_lock!r}"
            )
        for name in ("kp", "kp_swing"):
            v = getattr(self, name)
            if not (math.isfinite(v) and 0 < v <= 1):
                raise ValueError(f"{name} is PyBullet's position gain, in (0, 1]; got {v!r}")
        for name in ("force_scale", "body_speed_ratio"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v > 0):
                raise ValueError(f"{name} must be a positive number, got {v!r}")
        for name in ("placement_gain", "preload", "odometry_floor", "odometry_lead"):
            v = getattr(self, name)
            if not (math.isfinite(v) and v >= 0):
                raise ValueError(f"{name} must be a number >= 0, got {v!r}")
        if not (math.isfinite(self.track_gain) and 0 <= self.track_gain <= 1):
            raise ValueError(f"track_gain is a share in [0, 1], got {self.track_gain!r}")


class ReferenceTable:
    """The Walker's body pose over distance, tabulated and linearly interpolated.

    Building it is vectorized (one ``body_at`` per chunk of cycles, or for the whole
    ``horizon`` up front when the run's length is known); a lookup is a few float
    operations, cheap enough for every control step and substep. Samples are kept in flat
    lists of plain floats (3 per position, 9 per rotation): numpy scalars would make every
    lookup several times slower, and nested tuples cost more to build than the poses.
    """

    def __init__(self, walker: Walker, horizon: float = 0.0):
        self.walker = walker
        self.key = walker.key  # the walkers this table serves
        self.ds = walker.cycle / TABLE_SAMPLES_PER_CYCLE
        self.n = 0  # samples so far, at s = 0, ds, 2 ds, ...
        self.pos: list[float] = []
        self.rot: list[float] = []  # row-major
        self.heading: list[float] = []
        self.moves: list[bool] = []
        self._last_s, self._last = None, None
        self._prev_s, self._prev = None, None
        self._extend(horizon)

    def _extend(self, s_max: float) -> None:
        n0 = self.n
        n1 = max(n0 + TABLE_CHUNK_CYCLES * TABLE_SAMPLES_PER_CYCLE, int(s_max / self.ds) + 2)
        s = np.arange(n0, n1 + 1) * self.ds  # samples n0 .. n1, all new
        body, rot, heading = self.walker.body_at(s)
        xy0, _ = self.walker.path.pose(s)
        xy1, _ = self.walker.path.pose(s + 1e-3)
        moves = np.hypot(*(xy1 - xy0).T) > 0.5e-3  # does the path translate here?
        self.pos.extend(body.ravel().tolist())
        self.rot.extend(rot.ravel().tolist())
        self.heading.extend(heading.tolist())
        self.moves.extend(moves.tolist())
        self.n = n1 + 1

    def lookup(self, s: float):
        """(position (3 floats), rotation row-major (9 floats), heading, path translates)."""
        # the last two distances are remembered: a control step looks up where the body is
        # and where it will be, and the next step starts from the latter
        if s == self._last_s:
            return self._last
        if s == self._prev_s:
            self._prev_s, self._prev, self._last_s, self._last = (
                self._last_s, self._last, self._prev_s, self._prev,
            )  # fmt: skip
            return self._last
        self._prev_s, self._prev = self._last_s, self._last
        self._last_s = s
        self._last = self._lookup(s)
        return self._last

    def _lookup(self, s: float):
        f = max(s, 0.0) / self.ds
        i = int(f)
        if i + 1 >= self.n:
            self._extend(s)
        w = f - i
        ax, ay, az, bx, by, bz = self.pos[3 * i : 3 * i + 6]
        pos = (ax + w * (bx - ax), ay + w * (by - ay), az + w * (bz - az))
        (
            r0, r1, r2, r3, r4, r5, r6, r7, r8,
            s0, s1, s2, s3, s4, s5, s6, s7, s8,
        ) = self.rot[9 * i : 9 * i + 18]  # fmt: skip
        rot = (
            r0 + w * (s0 - r0), r1 + w * (s1 - r1), r2 + w * (s2 - r2),
            r3 + w * (s3 - r3), r4 + w * (s4 - r4), r5 + w * (s5 - r5),
            r6 + w * (s6 - r6), r7 + w * (s7 - r7), r8 + w * (s8 - r8),
        )  # fmt: skip
        h0, h1 = self.heading[i], self.heading[i + 1]
        return pos, rot, h0 + w * (h1 - h0), self.moves[i]


def _yawed(r, c: float, s: float) -> tuple:
    """Rz(angle) @ R for a row-major rotation R, given cos and sin of the angle."""
    return (
        c * r[0] - s * r[3], c * r[1] - s * r[4], c * r[2] - s * r[5],
        s * r[0] + c * r[3], s * r[1] + c * r[4], s * r[2] + c * r[5],
        r[6], r[7], r[8],
    )  # fmt: skip


def quat_from_rot(r) -> tuple[float, float, float, float]:
    """Row-major 3x3 rotation (9 floats, re-orthogonalized by the formula) -> (x, y, z, w)."""
    m00, m01, m02, m10, m11, m12, m20, m21, m22 = r
    tr = m00 + m11 + m22
    if tr > 0:
        k = 0.5 / math.sqrt(tr + 1.0)
        q = ((m21 - m12) * k, (m02 - m20) * k, (m10 - m01) * k, 0.25 / k)
    elif m00 > m11 and m00 > m22:
        k = 2.0 * math.sqrt(1.0 + m00 - m11 - m22)
        q = (0.25 * k, (m01 + m10) / k, (m02 + m20) / k, (m21 - m12) / k)
    elif m11 > m22:
        k = 2.0 * math.sqrt(1.0 + m11 - m00 - m22)
        q = ((m01 + m10) / k, 0.25 * k, (m12 + m21) / k, (m02 - m20) / k)
    else:
        k = 2.0 * math.sqrt(1.0 + m22 - m00 - m11)
        q = ((m02 + m20) / k, (m12 + m21) / k, 0.25 * k, (m10 - m01) / k)
    n = math.sqrt(sum(c * c for c in q))
    return tuple(c / n for c in q)


def yaw_of(q) -> float:
    x, y, z, w = q
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


class GaitController:
    """Drives ``robot`` in ``world`` along ``walker``'s gait, path and terrain.

    ``horizon`` (m of gait distance): build the reference table this far up front (it
    grows as needed anyway). ``table``: a ReferenceTable built for an equal walker (the
    same ``Walker.key``), shared with earlier runs: episodes that repeat a walker skip
    its construction.
    """

    def __init__(
        self,
        world: World,
        robot: Robot,
        walker: Walker,
        config: ControlConfig | None = None,
        *,
        record: bool = True,
        start: float = 0.0,
        horizon: float = 0.0,
        table: ReferenceTable | None = None,
    ):
        self.world, self.robot, self.walker = world, robot, walker
        self.config = config if config is not None else ControlConfig()
        cfg = self.config
        n_sub = world_substeps(world.dt, cfg.control_hz)
        self.substeps = n_sub
        self.dt = n_sub * world.dt
        self.gait = walker.gait
        self.geo = walker.geometry
        self.n_legs = self.gait.n_legs
        self.speed = walker.nominal_speed  # gait distance per second (m/s)
        self._cycle = walker.cycle  # gait distance per cycle (m), read every step
        if table is None:
            table = ReferenceTable(walker, horizon)
        elif table.key != walker.key:
            raise ValueError(
                "GaitController: the reference table was built for another walker (gait, "
                "terrain, path, speed scale or options differ); pass table=None to build one"
            )
        self.table = table
        ch = self.geo.chain
        self._solvers = [  # each leg's IK, body frame in, joint angles and shortfall out
            ScalarLeg(ch.mount[i], ch.upper[i], ch.lower[i], ch.kind[i], float(ch.yaw0[i])).solve
            for i in range(self.n_legs)
        ]
        self._phase = [leg.phase for leg in self.gait.legs]
        self._home_z = [leg.home[2] for leg in self.gait.legs]
        self.record = Recorder(self.n_legs) if record else None
        self._uneven = isinstance(walker.terrain, Rough)
        t = walker.terrain
        self._flat_z = float(t.level) + self.geo.foot_radius if isinstance(t, Flat) else None
        self._home_xy = [tuple(map(float, h[:2])) for h in self.geo.homes]
        self._preload = self.config.preload * self.geo.foot_radius
        robot.set_gains(cfg.kp, cfg.kd, cfg.force_scale)
        self.assist_work = 0.0  # J, done by the assist's virtual spring-damper
        self.assist_force_impulse = 0.0  # N s
        self.assist_torque_impulse = 0.0  # N m s
        self.reset(start)

    # ------------------------------------------------------------------ set-up
    def reset(self, start: float = 0.0) -> None:
        """Put the robot in the Walker's pose at distance ``start`` and plan every foot.

        A start other than 0 begins the walk at another point of the gait cycle (and of the
        path): the spread that seeded episodes draw from.
        """
        w = self.walker
        s0 = float(start)
        pose = w.pose_at(s0)
        self._steer = (1.0, 0.0, 0.0, 0.0)
        pos, rot, _, _ = self.table.lookup(s0)
        self.robot.reset_base(pos, quat_from_rot(rot))
        self.robot.set_joint_positions(pose.joints)
        self.robot.command_joint_list(pose.joints.ravel().tolist())
        self.speed_scale = 1.0  # gait-rate multiplier (modulation), on top of the Walker's
        self.lift_scale = 1.0  # swing-lift multiplier (modulation)
        self.yaw_rate = 0.0  # rad/s of steering on top of the path (modulation)
        self.s = s0
        self.s_ref = s0
        self.progress = 0.0
        self.t = 0.0
        self._odo_step = 0.0
        self.stance = [bool(x) for x in pose.stance]
        self._swing_u = [0.0] * self.n_legs
        self.plant = [(float(f[0]), float(f[1]), float(f[2]) - self._preload) for f in pose.feet]
        self.lift_from = list(self.plant)
        self.land_at = list(self.plant)
        for i in range(self.n_legs):
            if not self.stance[i]:
                t = self._cycle_pos(s0, i)
                self.lift_from[i] = self._plant_point(i, self._d_mid_before(s0, t))
                self.land_at[i] = self._plant_point(i, self._d_mid_after(s0, t))
        if self.record is not None:
            self.record = Recorder(self.n_legs)
        self._last = self.robot.sense()
        self._last_yaw = yaw_of(self._last.quaternion)
        self._inertia = self.robot.tilt_inertia()

    @property
    def sensed(self):
        """The robot's state as read after the last control step (a Sensed)."""
        return self._last

    # ------------------------------------------------------------------ modulation
    def _ref(self, s: float):
        """The reference body at distance ``s``, turned by the accumulated steering."""
        pos, rot, heading, moves = self.table.lookup(s)
        c, sn, tx, ty = self._steer
        if sn == 0.0 and c == 1.0 and tx == 0.0 and ty == 0.0:
            return pos, rot, heading, moves
        pos = (c * pos[0] - sn * pos[1] + tx, sn * pos[0] + c * pos[1] + ty, pos[2])
        return pos, _yawed(rot, c, sn), heading + math.atan2(sn, c), moves

    def _steer_xy(self, x: float, y: float) -> tuple[float, float]:
        c, sn, tx, ty = self._steer
        return c * x - sn * y + tx, sn * x + c * y + ty

    def _apply_steering(self, yaw_rate: float) -> None:
        """Turn the whole plan (reference body and future footholds) by yaw_rate * dt about
        the reference body's current position: steering on top of the planned path."""
        if yaw_rate == 0.0:
            return
        px, py, _ = self._ref(self.s_ref)[0]
        d = yaw_rate * self.dt
        cd, sd = math.cos(d), math.sin(d)
        c, sn, tx, ty = self._steer
        # new = Rot(d about pivot) o old
        c2, s2 = cd * c - sd * sn, sd * c + cd * sn
        tx2 = cd * (tx - px) - sd * (ty - py) + px
        ty2 = sd * (tx - px) + cd * (ty - py) + py
        self._steer = (c2, s2, tx2, ty2)

    def _cycle_pos(self, s: float, i: int) -> float:
        x = s / self._cycle + self._phase[i]
        return x - math.floor(x)

    def _d_mid_before(self, s: float, t: float) -> float:
        """Mid-stance distance of the stance that ended before this swing."""
        g, c = self.gait, self._cycle
        d_lo = s - (t - g.duty) * c
        return d_lo - self.walker.stride / 2

    def _d_mid_after(self, s: float, t: float) -> float:
        """Mid-stance distance of the stance after this swing."""
        g, c = self.gait, self._cycle
        d_td = s - (t - g.duty) * c + (1.0 - g.duty) * c
        return d_td + self.walker.stride / 2

    def _rest_z(self, i: int, x: float, y: float) -> float:
        """Target height of leg ``i``'s foot centre on the ground at (x, y): resting, less
        the preload that keeps a compliant stance leg pressed onto the ground."""
        if self._flat_z is not None:  # level ground: no numpy call in the control loop
            g = self._flat_z
        else:
            g = float(self.walker.ground_point(np.array([x, y])))
        return g + self._home_z[i] - self._preload

    def _plant_point(self, i: int, d_mid: float) -> tuple[float, float, float]:
        """The Walker's planned world plant point of leg ``i`` for a stance centred at d_mid:
        its home under the path's pose there (Walker._plant_xy for one leg, in floats)."""
        px, py, h = pose_one(self.walker.path, d_mid)
        hx, hy = self._home_xy[i]
        c, s = math.cos(h), math.sin(h)
        x, y = self._steer_xy(px + c * hx - s * hy, py + s * hx + c * hy)
        return (x, y, self._rest_z(i, x, y))

    # ------------------------------------------------------------------ one control step
    def advance_odometry(self, sensed) -> float:
        """Measured progress along the path since the last step (m of gait distance).

        On translating paths: the base displacement along the path tangent; turning in
        place: the yaw change times the path's radius.
        """
        _, _, heading, moves = self._ref(self.s_ref)
        if moves:
            dx = sensed.position[0] - self._last.position[0]
            dy = sensed.position[1] - self._last.position[1]
            return dx * math.cos(heading) + dy * math.sin(heading)
        yaw = yaw_of(sensed.quaternion)
        dyaw = wrap(yaw - self._last_yaw)
        return dyaw * getattr(self.walker.path, "radius", 1.0)

    def _swing_target(self, i: int, u: float, corr=(0.0, 0.0)) -> tuple[float, float, float]:
        """World target of swing leg ``i`` at swing progress ``u`` (0 liftoff .. 1 touchdown);
        ``corr`` shifts the landing point (foot placement feedback)."""
        sig = u * u * (3.0 - 2.0 * u)
        a, b = self.lift_from[i], self.land_at[i]
        b = (b[0] + corr[0], b[1] + corr[1], b[2])
        w = self.walker
        arc = math.sin(math.pi * sig) if w.swing == "sine" else float(swing_height(u, w.swing))
        x, y = a[0] + sig * (b[0] - a[0]), a[1] + sig * (b[1] - a[1])
        z = a[2] + sig * (b[2] - a[2])
        if self._uneven and 0.0 < u < 1.0:  # lift over the ground under the foot, not the chord
            z = max(z, self._rest_z(i, x, y))
        return (x, y, z + self.gait.lift * self.lift_scale * arc)

    def _update_feet(self, s: float, sensed, corr=(0.0, 0.0)) -> tuple[list, list, list]:
        """Advance every leg's stance/swing state to distance ``s``.

        Returns the world targets now, the targets one control step ahead (for the joint
        velocity feedforward), and which legs changed phase this step.
        """
        g = self.gait
        cycle, duty = self._cycle, g.duty
        ds = self.speed * self.speed_scale * self.dt
        now, ahead, events = [], [], []
        for i in range(self.n_legs):
            x = s / cycle + self._phase[i]
            t = x - math.floor(x)
            st = t < duty
            if st and not self.stance[i]:  # touchdown: lock the foot where it is
                if self.config.plant_lock == "measured":
                    fx, fy, _ = sensed.feet[i]
                    self.plant[i] = (fx, fy, self._rest_z(i, fx, fy))
                else:
                    a = self.land_at[i]
                    self.plant[i] = (a[0] + corr[0], a[1] + corr[1], a[2])
            elif not st and self.stance[i]:  # liftoff: plan the swing to the next plant
                self.lift_from[i] = self.plant[i]
                self.land_at[i] = self._plant_point(i, self._d_mid_after(s, t))
            events.append(st != self.stance[i])
            self.stance[i] = st
            if st:
                now.append(self.plant[i])
                ahead.append(self.plant[i])
            else:
                u = (t - duty) / (1.0 - duty)
                self._swing_u[i] = u
                now.append(self._swing_target(i, u, corr))
                ahead.append(self._swing_target(i, min(u + ds / ((1.0 - duty) * cycle), 1.0), corr))
        return now, ahead, events

    def _virtual_body(self, sensed, pos, rot, heading, yaw=None):
        """The body pose the legs are solved against: the measured pose pulled toward the
        reference by ``track_gain`` per control step in x, y and yaw, and the reference's
        height, roll and pitch (which the legs hold, like standing). ``yaw``: the measured
        body's yaw when already known."""
        a = self.config.track_gain
        mx, my = sensed.position[0], sensed.position[1]
        myaw = yaw_of(sensed.quaternion) if yaw is None else yaw
        x = mx + a * (pos[0] - mx)
        y = my + a * (pos[1] - my)
        dyaw = a * wrap(heading - myaw) + wrap(myaw - heading)  # yaw_v - heading
        # the reference attitude turned to the virtual yaw
        return (x, y, pos[2]), _yawed(rot, math.cos(dyaw), math.sin(dyaw))

    @staticmethod
    def _virtual_body_moved(vpos, vrot, rot, rot2, dpos, z2):
        """The virtual body carried along by the reference's motion over one step."""
        # rotation increment of the reference, applied in the world: R2 @ R1^T @ R_v
        # (written out: generator sums over nine entries cost more than the physics step)
        a0, a1, a2, a3, a4, a5, a6, a7, a8 = rot2
        b0, b1, b2, b3, b4, b5, b6, b7, b8 = rot
        i0, i1, i2 = (
            a0 * b0 + a1 * b1 + a2 * b2,
            a0 * b3 + a1 * b4 + a2 * b5,
            a0 * b6 + a1 * b7 + a2 * b8,
        )
        i3, i4, i5 = (
            a3 * b0 + a4 * b1 + a5 * b2,
            a3 * b3 + a4 * b4 + a5 * b5,
            a3 * b6 + a4 * b7 + a5 * b8,
        )
        i6, i7, i8 = (
            a6 * b0 + a7 * b1 + a8 * b2,
            a6 * b3 + a7 * b4 + a8 * b5,
            a6 * b6 + a7 * b7 + a8 * b8,
        )
        v0, v1, v2, v3, v4, v5, v6, v7, v8 = vrot
        r = (
            i0 * v0 + i1 * v3 + i2 * v6, i0 * v1 + i1 * v4 + i2 * v7, i0 * v2 + i1 * v5 + i2 * v8,
            i3 * v0 + i4 * v3 + i5 * v6, i3 * v1 + i4 * v4 + i5 * v7, i3 * v2 + i4 * v5 + i5 * v8,
            i6 * v0 + i7 * v3 + i8 * v6, i6 * v1 + i7 * v4 + i8 * v7, i6 * v2 + i7 * v5 + i8 * v8,
        )  # fmt: skip
        return (vpos[0] + dpos[0], vpos[1] + dpos[1], z2), r

    def _solve(self, targets, pos, rot):
        """Joint angles (flat list) and reach shortfalls of world ``targets`` seen from the
        body pose (``pos``, row-major ``rot``)."""
        q, short = [], []
        px, py, pz = pos
        r0, r1, r2, r3, r4, r5, r6, r7, r8 = rot
        for solve, (tx, ty, tz) in zip(self._solvers, targets, strict=True):
            vx, vy, vz = tx - px, ty - py, tz - pz
            q1, q2, q3, sf = solve(
                r0 * vx + r3 * vy + r6 * vz,
                r1 * vx + r4 * vy + r7 * vz,
                r2 * vx + r5 * vy + r8 * vz,
            )
            q += (q1, q2, q3)
            short.append(sf)
        return q, short

    def step(self, joint_offsets=None, joint_targets=None) -> None:
        """One control step: targets, IK, commands, physics substeps, record.

        ``joint_offsets`` (3 L radians, chain order) are added to the gait's joint targets
        (residual policies); ``joint_targets`` replace them (policies without the prior).
        ``speed_scale``, ``lift_scale`` and ``yaw_rate`` (attributes) modulate the gait.
        """
        cfg = self.config
        sensed = self._last
        self._apply_steering(self.yaw_rate)
        # 1. distances: the gait's (which foot is where in its cycle) and the reference
        # body's (what the legs solve against)
        speed = self.speed * self.speed_scale
        v_ref = speed * (cfg.body_speed_ratio if cfg.body == "kinematic" else 1.0)
        if cfg.distance_source == "command":
            self.s += speed * self.dt
        else:  # the gait follows the body's measured progress, never slower than the floor
            self.s += max(self._odo_step, cfg.odometry_floor * speed * self.dt)
        if cfg.body == "kinematic":
            self.s_ref += v_ref * self.dt
        elif cfg.distance_source == "command":
            self.s_ref = self.s
        else:  # the commanded distance, held within odometry_lead cycles of the gait's
            lead = cfg.odometry_lead * self._cycle
            self.s_ref = min(self.s_ref + speed * self.dt, self.s + lead)
        s, s_ref = self.s, self.s_ref
        ds = v_ref * self.dt
        pos, rot, heading, _ = self._ref(s_ref)
        pos2, rot2, _, _ = self._ref(s_ref + ds)
        # 2. world foot targets now and one step ahead; swing feet land where the body's
        # velocity error says (Raibert's rule: half a stance of the error, times a gain)
        dt = self.dt
        k = cfg.placement_gain * 0.5 * self.gait.duty * self._cycle / max(speed, 1e-6)
        vx = (pos2[0] - pos[0]) / dt
        vy = (pos2[1] - pos[1]) / dt
        lv = sensed.linear_velocity
        corr = (k * (lv[0] - vx), k * (lv[1] - vy))
        targets, ahead, events = self._update_feet(s, sensed, corr)
        # 3. solve against the virtual body now and moved on by the reference's own motion
        vpos, vrot = self._virtual_body(sensed, pos, rot, heading, self._last_yaw)
        dpos = (pos2[0] - pos[0], pos2[1] - pos[1])
        vpos2, vrot2 = self._virtual_body_moved(vpos, vrot, rot, rot2, dpos, pos2[2])
        q, short = self._solve(targets, vpos, vrot)
        q2, _ = self._solve(ahead, vpos2, vrot2)
        v = [(b - a) / dt for a, b in zip(q, q2, strict=True)]
        for i, ev in enumerate(events):
            if ev:  # no feedforward through a touchdown or liftoff
                v[3 * i : 3 * i + 3] = (0.0, 0.0, 0.0)
        # Target the pose at the end of the period: solved against the measured body, the
        # legs then move the body by exactly one step of the reference's motion.
        # compliant stance legs share the load and slip less; stiff swing legs track the arc
        # (softening again over the last 40 % of the swing, so a landing foot meets the
        # ground gently)
        kp = []
        k_stance = cfg.kp
        for st, u in zip(self.stance, self._swing_u, strict=True):
            k = k_stance if st else _swing_gain(u, k_stance, cfg.kp_swing)
            kp += (k, k, k)
        if joint_targets is not None:
            q2 = [float(x) for x in np.ravel(joint_targets)]
            v = None
            kp = None
        elif joint_offsets is not None:
            q2 = [a + float(b) for a, b in zip(q2, np.ravel(joint_offsets), strict=True)]
        self.q_command = q2
        self.targets, self.shortfall = targets, short  # this step's, for callers
        self.robot.command_joint_list(q2, v, kp)
        # 4. physics
        if cfg.body == "free":
            self.world.step(self.substeps)
        else:
            self._ds_sub = ds / self.substeps
            self._yaw_rate_ref = wrap(self._ref(s_ref + ds)[2] - heading) / self.dt
            for k in range(1, self.substeps + 1):
                self._body_mode_substep(s_ref - ds * (1 - k / self.substeps))
                self.world.step(1)
        self.t += self.dt
        new = self.robot.sense()
        self._odo_step = 0.0
        step = self.advance_odometry(new)
        self.progress += step
        self._odo_step = max(step, 0.0)
        self._last = new
        self._last_yaw = yaw_of(new.quaternion)
        if self.record is not None:
            self.record.add(
                t=self.t,
                s=s,
                progress=self.progress,
                s_ref=s_ref,
                ref_pos=pos,
                ref_heading=heading,
                base_pos=new.position,
                base_quat=new.quaternion,
                base_vel=new.linear_velocity,
                com=new.com,
                feet=new.feet,
                contacts=new.contacts,
                planned_stance=list(self.stance),
                targets=targets,
                shortfall=short,
                torque=new.joint_torques,
                joint_vel=new.joint_velocities,
                body_contact=new.body_contact,
                leg_contact=new.leg_contact,
            )

    _odo_step = 0.0

    # ------------------------------------------------------------------ body modes
    def _body_mode_substep(self, s: float) -> None:
        pos, rot, _, _ = self._ref(s)
        cid, body = self.world.client, self.robot.body_id
        if self.config.body == "kinematic":
            # Drive the base along the reference exactly: pose and velocity set every
            # substep (a fixed constraint trails a moving pivot by Bullet's slow ERP).
            ahead, _, _, _ = self._ref(s + self._ds_sub)
            v = [(b - a) / self.world.dt for a, b in zip(pos, ahead, strict=True)]
            p.resetBasePositionAndOrientation(
                body, list(pos), list(quat_from_rot(rot)), physicsClientId=cid
            )
            p.resetBaseVelocity(body, v, [0.0, 0.0, self._yaw_rate_ref], physicsClientId=cid)
            return
        # assist: spring-damper on height, roll and pitch toward the reference body
        a = self.config.assist
        m = self.robot.mass
        wh = 2 * math.pi * a.height_hz
        # roll/pitch: a spring stiff enough to hold the body upright over its feet
        # (``attitude_hold`` times the toppling stiffness m g h), damped against the whole
        # robot's own rotational inertia so the explicit torque stays stable
        h = self.geo.hip_height + self.geo.foot_radius
        k_att = a.attitude_hold * m * 9.81 * h
        d_att = 2 * a.damping_ratio * math.sqrt(k_att * self._inertia)
        x, quat = p.getBasePositionAndOrientation(body, physicsClientId=cid)
        v, om = p.getBaseVelocity(body, physicsClientId=cid)
        fz = m * (wh * wh * (pos[2] - x[2]) - 2 * a.damping_ratio * wh * v[2])
        # rotation error R_ref R^T as a rotation vector; keep its world x, y (roll, pitch)
        r = p.getMatrixFromQuaternion(quat, physicsClientId=cid)
        ex, ey = _tilt_error(rot, r)
        tx = k_att * ex - d_att * om[0]
        ty = k_att * ey - d_att * om[1]
        p.applyExternalForce(body, -1, [0.0, 0.0, fz], x, p.WORLD_FRAME, physicsClientId=cid)
        p.applyExternalTorque(body, -1, [tx, ty, 0.0], p.WORLD_FRAME, physicsClientId=cid)
        dt = self.world.dt
        self.assist_work += (abs(fz * v[2]) + abs(tx * om[0]) + abs(ty * om[1])) * dt
        self.assist_force_impulse += abs(fz) * dt
        self.assist_torque_impulse += math.hypot(tx, ty) * dt

    # ------------------------------------------------------------------ results
    def arrays(self) -> dict[str, np.ndarray]:
        rec = self.record.arrays()
        T, L = len(rec["t"]), self.n_legs
        rec["torque"] = rec["torque"].reshape(T, L, 3)
        rec["joint_vel"] = rec["joint_vel"].reshape(T, L, 3)
        xy = rec["base_pos"][:, :2]
        rec["ground_z"] = self.walker.terrain.height(xy[:, 0], xy[:, 1])
        yaw = np.array([yaw_of(q) for q in rec["base_quat"]])
        rec["heading_error"] = (yaw - rec["ref_heading"] + np.pi) % (2 * np.pi) - np.pi
        return rec


def _tilt_error(ref, cur) -> tuple[float, float]:
    """World x, y components of the rotation vector taking ``cur`` to ``ref`` (row-major)."""
    # E = ref @ cur^T; small-angle vector from its skew part (exact direction, |angle| < pi)
    e = [sum(ref[3 * i + k] * cur[3 * j + k] for k in range(3)) for i in range(3) for j in range(3)]
    vx, vy, vz = e[7] - e[5], e[2] - e[6], e[3] - e[1]
    s = 0.5 * math.sqrt(vx * vx + vy * vy + vz * vz)
    c = 0.5 * (e[0] + e[4] + e[8] - 1.0)
    ang = math.atan2(s, c)
    k = ang / (2 * s) if s > 1e-12 else 0.5
    return vx * k, vy * k


def _swing_gain(u: float, k_stance: float, k_swing: float) -> float:
    """Position gain over a swing: stiff, then easing to the stance gain from u = 0.6 to 1."""
    r = min(max((u - 0.6) / 0.4, 0.0), 1.0)
    r = r * r * (3.0 - 2.0 * r)
    return k_swing + r * (k_stance - k_swing)


def world_substeps(sim_dt: float, control_hz: float) -> int:
    """Physics substeps per control step; the control period must be a whole number of them."""
    n = (1.0 / control_hz) / sim_dt
    if abs(n - round(n)) > 1e-6 or round(n) < 1:
        raise ValueError(
            f"control rate {control_hz} Hz must divide the sim rate {1 / sim_dt:g} Hz "
            "into a whole number of substeps (e.g. 240 Hz sim with 60, 80, 120 or 240 Hz control)"
        )
    return round(n)
