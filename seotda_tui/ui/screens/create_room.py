"""The new-room form: all the options with the spec's defaults, checked by the engine itself.
The same form, filled with a room's rules, is how its host changes them between games.

Why the engine checks: ``Options`` is the one authority on valid combinations, so the form shows
its Korean ``OptionsError`` message as is (live, while the player edits) instead of re-implementing
the rules.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual.binding import BindingType
from textual.containers import Grid, Horizontal, VerticalScroll
from textual.widget import Widget
from textual.widgets import Button, Input, Label, Static

from engine import Options, OptionsError
from engine.options import SPECS, OptionValue

from ...i18n import N_, _, tr
from ...rooms import ROOM_NAME_CELLS, RoomError, RoomSummary
from ...sanitize import truncate_cells
from ..keys import HintKeys, KeyHint, bind
from ..widgets.choice import Choice
from ..widgets.texts import CHOICE_LABELS, choice_label
from .base import BaseScreen

#: Fields that are booleans in the spec: a choice between 켬 and 끔.
BOOL_FIELDS = frozenset(s.field for s in SPECS if s.choices == (True, False))
ON_OFF = {True: N_("켬"), False: N_("끔")}
#: The engine's option names (engine/options.py SPECS), msgids for the form's labels.
_SPEC_LABELS = (
    N_("카드 방식"), N_("분배 방식"), N_("시작 칩"), N_("기본 단위(학교)"), N_("최대 레이즈"),
    N_("종료 방식"), N_("판 수"), N_("학교 상승 주기"), N_("리바이"), N_("리바이 횟수"),
    N_("중간 참가"), N_("행동 제한 시간"), N_("선 정하기"), N_("광땡 종류"), N_("땡잡이"), N_("암행어사"),
    N_("구사"), N_("멍텅구리구사"), N_("구사가 이길 때"), N_("구사 처리"), N_("구사 선택권"),
    N_("동점 처리"), N_("재참가 비용"), N_("땡값"), N_("딜 검증"), N_("힌트"),
)  # fmt: skip


def choice_labels(field: str) -> dict[OptionValue, str]:
    """Each value's label, in the current language."""
    if field in BOOL_FIELDS:
        return {value: _(label) for value, label in ON_OFF.items()}
    return {value: choice_label(field, value) for value in CHOICE_LABELS[field]}


#: The privacy choice: a public room, or a private one (code needed) listed or not in the lobby.
PRIVACY_CHOICES = (
    (N_("공개"), "public"),
    (N_("비공개 · 목록에 보임"), "listed"),
    (N_("비공개 · 목록에 없음"), "unlisted"),
)
#: The keys of the form's title: Tab moves (Textual's focus keys), ←/→ change a choice.
_FORM_KEYS: dict[str, HintKeys] = {
    "move": "next_field",
    "change": ("left", "right"),
    "confirm": "confirm",
    "cancel": "cancel",
}
TITLE = KeyHint(
    N_("새 방 만들기 · {move} 이동 · {change} 바꾸기 · {confirm} 만들기 · {cancel} 취소"),
    **_FORM_KEYS,
)
#: The form as the host's rules editor (host menu, between games).
EDIT_TITLE = KeyHint(
    N_("방 규칙 바꾸기 · {move} 이동 · {change} 바꾸기 · {confirm} 바꾸기 · {cancel} 취소"),
    **_FORM_KEYS,
)


def privacy_choices() -> list[tuple[str, str]]:
    return [(_(label), value) for label, value in PRIVACY_CHOICES]


def name_count(name: str) -> str:
    return _("{n}/{max}칸").format(n=cell_len(name), max=ROOM_NAME_CELLS)


class NameInput(Input):
    """The room name, held to the room list's :data:`~seotda_tui.rooms.ROOM_NAME_CELLS` cells
    (a Hangul syllable is two) as it is typed or pasted: the manager would cut a longer name
    silently, so nothing past the limit goes in (a paste keeps what fits)."""

    def replace(self, text: str, start: int, end: int) -> None:
        value = self.value
        start, end = sorted((max(0, start), min(len(value), end)))
        room = ROOM_NAME_CELLS - cell_len(value[:start] + value[end:])
        fitting = truncate_cells(text[: ROOM_NAME_CELLS * 8], room)  # (bounded: hostile pastes)
        if text and not fitting:
            self.restricted()
            return
        super().replace(fitting, start, end)


