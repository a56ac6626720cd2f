"""Issue 36 item 6: one hand's deal record in a verifiable-deals room, as JSON a player copies
from the terminal into a file for ``seotda-server --verify-hand FILE`` (docs/rules.md §8.4).

The JSON is laid out so every line break a narrow terminal makes falls between its tokens,
never inside a hash: each 64-digit hash has a line of its own, so a copy of the screen's lines
is still valid JSON.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from engine.proof import DealRecord

from ...i18n import N_, _
from ..keys import KeyHint, bind
from .base import DismissOnce

NO_RECORD = N_(
    "이 판에는 확인할 딜 기록이 없어요 (딜 검증이 꺼진 방이거나, 판이 아직 끝나지 않았어요)"
)
HOW_TO = KeyHint(
    N_("이 JSON을 파일로 저장해 seotda-server --verify-hand FILE 로 확인해요 · {close} 닫기"),
    close="cancel",
)


def record_json(records: Sequence[DealRecord]) -> str:
    """The records as a JSON list, one hash per line (see the module docstring)."""
    items = []
    for r in records:
        items.append(
            "\n".join(
                [
                    "{",
                    f'"handNo": {r["handNo"]}, "rematchNo": {r["rematchNo"]},',
                    '"commitment":',
                    f'"{r["commitment"]}",',
                    '"seed":',
                    f'"{r["seed"]}",',
                    f'"salt": "{r["salt"]}",',
                    f'"deals": {json.dumps(r["deals"], ensure_ascii=False)},',
                    f'"shown": {json.dumps(r["shown"], ensure_ascii=False)}',
                    "}",
                ]
            )
        )
    return "[\n" + ",\n".join(items) + "\n]"


class DealRecordScreen(DismissOnce, ModalScreen[None]):
    BINDINGS: ClassVar[list[BindingType]] = [
        bind(("cancel", "leave", "confirm"), "close", "닫기", show=True),
    ]
    DEFAULT_CSS = """
    DealRecordScreen { align: center middle; }
    DealRecordScreen #deal-record-box { width: 100%; height: 100%; padding: 0 1; }
    """

    def __init__(self, records: Sequence[DealRecord]) -> None:
        super().__init__()
        self.records = list(records)

    @property
    def text(self) -> str:
        """What the screen shows: the JSON, or why there is none."""
        return record_json(self.records) if self.records else _(NO_RECORD)

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="deal-record-box"):
            yield Static(Text(HOW_TO.text(), style="dim"))
            yield Static(Text(self.text), id="deal-record-json")

    def action_close(self) -> None:
        self.dismiss(None)
