"""examples/random_agent.py, the GTP agent over the module that docs/match.md shows: run as
`konane match` runs it (a child process over pipes), it answers the setup commands and plays a
legal move of the position the runner's commands describe."""
import os
import pathlib
import subprocess
import sys

import konane

AGENT = pathlib.Path(__file__).resolve().parents[2] / "examples" / "random_agent.py"


def test_random_agent_plays_a_legal_move():
    env = dict(os.environ)
    # This interpreter's konane: the package the tests run against.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(pathlib.Path(konane.__file__).parent.parent)] + sys.path[1:]
    )
    commands = "protocol_version\nname\nboardsize 4\nclear_board\nplay black a4\nplay white b4\n"
    done = subprocess.run(
        [sys.executable, str(AGENT)],
        input=commands + "genmove black\nquit\n",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    answers = done.stdout.split("\n\n")
    assert answers[:6] == ["= 2", "= random-python", "= ", "= ", "= ", "= "]
    move = answers[6].removeprefix("= ")
    assert move in konane.Position.start("4x4").play("a4 b4").moves()
    assert answers[7] == "= "
