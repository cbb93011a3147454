"""The world of four segments, built once per session (copied by each test)."""

from __future__ import annotations

from pathlib import Path

import pytest
from worldkit import make_world


@pytest.fixture(scope="session")
def world_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("world-template")
    make_world(root)
    return root
