"""Build the Cython extensions and the gRPC code of the ``ddcards`` package.

Metadata lives in pyproject.toml; this file only does what needs code.

Layout: the source folders keep the project's layout and are mapped onto one
namespace: ``solver/`` is the package ``ddcards``, ``server/`` is
``ddcards.server`` and ``proto/ddcards/v1/`` is ``ddcards.v1`` (the protobuf
and gRPC modules are generated there, under the ``.proto``'s own path, so the
descriptor is registered as ``ddcards/v1/ddcards.proto``).

Kernels: the search's extension modules are compiled twice on x86-64: for the
baseline (``-march=x86-64``: any x86-64 CPU) and for ``x86-64-v3`` (AVX2,
BMI1/2, LZCNT: Haswell and later), the latter in ``_x86_64_v3/`` beside each
package's modules; ``ddcards._kernels`` picks one at import time by the CPU's
features.  ``DDCARDS_NATIVE=1`` compiles once for the build machine
(``-march=native``) instead; ``DDCARDS_DEBUG=1`` once, unoptimised, with checks.

Profile-guided optimisation (GCC): compile, run a representative workload with
each kernel the build machine can run, compile again with what it recorded
(about 6% faster searches); ``DDCARDS_PGO=0`` compiles once.

The switches take 1 / 0 (also yes / no, true / false, on / off; unset or empty: the
default); any other value stops the build with an error.  A build whose switches differ
from the last build's in the same build folder compiles everything again, and a build of
one kernel removes the other kernels' modules left by an earlier build, so that what runs is
what was asked for.  ``DDCARDS_ONLY=search,_marias`` (a developer's shortcut) rebuilds just
the modules named; a name that is no module stops the build.  (``_marias`` compiles the search's
alphabeta.pxi too: a change to it needs both.)
"""
import glob
import os
import platform
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.command.develop import develop

HERE = os.path.dirname(os.path.abspath(__file__))
_ON, _OFF = ("1", "yes", "true", "on"), ("0", "no", "false", "off")


def _switch(name, default):
    """An on/off environment switch; any value but the usual spellings is an error, not a silent default."""
    value = os.environ.get(name, "").strip().lower()
    if not value:
        return default
    if value in _ON or value in _OFF:
        return value in _ON
    sys.exit(f"ddcards build: {name}={os.environ[name]!r}: use 1 or 0 (yes/no, true/false, on/off)")


# DDCARDS_ONLY=search,_marias rebuilds just those modules (a developer's shortcut).
ONLY = [x.strip() for x in os.environ.get("DDCARDS_ONLY", "").split(",") if x.strip()]
DEBUG = _switch("DDCARDS_DEBUG", False)
NATIVE = _switch("DDCARDS_NATIVE", False)
PGO = _switch("DDCARDS_PGO", True) and not DEBUG
X86_64 = platform.machine().lower() in ("x86_64", "amd64")

PACKAGE_DIR = {"ddcards": "solver", "ddcards.server": "server", "ddcards.v1": "proto/ddcards/v1"}
# The kernel variant compiled beside the baseline, and the subfolder it lands in
# (ddcards/_kernels.py names the same folder).
V3_LEVEL, V3_FOLDER = "x86-64-v3", "_x86_64_v3"
# Modules compiled once whatever the variants: the CPU probe must run anywhere.
BASELINE_ONLY = ("ddcards._cpuid",)
# The profile-guided build's workload: run against the built package, shipped in the sdist only.
WORKLOAD = os.path.join(HERE, "tools", "profile_workload.py")


# Where the README's relative links point on a package index's page (PyPI resolves none).
REPOSITORY = "https://github.com/ddcards/ddcards"


def long_description():
    """The README for a package index: its relative links made absolute, into the repository
    (``blob/main/...``) and, for images, to the files themselves (``raw/main/...``)."""
    with open(os.path.join(HERE, "README.md"), encoding="utf-8") as f:
        text = f.read()

    def absolute(match):
        bang, label, target = match.group(1), match.group(2), match.group(3)
        if re.match(r"[a-z][a-z0-9+.-]*:|#|/", target):     # a URL, an anchor, a site path
            return match.group(0)
        kind = "raw" if bang else "blob"
        return f"{bang}[{label}]({REPOSITORY}/{kind}/main/{target})"

    return re.sub(r"(!?)\[([^\]]*)\]\(([^)\s]+)\)", absolute, text)


