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


@pytest.fixture(scope="session")
def ran_world_template(world_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The world after one ``wdg world run --no-pdf`` (``nord``, ``ost``, ``sued`` run)."""
    import shutil

    from wdg.campaign import Campaign
    from wdg.office.run import run_world

    root = tmp_path_factory.mktemp("world-ran") / "w"
    shutil.copytree(world_template, root)
    got = run_world(Campaign(root), pdf=False, jobs=1)
    assert [s.ran for s in got.segments] == ["0412-04", "0412-04", "0412-04", None]
    return root
