"""``require()``: a missing package names the extra; a broken one says what is broken."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest

from agenterr.integrations._require import REPOSITORY, require

pytestmark = pytest.mark.external


@pytest.fixture
def packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A directory on sys.path for throwaway packages (forgotten again after the test)."""
    monkeypatch.syspath_prepend(str(tmp_path))
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith("agenterr_probe_"):
            del sys.modules[name]
    importlib.invalidate_caches()


def _package(root: Path, name: str, init: str) -> None:
    (root / name).mkdir()
    (root / name / "__init__.py").write_text(init)


@pytest.mark.parametrize(
    "module",
    ["agenterr_probe_absent", "agenterr_probe_absent.sub.deeper", "json.agenterr_probe_absent"],
)
def test_a_missing_module_or_parent_names_the_extra(module: str) -> None:
    """The module itself, or a package above it, is not installed: install the extra."""
    with pytest.raises(ImportError, match=r'pip install "agenterr\[demo\] @ git\+') as caught:
        require(module, "demo")
    assert type(caught.value) is ImportError
    assert f"{module!r} is not installed" in str(caught.value)
    assert isinstance(caught.value.__cause__, ModuleNotFoundError)


def test_the_install_commands_work_without_a_package_index() -> None:
    """agenterr is not published, so ``pip install "agenterr[x]"`` cannot work: the message
    names the package the extra pins (on an index), a clone's ``.[x]``, and a git URL."""
    with pytest.raises(ImportError) as caught:
        require("agenterr_probe_absent", "tenacity")
    message = str(caught.value)
    pinned = [
        line.partition(";")[0].strip()
        for line in metadata.requires("agenterr") or []
        if "extra == 'tenacity'" in line or 'extra == "tenacity"' in line
    ]
    assert pinned and pinned[0].startswith("tenacity")
    assert f'install it with: pip install "{pinned[0]}", or ' in message
    assert "agenterr is not on a package index" in message
    assert 'pip install ".[tenacity]" in a clone of agenterr' in message
    assert f'pip install "agenterr[tenacity] @ git+{REPOSITORY}"' in message
    assert 'pip install "agenterr[tenacity]" ' not in message  # the command that cannot work


def test_without_metadata_the_message_still_says_how(monkeypatch: pytest.MonkeyPatch) -> None:
    """Run from a source tree that was never installed: no pins to name, the rest stands."""

    def missing(name: str) -> list[str]:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "requires", missing)
    with pytest.raises(ImportError) as caught:
        require("agenterr_probe_absent", "stamina")
    assert str(caught.value) == (
        "'agenterr_probe_absent' is not installed; install agenterr with its 'stamina' extra "
        '(agenterr is not on a package index): pip install ".[stamina]" in a clone of '
        f'agenterr, or pip install "agenterr[stamina] @ git+{REPOSITORY}"'
    )


def test_the_readme_installs_as_the_error_says() -> None:
    """The README gives the same honest commands, with the same repository placeholder,
    and never a bare ``pip install agenterr`` as if it were published."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    text = " ".join(readme.split())
    assert f'pip install "agenterr[tenacity] @ git+{REPOSITORY}"' in text
    assert 'pip install ".[tenacity]"' in text
    assert "agenterr is not published on a package index yet" in text
    commands = re.findall(r'pip install "?agenterr[^\s`]*(?: @ \S+)?', text)
    assert commands, "the README says how to install from the git repository"
    for command in commands:  # `pip install agenterr` only where it says it finds nothing
        assert "@ git+" in command or f"{command}` finds nothing" in text, command


def test_a_blocked_module_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """None in sys.modules (how the tests simulate an absent package) counts as missing,
    for a submodule of the blocked package too."""
    monkeypatch.setitem(sys.modules, "agenterr_probe_blocked", None)
    with pytest.raises(ImportError, match=r"agenterr\[demo\]"):
        require("agenterr_probe_blocked.utils.json", "demo")


def test_a_missing_dependency_of_an_installed_package_is_reported_as_it_is(
    packages: Path,
) -> None:
    """The package is there but cannot import one of its own dependencies: the original
    ModuleNotFoundError, naming that dependency, not "not installed"."""
    _package(packages, "agenterr_probe_broken", "import agenterr_probe_dependency\n")
    with pytest.raises(ModuleNotFoundError) as caught:
        require("agenterr_probe_broken", "demo")
    assert caught.value.name == "agenterr_probe_dependency"
    assert "agenterr[" not in str(caught.value)


def test_a_missing_module_whose_name_is_only_a_prefix_is_not_a_parent(packages: Path) -> None:
    """``agenterr_probe_x`` is not a parent of ``agenterr_probe_xy``: a dependency with the
    shorter name missing is the package's own problem."""
    _package(packages, "agenterr_probe_xy", "import agenterr_probe_x\n")
    with pytest.raises(ModuleNotFoundError) as caught:
        require("agenterr_probe_xy", "demo")
    assert caught.value.name == "agenterr_probe_x"
    assert "agenterr[" not in str(caught.value)


@pytest.mark.parametrize(
    ("init", "error", "text"),
    [
        ("from json import agenterr_probe_nothing\n", ImportError, "cannot import name"),
        ("raise RuntimeError('bad build')\n", RuntimeError, "bad build"),
    ],
    ids=["ImportError", "RuntimeError"],
)
def test_other_import_failures_propagate_unchanged(
    packages: Path, init: str, error: type[Exception], text: str
) -> None:
    """An installed package whose import fails otherwise (a version mismatch, a bug) raises
    its own exception, which says what is wrong."""
    _package(packages, "agenterr_probe_faulty", init)
    with pytest.raises(error, match=text) as caught:
        require("agenterr_probe_faulty", "demo")
    assert type(caught.value) is error
    assert "agenterr[" not in str(caught.value)


def test_an_installed_module_is_returned() -> None:
    """Nothing wrong: the module itself."""
    assert require("json", "demo") is sys.modules["json"]
