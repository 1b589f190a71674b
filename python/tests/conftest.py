"""Fixtures of the konane module's tests: tables generated once per test session, and Ctrl-C
sent to a call."""
import os
import signal
import threading
import time

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


def _interrupted_after(call, delay=0.5):
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    sent = []
    timer = threading.Timer(delay, lambda: (sent.append(time.monotonic()),
                                            os.kill(os.getpid(), signal.SIGINT)))
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            call()
        return time.monotonic() - sent[0]
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


@pytest.fixture
def interrupted_after():
    """A function (call, delay=0.5) that runs call() with a SIGINT (what Ctrl-C sends) from a
    timer thread after delay seconds, and returns the seconds between the signal and the
    KeyboardInterrupt that call() must raise."""
    return _interrupted_after


def pytest_configure(config):
    """The marker of the tests CTest runs apart, as python_pytest_slow (label "slow")."""
    config.addinivalue_line("markers", "slow: a test of tens of seconds (6x6 proof searches)")
