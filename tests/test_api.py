"""The public surface: __all__ is curated and importable."""

import agenterr
import agenterr.errors


def test_all_is_sorted_and_complete() -> None:
    """__all__ lists exactly the public names, sorted, each one importable."""
    public = {n for n in dir(agenterr) if not n.startswith("_")} - {"errors", "annotations"}
    # Submodules that importing the package pulls in are not part of the API.
    public -= {n for n in public if type(getattr(agenterr, n)).__name__ == "module"}
    assert set(agenterr.__all__) == public
    # isort-style, as ruff keeps it: CONSTANTS, then Classes, then functions.
    style = sorted(agenterr.__all__, key=lambda n: (not n.isupper(), not n[0].isupper(), n))
    assert list(agenterr.__all__) == style
    for name in agenterr.__all__:
        assert getattr(agenterr, name) is not None


def test_errors_reexported() -> None:
    """The typed errors are the same objects under agenterr and agenterr.errors."""
    for name in agenterr.errors.__all__:
        assert getattr(agenterr, name) is getattr(agenterr.errors, name)


def test_version() -> None:
    """__version__ comes from the package metadata."""
    assert agenterr.__version__ == "0.1.0"
