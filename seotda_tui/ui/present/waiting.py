"""The table's words before a game and after it: the waiting room's seats and what it waits
for, and the final ranking. Pure functions, as :mod:`.text` (the words during a game).
"""

from __future__ import annotations

from engine import Options
from engine.types import GameResult

from ...i18n import N_, _
from ...rooms import FINISHED, RoomSummary
from ..geometry import SeatInfo
from ..keys import KeyHint
from ..widgets.texts import END_REASONS, chips, first_fit, game_summary
from .text import Part

#: What the waiting room waits for, naming keys: each from the key map (the table binds them,
#: tests/test_keys.py).
START_AGAIN = KeyHint(N_("{start} 키로 다시 시작할 수 있어요"), start="start")
SIT_TO_HOST = KeyHint(N_("{sit}로 앉으면 방장이 돼요"), sit="sit")
START = KeyHint(N_("{start} 키로 시작해요"), start="start")
START_WITH_TWO = KeyHint(N_("2명 이상 앉으면 {start} 키로 시작할 수 있어요"), start="start")
NO_HOST = KeyHint(N_("방장이 없어요. {sit}로 앉으면 방장이 돼요"), sit="sit")
NO_HOST_SHORT = KeyHint(N_("방장 없음 · {sit}로 앉으면 방장"), sit="sit")


def waiting_seats(room: RoomSummary, me: str) -> list[SeatInfo]:
    infos = []
    for nick in room.players:
        badges = []
        if nick == room.host:
            badges.append(_("방장"))
        if nick in room.offline:
            badges.append(_("연결 끊김"))
        infos.append(SeatInfo(nick, badges=tuple(badges), me=nick == me))
    return infos


def waiting_status(room: RoomSummary, me: str, cells: int = 0) -> str:
    """What the waiting room waits for; shortened on purpose to ``cells`` when given."""
    forms = _waiting_forms(room, me)
    return first_fit(cells, *forms) if cells else forms[0]


def _waiting_forms(room: RoomSummary, me: str) -> tuple[str, ...]:
    is_host = room.host == me
    enough = len(room.players) >= 2
    host = room.host
    if room.status == FINISHED:
        if not enough:
            again = _("2명 이상 앉으면 다시 시작할 수 있어요")
        elif is_host:
            again = START_AGAIN.text()
        elif host is None:  # no person seated: the first to sit down hosts (manager.join)
            again = SIT_TO_HOST.text()
        else:
            again = _("방장 {host}님이 다시 시작할 수 있어요").format(host=host)
        return (
            _("게임이 끝났어요. {again}").format(again=again),
            _("게임 끝 · {again}").format(again=again),
            _("게임이 끝났어요"),
        )
    if is_host:
        return ((START if enough else START_WITH_TWO).text(),)
    if host is None:
        return (NO_HOST.text(), NO_HOST_SHORT.text())
    return (
        _("방장 {host}님이 시작하기를 기다려요").format(host=host),
        _("{host}님이 시작하기를 기다려요").format(host=host),
    )


def result_parts(result: GameResult | None, options: Options) -> list[Part]:
    """The final ranking (§8.6); scores are shown net of the starting chips."""
    if not result:
        return []
    parts = [(_("게임 끝! {summary}").format(summary=game_summary(result)), "bold")]
    why = END_REASONS.get(result.get("reason", ""))
    if why:
        parts.append((f" ({_(why)})", ""))
    by_score = options.end_condition == "hands" or result.get("reason") == "handCap"
    for row in result.get("ranking", []):
        line = "\n  " + _("{rank}위 {player}  {chips}칩").format(
            rank=row["rank"], player=row["playerId"], chips=chips(row["finalChips"])
        )
        if by_score:  # §6.6 score = chips - starting chips × rebuys
            line += "  " + _("손익 {n:+,}").format(n=row["score"] - options.starting_chips)
        if row["rebuys"]:
            line += "  " + _("리바이 {n}번").format(n=row["rebuys"])
        parts.append((line, ""))
    return parts
