"""One build step on top of pyproject.toml: compile the message catalogues into every build.

The ``.po`` files are the source (in git, and in the sdist through package-data); the ``.mo``
files gettext reads (seotda_tui/i18n.py) are build outputs, git-ignored. So that a wheel built
from a clean clone or from the sdist (``pip install .``, ``pipx install``, ``uv tool install``)
starts in English too, ``build_py`` compiles each ``.po`` with Babel (a build requirement in
pyproject.toml) into the built package. An editable install runs from the source tree, so
there the ``.mo`` is written beside its ``.po``, as ``make i18n`` does (setuptools' editable_mode
contract for build steps). Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

PACKAGE = "seotda_tui"
CATALOGUES = "locale/*/LC_MESSAGES/*.po"  # relative to the package, as in package-data


class build_py_with_catalogues(build_py):  # noqa: N801 (a setuptools command class)
    """``build_py``, then every ``.po`` of the package compiled to the ``.mo`` beside it."""

    def run(self) -> None:
        super().run()
        for po, mo in self._catalogues():
            self._compile(po, mo)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        return [*super().get_outputs(include_bytecode), *(str(mo) for _, mo in self._catalogues())]

    def _catalogues(self) -> list[tuple[Path, Path]]:
        source = Path(self.get_package_dir(PACKAGE))
        # editable: the package runs from the source tree, so the .mo goes there
        target = source if getattr(self, "editable_mode", False) else Path(self.build_lib, PACKAGE)
        return [
            (po, target / po.relative_to(source).with_suffix(".mo"))
            for po in sorted(source.glob(CATALOGUES))
        ]

    def _compile(self, po: Path, mo: Path) -> None:
        # what `pybabel compile` does (Makefile `i18n`): fuzzy entries left out, problems logged
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        with po.open("rb") as file:
            catalog = read_po(file, locale=po.parts[-3])
        for message, errors in catalog.check():
            for error in errors:
                self.warn(f"{po}: {message.id!r}: {error}")
        mo.parent.mkdir(parents=True, exist_ok=True)
        with mo.open("wb") as file:
            write_mo(file, catalog)
        self.announce(f"compiling {po} to {mo}", level=2)


setup(cmdclass={"build_py": build_py_with_catalogues})
