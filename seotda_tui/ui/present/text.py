"""What the table shows during a game, computed from one session's view: pure functions, no
widgets (its words before a game and after it are :mod:`.waiting`'s).

Kept apart from ``table.py`` so the screen stays about state and keys, and so this wording can be
tested without running Textual. ``Part`` is ``(text, rich style)``; a widget only repaints when the
parts it is given differ from the last ones.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import TypedDict

from engine import DECK, Options, evaluate
from engine.hands import plain_value
from engine.types import LegalAction, PotResult, SeatView, ShownHand, View

from ...i18n import N_, _
from ...rooms import RoomSummary
from ...rooms.events import RoomEvent
from ..geometry import SeatInfo
from ..keys import BET_NUMBERS, CARD_NUMBERS, REGRET_NUMBERS, KeyHint
from ..widgets.texts import (
    ACTION_NAMES,
    REMATCH_REASONS,
    WIN_REASONS,
    action_name,
    card_name,
    card_short,
    chips,
    hand_name,
)
from .pots import labelled_pots, merged_results, pots_forms
from .variants import choose_status, draw_status, pick_status, shared_note

Part = tuple[str, str]


def title_text(
    room: RoomSummary, view: View | None, host: bool = True, commitment: bool = True
) -> str:
    """The room's top line; ``host=False`` leaves out the host, the part to give up when a
    20-cell room name and a 16-cell host leave no room at 80 columns (the screen shortens
    the title on purpose rather than let the edge cut it); ``commitment=False`` the deal's
    commitment, given up next (the hand log has it whole)."""
    parts = [f"{room.name} · {_(room.status_label)}"]
    if room.locked:  # those inside see the lock too (the lobby shows it in its list)
        parts.append(_("잠김"))
    if view is not None:
        limit = room.options.hand_limit if room.options.end_condition == "hands" else None
        hand = view.get("handNo", 0)
        parts.append(
            _("{hand}판/{limit}판").format(hand=hand, limit=limit)
            if limit
            else _("{hand}판").format(hand=hand)
        )
        parts.append(_("학교 {n}").format(n=chips(view["baseUnit"])))
        if commitment and (deal := view.get("deal")):  # issue 36: for every viewer
            parts.append(_("약속 {c}").format(c=deal["commitment"][:8]))
    else:
        parts.append(_("{n}/{max}명").format(n=len(room.players), max=room.max_players))
    if host:
        parts.append(_("방장 {host}").format(host=room.host) if room.host else _("방장 없음"))
    return " · ".join(parts)


# ---------------------------------------------------------------- the game


#: A seat in its reconnect grace counts down in steps this long (each step repaints the seat).
GRACE_STEP = 5


def grace_badge(room: RoomSummary, nick: str, now: float | None) -> str:
    """ "끊김 25초" while a dropped player's seat waits for them (the reconnect grace), then
    "연결 끊김": their turns are played for them (check, else die) until they come back."""
    ends = dict(room.grace_ends).get(nick)
    if ends is None or now is None:
        return _("연결 끊김")
    left = max(0.0, ends - now)
    if left <= 0:
        return _("연결 끊김")
    return _("끊김 {n}초").format(n=math.ceil(left / GRACE_STEP) * GRACE_STEP)


def _badges(
    seat: SeatView, room: RoomSummary, view: View, winners: set[str], now: float | None
) -> list[str]:
    nick = seat["id"]
    if seat["status"] == "eliminated":  # out of the game: whether they are connected is moot
        return [_("탈락"), _("나감")] if nick not in room.players else [_("탈락")]
    badges: list[str] = []
    if seat["status"] == "left":
        badges.append(_("나감"))
    elif nick in room.offline or not seat["connected"]:
        badges.append(grace_badge(room, nick, now))
    if seat["status"] == "busted":
        badges.append(_("파산"))
    if seat.get("folded") and seat["status"] != "left":
        badges.append(_("다이"))
    if seat.get("allIn"):
        badges.append(_("올인"))
    if seat["away"]:
        badges.append(_("자리 비움"))
    if view.get("handPhase") == "choose" and seat.get("chosen") and not seat.get("folded"):
        badges.append(_("선택 완료"))
    if view.get("handPhase") == "handEnd" and nick in winners:
        badges.append(_("승"))
    return badges


#: Results that name no winner: a pot kept for a rematch, or a 사구 파토 that refunds it.
NO_WINNER = frozenset({"rematch", "refund"})


class Outcome(TypedDict):
    """What naming a showdown hand reads of a pot's result: the view's ``PotResult``, a ``pot``
    event's outcome, or a payout read as a win (:func:`showdown_results`)."""

    type: str
    winners: list[str]
    reason: str


