"""Builds the Python package konane (python/konane/, and its compiled half konane._konane:
python/bind_*.cpp) with this project's CMake, for the interpreter that runs pip:
`pip install --no-build-isolation .` (pyproject.toml). CMake's build goes under
build/pip/ in the source tree; KONANE_CMAKE_ARGS adds configure arguments and JOBS sets the
number of compile jobs (default: every core)."""
import os
import pathlib
import shlex
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
BUILD_BASE = "build/pip"


class CMakeExtension(Extension):
    """An extension that CMake builds (target konane_python), without sources of its own here."""

    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    """Configures the project with KONANE_BUILD_PYTHON=ON (tests and benchmarks off) and builds
    the module straight into the package directory setuptools packs (build_py copies the .py
    files there). Raises CalledProcessError when CMake fails (its output says why)."""

    def build_extension(self, ext):
        out = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        build = ROOT / BUILD_BASE / "cmake"
        args = [
            f"-DCMAKE_BUILD_TYPE={'Debug' if self.debug else 'Release'}",
            "-DKONANE_BUILD_PYTHON=ON",
            "-DKONANE_BUILD_TESTS=OFF",
            "-DKONANE_BUILD_BENCH=OFF",
            f"-DPython_EXECUTABLE={sys.executable}",
            f"-DKONANE_PYTHON_OUTPUT_DIR={out}",
            *shlex.split(os.environ.get("KONANE_CMAKE_ARGS", "")),
        ]
        subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build), *args], check=True)
        jobs = os.environ.get("JOBS") or str(os.cpu_count() or 1)
        subprocess.run(
            ["cmake", "--build", str(build), "--target", "konane_python", "-j", jobs], check=True
        )


os.makedirs(ROOT / BUILD_BASE, exist_ok=True)
setup(
    # The package konane, from python/konane/, with its one extension module.
    packages=["konane"],
    package_dir={"konane": "python/konane"},
    ext_modules=[CMakeExtension("konane._konane")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
)
