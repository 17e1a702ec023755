"""Shared fixtures, and when the slow set-up test runs."""

from __future__ import annotations

import os

import pytest


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in {"", "0", "false", "no"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``setup_commands`` tests install from the package index into a fresh virtualenv: they
    run in CI or with ``AGENTERR_SETUP_TEST=1``, and never inside their own inner run."""
    marked = [item for item in items if item.get_closest_marker("setup_commands")]
    if not marked:
        return
    if _flag("AGENTERR_SETUP_INNER"):
        config.hook.pytest_deselected(items=marked)
        items[:] = [item for item in items if item not in marked]
        return
    if _flag("CI") or _flag("AGENTERR_SETUP_TEST"):
        return
    skip = pytest.mark.skip(
        reason="installs from the package index (minutes): runs in CI or with AGENTERR_SETUP_TEST=1"
    )
    for item in marked:
        item.add_marker(skip)
