"""The Python examples of the README and of docs/python.md (the ```pycon blocks) run as
doctests: their output is real."""
import doctest
import os
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = pathlib.Path(os.environ.get("KONANE_README", ROOT / "README.md"))
DOCS = pathlib.Path(os.environ.get("KONANE_DOCS", ROOT / "docs"))
PAGES = {"README.md": README, "docs/python.md": DOCS / "python.md"}


def pycon_blocks(page):
    """The text of every ```pycon block of a Markdown page."""
    return re.findall(r"^```pycon\n(.*?)^```", page.read_text(), flags=re.M | re.S)


@pytest.mark.parametrize("name", PAGES)
def test_the_page_has_a_python_example(name):
    assert pycon_blocks(PAGES[name]), f"no ```pycon block in {PAGES[name]}"


@pytest.mark.parametrize("name", PAGES)
def test_the_python_examples_print_what_they_say(name, tmp_path, monkeypatch):
    if name == "docs/python.md":
        pytest.importorskip("numpy")  # its Tablebase.layer_arrays() example
    # Run in an empty folder: the examples generate their own tables there.
    monkeypatch.chdir(tmp_path)
    page = PAGES[name]
    text = "\n".join(pycon_blocks(page))
    test = doctest.DocTestParser().get_doctest(text, {}, name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted > 0
    if result.failed:
        pytest.fail(f"{result.failed} of {result.attempted} examples of {name} failed (see above)")
