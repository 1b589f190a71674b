"""The module's edges (issue 25, "The Python module"): no call may crash or hang the
interpreter, and every failure is one of the documented exceptions with its message. Cases
that could kill the interpreter run in a child process, so that a crash fails one test."""
import os
import pickle
import shutil
import subprocess
import sys
import textwrap

import pytest

import konane


def run_python(code, **env):
    """Runs `code` in a fresh interpreter with this one's konane; returns (exit code, output)."""
    child_env = dict(os.environ, **env)
    child_env["PYTHONPATH"] = os.pathsep.join(
        [os.path.dirname(konane.__file__)] + sys.path[1:]
    )
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=child_env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout + done.stderr


# ------------------------------------------------------------------------------------------------
# Pickling


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_positions_pickle_at_every_protocol(protocol):
    for p in [
        konane.Position.start("5x5", rules="center"),
        konane.Position.parse("..xo/oxox/xoxo/oxox b"),
        konane.Position.parse("xo.o. w", rules="any"),
    ]:
        back = pickle.loads(pickle.dumps(p, protocol=protocol))
        assert back == p and back.rules == p.rules and str(back) == str(p)


def test_pickling_a_tablebase_raises_type_error_in_a_child_process(tables):
    path, _ = tables("4x4")
    code, out = run_python(
        f"""
        import copy, pickle, konane
        tb = konane.Tablebase({str(path)!r})
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
            try:
                pickle.dumps(tb, protocol=protocol)
            except TypeError as e:
                assert "pickle" in str(e), e
            else:
                raise SystemExit("pickled at protocol %d" % protocol)
        try:
            copy.copy(tb)
        except TypeError:
            pass
        else:
            raise SystemExit("copied")
        print("ok", tb.value(tb.start))
        """
    )
    assert code == 0, out
    assert out.startswith("ok")


# ------------------------------------------------------------------------------------------------
# Objects made by __new__ alone


def test_tablebase_new_without_init_raises_value_error_in_a_child_process():
    code, out = run_python(
        """
        import konane
        tb = konane.Tablebase.__new__(konane.Tablebase)
        print(repr(tb))
        for call in (tb.close, lambda: tb.value("xo.. b"), lambda: tb.path, lambda: len(tb),
                     lambda: tb.closed, lambda: tb.layers, lambda: list(tb.positions())):
            try:
                call()
            except ValueError as e:
                assert "never opened" in str(e), e
            else:
                raise SystemExit("no error")
        it = konane._LayerIterator.__new__(konane._LayerIterator)
        assert list(it) == []
        print("ok")
        """
    )
    assert code == 0, out
    assert "<konane.Tablebase (never opened)>" in out and out.rstrip().endswith("ok")


def test_position_new_without_init_is_a_valid_position_in_a_child_process():
    code, out = run_python(
        """
        import konane
        p = konane.Position.__new__(konane.Position)
        print(str(p), p.board, p.moves(), p.game_over, p.pieces)
        """
    )
    assert code == 0, out
    assert out.strip() == ". b 1x1 [] True 0"


# ------------------------------------------------------------------------------------------------
# generate() from a progress callback


def test_generate_from_a_progress_callback_is_refused(tmp_path):
    seen = []

    def progress(phase, pieces, done, total):
        if not seen:
            try:
                konane.generate("3x3", output=tmp_path / "inner.kbt")
            except RuntimeError as e:
                seen.append(str(e))
                raise

    with pytest.raises(RuntimeError, match="progress callback"):
        konane.generate("4x4", output=tmp_path / "outer.kbt", progress=progress)
    assert seen and "refused" in seen[0]
    # No table, no temporary file: only the outer generation's work directory.
    assert [p.name for p in tmp_path.iterdir()] == ["outer.kbt.work"]
    # The refusal ends with the callback: generate() works again.
    assert konane.generate("4x4", output=tmp_path / "outer.kbt").classes == 975


# ------------------------------------------------------------------------------------------------
# File names that are not UTF-8


@pytest.fixture
def latin1_dir(tmp_path):
    """A directory whose name is not UTF-8 (Latin-1 'é'), as bytes."""
    folder = os.path.join(os.fsencode(tmp_path), b"caf\xe9")
    os.mkdir(folder)
    return folder


def test_tables_with_names_that_are_not_utf8(latin1_dir):
    output = os.path.join(latin1_dir, b"t\xff.kbt")
    report = konane.generate("3x3", output=output)
    assert os.fsencode(report.path) == output
    assert os.path.getsize(output) == report.file_bytes
    for name in (output, os.fsdecode(output)):
        with konane.Tablebase(name) as tb:
            assert os.fsencode(tb.path) == output
            assert "t\\udcff.kbt" in repr(tb) and "3x3" in repr(tb)
            assert tb.value(tb.start) is not None
        assert "closed" in repr(tb)
        with pytest.raises(ValueError, match="closed") as error:
            tb.value(tb.start)
        assert "t\udcff.kbt" in str(error.value)


def test_errors_naming_a_file_that_is_not_utf8_keep_their_message(latin1_dir):
    missing = os.path.join(latin1_dir, b"missing\xff.kbt")
    with pytest.raises(konane.FormatError) as error:
        konane.Tablebase(missing)
    assert "missing\udcff.kbt" in str(error.value)
    damaged = os.path.join(latin1_dir, b"damaged\xff.kbt")
    with open(damaged, "wb") as f:
        f.write(b"not a table\n")
    with pytest.raises(konane.FormatError) as error:
        konane.Tablebase(damaged)
    assert "damaged\udcff.kbt" in str(error.value)
    unwritable = os.path.join(latin1_dir, b"no\xff", b"dir.kbt")
    with pytest.raises(konane.IoError) as error:
        konane.generate("3x3", output=unwritable)
    assert "no\udcff" in str(error.value)


# ------------------------------------------------------------------------------------------------
# The work directory removed during generate()


def test_work_directory_removed_during_generate_raises_io_error(tmp_path):
    output = tmp_path / "gone.kbt"
    work = tmp_path / "gone.kbt.work"
    removed = []

    def progress(phase, pieces, done, total):
        if phase == "solve" and not removed:
            shutil.rmtree(work)
            removed.append(pieces)

    with pytest.raises(konane.IoError) as error:
        konane.generate("4x4", output=output, progress=progress, threads=1)
    assert removed
    assert str(error.value)
    assert not output.exists()
    assert not [p for p in tmp_path.iterdir() if ".tmp." in p.name]
