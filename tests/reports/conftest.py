"""Fixtures of the report tests: the fixed scenario of :mod:`tests.reports.scenario`."""

from __future__ import annotations

import pytest

import tests.reports.scenario as scenario
from wdg.reports.settings import load_report_settings


@pytest.fixture
def month():
    """``(before, after, events, sheets)`` of the fixed scenario."""
    before, after = scenario.segments()
    return before, after, scenario.events(before), {1: scenario.sheet()}


@pytest.fixture
def settings():
    """The shipped reports.yaml."""
    return load_report_settings()