def packages():
    found = ["ddcards"] + ["ddcards." + p for p in find_packages("solver")]
    found += ["ddcards.server"] + ["ddcards.server." + p for p in find_packages("server")]
    # The pages' templates are data folders: listed as packages of their own so that setuptools
    # ships them without warning that they look importable.
    return found + ["ddcards.v1", "ddcards.report.templates", "ddcards.board.templates"]


def base_flags():
    if DEBUG:
        return ["-O0", "-g"]
    # -g0 after Python's own -g: no DWARF in the shipped modules (a fifth of their size);
    # their symbols stay, so a profiler still names the functions.
    return ["-O3", "-g0"]


def variants():
    """(kernel name, folder, compiler flags) of each build of the search kernels."""
    if DEBUG or not X86_64:
        return [("baseline", "", [])]
    if NATIVE:
        return [("baseline", "", ["-march=native"])]
    return [("baseline", "", ["-march=x86-64", "-mtune=generic"]),
            (V3_LEVEL, V3_FOLDER, [f"-march={V3_LEVEL}", "-mtune=generic"])]


def cython_include_dir():
    """Cython finds a cimported module's .pxd by its dotted name (``ddcards._core.search``
    -> ``ddcards/_core/search.pxd``), but the sources live in ``solver/``: copy the
    declaration files under the package's name for the compiler to read."""
    root = os.path.join(HERE, "build", "cython-include")
    shutil.rmtree(os.path.join(root, "ddcards"), ignore_errors=True)
    for src in glob.glob(os.path.join(HERE, "solver", "**", "*.pxd"), recursive=True):
        dst = os.path.join(root, "ddcards", os.path.relpath(src, os.path.join(HERE, "solver")))
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(src, dst)
    for folder, _, _ in os.walk(os.path.join(root, "ddcards")):
        open(os.path.join(folder, "__init__.pxd"), "a").close()
    return root


def _names(module, name):
    """Does a DDCARDS_ONLY name name this module (whole, or its last dotted parts: search, _core.search)?"""
    return module == name or module.endswith("." + name)