class CreateRoomScreen(BaseScreen):
    """Dismisses with the new room's id, or None when cancelled. With ``editing``: the form
    holds that room's rules, its name and privacy stay as they are (shown, not editable), and
    Enter gives the room the rules (dismissing with its id)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        bind("cancel", "cancel", "취소", show=True),
        bind("confirm", "create", "만들기"),  # on a choice (a button presses itself)
    ]
    #: Focus the name field straight away: Textual's default would focus the scrolling form
    #: first, and each focus change restyles the focused widget with everything inside it.
    AUTO_FOCUS = "#room-name"

    def __init__(self, editing: RoomSummary | None = None) -> None:
        super().__init__()
        self.editing = editing

    def _title(self) -> str:
        return (EDIT_TITLE if self.editing is not None else TITLE).text()

    def _button(self) -> str:
        return _("바꾸기") if self.editing is not None else _("만들기")

    def compose_body(self) -> Iterable[Widget]:
        # the server's [room_defaults] setting, or the rules of the room being edited
        editing = self.editing
        defaults = self.manager.room_defaults if editing is None else editing.options
        yield Static(self._title(), id="form-title")
        with VerticalScroll(id="form"), Grid(id="form-grid"):
            yield Label(_("방 이름"), classes="form-label", id="label-name")
            name = truncate_cells(_("{nick}의 방").format(nick=self.nickname), ROOM_NAME_CELLS)
            name = name if editing is None else editing.name
            yield NameInput(value=name, id="room-name", compact=True, disabled=editing is not None)
            yield Static(name_count(name), id="room-name-count", classes="form-label")
            yield Static("")
            for spec in SPECS:
                yield Label(_(spec.label), classes="form-label", id=f"label-{spec.field}")
                labels = choice_labels(spec.field)
                yield Choice(
                    [(labels[c], c) for c in spec.choices],
                    getattr(defaults, spec.field),
                    id=f"opt-{spec.field}",
                )
            if len(SPECS) % 2:  # the privacy choice starts a row (it spans the free columns)
                yield Static("")
                yield Static("")
            # last, so the options keep their places in the tab order
            yield Label(_("공개 여부"), classes="form-label", id="label-privacy")
            privacy = Choice(privacy_choices(), _privacy_of(editing), id="room-privacy")
            privacy.disabled = editing is not None  # (kept: the host menu changes the code)
            yield privacy
        yield Static("", id="form-error")
        with Horizontal(id="form-buttons"):
            yield Button(self._button(), variant="primary", id="form-create", compact=True)
            yield Button(_("취소"), id="form-cancel", compact=True)

    def on_mount(self) -> None:
        self._grey_out_ignored()

    def relabel(self) -> None:
        """Every label in the new language; the values picked so far stay."""
        self.query_one("#form-title", Static).update(self._title())
        self.query_one("#label-name", Label).update(_("방 이름"))
        self.query_one("#label-privacy", Label).update(_("공개 여부"))
        for spec in SPECS:
            self.query_one(f"#label-{spec.field}", Label).update(_(spec.label))
            labels = choice_labels(spec.field)
            self.query_one(f"#opt-{spec.field}", Choice).set_labels(
                [labels[c] for c in spec.choices]
            )
        self.query_one("#room-privacy", Choice).set_labels([lb for lb, _v in privacy_choices()])
        self.query_one("#form-create", Button).label = self._button()
        self.query_one("#form-cancel", Button).label = _("취소")
        name = self.query_one("#room-name", Input).value
        self.query_one("#room-name-count", Static).update(name_count(name))
        self._check()

    def values(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for spec in SPECS:
            out[spec.field] = self.query_one(f"#opt-{spec.field}", Choice).value
        return out

    def set_value(self, field: str, value: OptionValue) -> None:
        """Set one option's widget (used by tests and keyboard-less callers)."""
        self.query_one(f"#opt-{field}", Choice).value = value

    def _check(self) -> Options | None:
        self._grey_out_ignored()
        error = self.query_one("#form-error", Static)
        try:
            options = Options.from_dict(self.values())
        except OptionsError as exc:
            error.update(Text(tr(exc.template, exc.values)))
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
            ("gusa_when_winning", values["gusa"]),
            ("gusa_outcome", values["gusa"]),
            ("gusa_choice", values["gusa"]),
            ("rejoin_cost", values["gusa"] and values["gusa_outcome"] == "rematch"),
        ):
            self.query_one(f"#opt-{field}").disabled = not used

    def on_choice_changed(self, event: Choice.Changed) -> None:
        self._check()

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#room-name-count", Static).update(name_count(event.value))

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
        if self.editing is not None:
            self._change_rules(options)
            return
        name = self.query_one("#room-name", Input).value
        privacy = self.query_one("#room-privacy", Choice).value
        try:
            room = self.manager.create_room(
                self.nickname,
                name,
                options,
                private=privacy != "public",
                listed=privacy != "unlisted",
            )
        except RoomError as exc:
            self.query_one("#form-error", Static).update(Text(exc.shown()))
            return
        except OptionsError as exc:
            self.query_one("#form-error", Static).update(Text(tr(exc.template, exc.values)))
            return
        self.dismiss(room.id)

    def _change_rules(self, options: Options) -> None:
        assert self.editing is not None
        try:
            self.manager.change_options(self.editing.id, self.nickname, options)
        except RoomError as exc:
            self.query_one("#form-error", Static).update(Text(exc.shown()))
            return
        self.dismiss(self.editing.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


def _privacy_of(room: RoomSummary | None) -> str:
    """The privacy choice's value for ``room`` (a new room starts public)."""
    if room is None or not room.private:
        return "public"
    return "listed" if room.listed else "unlisted"


class EditRoomScreen(CreateRoomScreen):
    """The host's rules change: the same form, focused on the rules (the name stays as it is)."""

    AUTO_FOCUS = "#opt-card_mode"

    def __init__(self, room: RoomSummary) -> None:
        super().__init__(editing=room)
