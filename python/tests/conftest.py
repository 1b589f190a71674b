"""Fixtures of the konane module's tests: tables generated once per test session."""
import pytest

import konane


@pytest.fixture(scope="session")
def tables(tmp_path_factory):
    """A function (board, rules='brainking') -> (path, GenerateReport), generating each table
    once per session in a temporary directory."""
    folder = tmp_path_factory.mktemp("tables")
    made = {}

    def get(board, rules="brainking"):
        if (board, rules) not in made:
            path = folder / f"konane-{board}-{rules}.kbt"
            made[board, rules] = (path, konane.generate(board, rules=rules, output=path))
        return made[board, rules]

    return get


@pytest.fixture
def tb4(tables):
    """The 4x4 brainking table, opened."""
    with konane.Tablebase(tables("4x4")[0]) as tb:
        yield tb


@pytest.fixture
def tb5(tables):
    """The 5x5 brainking table, opened."""
    with konane.Tablebase(tables("5x5")[0]) as tb:
        yield tb


def pytest_configure(config):
    """The marker of the tests CTest runs apart, as python_pytest_slow (label "slow")."""
    config.addinivalue_line("markers", "slow: a test of tens of seconds (6x6 proof searches)")
