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