def showdown_name(entry: ShownHand, results: Sequence[Outcome], options: Options) -> str:
    """A revealed hand's name, given the showdown's ``results`` (the view's, or
    :func:`showdown_results` of the events). A special that did not take effect (땡잡이 against
    장땡, 구사 against 세륙) plays as its plain value (§6.2), so it is named by that value: "망통
    (땡잡이 불발)", never a name that reads as if it had won. The seats, the own hand and the
    hand log all name hands through this one function."""
    special = entry.get("special")
    if not special or not results:
        return hand_name(str(entry["name"]))
    fired = any(
        r.get("reason") == special
        and (r.get("type") in NO_WINNER or entry["player"] in r.get("winners", []))
        for r in results
    )
    if fired:
        return hand_name(str(entry["name"]))
    a, b = (DECK[int(c["id"])] for c in entry["cards"])
    return _("{plain} ({special} 불발)").format(
        plain=hand_name(plain_value(a, b, options.gwang_ttaeng)[1]),
        special=hand_name(str(entry["name"])),
    )


#: Events that start the next deal: a showdown's results are the events before them.
NEXT_DEAL = frozenset({"showdown", "handStart", "rematchStart", "gameStart"})


def showdown_results(events: Sequence[RoomEvent]) -> list[Outcome]:
    """The results of a showdown, from the events that follow its ``showdown`` event (the
    engine emits them in the same change): each payout as a win, each pot kept for a rematch
    as its outcome — the shapes of the view's ``results``, for a log line written before (or
    long after) the view shows them."""
    results: list[Outcome] = []
    for event in events:
        if event["type"] in NEXT_DEAL:
            break
        if event["type"] == "payout":
            results.append(
                {"type": "win", "winners": [event["player"]], "reason": event.get("reason", "")}
            )
        elif event["type"] == "pot" and event.get("outcome"):
            results.append(event["outcome"].copy())
    return results


def from_viewer(seats: list[SeatView], me: str) -> list[SeatView]:
    """The seats as the viewer sits: the viewer, then the next seats clockwise (the neighbours
    first, as at a real table). A spectator sees the engine's seat order."""
    mine = next((i for i, s in enumerate(seats) if s["id"] == me), 0)
    return seats[mine:] + seats[:mine]


def seat_infos(
    room: RoomSummary,
    view: View,
    me: str,
    payouts: Mapping[str, int] | None = None,
    now: float | None = None,
) -> list[SeatInfo]:
    """One info per engine seat: others' cards face down unless revealed at the showdown."""
    shown = {h["player"]: h for h in view.get("showdown") or []}
    results = view.get("results") or []
    winners = {w for r in results for w in r.get("winners", [])}
    payouts = payouts or {}
    betting = view.get("handPhase") == "betting"
    infos = []
    for s in from_viewer(view["seats"], me):
        nick = s["id"]
        last = s.get("lastAction")
        shown_action = last and last["type"] != "die" and last["type"] in ACTION_NAMES
        action = action_name(last["type"]) if last and shown_action else ""
        faces: tuple[int | None, ...] = ()
        if revealed := s.get("revealed"):
            cards = " ".join(card_short(c) for c in revealed)
            faces = tuple(int(c["id"]) for c in revealed)
        elif s["inHand"]:
            cards = " ".join(card_short(c) for c in s.get("cards", []))
            faces = tuple(int(c["id"]) if "hidden" not in c else None for c in s.get("cards", []))
        else:
            cards = ""
        infos.append(
            SeatInfo(
                name=nick,
                stack=s["stack"],
                bet=s.get("bet", 0) if betting else 0,
                action=action if betting else "",
                cards=cards,
                badges=tuple(_badges(s, room, view, winners, now)),
                dealer=s["dealer"],
                actor=view.get("actor") == nick,
                me=nick == me,
                hand_name=showdown_name(shown[nick], results, room.options)
                if nick in shown
                else "",
                faces=faces,
                folded=bool(s.get("folded")),
                payout=payouts.get(nick, 0) if view.get("handPhase") == "handEnd" else 0,
            )
        )
    return infos


