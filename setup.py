"""Build the Cython extensions and the gRPC code.

Metadata lives in pyproject.toml; this file only does what needs code:
cythonize every ``.pyx`` under ``solver/`` and run ``grpc_tools.protoc`` on
``proto/`` before the Python files are collected.
"""
import glob
import os
import platform
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.command.develop import develop

HERE = os.path.dirname(os.path.abspath(__file__))
DEBUG = os.environ.get("DDCARDS_DEBUG") == "1"
# The search leans on popcount and pext; let the compiler use the build
# machine's instructions unless a portable binary is asked for.
PORTABLE = os.environ.get("DDCARDS_PORTABLE") == "1"
# Profile-guided optimisation (GCC): build, run a representative workload,
# build again with what it recorded (measured: ~8% faster searches).
# DDCARDS_PGO=0 builds once.
PGO = os.environ.get("DDCARDS_PGO", "1") != "0" and not DEBUG


def compile_args():
    if DEBUG:
        return ["-O0", "-g"]
    args = ["-O3"]
    if not PORTABLE and platform.machine().lower() in ("x86_64", "amd64"):
        args.append("-march=native")
    return args


def extensions():
    from Cython.Build import cythonize

    exts = []
    # DDCARDS_ONLY=search,_marias rebuilds just those modules (a developer's shortcut).
    only = [x for x in os.environ.get("DDCARDS_ONLY", "").split(",") if x]
    for pyx in sorted(glob.glob(os.path.join("solver", "**", "*.pyx"), recursive=True)):
        module = os.path.splitext(pyx)[0].replace(os.sep, ".")
        if only and not any(module.endswith(name) for name in only):
            continue
        exts.append(
            Extension(
                module,
                [pyx],
                include_dirs=[os.path.join("solver", "_core")],
                extra_compile_args=compile_args(),
            )
        )
    return cythonize(
        exts,
        compiler_directives={
            "language_level": 3,
            "boundscheck": DEBUG,
            "wraparound": DEBUG,
            "initializedcheck": DEBUG,
            "cdivision": True,
            "embedsignature": True,
        },
        quiet=True,
    )


def compile_protos():
    """Generate server/_proto/ddcards/v1/*_pb2*.py from proto/ddcards/v1/*.proto.

    The include mapping ``server/_proto=proto`` makes the generated modules
    import each other as ``server._proto.ddcards.v1.xxx_pb2``.
    """
    protos = sorted(glob.glob(os.path.join(HERE, "proto", "ddcards", "**", "*.proto"), recursive=True))
    if not protos:
        return
    from grpc_tools import protoc
    import grpc_tools

    well_known = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    virtual = [os.path.join("server", "_proto", os.path.relpath(p, os.path.join(HERE, "proto"))) for p in protos]
    args = [
        "grpc_tools.protoc",
        f"-I{os.path.join('server', '_proto')}={os.path.join(HERE, 'proto')}",
        f"-I{well_known}",
        f"--python_out={HERE}",
        f"--pyi_out={HERE}",
        f"--grpc_python_out={HERE}",
        *virtual,
    ]
    cwd = os.getcwd()
    os.chdir(HERE)
    try:
        if protoc.main(args) != 0:
            sys.exit("protoc failed on " + " ".join(virtual))
    finally:
        os.chdir(cwd)


class BuildExt(build_ext):
    """build_ext with a profile-guided second pass where the compiler is GCC."""

    def run(self):
        if not (PGO and self.extensions and self._gcc()):
            return super().run()
        self._compiler_name = self.compiler
        profile = tempfile.mkdtemp(prefix="ddcards-pgo-")
        try:
            self._build(["-fprofile-generate=" + profile, "-fprofile-update=single"], link=True)
            self._run_workload()
            self._build(["-fprofile-use=" + profile, "-fprofile-correction",
                         "-fprofile-partial-training", "-Wno-missing-profile"], link=False)
        except Exception as exc:  # noqa: BLE001 - any failure: an ordinary build
            print(f"ddcards: profile-guided build skipped ({exc}); building without it", file=sys.stderr)
            self._build([], link=False)
        finally:
            shutil.rmtree(profile, ignore_errors=True)

    def _gcc(self):
        cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
        try:
            out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return False
        return "Free Software Foundation" in out

    def _build(self, flags, link):
        for ext in self.extensions:
            ext.extra_compile_args = compile_args() + flags
            ext.extra_link_args = list(flags) if link else []
        self.force = True
        self.compiler = self._compiler_name    # run() turns it into a compiler object
        super().run()

    def _run_workload(self):
        # The freshly built package: in the source tree (in place, editable
        # installs) or in build_lib next to the pure-Python files.
        root = HERE if self.inplace else os.path.abspath(self.build_lib)
        if not os.path.exists(os.path.join(root, "solver", "__init__.py")):
            raise RuntimeError(f"no built package to profile in {root}")
        env = dict(os.environ, PYTHONPATH=root)
        subprocess.run([sys.executable, "-m", "solver._profile_workload"], cwd=root, env=env,
                       check=True, timeout=600)


class BuildPy(build_py):
    def run(self):
        compile_protos()
        super().run()


class Develop(develop):
    def run(self):
        compile_protos()
        super().run()


setup(ext_modules=extensions(), cmdclass={"build_ext": BuildExt, "build_py": BuildPy, "develop": Develop})
