"""One line per seat, repainted only when that seat's data changes (SSH bandwidth matters)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len, set_cell_size
from rich.text import Text
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widget import Widget

from .texts import chips

#: Badge → style; the text itself always carries the meaning (colour is only a helper).
BADGE_STYLES = {
    "다이": "dim",
    "올인": "bold yellow",
    "자리 비움": "magenta",
    "연결 끊김": "bold red",
    "나감": "dim red",
    "탈락": "dim red",
    "파산": "red",
    "방장": "cyan",
    "선택 완료": "green",
    "승": "bold green",
}


@dataclass(frozen=True)
class SeatInfo:
    """Everything one seat line shows; equal infos mean no repaint."""

    name: str
    stack: int | None = None
    bet: int = 0
    action: str = ""
    cards: str = ""
    badges: tuple[str, ...] = ()
    dealer: bool = False
    actor: bool = False
    me: bool = False
    hand_name: str = ""


def _pad(text: str, cells: int) -> str:
    return set_cell_size(text, cells) if cells > 0 else ""


class SeatRow(Widget):
    """A single seat: ▶ marker, name, 선, stack, this round's bet, last action, cards, badges."""

    DEFAULT_CSS = """
    SeatRow { height: 1; width: 1fr; }
    """

    info: reactive[SeatInfo] = reactive(SeatInfo(""))
    name_cells: reactive[int] = reactive(8)

    def __init__(self, info: SeatInfo, name_cells: int = 8) -> None:
        super().__init__()
        self.set_reactive(SeatRow.info, info)
        self.set_reactive(SeatRow.name_cells, name_cells)

    def render(self) -> Text:
        i = self.info
        line = Text(no_wrap=True, overflow="crop")
        line.append("▶ " if i.actor else "  ", "bold yellow")
        line.append(_pad(i.name, self.name_cells), "bold" if i.me else "")
        line.append(" 선 " if i.dealer else "    ", "bold cyan")
        if i.stack is not None:
            stack = f"{chips(i.stack)}칩"
            line.append(" " * max(0, 9 - cell_len(stack)) + stack)
        if i.bet:
            line.append(f"  베팅 {chips(i.bet)}", "yellow")
        if i.action:
            line.append(f"  {i.action}")
        if i.cards:
            line.append(f"  {i.cards}", "bold" if i.me else "")
        if i.hand_name:
            line.append(f" {i.hand_name}", "bold green")
        for badge in i.badges:
            line.append(" ")
            line.append(f"[{badge}]", BADGE_STYLES.get(badge, ""))
        return line


class SeatList(Vertical):
    """The seat lines; rows are reused so an update only repaints seats that changed."""

    DEFAULT_CSS = """
    SeatList { height: auto; }
    """

    def set_seats(self, infos: list[SeatInfo]) -> None:
        rows = list(self.query_children(SeatRow))
        width = max([cell_len(i.name) for i in infos] + [4])
        for row, info in zip(rows, infos):
            row.info = info
            row.name_cells = width
        if len(rows) > len(infos):
            for row in rows[len(infos):]:
                row.remove()
        elif len(infos) > len(rows):
            self.mount_all(SeatRow(info, width) for info in infos[len(rows):])

    @property
    def infos(self) -> list[SeatInfo]:
        return [row.info for row in self.query_children(SeatRow)]
