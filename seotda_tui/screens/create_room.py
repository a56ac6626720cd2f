"""The new-room form: all 20 options with the spec's defaults, checked by the engine itself.

Why the engine checks: ``Options`` is the one authority on valid combinations, so the form shows
its Korean ``OptionsError`` message as is (live, while the player edits) instead of re-implementing
the rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Select, Static, Switch

from engine import Options, OptionsError
from engine.options import SPECS

from ..rooms import RoomError
from ..widgets.texts import CHOICE_LABELS
from .base import BaseScreen

#: Fields that are booleans in the spec (켬/끔): shown as switches.
BOOL_FIELDS = frozenset(s.field for s in SPECS if s.choices == (True, False))
#: Switches are colour-only: the word next to them says the state for monochrome terminals.
ON_OFF = {True: "켬", False: "끔"}


class CreateRoomScreen(BaseScreen):
    """Dismisses with the new room's id, or None when cancelled."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "취소")]

    def compose_body(self) -> Iterable[Widget]:
        defaults = self.manager.room_defaults  # the server's [room_defaults] setting
        yield Static(
            "새 방 만들기 · Tab 이동 · Enter 고르기 (방 이름 칸에서는 만들기) · Esc 취소",
            id="form-title",
        )
        with VerticalScroll(id="form"), Grid(id="form-grid"):
            yield Label("방 이름", classes="form-label")
            yield Input(value=f"{self.nickname}의 방", max_length=40, id="room-name", compact=True)
            for spec in SPECS:
                yield Label(spec.label, classes="form-label")
                value = getattr(defaults, spec.field)
                if spec.field in BOOL_FIELDS:
                    with Horizontal(classes="switch-cell"):
                        yield Switch(value=value, id=f"opt-{spec.field}")
                        yield Label(ON_OFF[value], id=f"onoff-{spec.field}")
                else:
                    labels = CHOICE_LABELS[spec.field]
                    yield Select(
                        [(labels[c], c) for c in spec.choices],
                        value=value,
                        allow_blank=False,
                        compact=True,
                        id=f"opt-{spec.field}",
                    )
        yield Static("", id="form-error")
        with Horizontal(id="form-buttons"):
            yield Button("만들기", variant="primary", id="form-create", compact=True)
            yield Button("취소", id="form-cancel", compact=True)

    def on_mount(self) -> None:
        self.query_one("#room-name", Input).focus()
        self._grey_out_ignored()

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for spec in SPECS:
            widget = self.query_one(f"#opt-{spec.field}")
            out[spec.field] = widget.value  # type: ignore[attr-defined]
        return out

    def set_value(self, field: str, value: Any) -> None:
        """Set one option's widget (used by tests and keyboard-less callers)."""
        self.query_one(f"#opt-{field}").value = value  # type: ignore[attr-defined]

    def _check(self) -> Options | None:
        self._grey_out_ignored()
        error = self.query_one("#form-error", Static)
        try:
            options = Options.from_dict(self.values())
        except OptionsError as exc:
            error.update(Text(str(exc)))
            return None
        error.update("")
        return options

    def _grey_out_ignored(self) -> None:
        """§2: some options only matter with others (e.g. 판 수 only when ending by hands)."""
        values = self.values()
        for field, used in (
            ("deal_mode", values["card_mode"] == "two"),
            ("hand_limit", values["end_condition"] == "hands"),
            ("rebuy_limit", values["rebuy"] == "limited"),
            ("mung_gusa", values["gusa"]),
        ):
            self.query_one(f"#opt-{field}").disabled = not used

    def on_select_changed(self, event: Select.Changed) -> None:
        self._check()

    def on_switch_changed(self, event: Switch.Changed) -> None:
        field = (event.switch.id or "").removeprefix("opt-")
        self.query_one(f"#onoff-{field}", Label).update(ON_OFF[event.value])
        self._check()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        self.action_create()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "form-create":
            self.action_create()
        elif event.button.id == "form-cancel":
            self.action_cancel()

    def action_create(self) -> None:
        options = self._check()
        if options is None:
            return
        name = self.query_one("#room-name", Input).value
        try:
            room = self.manager.create_room(self.nickname, name, options)
        except (RoomError, OptionsError) as exc:
            self.query_one("#form-error", Static).update(Text(str(exc)))
            return
        self.dismiss(room.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