def extensions():
    from Cython.Build import cythonize

    exts = []
    sources = sorted(glob.glob(os.path.join("solver", "**", "*.pyx"), recursive=True))
    modules = ["ddcards." + os.path.splitext(os.path.relpath(pyx, "solver"))[0].replace(os.sep, ".") for pyx in sources]
    unknown = [name for name in ONLY if not any(_names(m, name) for m in modules)]
    if unknown:
        sys.exit(f"ddcards build: DDCARDS_ONLY names no module {', '.join(map(repr, unknown))}; the modules: "
                 + ", ".join(m.rpartition(".")[2] for m in modules))
    for pyx, module in zip(sources, modules):
        if ONLY and not any(_names(module, name) for name in ONLY):
            continue
        exts.append(Extension(module, [pyx], include_dirs=[os.path.join("solver", "_core")]))
    cythonized = cythonize(
        exts,
        include_path=[cython_include_dir()],
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
    # One Extension per module and variant; a variant's copy is named into its
    # folder (ddcards._core._x86_64_v3.search), which only sets where the file
    # goes: the module inside is still ddcards._core.search.
    out = []
    for ext in cythonized:
        for _, folder, flags in variants():
            if folder and ext.name in BASELINE_ONLY:
                continue
            # (depends: an edited C header rebuilds the modules, which Cython does not track)
            copy = Extension(_variant_name(ext.name, folder), list(ext.sources),
                             include_dirs=list(ext.include_dirs), extra_compile_args=base_flags() + flags,
                             depends=sorted(glob.glob(os.path.join("solver", "_core", "*.h"))))
            copy.ddcards_flags = base_flags() + flags
            copy.ddcards_folder = folder
            out.append(copy)
    return out


def _switches():
    """What the compiled modules depend on besides their sources: the build switches."""
    return f"debug={DEBUG} native={NATIVE} pgo={PGO} variants={variants()}"


def _remove_other_kernels(root):
    """Kernel modules under `root` (a package tree: solver/ or the build folder's ddcards/) that
    this build does not make, left by an earlier one: ddcards._kernels would load them first."""
    if any(folder == V3_FOLDER for _, folder, _ in variants()) or not os.path.isdir(root):
        return
    for module in glob.glob(os.path.join(root, "**", V3_FOLDER, "*" + sysconfig.get_config_var("EXT_SUFFIX")),
                            recursive=True):
        os.remove(module)
        print(f"ddcards build: removed {os.path.relpath(module, HERE)} (a kernel this build does not make)")
    for folder in glob.glob(os.path.join(root, "**", V3_FOLDER), recursive=True):
        if not os.listdir(folder):
            os.rmdir(folder)


def _variant_name(name, folder):
    if not folder:
        return name
    package, _, module = name.rpartition(".")
    return f"{package}.{folder}.{module}"


def compile_protos():
    """Generate proto/ddcards/v1/*_pb2*.py (the package ddcards.v1) and a descriptor
    set with the comments (``ddcards.binpb``, which server reflection serves)."""
    protos = sorted(glob.glob(os.path.join(HERE, "proto", "ddcards", "**", "*.proto"), recursive=True))
    if not protos:
        return
    from grpc_tools import protoc
    import grpc_tools

    well_known = os.path.join(os.path.dirname(grpc_tools.__file__), "_proto")
    relative = [os.path.relpath(p, os.path.join(HERE, "proto")) for p in protos]
    out = os.path.join(HERE, "proto")
    args = [
        "grpc_tools.protoc",
        f"-I{os.path.join(HERE, 'proto')}",
        f"-I{well_known}",
        f"--python_out={out}",
        f"--pyi_out={out}",
        f"--grpc_python_out={out}",
        f"--descriptor_set_out={os.path.join(out, 'ddcards', 'v1', 'ddcards.binpb')}",
        "--include_source_info",
        *relative,
    ]
    if protoc.main(args) != 0:
        sys.exit("protoc failed on " + " ".join(relative))
    # protoc types the messages (--pyi_out) but not the gRPC module: tools/grpc_pyi.py does.
    stubs = _load_tool("grpc_pyi")
    for name in relative:
        stubs.write_stub(os.path.join(out, "ddcards", "v1", "ddcards.binpb"), name.replace(os.sep, "/"),
                         os.path.join(out, name[:-len(".proto")] + "_pb2_grpc.pyi"))


def _load_tool(name):
    """A module of tools/ (build helpers shipped in the sdist, not in the wheel)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"_ddcards_build_{name}", os.path.join(HERE, "tools", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildExt(build_ext):
    """build_ext that puts each kernel variant in its folder, with its own objects
    (and profiles), and a profile-guided second pass where the compiler is GCC."""

    def run(self):
        # Modules built with other switches are not out of date by their times: build anew.  A
        # partial build (DDCARDS_ONLY) with other switches leaves modules of two builds ("mixed"):
        # further partial builds with its switches need no force, the next full one does.
        stamp = os.path.join(self.build_temp, "ddcards-build-switches")
        last, now = self._last_switches(stamp), _switches()
        if ONLY:
            self.force = self.force or last not in (now, "mixed " + now)
            now = now if last == now else "mixed " + now
        elif last != now:
            self.force = True
        self._run_passes()
        _remove_other_kernels(os.path.join(os.path.abspath(self.build_lib), "ddcards"))
        os.makedirs(self.build_temp, exist_ok=True)
        with open(stamp, "w", encoding="utf-8") as f:
            f.write(now)

    @staticmethod
    def _last_switches(stamp):
        try:
            with open(stamp, encoding="utf-8") as f:
                return f.read()
        except OSError:
            return None

    def _run_passes(self):
        if not (PGO and self.extensions and self._gcc()):
            return super().run()
        self._compiler_name = self.compiler
        inplace = self.inplace      # setuptools clears it while it builds
        profile = tempfile.mkdtemp(prefix="ddcards-pgo-")
        instrumented = finished = False
        try:
            self._build(["-fprofile-generate=" + profile, "-fprofile-update=single"], link=True)
            instrumented = True
            self._run_workload()
            self._build(["-fprofile-use=" + profile, "-fprofile-correction",
                         "-fprofile-partial-training", "-Wno-missing-profile"], link=False)
            finished = True
        except Exception as exc:  # noqa: BLE001 - any failure: an ordinary build
            print(f"ddcards: profile-guided build skipped ({exc}); building without it", file=sys.stderr)
            self._build([], link=False)
            finished = True
        finally:
            shutil.rmtree(profile, ignore_errors=True)
            if instrumented and not finished:
                self._remove_instrumented(inplace)

    def _remove_instrumented(self, inplace):
        # A build stopped after the profiling pass (Ctrl-C, a closed pipe) would leave its
        # instrumented modules behind: 1.7x slower, and writing profiles to /tmp from every
        # process that loads them. Missing modules say plainly that the build did not finish.
        build_py = self.get_finalized_command("build_py")
        removed = 0
        for ext in self.extensions:
            inplace_file, regular_file = self._get_inplace_equivalent(build_py, ext)
            for path in (inplace_file, regular_file) if inplace else (regular_file,):
                if os.path.exists(path):
                    os.remove(path)
                    removed += 1
        try:
            print(f"ddcards build: stopped after the profiling pass; removed its {removed} instrumented "
                  "module files (build again to have the package)", file=sys.stderr)
        except OSError:     # the closed pipe that may have stopped the build
            pass

    def build_extension(self, ext):
        folder = getattr(ext, "ddcards_folder", "")
        if not folder:
            return super().build_extension(ext)
        # Objects of another variant must not meet this one's (nor their profiles).
        temp = self.build_temp
        self.build_temp = os.path.join(temp, folder)
        try:
            return super().build_extension(ext)
        finally:
            self.build_temp = temp

    def copy_extensions_to_source(self):
        # Editable installs copy each module into the source tree: a variant's
        # folder there may not exist yet.
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            package = ext.name.rpartition(".")[0]
            os.makedirs(os.path.join(HERE, build_py.get_package_dir(package)), exist_ok=True)
        super().copy_extensions_to_source()
        _remove_other_kernels(os.path.join(HERE, "solver"))

    def get_export_symbols(self, ext):
        # The module inside a variant's file is the plain one (PyInit_search).
        return ["PyInit_" + ext.name.rpartition(".")[2]]

    def _gcc(self):
        cc = (os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
        try:
            out = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            return False
        return "Free Software Foundation" in out

    def _build(self, flags, link):
        for ext in self.extensions:
            ext.extra_compile_args = ext.ddcards_flags + flags
            ext.extra_link_args = list(flags) if link else []
        self.force = True
        self.compiler = self._compiler_name    # run() turns it into a compiler object
        super().run()

    def _run_workload(self):
        # The freshly built package: in the source tree (in place, editable
        # installs: the folder solver/) or in build_lib (ddcards/).
        if self.inplace:
            root = os.path.join(HERE, "solver")
        else:
            root = os.path.join(os.path.abspath(self.build_lib), "ddcards")
        if not os.path.exists(os.path.join(root, "__init__.py")):
            raise RuntimeError(f"no built package to profile in {root}")
        # The folder as the package ddcards, whatever it is called here (its
        # __init__ not run yet: the probe must not load a kernel).
        package = ("import importlib.util, runpy, sys; "
                   f"spec = importlib.util.spec_from_file_location('ddcards', {os.path.join(root, '__init__.py')!r}, "
                   f"submodule_search_locations=[{root!r}]); "
                   "module = importlib.util.module_from_spec(spec); sys.modules['ddcards'] = module; ")
        probe = package + "import ddcards._kernels as k; sys.exit(0 if k.runnable(k.requested()) else 3)"
        workload = package + f"spec.loader.exec_module(module); runpy.run_path({WORKLOAD!r}, run_name='__main__')"
        for kernel, _, _ in variants():
            env = dict(os.environ, DDCARDS_KERNEL=kernel)
            if subprocess.run([sys.executable, "-c", probe], cwd=HERE, env=env, timeout=120).returncode == 3:
                print(f"ddcards: this CPU cannot run the {kernel} kernel; it is built without a profile",
                      file=sys.stderr)
                continue
            subprocess.run([sys.executable, "-c", workload], cwd=HERE, env=env, check=True, timeout=600)


class BuildPy(build_py):
    def run(self):
        compile_protos()
        super().run()


class Develop(develop):
    def run(self):
        compile_protos()
        super().run()


setup(
    long_description=long_description(),
    long_description_content_type="text/markdown",
    packages=packages(),
    package_dir=PACKAGE_DIR,
    ext_modules=extensions(),
    cmdclass={"build_ext": BuildExt, "build_py": BuildPy, "develop": Develop},
)
