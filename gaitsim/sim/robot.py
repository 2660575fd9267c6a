"""A walker's URDF body in a World: joint and foot indexing, position control, state.

Arrays are shaped like the kinematics: joints ``(legs, 3)`` in the chain order of
docs/architecture.md, feet ``(legs, 3)``; the upper body's and the ankles' joints are
groups of their own, flat ``(n,)`` in ``Body.upper_joint_names`` and
``Body.ankle_joint_names`` order. The base link's origin is the body frame B
and its inertial origin is at 0, so PyBullet's base pose is the B frame's pose.
"""

from __future__ import annotations

import math
import operator
import struct
from typing import NamedTuple

import numpy as np
import pybullet as p

from .common import RobotBase

# Position-control defaults. PyBullet's motor solves, within the force limit, for the joint
# velocity  kp * (q* - q) / dt + kd * (v* - v) + v : kp = 1 would close the whole position
# error in one step, kd = 1 fully damps the velocity toward the target velocity. kp = 0.5
# closes half the error per step (stiff, no overshoot at 240 Hz); kd = 1 is critically
# damping. Forces come from the URDF effort limits, scaled by FORCE_SCALE.
DEFAULT_KP = 0.5
DEFAULT_KD = 1.0
FORCE_SCALE = 1.0
FALLBACK_EFFORT = 100.0  # N m, for joints whose URDF gives no effort limit
# Every contact point is a spring-damper of the stiffness and damping set on its link, so a
# sole, touching with its four corner spheres (``urdf.sole_spheres``), shares the foot pad
# (``Body.pad``) among them, stiffened where the heaviest load on one edge would sink its
# corners past ``feet.EDGE_SINK`` of their radius (``Body.sole_pad``, ``feet.corner_pad``).
CONTACT_DISTANCE = 0.0  # a manifold point at this distance (m) or closer counts as touching,
# as does one that carries a normal force: a foot hovering a millimetre above the ground
# (inside Bullet's contact margin) does not touch it


def is_touch(point) -> bool:
    """Whether a ``getContactPoints`` entry is a touch: within CONTACT_DISTANCE (8: contact
    distance) or carrying a normal force (9: normal force). The one contact rule."""
    return point[8] <= CONTACT_DISTANCE or point[9] > 0.0


def _floats(values) -> list:
    """A list of numbers for pybullet: a list as it is (the control loop's lists hold
    floats already, and pybullet reads any number), an array's ``tolist`` (the same
    numbers, faster), any other sequence as Python floats."""
    if type(values) is list:
        return values
    return values.tolist() if isinstance(values, np.ndarray) else [float(x) for x in values]


def _each(value, n: int, scale: float = 1.0) -> list[float]:
    """A scalar or (n,) ``value`` (times ``scale``) as a list of n floats."""
    v = np.broadcast_to(np.asarray(value, dtype=float), (n,))
    return (v if scale == 1.0 else v * scale).tolist()


LOAD_FLAGS = p.URDF_USE_IMPLICIT_CYLINDER | p.URDF_USE_INERTIA_FROM_FILE
_FRAME_SIZE = 13  # floats per body in a momentum reading (``Robot._frames``)


