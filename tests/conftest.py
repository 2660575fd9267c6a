import os

import pytest
from hypothesis import settings

settings.register_profile("ci", max_examples=200, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=100, deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")


@pytest.fixture(scope="session")
def catalog():
    from gaitsim import load_catalog

    return load_catalog()


@pytest.fixture(params=["fox", "hound", "mechanic", "raptor", "horn_beetle", "spider_bot"])
def entry(request, catalog):
    return catalog[request.param]


@pytest.fixture
def custom_catalog_file(tmp_path):
    """A catalog file with a 'fox' that is not the built-in fox (shorter stride, slower) and
    a 'newt' that is not built in at all: what a user's own catalog looks like."""
    import dataclasses

    from gaitsim import load_catalog
    from gaitsim.catalog import Catalog, save_catalog

    cat = load_catalog()
    fox = cat["fox"]
    gait = dataclasses.replace(fox.gait, stride=0.12, clip_speed=0.3)
    newt = dataclasses.replace(cat["horn_beetle"], name="newt")
    path = tmp_path / "my.json"
    save_catalog(Catalog([dataclasses.replace(fox, gait=gait), newt]), path)
    return path


@pytest.fixture(scope="session")
def built_controller():
    """A function ``(walker, attr=None, **config)``: the GaitController that ``simulate()``
    builds for ``walker`` (a name or an entry) with ``ControlConfig(**config)``, or its
    attribute ``attr``; its world is closed again (what it set up stays readable)."""
    from gaitsim.sim.controller import ControlConfig, GaitController
    from gaitsim.sim.robot import Robot
    from gaitsim.sim.run import physics_walker_options
    from gaitsim.sim.world import World
    from gaitsim.walker import Walker, resolve_entry

    def build(walker, attr: str | None = None, **config):
        entry = resolve_entry(walker)
        with World() as world:
            robot = Robot(world, entry)
            kin = Walker(entry, **physics_walker_options())
            ctl = GaitController(world, robot, kin, ControlConfig(**config))
            return ctl if attr is None else getattr(ctl, attr)

    return build


@pytest.fixture(scope="session")
def sole_driver():
    """A function ``(walker="mechanic", terrain=None)``: a ``SoleDriver`` for that walker's
    soles (on ``terrain``, default flat) with unbounded ankles and no robot behind it."""
    import numpy as np

    from gaitsim.feet import ankle_joint_names
    from gaitsim.sim.soles import SoleDriver
    from gaitsim.walker import Walker

    def build(walker: str = "mechanic", terrain=None):
        w = Walker(walker) if terrain is None else Walker(walker, terrain=terrain)
        names = ankle_joint_names(w.gait)

        class _Body:
            ankle_lower = np.full(len(names), -10.0)
            ankle_upper = np.full(len(names), 10.0)
            ankle_joint_names = names

        class _Robot:
            body = _Body()

        return SoleDriver(w, _Robot())

    return build


@pytest.fixture
def open_controller():
    """A function ``(entry)``: ``(world, controller)`` on flat PyBullet ground with the
    default Walker and no recording, the world left open (the caller closes it; any left
    open are closed after the test)."""
    from gaitsim.sim.controller import GaitController
    from gaitsim.sim.engine import load_robot, make_world
    from gaitsim.terrain import Flat
    from gaitsim.walker import Walker

    worlds = []

    def build(entry):
        world = make_world("pybullet", Flat())
        worlds.append(world)
        robot = load_robot(world, entry)
        return world, GaitController(world, robot, Walker(entry), record=False)

    yield build
    for world in worlds:
        world.close()


@pytest.fixture(scope="session")
def landings():
    """A function ``(gait, samples=2000)``: each leg's touchdown in its gait cycle (0-1),
    in leg order, as the foot plan has it (``gait.feet_down``: the cycle sample where the
    leg goes down). Read from the plan, not from the phases' values: a leg whose phase is
    larger lands earlier."""
    import numpy as np

    from gaitsim.gait import feet_down

    def find(gait, samples: int = 2000) -> list[float]:
        down = feet_down([leg.phase for leg in gait.legs], gait.duty, samples)
        return ((down & ~np.roll(down, 1, axis=0)).argmax(axis=0) / samples).tolist()

    return find


@pytest.fixture(scope="session")
def biped_free():
    """The ``experiments/biped_free.py`` module (its helpers: ``set_back``,
    ``with_stride``, ``generated_cells``, ``run_cell``, ...)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
    import biped_free

    return biped_free
