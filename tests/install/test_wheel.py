#!/usr/bin/python3
"""The wheel: `pip wheel --no-build-isolation --no-deps .` (offline, Debian's setuptools and wheel),
packing the build tree's extension and CLI (KVPLAN_WHEEL_PREBUILT, setup.py) so nothing is compiled
again; its tag (this Python and platform, never `any`) and contents (kvplan._core, kvplan/bin/kvplan,
the bundled configs, the `kvplan` console entry point); then installed into a fresh venv
outside the tree, where `kvplan ...`, `import kvplan` and the notebook example give the same output
as the build tree's for the README's examples.
Run: test_wheel.py <source dir> <build dir>"""
import glob
import os
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

SRC, BUILD = (os.path.abspath(p) for p in sys.argv[1:3])
failed = 0


def check(name, ok, detail=""):
    global failed
    if not ok:
        failed += 1
        print(f"FAIL {name}: {str(detail)[-1500:]}")


def run(argv, **kw):
    return subprocess.run(argv, capture_output=True, text=True, **kw)


tmp = tempfile.mkdtemp(prefix="kvplan-wheel-")
env = dict(os.environ, KVPLAN_WHEEL_PREBUILT=BUILD, KVPLAN_PIP_BUILD_DIR=os.path.join(tmp, "pip-build"),
           PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
env.pop("PYTHONPATH", None)
r = run(["/usr/bin/python3", "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "-q", "-w", os.path.join(tmp, "dist"), SRC],
        env=env, cwd=tmp)
check("pip wheel", r.returncode == 0, r.stdout + r.stderr)
wheels = glob.glob(os.path.join(tmp, "dist", "kvplan-*.whl"))
check("one wheel", len(wheels) == 1, wheels)
if failed:
    sys.exit(1)
whl = wheels[0]
name = os.path.basename(whl)
plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
pyver = f"cp{sys.version_info.major}{sys.version_info.minor}"
check("tag: this Python and platform", name.endswith(f"-{pyver}-{pyver}-{plat}.whl") and "any" not in name, name)
files = zipfile.ZipFile(whl).namelist()
configs = sorted(os.path.basename(p) for p in glob.glob(os.path.join(SRC, "model_configs", "*.json")))
check("wheel: kvplan._core", any(f.startswith("kvplan/_core.") and f.endswith(".so") for f in files), files)
check("wheel: the CLI", "kvplan/bin/kvplan" in files, files)
check("wheel: every bundled config", all(f"kvplan/model_configs/{c}" in files for c in configs), len(configs))
ep = [f for f in files if f.endswith("entry_points.txt")]
check("wheel: console entry point", ep and "kvplan = kvplan._cli:main" in zipfile.ZipFile(whl).read(ep[0]).decode(), ep)
mode = (zipfile.ZipFile(whl).getinfo("kvplan/bin/kvplan").external_attr >> 16) & 0o777
check("wheel: the CLI is executable", mode & 0o111, oct(mode))

# What auditwheel would look at (Debian 12 has no auditwheel): the shared libraries the packed ELF
# files need. Only the toolchain's runtime, OpenMP and yaml-cpp: a new dependency is caught here,
# and the tag stays linux_x86_64 (not manylinux) because libyaml-cpp is not in the manylinux set.
ALLOWED = {"libc.so.6", "libm.so.6", "libgcc_s.so.1", "libstdc++.so.6", "libgomp.so.1", "libyaml-cpp.so.0.7", "libpthread.so.0"}
unpacked = os.path.join(tmp, "unpacked")
zipfile.ZipFile(whl).extractall(unpacked)
for elf in ["kvplan/bin/kvplan"] + [f for f in files if f.endswith(".so")]:
    r = run(["readelf", "-d", os.path.join(unpacked, elf)])
    needed = set(__import__("re").findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", r.stdout))
    check(f"{elf}: needs only {sorted(ALLOWED)}", r.returncode == 0 and needed and needed <= ALLOWED, sorted(needed - ALLOWED))

# A fresh venv outside the tree. Debian's pandas and matplotlib (the notebook's) come from the
# system site-packages; kvplan itself must come from the wheel.
venv = os.path.join(tmp, "venv")
r = run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", venv])
check("venv", r.returncode == 0, r.stderr)
py, cli = os.path.join(venv, "bin", "python"), os.path.join(venv, "bin", "kvplan")
r = run([py, "-m", "pip", "install", "-q", "--no-index", "--no-deps", whl], env=env, cwd=tmp)
check("pip install the wheel", r.returncode == 0, r.stdout + r.stderr)
r = run([py, "-c", "import kvplan; print(kvplan.__file__)"], env=env, cwd=tmp)
check("import kvplan from the venv", r.returncode == 0 and r.stdout.startswith(venv), r.stdout + r.stderr)

tree_env = dict(env, PYTHONPATH=os.path.join(BUILD, "python"))
for args in (["size", "Qwen/Qwen3-0.6B", "--tokens", "40960", "--json"], ["models", "--json"],
             ["inspect", "google/gemma-3-1b-it", "--json"],
             ["size", "meta-llama/Llama-3.1-70B", "--tokens", "128k", "--kv-dtype", "fp16", "--json"],
             ["size", "Qwen/Qwen3-Next-80B-A3B-Thinking", "--tokens", "32k", "--batch", "8", "--json"],
             ["size", "no/such-model"]):
    a, b = run([cli, *args], env=env, cwd=tmp), run([os.path.join(BUILD, "bin", "kvplan"), *args], env=env, cwd=tmp)
    check(f"kvplan {' '.join(args)}: same as the build tree", (a.returncode, a.stdout, a.stderr) == (b.returncode, b.stdout, b.stderr),
          (a.returncode, a.stdout[:300], a.stderr, b.returncode))
for code in ("import kvplan; m = kvplan.load('Qwen/Qwen3-0.6B'); print(m.kv_bytes(tokens=40960, kv_dtype='bf16'))",
             "import kvplan; print(kvplan.vllm('Qwen/Qwen3-0.6B', max_model_len='32k', kv_cache_memory_bytes='20GiB').num_blocks)"):
    a, b = run([py, "-c", code], env=env, cwd=tmp), run(["/usr/bin/python3", "-c", code], env=tree_env, cwd=tmp)
    check(f"python -c {code!r}: same", a.returncode == 0 and a.stdout == b.stdout, (a.stdout, a.stderr, b.stdout, b.stderr))
nb = [os.path.join(os.path.dirname(os.path.abspath(__file__)), "run_notebook.py"),
      os.path.join(SRC, "examples", "notebooks", "kvplan_tour.ipynb")]
a, b = run([py, *nb], env=env, cwd=tmp), run(["/usr/bin/python3", *nb], env=tree_env, cwd=tmp)
check("the notebook example: same output", a.returncode == 0 and a.stdout == b.stdout and "--- cell" in a.stdout,
      (a.returncode, a.stderr[-800:], b.returncode, b.stderr[-800:]))
if not failed:
    subprocess.run(["rm", "-rf", tmp])
print(f"{'ok' if not failed else str(failed) + ' failed'}: {name}, {len(files)} files")
sys.exit(1 if failed else 0)