class Sensed(NamedTuple):
    """One reading of a robot's state (plain tuples and lists; world frame).

    Immutable; a named tuple because the control loop builds one every step.
    """

    position: tuple
    quaternion: tuple
    linear_velocity: tuple
    angular_velocity: tuple
    joint_positions: tuple  # chain order, like joint_velocities and joint_torques
    joint_velocities: tuple
    joint_torques: tuple  # the position motors' torque plus the held feedforward
    feet: list  # foot-sphere centres (soles: the ankle joints), (x, y, z) each
    com: tuple  # the whole robot's centre of mass (x, y, z)
    contacts: list
    body_contact: bool  # the body (base link) touches the ground: a fall
    leg_contact: bool  # a thigh or shin touches the ground (a scuff, reported)
    foot_quaternions: list  # foot links' world orientations, (x, y, z, w) each
    foot_forces: tuple | list = ()  # each foot's ground normal force (N)
    momentum_z: object = float("nan")  # the whole robot's angular momentum about the
    # vertical through its centre of mass (kg m^2 / s), or the engine's raw reading of it
    # (PyBullet: the link frames as packed doubles, worked out later):
    # ``robot.momentum_series`` turns a series of readings into the values; NaN when not
    # tracked
    upper_positions: tuple = ()  # the upper body's joints (gaitsim.upper order)
    head: tuple | None = None  # the head sphere's centre, world (walkers with a head)
    head_quaternion: tuple | None = None
    chest_quaternion: tuple | None = None  # the chest's orientation (walkers with a torso)
    ankle_positions: tuple = ()  # the ankles' joints (Body.ankle_joint_names order; soles)
    foot_cops: list = ()  # per foot (walkers on soles): the world centre of pressure of its
    # ground contacts, (x, y, z), or None for a foot that carries no normal force
    leg_force: float = 0.0  # the ground's normal force (N) on the links other than the feet
    # and the body: a thigh or a shin carrying the walker (``leg_contact``); 0 when only the
    # feet touch
    upper_velocities: tuple = ()  # the upper body's joint velocities (as upper_positions):
    # with them ``(upper_positions, upper_velocities)`` is ``upper_state()`` at this reading


def momentum_about_com(mass, inertia, frames) -> np.ndarray:
    """Angular momentum about the vertical through the centre of mass (kg m^2 / s) of
    bodies of masses ``mass`` (N,) and principal inertias ``inertia`` (N, 3), for ``frames``
    (T, N, 13): each body's centre of mass (3), inertial-frame orientation (x, y, z, w),
    world linear (3) and angular (3) velocity. Per step: the sum over bodies of
    m (r - c) x v plus the body's own spin R I R^T w, z components (T,)."""
    f = np.asarray(frames, dtype=float)
    m = np.asarray(mass, dtype=float)
    r, v, w = f[..., 0:3], f[..., 7:10], f[..., 10:13]
    x, y, z, s = np.moveaxis(f[..., 3:7], -1, 0)
    c = np.einsum("n,tnk->tk", m, r[..., :2]) / m.sum()
    h = np.einsum("n,tn->t", m, (r[..., 0] - c[:, None, 0]) * v[..., 1]
                  - (r[..., 1] - c[:, None, 1]) * v[..., 0])  # fmt: skip
    rot = np.stack([  # rows of R, body to world
        np.stack([1 - 2 * (y * y + z * z), 2 * (x * y - s * z), 2 * (x * z + s * y)], -1),
        np.stack([2 * (x * y + s * z), 1 - 2 * (x * x + z * z), 2 * (y * z - s * x)], -1),
        np.stack([2 * (x * z - s * y), 2 * (y * z + s * x), 1 - 2 * (x * x + y * y)], -1),
    ], -2)  # fmt: skip
    body_rate = np.einsum("tnji,tnj->tni", rot, w)  # R^T w
    spin = np.einsum("tni,ni,tni->t", rot[..., 2, :], np.asarray(inertia, float), body_rate)
    return h + spin


