"""pip install --no-build-isolation --no-index .   (offline: Debian's python3-setuptools, pybind11-dev)

Builds kvplan._core with CMake (the same bindings/CMakeLists.txt as the build tree) and installs it
with the pure-Python package from bindings/python/kvplan. Build files go to build-pip/ (never build/).
Environment: KVPLAN_JOBS (parallel jobs, default 2), KVPLAN_PIP_RUNTIME=0 to leave out the reference
runtime (kvplan.measure).
"""
import os
import pathlib
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
BUILD = ROOT / "build-pip"


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        out = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve().parent
        tree = BUILD / "cmake"
        runtime = os.environ.get("KVPLAN_PIP_RUNTIME", "1") != "0"
        subprocess.check_call([
            "cmake", "-S", str(ROOT), "-B", str(tree), "-DCMAKE_BUILD_TYPE=Release",
            f"-DPython3_EXECUTABLE={sys.executable}", "-DKVPLAN_BUILD_PYTHON=ON",
            "-DKVPLAN_BUILD_CLI=OFF", "-DKVPLAN_BUILD_TESTS=OFF", "-DKVPLAN_BUILD_EXAMPLES=OFF",
            "-DKVPLAN_BUILD_BENCH=OFF", f"-DKVPLAN_BUILD_RUNTIME={'ON' if runtime else 'OFF'}",
            f"-DKVPLAN_PY_PACKAGE_DIR={out}"])
        subprocess.check_call(["cmake", "--build", str(tree), "--target", "kvplan_python",
                               "-j", os.environ.get("KVPLAN_JOBS", "2")])


BUILD.mkdir(exist_ok=True)
setup(
    package_dir={"": "bindings/python"},
    packages=["kvplan"],
    package_data={"kvplan": ["*.pyi", "py.typed"]},
    ext_modules=[CMakeExtension("kvplan._core")],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": str(BUILD / "setuptools")},
             "egg_info": {"egg_base": str(BUILD)}},
    zip_safe=False,
)