def pot_values(view: View) -> tuple[int | None, tuple[str, ...], str]:
    """(pot, the labelled pots when there is more than one — longest form first —, a note)
    for the centre of the table."""
    if view.get("handPhase") == "handEnd" and not view.get("pot"):
        return None, (), ""  # paid out: the banner says who won
    note = ""
    if view.get("handPhase") == "betting" and view.get("currentBet"):
        note = _("이번 라운드 {n}").format(n=chips(view["currentBet"]))
    if shared := shared_note(view):  # issue 36 한장공유: the shared card, in the middle
        note = f"{shared} · {note}" if note else shared
    return int(view.get("pot", 0)), pots_forms(labelled_pots(view)), note


def banner_parts(view: View, short: bool = False) -> list[Part]:
    """Rematch banner (§9 "재경기 2회차 - 구사"), the hand's winners, or who the game waits for;
    ``short``: each win as "철수 승 +40", for a row too narrow for the whole words."""
    phase = view.get("handPhase")
    parts: list[Part] = []
    if view.get("rematchNo"):
        reason = _tr(REMATCH_REASONS.get(view.get("rematchReason") or "", ""))
        text = _("재경기 {n}회차 - {reason}").format(n=view["rematchNo"], reason=reason)
        parts.append((text + "  ", "bold magenta"))
    if phase == "handEnd":
        for r, label in merged_results(view.get("results") or []):
            if r.get("type") in NO_WINNER:
                reason = _tr(REMATCH_REASONS.get(r.get("reason", ""), ""))
                if r.get("type") == "refund":
                    text = _("{reason} 파토! 판돈을 돌려줘요").format(reason=reason)
                else:
                    text = _("{reason} 재경기!").format(reason=reason)
                parts.append((text + "  ", "bold magenta"))
                continue
            who = ", ".join(r.get("winners", []))
            split = r.get("type") == "split"
            if short:
                won = _("{who} 나눔 +{n}") if split else _("{who} 승 +{n}")
            else:
                won = _("{who} 나눠 가짐 +{n}칩") if split else _("{who} 승리 +{n}칩")
            why = WIN_REASONS.get(r.get("reason", ""), "")
            parts.append((won.format(who=who, n=chips(result_net(r))), "bold green"))
            if label:
                parts.append((f" ({label})", "green"))
            if why:
                parts.append((f" {_(why)}", "bold red"))
            parts.append(("  ", ""))
        if (ttaeng := view.get("ttaeng")) and ttaeng["payments"]:  # issue 36 땡값
            paid = ttaeng["payments"]
            text = _("{winner} 땡값 +{n}칩 ({payers})").format(
                winner=ttaeng["winner"],
                n=chips(sum(x["amount"] for x in paid)),
                payers=", ".join(x["player"] for x in paid),
            )
            parts.append((text + "  ", "bold yellow"))
    elif phase == "rejoin" and (rejoin := view.get("rejoin")):
        cost = chips(rejoin["cost"])
        parts.append((_("재참가를 기다려요 (재참가 비용 {n}칩)").format(n=cost), ""))
    if view["phase"] == "rebuy":
        who = ", ".join(view["rebuyPending"])
        parts.append((_("리바이를 기다려요: {players}").format(players=who), ""))
    return parts