class Robot(RobotBase):
    """A walker loaded from its generated URDF into a PyBullet ``world`` (the PyBullet
    engine's robot; see ``common.RobotBase`` for the start pose and the keywords). Joints
    start limp (PyBullet's default velocity motors are switched off); call
    ``command_positions`` to hold a pose.

    ``body_id``: the pybullet body; ``joint_index`` (L, 3) int: joint indices in chain
    order; ``foot_index`` (L,) int: foot link indices (a sole's link: its origin is the
    ankle); ``effort`` (L, 3): URDF effort limits (N m); ``ankle_names``, ``ankle_effort``,
    ``ankle_lower``, ``ankle_upper``: the ankles' joints (walkers on soles; empty
    otherwise); ``geometry``: the walker's resolved Geometry; ``body``: its compiled Body.
    """

    def _load(self, base_position, base_orientation) -> None:
        world = self.world
        self.client = world.client
        path = self.urdf_path
        self.body_id = p.loadURDF(
            str(path),
            basePosition=[float(v) for v in base_position],
            baseOrientation=[float(v) for v in base_orientation],
            useFixedBase=self.fixed_base,
            flags=LOAD_FLAGS,
            physicsClientId=self.client,
        )
        if self.body_id < 0:
            raise RuntimeError(f"Robot: pybullet could not load {path}")
        self._index_joints()
        self._removed = False
        self._held = None  # feedforward torques held until the next command (chain order)
        self._ankle_bias = None  # ... and on the ankles (``command_ankles``)
        world._holders.append(self)
        self._all_links = sorted(self.link_names)
        # a momentum reading's doubles, packed (``_frames``): the base and every link
        self._pack_frames = struct.Struct(f"{_FRAME_SIZE * (1 + len(self._all_links))}d").pack
        self._mass_list = self._link_mass.tolist()
        self._link_masses = self._mass_list[1:]  # links 0, 1, ... (the base is first)
        self._foot_or_base = {*self._feet, -1}  # the links whose ground contact is no scuff
        self.set_gains()
        for f in self._feet:
            # Bullet multiplies the two bodies' frictions: feet of 1.0 make the world's
            # ``friction`` the foot-ground coefficient. The friction anchor stops the slow
            # creep of velocity-level friction, so a loaded planted foot stays put.
            # A spinning-friction torque of one foot radius per newton stands in for a
            # real foot's contact patch: a single point foot could not resist yaw at all.
            p.changeDynamics(
                self.body_id,
                f,
                lateralFriction=1.0,
                spinningFriction=self.geometry.foot_radius,
                frictionAnchor=1,
                physicsClientId=self.client,
            )
        self._set_foot_pads()

    @property
    def sole_stiffness(self) -> float | None:
        """A flat sole's corners together (``Body.sole_stiffness``), None on sphere feet."""
        return self.body.sole_stiffness

    def _set_foot_pads(self) -> None:
        """Feet as damped pads (``Body.pad``, see ``geometry.foot_pad``), not rigid balls;
        a sole's corner points each get ``Body.sole_pad``."""
        k, d = self.body.pad if self.body.sole_pad is None else self.body.sole_pad
        for f in self._feet:
            p.changeDynamics(self.body_id, f, contactStiffness=k, contactDamping=d,
                             physicsClientId=self.client)  # fmt: skip

    # ------------------------------------------------------------------ indexing
    def _index_joints(self) -> None:
        cid, body = self.client, self.body_id
        by_joint: dict[str, int] = {}
        by_link: dict[str, int] = {}
        info = {}
        for j in range(p.getNumJoints(body, physicsClientId=cid)):
            ji = p.getJointInfo(body, j, physicsClientId=cid)
            by_joint[ji[1].decode()] = j
            by_link[ji[12].decode()] = j
            info[j] = ji
        names = list(self.body.joint_names)
        missing = [n for n in names if n not in by_joint]
        if missing or len(names) != 3 * self.n_legs:
            raise RuntimeError(
                f"Robot: {self.urdf_path} lacks joints {missing} "
                "(expected 3 per leg in chain order)"
            )
        self.joint_names = names
        self.joint_index = np.array([by_joint[n] for n in names], dtype=int).reshape(-1, 3)
        feet = list(self.body.foot_links)
        missing = [n for n in feet if n not in by_link]
        if missing:
            raise RuntimeError(f"Robot: {self.urdf_path} lacks foot links {missing}")
        self.foot_names = feet
        self.foot_index = np.array([by_link[n] for n in feet], dtype=int)
        self._joints = [int(j) for j in self.joint_index.ravel()]
        self._feet = [int(f) for f in self.foot_index]
        effort = np.array([info[j][10] for j in self._joints], dtype=float)
        self.effort = np.where(effort > 0, effort, FALLBACK_EFFORT).reshape(-1, 3)
        vel = np.array([info[j][11] for j in self._joints], dtype=float)
        self.max_velocity = vel.reshape(-1, 3)
        self.lower = np.array([info[j][8] for j in self._joints], dtype=float).reshape(-1, 3)
        self.upper = np.array([info[j][9] for j in self._joints], dtype=float).reshape(-1, 3)
        self.link_names = {j: info[j][12].decode() for j in info}
        self._index_upper(by_joint, by_link, info)
        self._index_ankles(by_joint)
        cid = self.client
        links = [-1, *sorted(info)]
        dyn = [p.getDynamicsInfo(body, j, physicsClientId=cid) for j in links]
        self._link_mass = np.array([d[0] for d in dyn])
        self._inertia_list = [tuple(d[2]) for d in dyn]  # principal inertias, inertial frame
        self.mass = float(self._link_mass.sum())

    def _index_upper(self, by_joint, by_link, info) -> None:
        """The upper body's joints (``Body.upper_joint_names``) and its head and chest."""
        names = list(self.body.upper_joint_names)
        missing = [n for n in names if n not in by_joint]
        if missing:
            raise RuntimeError(f"Robot: {self.urdf_path} lacks upper-body joints {missing}")
        self._upper = [by_joint[n] for n in names]
        self.upper_effort = np.array([info[j][10] for j in self._upper], dtype=float)
        self._upper_motor = None  # (gains, damping, limits) lists, built on first command
        self._head_link = by_link.get("head") if self.body.upper_body is not None else None
        self._chest_link = by_link.get("chest") if self.body.upper_body is not None else None

    def _index_ankles(self, by_joint) -> None:
        """The ankles' joints (``Body.ankle_joint_names``; none on sphere feet)."""
        names = list(self.body.ankle_joint_names)
        missing = [n for n in names if n not in by_joint]
        if missing:
            raise RuntimeError(f"Robot: {self.urdf_path} lacks ankle joints {missing}")
        self._ankles = [by_joint[n] for n in names]
        self.ankle_names = names
        self.ankle_effort = np.asarray(self.body.ankle_effort, dtype=float)
        self.ankle_lower = np.asarray(self.body.ankle_lower, dtype=float)
        self.ankle_upper = np.asarray(self.body.ankle_upper, dtype=float)
        self._ankle_motor = None  # (gains, damping, limits) lists, built on first command
        # sense() reads the legs', the ankles' and the upper body's joints in one call
        self._sensed_joints = self._joints + self._ankles + self._upper

    def release_joints(self) -> None:
        """Switch off PyBullet's default velocity motors so the joints move freely."""
        joints = self._joints + self._upper + self._ankles
        n = len(joints)
        p.setJointMotorControlArray(
            self.body_id,
            joints,
            p.VELOCITY_CONTROL,
            targetVelocities=[0.0] * n,
            forces=[0.0] * n,
            physicsClientId=self.client,
        )

    def set_joint_positions(self, q, velocities=None) -> None:
        """Teleport every joint to ``q`` (L, 3) (and ``velocities``, default 0)."""
        q = self._shaped(q, "set_joint_positions").ravel()
        v = np.zeros_like(q) if velocities is None else self._shaped(velocities, "v").ravel()
        for j, qj, vj in zip(self._joints, q, v, strict=True):
            p.resetJointState(self.body_id, j, float(qj), float(vj), physicsClientId=self.client)

    def set_upper_positions(self, q) -> None:
        """Teleport the upper body's joints to ``q`` (n,), at rest."""
        for j, qj in zip(self._upper, np.ravel(q), strict=True):
            p.resetJointState(self.body_id, j, float(qj), 0.0, physicsClientId=self.client)

    def upper_state(self) -> tuple[np.ndarray, np.ndarray]:
        """The upper body's joint positions and velocities, each (n,) (empty without one)."""
        if not self._upper:
            return np.zeros(0), np.zeros(0)
        states = p.getJointStates(self.body_id, self._upper, physicsClientId=self.client)
        return np.array([s[0] for s in states]), np.array([s[1] for s in states])

    def command_upper(self, q, v=None) -> None:
        """Position-command the upper body's joints to ``q`` (n,) with target velocities
        ``v`` (default 0): stiff motors (DEFAULT_KP, DEFAULT_KD) at the URDF effort limits."""
        if not self._upper:
            return
        n = len(self._upper)
        if self._upper_motor is None:  # gains and limits: built once (held every substep)
            self._upper_motor = ([DEFAULT_KP * self.gain_scale] * n, [DEFAULT_KD] * n,
                                 self.upper_effort.tolist())  # fmt: skip
        kp, kd, forces = self._upper_motor
        p.setJointMotorControlArray(
            self.body_id,
            self._upper,
            p.POSITION_CONTROL,
            targetPositions=_floats(q),
            targetVelocities=[0.0] * n if v is None else _floats(v),
            positionGains=kp,
            velocityGains=kd,
            forces=forces,
            physicsClientId=self.client,
        )

    def set_ankle_positions(self, q) -> None:
        """Teleport the ankles' joints to ``q`` (n,), at rest."""
        for j, qj in zip(self._ankles, np.ravel(q), strict=True):
            p.resetJointState(self.body_id, j, float(qj), 0.0, physicsClientId=self.client)

    def ankle_state(self) -> tuple[np.ndarray, np.ndarray]:
        """The ankles' joint positions and velocities, each (n,) (empty on sphere feet)."""
        if not self._ankles:
            return np.zeros(0), np.zeros(0)
        states = p.getJointStates(self.body_id, self._ankles, physicsClientId=self.client)
        return np.array([s[0] for s in states]), np.array([s[1] for s in states])

    def command_ankles(self, q, v=None, kp=None, forces=None, bias=None) -> None:
        """Position-command the ankles' joints to ``q`` (n,) with target velocities ``v``
        (default 0): PyBullet's motor with position gains ``kp`` (default DEFAULT_KP; a
        scalar or (n,)), DEFAULT_KD and force limits ``forces`` (N m; default
        ``Body.ankle_effort``). ``bias`` (n,) shifts each joint's torque range to [bias -
        force, bias + force]: PyBullet's motor limit is symmetric, so the bias is held on
        the joint as a torque (``World.step`` re-applies it every physics step) and the
        motor acts on top of it. Nothing on sphere feet."""
        if not self._ankles:
            return
        n = len(self._ankles)
        self._ankle_bias = None if bias is None or not any(bias) else [float(b) for b in bias]
        if self._ankle_motor is None:  # the defaults: built once (held every substep)
            self._ankle_motor = ([DEFAULT_KP * self.gain_scale] * n, [DEFAULT_KD] * n,
                                 self.ankle_effort.tolist())  # fmt: skip
        gains, kd, limits = self._ankle_motor
        p.setJointMotorControlArray(
            self.body_id,
            self._ankles,
            p.POSITION_CONTROL,
            targetPositions=_floats(q),
            targetVelocities=[0.0] * n if v is None else _floats(v),
            positionGains=gains if kp is None else _each(kp, n, self.gain_scale),
            velocityGains=kd,
            forces=limits if forces is None else _each(forces, n),
            physicsClientId=self.client,
        )

    # ------------------------------------------------------------------ state
    def joint_state(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Joint positions, velocities and torques (the motors' plus the held feedforward),
        each (L, 3)."""
        states = p.getJointStates(self.body_id, self._joints, physicsClientId=self.client)
        pos = np.array([s[0] for s in states]).reshape(-1, 3)
        vel = np.array([s[1] for s in states]).reshape(-1, 3)
        tau = np.array([s[3] for s in states])
        if self._held is not None:
            tau = tau + self._held
        return pos, vel, tau.reshape(-1, 3)

    def base_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """Body frame B in the world: position (3,), quaternion (x, y, z, w) (4,)."""
        pos, quat = p.getBasePositionAndOrientation(self.body_id, physicsClientId=self.client)
        return np.array(pos), np.array(quat)

    def base_pose_floats(self) -> tuple[tuple, tuple]:
        """``base_pose`` as tuples of Python floats (the loops run every substep)."""
        return p.getBasePositionAndOrientation(self.body_id, physicsClientId=self.client)

    def reset_base(self, position, orientation=(0.0, 0.0, 0.0, 1.0)) -> None:
        """Teleport the base to a pose and zero its velocity; drop held feedforward torques."""
        self._held = self._ankle_bias = None
        cid = self.client
        p.resetBasePositionAndOrientation(
            self.body_id,
            [float(v) for v in position],
            [float(v) for v in orientation],
            physicsClientId=cid,
        )
        p.resetBaseVelocity(self.body_id, [0.0] * 3, [0.0] * 3, physicsClientId=cid)

    def set_base_velocity(self, linear, angular=(0.0, 0.0, 0.0)) -> None:
        """Set the base's world linear and angular velocity."""
        p.resetBaseVelocity(
            self.body_id,
            [float(v) for v in linear],
            [float(v) for v in angular],
            physicsClientId=self.client,
        )

    def base_velocity(self) -> tuple[np.ndarray, np.ndarray]:
        """World linear (3,) and angular (3,) velocity of the base."""
        lin, ang = p.getBaseVelocity(self.body_id, physicsClientId=self.client)
        return np.array(lin), np.array(ang)

    def foot_positions(self) -> np.ndarray:
        """World foot-sphere centres (L, 3): the foot link frames."""
        states = p.getLinkStates(
            self.body_id, self._feet, computeForwardKinematics=1, physicsClientId=self.client
        )
        return np.array([s[4] for s in states])

    def center_of_mass(self) -> np.ndarray:
        """World position (3,) of the whole robot's centre of mass."""
        cid, body = self.client, self.body_id
        n = len(self._link_mass) - 1
        states = p.getLinkStates(
            body, list(range(n)), computeForwardKinematics=1, physicsClientId=cid
        )
        base, _ = p.getBasePositionAndOrientation(body, physicsClientId=cid)
        x = np.array([base, *(s[0] for s in states)])  # s[0]: link centre of mass
        return self._link_mass @ x / self.mass

    def _ground_contacts(self, ground_id):
        ground = self.world.ground_id if ground_id is None else ground_id
        pts = p.getContactPoints(bodyA=self.body_id, bodyB=ground, physicsClientId=self.client)
        return [(c[3], c[8]) for c in pts if is_touch(c)]

    def foot_contacts(self, ground_id=None) -> np.ndarray:
        """Which feet (L,) touch the ground body (default: the world's ground)."""
        touching = {link for link, _ in self._ground_contacts(ground_id)}
        return np.array([f in touching for f in self._feet], dtype=bool)

    def body_ground_contact(self, ground_id=None) -> bool:
        """True when any link other than a foot (body, thigh, shin, ...) touches the ground."""
        feet = set(self._feet)
        return any(link not in feet for link, _ in self._ground_contacts(ground_id))

    def sense(self) -> Sensed:
        """Everything the controller and the metrics read, in as few pybullet calls as possible.

        Link frames are read with forward kinematics: Bullet's cached frames hold the same
        numbers right after a step, but the refresh also feeds the next step's collision
        pass, so leaving it out changes a run's rounding (and every recorded figure).
        """
        cid, body = self.client, self.body_id
        pos, quat = p.getBasePositionAndOrientation(body, physicsClientId=cid)
        lin, ang = p.getBaseVelocity(body, physicsClientId=cid)
        soles = bool(self._ankles)
        states = p.getJointStates(body, self._sensed_joints, physicsClientId=cid)
        links = p.getLinkStates(
            body, self._all_links, computeLinkVelocity=int(self.track_momentum),
            computeForwardKinematics=1, physicsClientId=cid,
        )  # fmt: skip
        touching, force = set(), {}
        contacts = p.getContactPoints(bodyA=body, bodyB=self.world.ground_id, physicsClientId=cid)
        if soles:
            pressed = self._pressed(contacts, touching, force)
        else:
            for c in contacts:
                if is_touch(c):
                    touching.add(c[3])
                    force[c[3]] = force.get(c[3], 0.0) + c[9]
        # centre of mass in plain floats (numpy per link costs more than it saves here)
        m0 = self._mass_list[0]
        x, y, z = m0 * pos[0], m0 * pos[1], m0 * pos[2]
        for m, st in zip(self._link_masses, links, strict=True):
            cx, cy, cz = st[0]
            x += m * cx
            y += m * cy
            z += m * cz
        mass = self.mass
        # every joint read (legs, ankles, upper body) split by field, then by group
        nj, u0 = len(self._joints), len(self._joints) + len(self._ankles)
        q_all, qd_all, _, tau = zip(*states, strict=True)
        q, qd, tau = q_all[:nj], qd_all[:nj], tau[:nj]
        if self._held is not None:  # the joints' torque: the motors' and the feedforward
            tau = tuple(map(operator.add, tau, self._held))
        feet = self._feet
        com = (x / mass, y / mass, z / mass)
        legs = not touching <= self._foot_or_base  # a bone touches: what does it carry
        bones = 0.0 if not legs else sum(
            f for link, f in force.items() if link not in self._foot_or_base)
        upper = self._upper_reading(q_all[u0:], links) if self._upper else (
            (), None, None, None)  # fmt: skip
        if soles:  # and the trailing fields: ankle angles, each foot's centre of pressure
            upper = (*upper, q_all[nj:u0], [pressed.get(f) for f in feet])
        at, facing, down, load = [], [], [], []  # per foot (one loop: half four lists' cost)
        for f in feet:
            st = links[f]
            at.append(st[4])
            facing.append(st[5])
            down.append(f in touching)
            load.append(force.get(f, 0.0))
        return Sensed(
            pos,
            quat,
            lin,
            ang,
            q,
            qd,
            tau,
            at,
            com,
            down,
            -1 in touching,
            legs,
            facing,
            load,
            self._frames(pos, quat, lin, ang, links) if self.track_momentum else math.nan,
            *upper,
            leg_force=bones,
            upper_velocities=qd_all[u0:],
        )

    @staticmethod
    def _pressed(contacts, touching: set, force: dict) -> dict:
        """The ground contacts' touching links and normal forces (into ``touching`` and
        ``force``) and each pressed link's centre of pressure: the normal-force-weighted
        mean of its contact points on the robot (world (x, y, z); links with no force are
        left out)."""
        moment: dict = {}
        for c in contacts:
            if is_touch(c):
                link, fn = c[3], c[9]
                touching.add(link)
                force[link] = force.get(link, 0.0) + fn
                if fn > 0.0:
                    px, py, pz = c[5]  # the point on A, the robot
                    mx, my, mz = moment.get(link, (0.0, 0.0, 0.0))
                    moment[link] = (mx + fn * px, my + fn * py, mz + fn * pz)
        return {link: (mx / force[link], my / force[link], mz / force[link])
                for link, (mx, my, mz) in moment.items()}  # fmt: skip

    def _frames(self, pos, quat, lin, ang, links) -> bytes:
        """``sense()``'s raw momentum reading, kept for ``momentum_series``: the base's pose
        and velocity and, per link, the four of its state's fields the momentum needs
        (centre of mass, inertial frame's orientation, world linear and angular velocity:
        0, 1, 6, 7), 13 per body, packed as native doubles in one ``bytes`` (the same
        numbers, bit for bit; the rest of the link states is let go). Not a tuple of
        floats: the garbage collector visits every item of a new tuple once (before it
        finds it holds only numbers and stops tracking it), and for a record of the fox's
        20 bodies those 260 visits, on floats long out of the cache, were most of what its
        young collections cost; a bytes object holds no objects and is never visited, nor
        are 260 float objects kept a step. Built by extending one list (about 2.5 us for
        the fox's 19 links, against 6.5 us chained through ``itemgetter``), then packed
        (about 1.5 us more than a tuple)."""
        out = [*pos, *quat, *lin, *ang]
        for st in links:
            out += st[0]
            out += st[1]
            out += st[6]
            out += st[7]
        return self._pack_frames(*out)

    def momentum_series(self, readings) -> np.ndarray:
        """The angular momenta (T,) of ``sense()``'s ``momentum_z`` readings (T): each is
        the raw frames of the base and the links (``_frames``: packed doubles), worked out
        here in one pass (per step in Python it cost about a tenth of a control step); NaN
        where not tracked."""
        out = np.full(len(readings), math.nan)
        rows = [k for k, r in enumerate(readings) if not isinstance(r, float)]
        if rows:
            frames = np.frombuffer(b"".join([readings[k] for k in rows]), dtype=float)
            frames = frames.reshape(len(rows), -1, _FRAME_SIZE)
            out[rows] = momentum_about_com(self._mass_list, self._inertia_list, frames)
        return out

    def _upper_reading(self, q: tuple, links):
        """(upper joint positions, head centre, head and chest quaternions) from the upper
        body's joint positions ``q`` and the link ``links`` states."""
        head = links[self._head_link] if self._head_link is not None else None
        chest = links[self._chest_link] if self._chest_link is not None else None
        return (q, None if head is None else head[4], None if head is None else head[5],
                None if chest is None else chest[5])  # fmt: skip

    def _mass_points(self) -> tuple[np.ndarray, np.ndarray]:
        cid, body = self.client, self.body_id
        base, _ = p.getBasePositionAndOrientation(body, physicsClientId=cid)
        links = p.getLinkStates(
            body, self._all_links, computeForwardKinematics=1, physicsClientId=cid
        )
        return self._link_mass, np.array([base, *(s[0] for s in links)])

    def command_torque_list(self, tau) -> None:
        """Feedforward joint torques ``tau`` (flat, chain order) on top of the position
        motors, held until the next call: ``World.step`` re-sends them before every physics
        step (PyBullet applies TORQUE_CONTROL for one step only)."""
        self._held = [float(t) for t in tau]

    def _apply_held(self) -> None:
        """Apply the held feedforward torques (legs, ankles) for one physics step."""
        if self._held is not None:
            p.setJointMotorControlArray(
                self.body_id, self._joints, p.TORQUE_CONTROL, forces=self._held,
                physicsClientId=self.client,
            )  # fmt: skip
        if self._ankle_bias is not None:
            p.setJointMotorControlArray(
                self.body_id, self._ankles, p.TORQUE_CONTROL, forces=self._ankle_bias,
                physicsClientId=self.client,
            )  # fmt: skip

    def apply_base_wrench(self, force, torque) -> None:
        """A world-frame force at the base's origin and a torque on the base, for the next
        physics step only."""
        cid, body = self.client, self.body_id
        x, _ = p.getBasePositionAndOrientation(body, physicsClientId=cid)
        p.applyExternalForce(body, -1, list(force), x, p.WORLD_FRAME, physicsClientId=cid)
        p.applyExternalTorque(body, -1, list(torque), p.WORLD_FRAME, physicsClientId=cid)

    def place_base(self, position, orientation, linear, angular) -> None:
        """Set the base's pose and world velocity (the kinematic body mode, every step)."""
        cid, body = self.client, self.body_id
        p.resetBasePositionAndOrientation(body, list(position), list(orientation),
                                          physicsClientId=cid)  # fmt: skip
        p.resetBaseVelocity(body, list(linear), list(angular), physicsClientId=cid)

    def command_joint_list(
        self,
        q: list[float],
        v: list[float] | None = None,
        kp: list[float] | None = None,
        forces: list[float] | None = None,
        kd: list[float] | None = None,
    ) -> None:
        """Position-command every joint to ``q`` with target velocities ``v``, position
        gains ``kp``, force limits ``forces`` and velocity gains ``kd`` (flat lists in chain
        order; defaults: 0 and the set gains and limits): the control loop's cheap path."""
        p.setJointMotorControlArray(
            self.body_id,
            self._joints,
            p.POSITION_CONTROL,
            targetPositions=q,
            targetVelocities=self._zeros if v is None else v,
            positionGains=self._kp if kp is None else self._scaled(kp),
            velocityGains=self._kd if kd is None else kd,
            forces=self._forces if forces is None else forces,
            physicsClientId=self.client,
        )

    def _scaled(self, kp: list[float]) -> list[float]:
        """Position gains at PHYSICS_HZ as this world's (``gain_scale``)."""
        k = self.gain_scale
        return kp if k == 1.0 else [g * k for g in kp]

    def set_gains(self, kp=None, kd=None, force_scale: float = FORCE_SCALE) -> None:
        """Gains (at PHYSICS_HZ, see ``gain_scale``) and force limits used by
        ``command_joint_list``."""
        n = len(self._joints)
        self._kp = [float(DEFAULT_KP if kp is None else kp) * self.gain_scale] * n
        self._kd = [float(DEFAULT_KD if kd is None else kd)] * n
        self._forces = (self.effort.ravel() * float(force_scale)).tolist()
        self._zeros = [0.0] * n

    # ------------------------------------------------------------------ lifetime
    def remove(self) -> None:
        """Remove the body from the world (idempotent; a closed world needs nothing)."""
        if self._removed:
            return
        self._removed = True
        if self in self.world._holders:
            self.world._holders.remove(self)
        if not self.world.closed:
            p.removeBody(self.body_id, physicsClientId=self.client)
