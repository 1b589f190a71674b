"""The README's Python example (the ```pycon blocks) runs as a doctest: its output is real."""
import doctest
import os
import pathlib
import re

import pytest

README = pathlib.Path(
    os.environ.get("KONANE_README", pathlib.Path(__file__).resolve().parents[2] / "README.md")
)


def pycon_blocks():
    """The text of every ```pycon block of the README."""
    return re.findall(r"^```pycon\n(.*?)^```", README.read_text(), flags=re.M | re.S)


def test_the_readme_has_a_python_example():
    assert pycon_blocks(), f"no ```pycon block in {README}"


def test_the_readme_python_example_prints_what_it_says(tmp_path, monkeypatch):
    # Run in an empty folder: the example generates its own table there.
    monkeypatch.chdir(tmp_path)
    text = "\n".join(pycon_blocks())
    test = doctest.DocTestParser().get_doctest(text, {}, "README.md", str(README), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    if result.failed:
        pytest.fail(f"{result.failed} of {result.attempted} README examples failed (see above)")