def cut_text(view: View) -> str:
    """§5.1 기리: the player on the dealer's right cuts the deck (shown only; the server's RNG
    really shuffles). The dealer's right is the seat before the dealer in the clockwise deal."""
    seated = [s["id"] for s in view["seats"] if s["inHand"]]
    dealer = view.get("dealer")
    if dealer not in seated or len(seated) < 2:
        return ""
    cutter = seated[seated.index(dealer) - 1]
    return (
        _("기리: {cutter}님이 패를 떼고 선 {dealer}님이 나눠요").format(
            cutter=cutter, dealer=dealer
        )
        + "  "
    )


#: The status line's and the own cards' words naming keys, each key from the key map (the
#: table binds them all: tests/test_keys.py).
BET_KEYS = KeyHint(N_("{bet} 키"), bet=BET_NUMBERS)
CHOOSE_KEYS = KeyHint(
    N_("카드 2장을 고르세요: {cards} 키, {confirm} 확정"), cards=CARD_NUMBERS, confirm="confirm"
)
GUSA_CHOICE_ASK = KeyHint(
    N_("내 구사를 발동할까요? {answer} ({no}: 그대로 판정)"), answer=("yes", "no"), no="no"
)
REJOIN_ASK = KeyHint(N_("구사 재경기에 다시 참가할까요? {answer}"), answer=("yes", "no"))
REBUY_ASK = KeyHint(N_("칩이 떨어졌어요. 칩을 다시 받을까요? {answer}"), answer=("yes", "no"))
READY_ASK = KeyHint(N_("판이 끝났어요. {ready} 다음 판 준비"), ready="ready")
PICK_KEYS = KeyHint(
    N_("두 장을 고르세요\n({cards} 키나 카드 클릭, {confirm} 확정)"),
    cards=CARD_NUMBERS,
    confirm="confirm",
)
#: 후회의 섯다's four cards (issue 36): a msgid of its own (English writes the span 1-4).
PICK_FOUR_KEYS = KeyHint(
    N_("두 장을 고르세요\n({four} 키나 카드 클릭, {confirm} 확정)"),
    four=REGRET_NUMBERS,
    confirm="confirm",
)
RECOMMENDED = KeyHint(
    N_("추천({recommend}): {a} + {b} = {name}"), "a", "b", "name", recommend="recommend"
)


def status_parts(view: View, me: str, legal: list[LegalAction], choosing: bool) -> list[Part]:
    """Whose turn it is, or what the game waits for; "내 차례" stands out."""
    pending = view["pending"]
    phase = pending["phase"]
    if phase == "finished":
        return [(_("게임이 끝났어요"), "bold")]
    if phase == "betting":
        actor = view.get("actor")
        if actor == me:
            return [(_("내 차례예요!"), "bold reverse"), (" " + BET_KEYS.text(), "")]
        return [(_("{p}님 차례").format(p=actor), "")]
    if phase == "pickShared":  # issue 36 한장공유
        return pick_status(view, me)
    if phase == "draw":  # issue 36 후회의 섯다
        return draw_status(view, me)
    waiting = ", ".join(pending["players"])
    if phase == "choose":
        if choosing:
            return choose_status(view, me) or [(CHOOSE_KEYS.text(), "bold reverse")]
        return [(_("카드를 고르는 중: {players}").format(players=waiting), "")]
    if phase == "gusaChoice":  # issue 36 구사 선택권
        if me in pending["players"]:
            return [(GUSA_CHOICE_ASK.text(), "bold reverse")]
        return [(_("{players}님이 구사 재경기를 고르는 중").format(players=waiting), "")]
    if phase == "rejoin":
        if me in pending["players"]:
            return [(REJOIN_ASK.text(), "bold reverse")]
        return [(_("재참가 여부를 기다려요: {players}").format(players=waiting), "")]
    if phase == "rebuy":
        if me in pending["players"]:
            return [(REBUY_ASK.text(), "bold reverse")]
        return [(_("리바이 여부를 기다려요: {players}").format(players=waiting), "")]
    if phase == "handEnd":
        if any(a["type"] == "ready" for a in legal):
            return [(READY_ASK.text(), "")]
        return [(_("다음 판을 기다려요"), "")]
    return []


