"""The table as data: one update (or one replay frame) in, a :class:`TableModel` out.

Pure: no widgets, no Textual, no clock of its own (``now`` is passed in), so what a table shows
at 80×24 or 200×60, to a player, a spectator or the one who must act, is tested as plain data
(tests/test_present*.py). The live table screen and the replay both draw a model with one widget
(``screens/table_view.py``); the screen keeps only what is state or time (timers, the log, the
bell) and the keys.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from rich.cells import cell_len, set_cell_size

from engine.types import CardDict, LegalAction, MyHand, SeatView, View

from ...i18n import N_, Language, _, speaking
from ...rooms import PLAYING, RoomSummary, RoomUpdate
from ...rooms.mid_join import QUEUED
from ...rooms.pause import PAUSED_NOTICE
from ..geometry import SeatInfo
from ..jokbo import jokbo_side_parts
from ..keys import KeyHint
from ..room_rules import room_rules_lines
from ..widgets.texts import ACTION_NAMES, card_short, chips, first_fit
from .fit import fit_parts, fit_ranking, text_rows
from .shape import Layout, log_visible, table_layout
from .text import (
    FIRST_TIP_HANDS,
    banner_parts,
    mine_parts,
    pot_values,
    seat_infos,
    status_parts,
    title_text,
)
from .variants import (
    candidate,
    draw_prompts,
    drawing,
    hand_places,
    pick_prompts,
    picking_shared,
)
from .waiting import result_parts, waiting_seats, waiting_status

Part = tuple[str, str]
#: (action, label, enabled) of the prompt row
Prompt = tuple[str, str, bool]
#: The prompt row's labels and the rules' head, each key from the key map (the table binds
#: them all: tests/test_keys.py).
JOIN = KeyHint(N_("{sit} 참가"), sit="sit")
START = KeyHint(N_("{start} 시작"), start="start")
ADD_BOT = KeyHint(N_("{add} 봇"), add="add_bot")
REMOVE_BOT = KeyHint(N_("{remove} 봇"), remove="remove_bot")
MODERATE = KeyHint(N_("{moderate} 방장"), moderate="moderate")
LEAVE = KeyHint(N_("{leave} 나가기"), leave="leave")
CONFIRM = KeyHint(N_("{confirm} 확정"), confirm="confirm")
RECOMMEND = KeyHint(N_("{recommend} 추천"), recommend="recommend")
REJOIN_YES = KeyHint(N_("{yes} 재참가"), yes="yes")
REJOIN_NO = KeyHint(N_("{no} 안 함"), no="no")
GUSA_REFUND = KeyHint(N_("{yes} 파토"), yes="yes")
GUSA_REMATCH = KeyHint(N_("{yes} 재경기"), yes="yes")
GUSA_DECLINE = KeyHint(N_("{no} 그대로 판정"), no="no")
REBUY_YES = KeyHint(N_("{yes} 칩 다시 받기"), yes="yes")
REBUY_NO = KeyHint(N_("{no} 그만하기"), no="no")
READY = KeyHint(N_("{ready} 준비"), ready="ready")
RULES = KeyHint(N_("{rules} 규칙"), rules="rules")
RULES_HEAD = KeyHint(N_("■ 이 방의 규칙 ({rules} 자세히)"), rules="rules")
#: The live table's fixed rows besides seats, pot and own row: title, status, banner, prompts,
#: keys, and the chat line (and two more for the action bar in a game).
FIXED_ROWS, GAME_ROWS = 5, 2


@dataclass(frozen=True)
class HandModel:
    """The own cards: raised = picked for the 3-card choice, dimmed = thrown away or folded."""

    cards: tuple[int, ...] = ()
    selected: frozenset[int] = frozenset()
    dimmed: frozenset[int] = frozenset()
    size: str = "compact"
    places: int = 0
    thrown: frozenset[int] = frozenset()
    unknown: int = 0  # own cards face down first, marked "?" (인디언 섯다's first card)
    shared: int | None = None  # 한장공유's shared card among them, marked "공유"


@dataclass(frozen=True)
class PotModel:
    """The centre: ``amount`` None = no pot; ``flash`` None = leave the flash to its timer."""

    amount: int | None = None
    sides: tuple[str, ...] = ()
    note: str = ""
    ascii_only: bool = False
    flash: str | None = None


@dataclass(frozen=True)
class TableModel:
    """Everything the table view draws, decided; equal parts mean nothing to repaint."""

    layout: Layout
    title: tuple[Part, ...]
    seats: tuple[SeatInfo, ...]  # the others (and in the waiting room everyone)
    status: tuple[Part, ...]
    pot: PotModel
    banner: tuple[Part, ...]
    me_line: tuple[Part, ...]
    mine: tuple[Part, ...]
    mine_rows: int  # the texts' rows beside the cards, less what a wrapped me line takes
    hand: HandModel
    spectators: str = ""
    gauge_ascii: bool | None = None  # the countdown bar in ASCII; None: leave it
    #: the live table's own rows (the replay has none): the prompts and the action bar
    prompts: tuple[Prompt, ...] = ()
    actions: tuple[LegalAction, ...] = ()  # the bet actions the bar offers
    action_bar: bool = False  # the bar is shown (to a player in a game)
    legal: tuple[LegalAction, ...] = ()
    #: the 족보 list beside the table (wide terminals, ``layout.jokbo_side``), the own hand marked
    jokbo: tuple[Part, ...] = ()


@dataclass(frozen=True)
class SessionUpdate:
    """:func:`present`'s input: the update one session was last sent, with what that session
    adds to it — who it is (a spectator's update names no viewer), the chips it saw won this
    hand (counted from the events it was sent), the 기리 line while it shows, whether the
    first-hands tip is due, and the log toggle. (The card pick is ``present``'s own argument:
    it changes between updates.)"""

    pushed: RoomUpdate
    nickname: str
    payouts: Mapping[str, int] = field(default_factory=dict)
    cut: str = ""  # the 기리 line while it shows
    first_hands: bool = False  # the first-hands tip
    log_shown: bool | None = None  # None: shown on wide terminals only


@contextmanager
def speaking_as(language: Language | None) -> Iterator[None]:
    if language is None:
        yield
    else:
        with speaking(language):
            yield


def game_view(update: RoomUpdate) -> View | None:
    """The game view, while a game runs (a finished game shows the waiting room + result)."""
    return update.view if update.room.status == PLAYING else None


def legal_actions(update: RoomUpdate) -> list[LegalAction]:
    view = game_view(update)
    if view is None or update.viewer is None or update.paused:
        return []
    return list(view["legalActions"])


def choosing(view: View, legal: Sequence[LegalAction]) -> bool:
    """The 3-card choice is this player's to make now."""
    return any(a["type"] == "choose" for a in legal) and view.get("handPhase") == "choose"


def own_seat(view: View, me: str) -> SeatView | None:
    return next((s for s in view["seats"] if s["id"] == me), None)


def present(
    update: SessionUpdate,
    now: float | None,
    size: tuple[int, int],
    style: str,
    language: Language | None,
    selection: Sequence[int],
) -> TableModel:
    """The live table for one session: the waiting room (and the last result) or the game.
    ``now`` is the rooms' clock (a deadline's and a grace's moments are on it); ``selection``
    the cards picked so far for the 3-card choice."""
    with speaking_as(language):
        return _present(update, now, size, style, list(selection))


def _present(
    seen: SessionUpdate,
    now: float | None,
    size: tuple[int, int],
    style: str,
    selection: list[int],
) -> TableModel:
    update = seen.pushed
    room, view, me = update.room, game_view(update), seen.nickname
    in_game = view is not None and update.viewer is not None
    cards = hand_places(room.options.card_mode, len(room.players))
    layout = table_layout(
        size=size,
        style=style,
        fixed=FIXED_ROWS + (GAME_ROWS if in_game else 0),
        others=None
        if view is None
        else sum(1 for s in view["seats"] if s["id"] != me or not in_game),
        cards=cards,
        own_cards=in_game,
        log_visible=log_visible(seen.log_shown, size[0], view is not None),
        spectators=bool(room.spectators),
    )
    title = _title(room, view, update.code, size[0])
    watchers = ", ".join(room.spectators)
    spectators = _("관전: {players}").format(players=watchers) if watchers else ""
    if view is None:
        return _waiting(update, layout, title, spectators, me)
    jokbo = _jokbo(layout, room, view.get("myHand") if in_game else None)
    legal = legal_actions(update)
    picking = choosing(view, legal)
    picks = picking_shared(view, legal)  # issue 36 한장공유: this player picks the shared card
    seat = own_seat(view, me) if in_game else None
    me_line, *rest = mine_parts(
        view,
        seat,
        room.options,
        picking,
        selection,
        seen.payouts.get(me, 0),
        first_hands=seen.first_hands,
    )
    if seat is None and me in view["joining"]:  # a seat at the next hand (issue 32)
        me_line = [(_(QUEUED), "bold green")]
    # the own row keeps the height the layout counted (else it grows over the pot, §issue
    # 32 item 7): a me line that wraps takes its extra rows from the texts below it
    width = layout.mine_width
    rows = max(1, layout.mine_rows - (text_rows(me_line, width) - 1))
    if update.paused:
        status: tuple[Part, ...] = ((_(PAUSED_NOTICE), "bold reverse"),)
    else:
        status = tuple(status_parts(view, me, legal, picking))
    infos = seat_infos(room, view, me, seen.payouts, now)
    amount, sides, note = pot_values(view)
    return TableModel(
        layout=layout,
        title=title,
        seats=tuple(i for i in infos if not (i.me and in_game)),
        status=status,
        pot=PotModel(amount, sides, note, ascii_only=style == "ascii"),
        gauge_ascii=style == "ascii",
        banner=fit_banner(seen.cut, view, layout.table_width, layout.banner_rows),
        me_line=tuple(me_line),
        mine=tuple(fit_parts(rest[0] if rest else [], rows, width)),
        mine_rows=rows,
        hand=pick_hand(selection, layout.shape[1])
        if picks
        else own_hand(
            seat, layout.shape[1], cards, selection if picking else (), view.get("sharedCard")
        ),
        spectators=spectators,
        prompts=tuple(
            pick_prompts(selection)
            if picks
            else draw_prompts()
            if drawing(legal)
            else _game_prompts(room, view, me, legal, selection, picking)
        ),
        actions=tuple(a for a in legal if a["type"] in ACTION_NAMES),
        action_bar=in_game,
        legal=tuple(legal),
        jokbo=jokbo,
    )


def _jokbo(layout: Layout, room: RoomSummary, hand: MyHand | None) -> tuple[Part, ...]:
    """The 족보 beside the table when the layout has room for it (§9 "PC: 족보표 상시 표시"),
    from the help's own rows (:mod:`..jokbo`), the own hand's row marked."""
    if not layout.jokbo_side:
        return ()
    return tuple(jokbo_side_parts(room.options, hand["name"] if hand else None))


def fit_banner(cut: str, view: View, width: int, rows: int) -> tuple[Part, ...]:
    """The banner in the rows the layout leaves it, shortened on purpose rather than covered
    by the own cards below it: without the 기리 line, then each win short, then clipped with
    "…" (found at 80×24: a side pot's and the main pot's winners, long names and amounts)."""
    parts = banner_parts(view)
    for form in ([(cut, "dim"), *parts] if cut else parts, parts, banner_parts(view, True)):
        if text_rows(form, width) <= rows:
            return tuple(form)
    cells = width * rows
    while cells > width and text_rows(list(_clipped(form, cells)), width) > rows:
        cells -= max(1, width // 4)  # (a wrap at the spaces can leave a row's end unused)
    return _clipped(form, cells)


def _clipped(parts: list[Part], width: int) -> tuple[Part, ...]:
    """``parts`` cut to ``width`` cells, ending in "…" (what was cut said, not hidden)."""
    out: list[Part] = []
    room = max(0, width - 1)
    for text, style in parts:
        if cell_len(text) > room:
            out.append((set_cell_size(text, room).rstrip() + "…", style))
            break
        out.append((text, style))
        room -= cell_len(text)
    return tuple(out)


def _title(room: RoomSummary, view: View | None, code: str | None, width: int) -> tuple[Part]:
    # those inside pass the code on (the lobby never shows it); first, so never cut
    prefix = _("방 코드 {code}").format(code=code) + " · " if code else ""
    watching = " · " + _("관전 {n}명").format(n=len(room.spectators)) if room.spectators else ""
    title = prefix + first_fit(  # shortened on purpose, not cut at the edge
        width - 2 - cell_len(prefix),  # the title's padding
        title_text(room, view) + watching,
        title_text(room, view, host=False) + watching,  # (a host acts between games)
        title_text(room, view, host=False, commitment=False) + watching,
        title_text(room, view, host=False, commitment=False),
    )
    return ((title, "bold"),)


def own_hand(
    seat: SeatView | None,
    size: str,
    cards: int,
    selected: Sequence[int],
    shared: CardDict | None = None,
) -> HandModel:
    """The own cards as the table draws them: places kept for cards not dealt yet, the 3-card
    choice's thrown card marked, a folded hand dimmed; 한장공유's ``shared`` card after the own
    one once it is dealt, marked "공유" (issue 36)."""
    ids = tuple(int(c["id"]) for c in (seat.get("cards", []) if seat else []) if "hidden" not in c)
    if shared is not None and ids:
        ids += (int(shared["id"]),)
    chosen = seat.get("chosenIds") if seat else None
    thrown = frozenset(i for i in ids if chosen is not None and i not in chosen)
    dimmed = frozenset(ids) if seat is not None and seat.get("folded") else thrown
    places = 0 if seat is None else cards
    # issue 36 인디언: the own first card, which everyone but its holder sees, shows as "?"
    unknown = sum(1 for c in (seat.get("cards", []) if seat else []) if "hidden" in c)
    common = int(shared["id"]) if shared is not None and len(ids) > 1 else None
    return HandModel(ids, frozenset(selected), dimmed, size, places, thrown, unknown, common)


def pick_hand(selection: Sequence[int], size: str) -> HandModel:
    """한장공유 (issue 36): while the 선 picks, the card they are looking at, raised."""
    card = candidate(selection)
    return HandModel((card,), frozenset({card}), frozenset(), size, 1)


def _waiting(
    update: RoomUpdate, layout: Layout, title: tuple[Part], spectators: str, me: str
) -> TableModel:
    """The waiting room: the players, the rules (or the last game's ranking), the host's keys."""
    room, result = update.room, update.result
    seats = waiting_seats(room, me)
    mine: tuple[Part, ...] = ()  # after a game its ranking comes first; the rules are on i
    if result is None:
        # the rows left for the rules: the height less the title, the seats, the watchers'
        # line, the status, pot and banner lines, the box's top padding and its head, the
        # prompts and keys (a full table at 80×24 covered its last seats with them before)
        rows = layout.size[1] - (1 + len(seats) + (1 if room.spectators else 0) + 3 + 2 + 2)
        cells = max(24, layout.table_width - 4)
        if rules := room_rules_lines(room.options, cells, rows=rows):
            mine = ((RULES_HEAD.text() + "\n", "bold"), ("\n".join(rules), ""))
    # the rows left for the last game's result: the height less the title, the seats, the
    # watchers' line, the status and (empty) pot lines, the own row (3), the prompts and keys
    used = 1 + len(seats) + (1 if room.spectators else 0) + 1 + 1 + 3 + 1 + 1
    ranking = result_parts(result, room.options)
    banner = fit_ranking(ranking, max(1, layout.size[1] - used), layout.table_width)
    prompts: list[Prompt] = []
    if me not in room.players:
        prompts.append(("join", JOIN.text(), room.joinable))
    elif room.host == me:
        prompts.append(("start", START.text(), len(room.players) >= 2))
        prompts.append(("add_bot", ADD_BOT.text(), len(room.players) < room.max_players))
        prompts.append(("remove_bot", REMOVE_BOT.text(), bool(room.bots)))
        prompts.append(("moderate", MODERATE.text(), True))
    prompts.append(("leave", LEAVE.text(), True))
    return TableModel(
        layout=layout,
        title=title,
        seats=tuple(seats),
        status=((waiting_status(room, me, layout.table_width), ""),),
        pot=PotModel(),
        banner=tuple(banner),
        me_line=(),
        mine=mine,
        mine_rows=layout.mine_rows,
        hand=HandModel(),
        spectators=spectators,
        prompts=tuple(prompts),
        jokbo=_jokbo(layout, room, None),
    )


def _game_prompts(
    room: RoomSummary,
    view: View,
    me: str,
    legal: list[LegalAction],
    selected: list[int],
    picking: bool,
) -> list[Prompt]:
    prompts: list[Prompt] = []
    kinds = {a["type"]: a for a in legal}
    if picking:
        seat = own_seat(view, me)
        own = seat.get("cards", []) if seat else []
        for i, card in enumerate(c for c in own if "hidden" not in c):
            mark = "*" if card["id"] in selected else ""
            prompts.append((f"num({i + 1})", f"{i + 1} {mark}{card_short(card)}", True))
        prompts.append(("confirm", CONFIRM.text(), len(selected) == 2))
        if (hand := view.get("myHand")) and hand.get("recommended"):
            prompts.append(("recommend", RECOMMEND.text(), True))
    elif "rejoin" in kinds:
        accept = next((a for a in legal if a["type"] == "rejoin" and a["accept"]), None)
        cost = f" (+{chips(accept['amount'])})" if accept else ""
        prompts.append(("answer(True)", REJOIN_YES.text() + cost, accept is not None))
        prompts.append(("answer(False)", REJOIN_NO.text(), True))
    elif "gusaChoice" in kinds:  # issue 36: fire the own 구사 (a rematch, or 사구 파토) or not
        refund = room.options.effective_gusa_outcome == "refund"
        prompts.append(("answer(True)", (GUSA_REFUND if refund else GUSA_REMATCH).text(), True))
        prompts.append(("answer(False)", GUSA_DECLINE.text(), True))
    elif "rebuy" in kinds:
        prompts.append(("answer(True)", REBUY_YES.text(), True))
        prompts.append(("answer(False)", REBUY_NO.text(), True))
    elif "ready" in kinds:
        prompts.append(("ready", READY.text(), True))
    joining = view["joining"]
    free = len(view["seats"]) + len(joining) < room.max_players
    watching = me in room.spectators and room.options.mid_join
    # a seat at the next hand (issue 32; j asks the engine): greyed once asked for
    if watching and (free or me in joining):
        prompts.append(("join", JOIN.text(), me not in joining))
    if not picking:  # (the 3-card choice's row is full at 80 columns)
        prompts.append(("rules", RULES.text(), True))
    prompts.append(("leave", LEAVE.text(), True))
    return prompts


def first_hands(hands_dealt: int) -> bool:
    """The first-hands tip shows in a session's first hands only."""
    return hands_dealt <= FIRST_TIP_HANDS
