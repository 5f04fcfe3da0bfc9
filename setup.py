"""pip wheel --no-build-isolation --no-deps .   (offline: Debian's python3-setuptools, python3-wheel)
pip install --no-build-isolation --no-index .

Builds kvplan._core and the kvplan CLI with CMake (the same CMakeLists.txt as the build tree) and
packs them with the pure-Python package from bindings/python/kvplan: the module, the `kvplan`
executable (kvplan/bin/kvplan, run by the `kvplan` console entry point, kvplan._cli) and the
bundled model configs (kvplan/model_configs/). The wheel holds compiled code, so it is tagged for
this Python and platform (cp3X-cp3X-linux_x86_64): it runs where the build machine's shared
libraries are (yaml-cpp, libstdc++); it is not a manylinux wheel.
Build files go to build-pip/ (never build/).
Environment: KVPLAN_JOBS (parallel jobs, default 2); KVPLAN_PIP_RUNTIME=0 to leave out the reference
runtime (kvplan.measure); KVPLAN_WHEEL_PREBUILT=DIR to pack DIR's already built extension
(DIR/python/kvplan/_core*.so) and CLI (DIR/bin/kvplan) instead of building (the wheel test);
KVPLAN_PIP_BUILD_DIR to put the build files elsewhere.
"""
import os
import pathlib
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).resolve().parent
BUILD = pathlib.Path(os.environ.get("KVPLAN_PIP_BUILD_DIR") or ROOT / "build-pip")


class CMakeExtension(Extension):
    def __init__(self, name):
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        out = target.parent
        out.mkdir(parents=True, exist_ok=True)
        prebuilt = os.environ.get("KVPLAN_WHEEL_PREBUILT")
        if prebuilt:
            tree = pathlib.Path(prebuilt).resolve()
            core = tree / "python" / "kvplan" / target.name
            if not core.is_file():
                raise SystemExit(f"KVPLAN_WHEEL_PREBUILT: {core} missing (build the kvplan_python target for this Python)")
            shutil.copy2(core, target)
        else:
            tree = BUILD / "cmake"
            runtime = os.environ.get("KVPLAN_PIP_RUNTIME", "1") != "0"
            subprocess.check_call([
                "cmake", "-S", str(ROOT), "-B", str(tree), "-DCMAKE_BUILD_TYPE=Release",
                f"-DPython3_EXECUTABLE={sys.executable}", "-DKVPLAN_BUILD_PYTHON=ON",
                "-DKVPLAN_BUILD_CLI=ON", "-DKVPLAN_BUILD_TESTS=OFF", "-DKVPLAN_BUILD_EXAMPLES=OFF",
                "-DKVPLAN_BUILD_BENCH=OFF", f"-DKVPLAN_BUILD_RUNTIME={'ON' if runtime else 'OFF'}",
                f"-DKVPLAN_PY_PACKAGE_DIR={out}"])
            subprocess.check_call(["cmake", "--build", str(tree), "--target", "kvplan_python", "kvplan_cli",
                                   "-j", os.environ.get("KVPLAN_JOBS", "2")])
        cli = tree / "bin" / "kvplan"
        if not cli.is_file():
            raise SystemExit(f"kvplan wheel: the CLI {cli} is missing")
        (out / "bin").mkdir(exist_ok=True)
        shutil.copy2(cli, out / "bin" / "kvplan")
        os.chmod(out / "bin" / "kvplan", 0o755)
        configs = out / "model_configs"
        configs.mkdir(exist_ok=True)
        for f in sorted((ROOT / "model_configs").glob("*.json")):
            shutil.copy2(f, configs / f.name)


BUILD.mkdir(parents=True, exist_ok=True)
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