# ---------------------------------------------------------------- the own hand, flashes, payouts

STRENGTH_STYLES = {"높음": "bold green", "중간": "bold yellow", "낮음": "bold red"}
#: The engine's strength words and hand hints (its ``myHand``), translated by msgid.
_ENGINE_HINTS = (
    N_("높음"), N_("중간"), N_("낮음"), N_("강한 패예요"), N_("중간 정도 패예요"),
    N_("약한 패예요"), N_("상대 최고패가 1~9땡이면 이겨요"), N_("상대 최고패가 13·18광땡이면 이겨요"),
    N_("상대가 알리 이하면 재경기"), N_("상대가 8땡 이하면 재경기"), N_("상대가 9땡 이하면 재경기"),
    N_("상대가 장땡 이하면 재경기"), N_("상대가 알리 이하면 파토(판돈 반환)"),
    N_("상대가 8땡 이하면 파토(판돈 반환)"), N_("상대가 9땡 이하면 파토(판돈 반환)"),
    N_("상대가 장땡 이하면 파토(판돈 반환)"),
)  # fmt: skip
FIRST_HAND_HINT = KeyHint(
    N_("처음이세요? {help} 족보·규칙 · {bet} 베팅 · {chat} 채팅"),
    help="help",
    bet=BET_NUMBERS,
    chat="chat",
)


def _tr(msgid: str) -> str:
    """``_()`` of a looked-up msgid that may be empty (an unknown reason shows nothing)."""
    return _(msgid) if msgid else ""


#: The tip shows in a session's first hands only (``first_hands``), not in every game's first.
FIRST_TIP_HANDS = 2


def mine_parts(
    view: View,
    seat: SeatView | None,
    options: Options,
    choosing: bool,
    selected: list[int],
    payout: int = 0,
    first_hands: bool = False,
) -> list[list[Part]]:
    """Beside the own cards: [the me line (name, 선, stack, bet, badges), then the rest: the
    hand's name and strength (hints), the 3-card choice, the result, a first-hand hint]."""
    if seat is None:
        return [[(_("관전 중이에요"), "dim")]]
    me: list[Part] = [(seat["id"], "bold")]
    if seat["dealer"]:
        me.append((" " + _("선"), "bold cyan"))
    me.append((" · " + _("{n}칩").format(n=chips(seat["stack"])), ""))
    if view.get("handPhase") == "betting" and seat.get("bet"):
        me.append((" · " + _("베팅 {n}").format(n=chips(seat["bet"])), "yellow"))
    for badge, on in (
        (N_("다이"), seat.get("folded")),
        (N_("올인"), seat.get("allIn")),
        (N_("자리 비움"), seat["away"]),
        (N_("파산"), seat["status"] == "busted"),
        (N_("탈락"), seat["status"] == "eliminated"),
    ):
        if on:
            me.append((f" [{_(badge)}]", "bold"))
    if not seat["inHand"]:
        return [me]
    parts: list[Part] = []
    hint = view.get("myHand")
    own_shown = next((h for h in view.get("showdown") or [] if h["player"] == seat["id"]), None)
    if choosing:
        if len(selected) == 2:
            a, b = (DECK[i] for i in selected)
            rank = evaluate(a, b, options)
            text = _("고른 패: {a} + {b}\n= {name}").format(
                a=card_name(a), b=card_name(b), name=hand_name(rank.name)
            )
            parts.append(("\n" + text, "bold"))
        else:
            four = len(seat.get("cards", [])) >= 4  # 후회의 섯다 (issue 36)
            parts.append(("\n" + (PICK_FOUR_KEYS if four else PICK_KEYS).text(), ""))
        if hint and hint.get("recommended"):
            a, b = (DECK[i] for i in hint["recommended"])
            text = RECOMMENDED.text(a=card_name(a), b=card_name(b), name=hand_name(hint["name"]))
            parts.append(("\n" + text, "dim"))
    elif own_shown is not None:  # the showdown names every revealed hand, hints or not
        parts.append(("\n", ""))
        name = showdown_name(own_shown, view.get("results") or [], options)
        parts.append((f" {name} ", "bold reverse"))
    elif hint:
        style = STRENGTH_STYLES.get(hint.get("strength", ""), "bold")
        parts.append(("\n", ""))
        parts.append((f" {hand_name(hint['name'])} ", style + " reverse"))
        strength = _tr(str(hint.get("strength", "")))
        parts.append((" " + _("강도 {strength}").format(strength=strength), style))
        explain = str(hint.get("hint") or "").partition(" - ")[2]
        if explain and seat.get("discardedId") is None:
            parts.append((f"\n{_(explain)}", ""))
    if (thrown := seat.get("discardedId")) is not None and not choosing:  # 3장: the card left out
        kept = seat.get("chosenIds") or []  # (후회의 섯다, issue 36: two of four left out)
        own = [int(c["id"]) for c in seat.get("cards", []) if "hidden" not in c]
        left = [i for i in own if i not in kept]
        card = " + ".join(card_name(DECK[i]) for i in (left if len(left) > 1 else [thrown]))
        parts.append(("\n" + _("버린 패: {card} (나만 봐요)").format(card=card), "dim"))
    if payout:
        parts.append(("\n" + _("승리! +{n}칩").format(n=chips(payout)), "bold green"))
    elif view.get("handPhase") == "handEnd" and seat.get("revealed"):
        lost = not any(r.get("type") in NO_WINNER for r in view.get("results") or [])
        if lost:
            parts.append(("\n" + _("이번 판은 졌어요"), "dim"))
    if first_hands and not view.get("rematchNo") and not choosing:
        parts.append((f"\n\n{FIRST_HAND_HINT.text()}", "dim italic"))
    if parts and parts[0][0].startswith("\n"):
        parts[0] = (parts[0][0][1:], parts[0][1])
    return [me, parts]


