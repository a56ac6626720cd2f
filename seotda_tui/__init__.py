"""Seotda over SSH: the asyncssh server, Textual driver, room manager, screens and widgets."""

#: The package's version, its one home: pyproject.toml reads it (``[tool.setuptools.dynamic]``),
#: ``seotda-server --version`` prints it, and CHANGELOG.md says what each version brought.
__version__ = "0.9.0"
