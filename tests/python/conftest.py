import json
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def golden():
    with open(ROOT / "tests" / "data" / "golden.json") as f:
        return json.load(f)


@pytest.fixture(scope="session")
def root():
    return ROOT
