"""The README's interactive examples are true."""

import doctest
import re
from pathlib import Path

import agenterr

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def test_readme_doctests() -> None:
    """Every ```python block written as a session (>>>) prints what it claims."""
    blocks = [b for b in re.findall(r"```python\n(.*?)```", README, re.S) if ">>>" in b]
    assert blocks, "the README shows at least one interactive example"
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for i, block in enumerate(blocks):
        test = parser.get_doctest(block, {"agenterr": agenterr}, f"README[{i}]", "README.md", 0)
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_readme_names_the_two_setup_commands() -> None:
    """The first screen shows how to run the tests and the demo."""
    first_screen = README[:2500]
    assert 'pip install -e ".[test]" && pytest' in first_screen
    assert "pip install . && " in first_screen
