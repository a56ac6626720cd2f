"""One parse of each stylesheet source for the whole server, not one per session.

Why: every SSH session runs its own Textual app, and each app parses ``app.tcss`` and every
widget's ``DEFAULT_CSS`` again (Textual's parse cache belongs to one ``Stylesheet``), about a
sixth of a login's CPU while a table's six players log in at once. The parsed rule sets are
never changed after parsing (Textual shares them between its own re-parses), so sessions can
share them too. Keys hold everything the parse depends on, the CSS variables included; the
sources are the program's own, so the memo stays small. Each app gets one at its creation
(:func:`share_stylesheet`, before Textual reads any CSS).
"""

from __future__ import annotations

from textual.app import App
from textual.css.model import RuleSet
from textual.css.stylesheet import Stylesheet
from textual.css.types import CSSLocation

from .override import Override, first_reason, wrong_parameters

_PARSED: dict[tuple[object, ...], list[RuleSet]] = {}


#: ``Stylesheet._parse_rules``'s parameters, which the override takes exactly.
PARAMETERS = ["self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]


class SharedStylesheet(Stylesheet):
    """A ``Stylesheet`` whose parsed sources come from (and go to) the process-wide memo."""

    def _parse_rules(
        self,
        css: str,
        read_from: CSSLocation,
        is_default_rules: bool = False,
        tie_breaker: int = 0,
        scope: str = "",
    ) -> list[RuleSet]:
        variables = tuple(sorted(self._variables.items()))
        key = (css, read_from, is_default_rules, tie_breaker, scope, variables)
        rules = _PARSED.get(key)
        if rules is None:
            rules = super()._parse_rules(css, read_from, is_default_rules, tie_breaker, scope)
            _PARSED[key] = rules
        return rules


def share_stylesheet(app: App[object]) -> None:
    """Give ``app`` a :class:`SharedStylesheet` with its own CSS variables."""
    app.stylesheet = SharedStylesheet(variables=app.get_css_variables())


def _missing() -> str | None:
    return first_reason(
        lambda: wrong_parameters(Stylesheet, "_parse_rules", PARAMETERS),
        lambda: (
            None
            if isinstance(getattr(Stylesheet(), "_variables", None), dict)
            else "Stylesheet._variables is not a dict"
        ),
    )


OVERRIDE = Override("stylesheet", "textual", _missing, on_app=share_stylesheet)
