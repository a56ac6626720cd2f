"""The host's menu (m at the waiting room and the table): remove someone, lock, hand over,
change a private room's code, change the rules between games.

It only picks: the answer is ``(what, whom)`` — ``remove``/``host`` with a nickname, or
``lock``/``unlock``/``readmit``/``code``/``rules`` with ``""`` — or None; the table asks to
confirm (the rules: opens the filled-in room form) and calls the manager (rules in
:mod:`seotda_tui.rooms.moderation`).
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from ...i18n import N_, _
from ...rooms import PLAYING, RoomSummary
from ..keys import KeyHint, bind
from .base import DismissOnce

Choice = tuple[str, str]

#: Enter is the menu's (an OptionList picks), Esc the screen's.
TITLE = KeyHint(N_("방장 메뉴 ({pick} 고르기 · {close} 닫기)"), pick="confirm", close="cancel")


def menu_items(room: RoomSummary, me: str) -> list[tuple[Choice, str]]:
    """What the host ``me`` may do in ``room`` now, with its label (current language)."""
    items: list[tuple[Choice, str]] = []
    humans = [p for p in room.players if p != me and p not in room.bots]
    for nick in humans:
        items.append((("remove", nick), _("{nick}님 내보내기").format(nick=nick)))
    for nick in room.spectators:
        items.append((("remove", nick), _("{nick}님 내보내기 (관전)").format(nick=nick)))
    for nick in humans:
        if nick not in room.offline:
            items.append((("host", nick), _("{nick}님에게 방장 넘기기").format(nick=nick)))
    if room.status != PLAYING:  # between games only
        items.append((("rules", ""), _("방 규칙 바꾸기 (다음 게임부터)")))
    if room.locked:
        items.append((("unlock", ""), _("방 잠금 풀기")))
    else:
        items.append((("lock", ""), _("방 잠그기 (새로 앉거나 관전할 수 없게)")))
    if room.private:
        items.append((("code", ""), _("방 코드 바꾸기 (지금 코드로는 못 들어오게)")))
    if room.barred:
        barred = ", ".join(room.barred)
        items.append((("readmit", ""), _("내보낸 사람 다시 받기 ({names})").format(names=barred)))
    return items


class ModerationScreen(DismissOnce, ModalScreen[Choice | None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        bind(("cancel", "leave", "moderate"), "close", "닫기", show=True)
    ]

    def __init__(self, room: RoomSummary, me: str) -> None:
        super().__init__()
        self.items = menu_items(room, me)

    def compose(self) -> ComposeResult:
        with Vertical(id="confirm-box"):
            yield Static(TITLE.text(), id="confirm-question")
            yield OptionList(
                *(Option(label) for _choice, label in self.items),
                id="moderation-menu",
                markup=False,
            )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.items[event.option_index][0])

    def action_close(self) -> None:
        self.dismiss(None)
