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
