"""A replay frame as a :class:`TableModel`: the table as that player was shown it, no keys.

The same seats, pot, banner, own row and arrangement as the live table (:mod:`.table`), with
the replay's own title and a status line saying which hand and step this is.
"""

from __future__ import annotations

import time

from rich.cells import cell_len

from ...i18n import Language, _
from ...rooms import PLAYING, RoomSummary
from ...rooms.history import Replay
from .fit import fit_parts
from .shape import table_layout
from .table import PotModel, TableModel, fit_banner, own_hand, own_seat, speaking_as
from .text import (
    flash_for,
    mine_parts,
    pot_values,
    seat_infos,
    status_parts,
    track_payouts,
)
from .variants import hand_places

#: The replay's fixed rows: title, status, banner, keys.
REPLAY_ROWS = 4


def replay_room(replay: Replay) -> RoomSummary:
    """The room as the table's texts want it, made from the past game."""
    game = replay.game
    return RoomSummary(
        id=game.key,
        name=game.name,
        host=None,
        players=game.players,
        max_players=replay.options.max_players,
        spectators=(),
        status=PLAYING,
        offline=(),
        left=(),
        options=replay.options,
    )


def hand_frames(replay: Replay, index: int) -> range:
    """The frames of the current hand up to ``index`` (what its log has shown)."""
    return range(replay.hand_starts[replay.frames[index].hand], index + 1)


def present_frame(
    replay: Replay,
    room: RoomSummary,
    index: int,
    size: tuple[int, int],
    style: str,
    language: Language | None = None,
) -> TableModel:
    """Frame ``index`` of ``replay`` on a terminal of ``size``."""
    with speaking_as(language):
        return _present_frame(replay, room, index, size, style)


def _present_frame(
    replay: Replay, room: RoomSummary, index: int, size: tuple[int, int], style: str
) -> TableModel:
    view, me = replay.view(index), replay.viewer or ""
    cards = hand_places(replay.options.card_mode, len(replay.game.players))
    layout = table_layout(
        size=size,
        style=style,
        fixed=REPLAY_ROWS,
        others=sum(1 for s in view["seats"] if s["id"] != replay.viewer),
        cards=cards,
        own_cards=replay.viewer is not None,
        log_visible=True,
        jokbo=False,
    )
    payouts: dict[str, int] = {}
    for i in hand_frames(replay, index):
        track_payouts(payouts, replay.frames[i].events)
    game = replay.game
    when = time.strftime("%m-%d %H:%M", time.localtime(game.finished_at))
    who = _("{me}의 자리").format(me=me) if replay.viewer else _("관전 화면")
    title = _("다시 보기 · {name} · {when} · {who}").format(name=game.name, when=when, who=who)
    step = _("{n}판 ({hand}/{hands}) · {step}/{steps}수").format(
        n=view.get("handNo", "-"),
        hand=replay.frames[index].hand + 1,
        hands=len(replay.hand_starts),
        step=index + 1,
        steps=len(replay.frames),
    )
    # whose turn it was, said as to anyone watching (never "내 차례": nothing to press),
    # left out rather than cut at the edge when the line has no room for it
    turn = status_parts(view, "", [], False)
    if not turn or cell_len(step + " · " + "".join(t for t, _s in turn)) > layout.table_width:
        turn = []
    infos = seat_infos(room, view, me, payouts)
    amount, sides, note = pot_values(view)
    seat = own_seat(view, me)
    me_line, *rest = mine_parts(view, seat, replay.options, False, [], payouts.get(me, 0))
    rows, width = layout.mine_rows, layout.mine_width
    return TableModel(
        layout=layout,
        title=((title, "bold"),),
        seats=tuple(i for i in infos if not (i.me and replay.viewer)),
        status=((step, "bold"), *([(" · ", "")] + turn if turn else [])),
        pot=PotModel(
            amount,
            sides,
            note,
            ascii_only=style == "ascii",
            flash=flash_for(replay.frames[index].events) or "",
        ),
        banner=fit_banner("", view, layout.table_width, layout.banner_rows),
        me_line=tuple(me_line),
        mine=tuple(fit_parts(rest[0] if rest else [], rows, width)),
        mine_rows=rows,
        hand=own_hand(seat, layout.shape[1], cards, (), view.get("sharedCard")),
    )
