"""Build steps of the ``gammon`` wheel that pyproject.toml cannot declare.

The rules engine has one copy, the firmware's portable core ``firmware/bg``. The wheel
carries it, taken from there when the wheel is built:

* ``build_py`` copies ``firmware/bg`` and the CPython ``micropython`` shim into
  ``gammon/_fw/`` (``gammon._paths`` puts that folder on ``sys.path``; it is no package of its
  own, so ``bg`` and ``micropython`` keep their names without taking top-level names in
  site-packages);
* ``build_ext`` compiles the move generator's modules (``bg/engine``) with Cython from the
  same sources, next to them in ``gammon/_fw/bg/engine``: CPython then imports the extension
  modules and the ``.py`` files stay as the fallback wherever no compiler was found.

An editable install (``pip install -e``) copies nothing: ``gammon._paths`` then finds the
repository's ``firmware/`` itself.
"""

import re
import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
FIRMWARE_BG = HERE.parent / "firmware" / "bg"
SHIM = HERE / "shim" / "micropython.py"
PXD = HERE / "cython"  # Cython declarations (augmenting .pxd files), same layout as bg/
FW = ("gammon", "_fw")  # where the engine goes inside the wheel
# the move generator's layers: what listing every play runs through
COMPILED = (
    "bg.engine._core",
    "bg.engine._visit",
    "bg.engine._search",
    "bg.engine._hints",
    "bg.engine.__init__",
)

_DECORATOR = re.compile(r"^(\s*)@micropython\.(viper|native)\s*$")
_INT_CALL = re.compile(r"\bint\(")


def for_cython(src):
    """The module's source as Cython compiles it. On CPython ``@micropython.viper`` and
    ``@micropython.native`` are the identity (the shim), so they are dropped; inside a viper
    function ``int(x)`` is viper's cast to a machine integer, so it becomes Cython's cast to
    ``Py_ssize_t`` (a Python ``int()`` call per byte read would cost more than the rest of the
    loop). Nothing else changes: the rules are the firmware's text."""
    out = []
    viper_at = None  # indentation of the viper function being copied
    pending = False
    casts = False
    for line in src.split("\n"):
        m = _DECORATOR.match(line)
        if m:
            pending = m.group(2) == "viper"
            continue
        body = line.lstrip()
        indent = len(line) - len(body)
        if pending and body.startswith("def "):
            viper_at, pending = indent, False
            out.append(line)
            continue
        if viper_at is not None and body and indent <= viper_at:
            viper_at = None
        if viper_at is not None:
            new = _INT_CALL.sub("cython.cast(cython.Py_ssize_t, ", line)
            casts |= new != line
            line = new
        out.append(line)
    text = "\n".join(out)
    return "import cython\n" + text if casts else text


def _module_file(root, name):
    return Path(root, *name.split(".")).with_suffix(".py")


class BuildPy(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False):
            return
        if not FIRMWARE_BG.is_dir():
            raise SystemExit("gammon's wheel is built from the repository: %s is missing" % FIRMWARE_BG)
        dst = Path(self.build_lib, *FW)
        shutil.rmtree(dst, ignore_errors=True)
        shutil.copytree(
            FIRMWARE_BG, dst / "bg", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.mpy")
        )
        shutil.copy2(SHIM, dst / "micropython.py")


class BuildExt(build_ext):
    def run(self):
        if getattr(self, "editable_mode", False):
            return
        from Cython.Build import cythonize

        stage = Path(self.build_temp, "cython")
        shutil.rmtree(stage, ignore_errors=True)
        shutil.copytree(
            FIRMWARE_BG, stage / "bg", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.mpy")
        )
        for name in COMPILED:
            f = _module_file(stage, name)
            f.write_text(for_cython(f.read_text()))
        for pxd in PXD.rglob("*.pxd"):
            shutil.copy2(pxd, stage / pxd.relative_to(PXD))
        for ext in self.extensions:  # setuptools' own Extension objects, sources filled in
            (done,) = cythonize(
                [Extension(ext.name, [str(_module_file(stage, ext.name))])],
                compiler_directives={"language_level": 3, "annotation_typing": False},
                quiet=True,
            )
            ext.sources = done.sources
        super().run()

    def get_ext_fullpath(self, ext_name):
        # bg.engine._core -> gammon/_fw/bg/engine/_core.<abi>.so, beside the copied sources
        path = Path(super().get_ext_fullpath(ext_name))
        rel = path.relative_to(Path(self.build_lib).resolve() if path.is_absolute() else Path(self.build_lib))
        return str(Path(self.build_lib, *FW, rel))


setup(
    # placeholders that mark the wheel as platform-specific; BuildExt makes the real ones
    ext_modules=[Extension(name, [], optional=True) for name in COMPILED],
    cmdclass={"build_py": BuildPy, "build_ext": BuildExt},
)