#: The short banner of a special outcome (§9: "땡잡이!", "암행어사 출두!", "구사 재경기").
FLASH_WINS = {"ttaengjabi": N_("땡잡이!"), "amhaeng": N_("암행어사 출두!")}
FLASH_REMATCHES = {
    "gusa": N_("구사 재경기"),
    "mungGusa": N_("멍텅구리구사 재경기"),
    "tie": N_("동점 재경기"),
}


FLASH_REFUND = N_("사구 파토")


def flash_for(events: Sequence[RoomEvent]) -> str | None:
    """The banner text for a change's events, if a special outcome happened in it."""
    texts: list[str] = []
    for event in events:
        if event["type"] == "payout" and event["reason"] in FLASH_WINS:
            text = _(FLASH_WINS[event["reason"]])
        elif event["type"] == "rematch" and event["reason"] in FLASH_REMATCHES:
            text = _(FLASH_REMATCHES[event["reason"]])
        elif event["type"] == "pot" and event["outcome"]["type"] == "refund":
            text = _(FLASH_REFUND)
        else:
            continue
        if text not in texts:
            texts.append(text)
    return "  ".join(texts) or None


def result_net(result: PotResult) -> int:
    """A won pot's figure for the table (issue 32): the winners' net — the pot less what they
    put into it — when it is one figure for all of them (else, and for results made before
    the net existed, the pot)."""
    nets = {int(v) for v in (result.get("net") or {}).values()}
    return nets.pop() if len(nets) == 1 else int(result["amount"])


def track_payouts(payouts: dict[str, int], events: Sequence[RoomEvent]) -> bool:
    """Add this change's payouts per player; a new hand or rematch clears them. True if changed."""
    changed = False
    for event in events:
        if event["type"] in ("handStart", "rematchStart", "gameStart"):
            changed = changed or bool(payouts)
            payouts.clear()
        elif (
            event["type"] == "payout"
        ):  # the net (issue 32): the pot less the winner's own chips in it
            won = int(event.get("net", event["amount"]))
            payouts[event["player"]] = payouts.get(event["player"], 0) + won
            changed = True
    return changed
