"""Every word the screens show for engine data: cards, actions, options, hands, log lines.

Kept apart from the widgets so the wording is in one place and testable without Textual. Each
text goes through the catalogue (``_()``, :mod:`seotda_tui.i18n`); the engine's own Korean
words (action and hand names) are translated here by msgid.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from rich.cells import cell_len

from engine import DECK, Card, Options
from engine.betting import ACTION_NAMES as ACTION_NAMES  # re-exported for the screens
from engine.betting import BET_ACTIONS
from engine.options import SPEC_BY_FIELD

from ...i18n import KOREAN, N_, _, language_code, ngettext
from ...rooms.events import RoomEvent
from ..keys import KeyHint

#: The fixed action bar, left to right, with its number keys (§9: positions never move).
BET_ORDER = BET_ACTIONS
BET_KEYS = {kind: str(i + 1) for i, kind in enumerate(BET_ORDER)}

# The msgids below are marked with N_ and translated where they are shown (_() at use).
REMATCH_REASONS = {"gusa": N_("구사"), "mungGusa": N_("멍텅구리구사"), "tie": N_("동점")}
WIN_REASONS = {
    "ttaengjabi": N_("땡잡이!"),
    "amhaeng": N_("암행어사 출두!"),
    "fold": N_("모두 다이"),
    "rematchCap": N_("재경기 3번 뒤 나눔"),
}
END_REASONS = {
    "hands": N_("정해진 판을 모두 쳤어요"),
    "lastStanding": N_("최후의 1인이 남았어요"),
    "handCap": N_("300판에 도달했어요"),
    "disconnected": N_("접속해 있고 칩이 있는 사람이 1명 이하라 끝났어요"),
    "botsOnly": N_("사람이 모두 탈락하거나 나가서 봇만 남았어요"),
}

#: The lobby's short word for each card mode (issue 36 adds the variants).
MODE_SHORT = {
    "two": N_("2장"),
    "three": N_("3장"),
    "indian": N_("인디언"),
    "shared": N_("공유"),
    "regret": N_("후회"),
}

#: Labels (msgids) of every option value, for the create-room form and the lobby; a label
#: with ``{v}`` is filled with the value (:func:`choice_label`).
CHOICE_LABELS: dict[str, dict[Any, str]] = {
    "card_mode": {
        "two": N_("2장 섯다"),
        "three": N_("3장 섯다 (골라 쓰기)"),
        "indian": N_("인디언 섯다"),  # issue 36 variants
        "shared": N_("한장공유"),
        "regret": N_("후회의 섯다"),
    },
    "deal_mode": {"twoRounds": N_("1장씩 두 번"), "oneRound": N_("2장 한 번에")},
    "starting_chips": dict.fromkeys((500, 1000, 2000, 5000), N_("{v:,}칩")),
    "base_unit": dict.fromkeys((2, 10, 20, 50), N_("{v}칩")),
    "max_raise": {"half": N_("하프까지"), "full": N_("풀까지")},
    "end_condition": {"hands": N_("정해진 판 수"), "lastStanding": N_("최후의 1인")},
    "hand_limit": dict.fromkeys((10, 20, 30, 50), N_("{v}판")),
    "school_up_every": {0: N_("안 올림")} | dict.fromkeys((5, 10, 15), N_("{v}판마다")),
    "rebuy": {"off": N_("없음"), "limited": N_("횟수 제한"), "unlimited": N_("무제한")},
    "rebuy_limit": dict.fromkeys((1, 2, 3), N_("{v}번")),
    "turn_seconds": dict.fromkeys((15, 20, 30, 60), N_("{v}초")),
    "dealer_rule": {"winner": N_("이긴 사람"), "rotate": N_("돌아가며")},
    "gwang_ttaeng": {"all": N_("38·18·13광땡"), "only38": N_("38광땡만")},
    "ttaengjabi": {
        "off": N_("없음"),
        "strict": N_("엄격 (3광+7열끗)"),
        "loose": N_("느슨 (3·7 아무 패)"),
    },
    "mung_gusa": {
        "off": N_("일반 구사로"),
        "upTo8": N_("8땡까지 재경기"),
        "upTo9": N_("9땡까지 재경기"),
        "upToJang": N_("장땡까지 재경기"),
    },
    "gusa_when_winning": {"win": N_("그냥 이김"), "rematch": N_("그래도 발동")},
    "gusa_outcome": {"rematch": N_("재경기"), "refund": N_("파토 (판돈 반환)")},
    "tie_rule": {"rematch": N_("재경기"), "split": N_("나눠 가짐")},
    "rejoin_cost": {"none": N_("재참가 불가"), "half": N_("판돈 절반"), "full": N_("판돈만큼")},
    "ttaeng_value": {"off": N_("없음"), "school": N_("학교 1·2배"), "double": N_("학교 2·4배")},
}


def choice_label(option: str, value: Any) -> str:
    """The label of one option value in the current language (e.g. "1,000칩")."""
    return _(CHOICE_LABELS[option][value]).format(v=value)


def option_change(field: str, old: Any, new: Any) -> str:
    """One rule the host changed, for the log: "  시작 칩: 1,000칩 → 2,000칩"."""
    spec = SPEC_BY_FIELD.get(field)
    if spec is None:  # (an option this version does not know)
        return f"  {field}: {old} → {new}"

    def shown(value: Any) -> str:
        if isinstance(value, bool):
            return _("켬") if value else _("끔")
        labels = CHOICE_LABELS.get(field, {})
        return _(labels[value]).format(v=value) if value in labels else str(value)

    return f"  {_(spec.label)}: {shown(old)} → {shown(new)}"


#: The engine's Korean names (msgids) of actions and hands, for extraction; shown via
#: :func:`action_name` and :func:`hand_name`.
_ENGINE_WORDS = (
    N_("다이"), N_("체크"), N_("삥"), N_("콜"), N_("따당"), N_("쿼터"), N_("하프"), N_("풀"),
    N_("38광땡"), N_("18광땡"), N_("13광땡"), N_("장땡"), N_("삥땡"), N_("알리"), N_("독사"),
    N_("구삥"), N_("장삥"), N_("장사"), N_("세륙"), N_("갑오"), N_("망통"), N_("땡잡이"),
    N_("암행어사"),
)  # fmt: skip


def action_name(kind: str) -> str:
    """ "콜" / "Call" for an action type (the engine's name translated)."""
    name = ACTION_NAMES.get(kind, kind)
    return _(name)


def hand_name(name: str) -> str:
    """An engine hand name ("38광땡", "7땡", "5끗", "구사") in the current language."""
    if len(name) == 2 and name[0].isdigit() and name[1] in "땡끗":
        template = _("{n}땡") if name[1] == "땡" else _("{n}끗")
        return template.format(n=name[0])
    return _(name)


#: A card's full label by kind ("3월 광" / "3 Bright"; 8월's plain card is 일반, the others' 띠).
_CARD_NAMES = {
    "gwang": N_("{month}월 광"),
    "yeol": N_("{month}월 열끗"),
    "ribbon": N_("{month}월 띠"),
    "plain": N_("{month}월 일반"),
}


def card_name(card: Card) -> str:
    """ "3월 광" / "3 Bright": a card's month and kind in the current language (the
    engine's ``Card.label``, translated)."""
    plain = "plain" if card.month == 8 else "ribbon"
    kind = card.kind if card.kind != "normal" else plain
    return _(_CARD_NAMES[kind]).format(month=card.month)


def object_particle(word: str) -> str:
    """``word`` + 을/를, by whether its last syllable has a final consonant ("삥을", "체크를")."""
    code = ord(word[-1]) - 0xAC00 if word else -1
    batchim = 0 <= code < 11172 and code % 28 != 0
    return word + ("을" if batchim else "를")


def first_fit(cells: int, *texts: str) -> str:
    """The first of ``texts`` (longest first) that fits ``cells`` cells, else the last: a line
    shortened on purpose instead of cut by the terminal's edge."""
    return next((t for t in texts if cell_len(t) <= cells), texts[-1])


def chips(n: int) -> str:
    return f"{n:,}"


def card_label(card: Mapping[str, Any]) -> str:
    """ "3월 광" for a visible card, "??" for a face-down one."""
    if card.get("hidden") or "id" not in card:
        return "??"
    return card_name(DECK[int(card["id"])])


_SHORT_KIND = {"gwang": N_("광"), "yeol": N_("열")}


def card_short(card: Mapping[str, Any]) -> str:
    """ "3광", "7열", "9띠", "8일" (8월 일반): a seat line has no room for full labels."""
    if card.get("hidden") or "id" not in card:
        return "[?]"
    c = DECK[int(card["id"])]
    short = _SHORT_KIND.get(c.kind)
    kind = _(short) if short else _("일") if c.month == 8 else _("띠")
    return _("{month}{kind}").format(month=c.month, kind=kind)


def cards_label(cards: Sequence[Mapping[str, Any]]) -> str:
    return " + ".join(card_label(c) for c in cards)


def option_summary_forms(options: Options) -> tuple[str, ...]:
    """The lobby's 규칙 cell: the options people pick a room by, longest first, then shorter
    forms that drop the least telling part (the list shows the longest its column fits; the
    selected room's rules are in full below the list): first the word "chips" (the number
    stays), then the starting chips, and only then the parts from the end. So "·풀"/"·Full"
    stays as long as the starting chips can make room for it (English words are longer)."""
    cards = _(MODE_SHORT.get(options.card_mode, "2장"))
    start = _("{n:,}칩").format(n=options.starting_chips)
    rest = [_("학교 {n}").format(n=options.base_unit)]
    if options.end_condition == "hands":
        rest.append(_("{n}판").format(n=options.hand_limit))
    else:
        rest.append(_("최후 1인"))
    if options.max_raise == "full":
        rest.append(_("풀"))
    forms = [[cards, start, *rest], [cards, f"{options.starting_chips:,}", *rest]]
    forms += [[cards, *rest[:n]] for n in range(len(rest), -1, -1)]
    return tuple(dict.fromkeys("·".join(parts) for parts in forms))


def bet_label(kind: str, amount: int | None = None, all_in: bool = False) -> str:
    """Action bar text: "4 콜 (+60)"; the amount is the engine's exact chips."""
    text = f"{BET_KEYS[kind]} {action_name(kind)}"
    if amount:
        text += f" (+{chips(amount)})"
    if all_in:
        text += " " + _("올인")
    return text


def bet_label_forms(label: str) -> tuple[str, ...]:
    """``label`` ("7 하프 (+99,949) 올인"), then shorter forms that keep what matters: the
    amount without brackets ("7 하프 +99,949 올인"), then an all-in without its amount (it is
    the whole stack, shown beside the own cards): "7 하프 올인"."""
    forms = [label]
    bare = label.replace(" (+", " +").replace(")", "")
    if bare != label:
        forms.append(bare)
    all_in = " " + _("올인")
    if label.endswith(all_in) and "+" in label:
        forms.append(label.split(" (+")[0].split(" +")[0] + all_in)
    return tuple(forms)


#: The log's line when the host changes the rules: i shows them all (the table's key).
RULES_CHANGED = KeyHint(N_("방장이 방 규칙을 바꿨어요 ({rules} 자세히)"), rules="rules")


def event_lines(event: RoomEvent, hand_names: Mapping[str, str] | None = None) -> list[str]:
    """A public event as hand-log lines (most bookkeeping events print nothing).
    ``hand_names``: a showdown's hands as the table names them (an unfired special by its
    plain value, ``present.text.showdown_name``); without it, the engine's names."""
    p = event.get("player", "")
    if event["type"] == "roomOpen":
        return [_("{p}님이 방을 만들었어요").format(p=event["host"])]
    if event["type"] == "join":
        return [_("{p}님이 앉았어요").format(p=p)]
    if event["type"] == "watch":
        return [_("{p}님이 관전해요").format(p=p)]
    if event["type"] == "joinQueued":
        return [_("{p}님이 다음 판부터 앉아요").format(p=p)]
    if event["type"] == "joinCancel":
        return [_("{p}님이 다음 판에 앉지 않아요").format(p=p)]
    if event["type"] == "seated":
        return [_("{p}님이 {n}칩으로 앉았어요").format(p=p, n=chips(event["stack"]))]
    if event["type"] in ("unwatch", "leaveRoom") and event.get("by"):
        return [_("{p}님이 방장에게 내보내졌어요").format(p=p)]
    if event["type"] == "unwatch":
        return [_("{p}님이 관전을 그만뒀어요").format(p=p)]
    if event["type"] == "leaveRoom":
        return [_("{p}님이 방을 나갔어요").format(p=p)]
    if event["type"] == "host" and event.get("by"):
        return [_("{by}님이 {p}님에게 방장을 넘겼어요").format(by=event["by"], p=p)]
    if event["type"] == "host":
        return [_("{p}님이 방장이 됐어요").format(p=p)]
    if event["type"] == "locked":
        return [_("방장이 방을 잠갔어요. 새로 앉거나 관전할 수 없어요")]
    if event["type"] == "unlocked":
        return [_("방장이 방 잠금을 풀었어요")]
    if event["type"] == "codeChanged":
        return [_("방장이 방 코드를 바꿨어요")]
    if event["type"] == "optionsChanged":  # each change: [field, old, new] (rooms/moderation)
        return [RULES_CHANGED.text()] + [
            option_change(str(field), old, new) for field, old, new in event.get("changes", ())
        ]
    if event["type"] == "readmitted":
        return [_("방장이 {p}님을 다시 받아요").format(p=", ".join(event.get("players", ())))]
    if event["type"] == "offline":
        return [_("{p}님의 연결이 끊겼어요").format(p=p)]
    if event["type"] == "online":
        return [_("{p}님이 다시 들어왔어요").format(p=p)]
    if event["type"] == "gameStart":
        return [_("게임 시작! {n}명").format(n=len(event["players"]))]
    if event["type"] == "handStart":
        return [
            _("── {n}판 · 선 {dealer} · 학교 {school} ──").format(
                n=event["handNo"], dealer=event["dealer"], school=chips(event["baseUnit"])
            )
        ]
    if event["type"] == "round" and event.get("street") == 1:
        return [_("2차 베팅")]
    if event["type"] == "bet":
        text = f"{p} {action_name(event['action'])}"
        if event.get("amount"):
            text += f" {chips(event['amount'])}"
        return [text + (" " + _("(올인)") if event.get("allIn") else "")]
    if event["type"] == "fold":
        return [f"{p} {action_name('die')}" + (" " + _("(자동)") if event.get("auto") else "")]
    if event["type"] == "timeout":
        return [_("{p} 시간 초과").format(p=p)]  # the automatic action follows as its own event
    if event["type"] == "away":
        return [(_("{p} 자리 비움") if event.get("away") else _("{p} 돌아왔어요")).format(p=p)]
    if event["type"] == "chosen":
        return [_("{p} 카드 선택 완료").format(p=p)]
    if event["type"] == "showdown":
        names = hand_names or {}
        lines = [
            f"{h['player']}: {cards_label(h['cards'])} = "
            + names.get(h["player"], hand_name(h["name"]))
            for h in event["hands"]
        ]
        for h in event["hands"]:  # 후회의 섯다 (issue 36): what each could have kept
            if h.get("unchosen"):
                text = _("{p} 안 고른 카드: {cards}")
                lines.append(text.format(p=h["player"], cards=cards_label(h["unchosen"])))
        return lines
    if event["type"] == "payout":
        why = WIN_REASONS.get(event.get("reason", ""), "")
        # the net (issue 32): what the winner gained, not the pot they took back their own from
        text = _("{p} +{n}칩").format(p=p, n=chips(event.get("net", event["amount"])))
        return [text + (f" ({_(why)})" if why else "")]
    if event["type"] == "rematch":
        reason = REMATCH_REASONS.get(event.get("reason", ""), "")
        return [
            _("재경기 {n}회차 - {reason}: {players}").format(
                n=event["rematchNo"],
                reason=_(reason) if reason else "",
                players=", ".join(event["participants"]),
            )
        ]
    if event["type"] == "rematchStart":
        return [
            _("── 재경기 {n}회차 · 선 {dealer} ──").format(
                n=event["rematchNo"], dealer=event["dealer"]
            )
        ]
    if event["type"] == "rejoinOpen":
        return [_("재참가를 물어요 (재참가 비용 {n}칩)").format(n=chips(event["cost"]))]
    if event["type"] == "rejoin":
        return [(_("{p} 재참가") if event.get("accept") else _("{p} 재참가 안 함")).format(p=p)]
    if event["type"] == "gusaChoiceOpen":  # issue 36 구사 선택권
        who = ", ".join(event["players"])
        return [_("{players}님이 구사 재경기를 고르는 중").format(players=who)]
    if event["type"] == "gusaChoice":
        if event.get("accept"):
            return [_("{p} 구사 발동").format(p=p)]
        return [_("{p} 구사 발동 안 함 (그대로 판정)").format(p=p)]
    if event["type"] == "sharedPickOpen":  # issue 36 한장공유
        return [_("{p}님이 공유 카드를 고르는 중").format(p=p)]
    if event["type"] == "sharedCard":
        text = (
            _("공유 카드: {card} (자동으로 골랐어요)")
            if event.get("auto")
            else _("공유 카드: {card}")
        )
        return [text.format(card=card_label(event["card"]))]
    if event["type"] == "dealCommit":  # issue 36: verifiable deals (docs/rules.md §8.4)
        return [_("딜 약속(SHA-256): {commitment}").format(commitment=event["commitment"])]
    if event["type"] == "dealReveal":
        return [
            _("딜 시드 공개: {seed} · 소금 {salt}").format(seed=event["seed"], salt=event["salt"])
        ]
    if event["type"] == "ttaengValue":  # issue 36 땡값: who paid how much to whom
        return [
            _("땡값: {p} → {winner} {n}칩 ({hand})").format(
                p=p, winner=event["winner"], n=chips(event["amount"]), hand=hand_name(event["name"])
            )
        ]
    if event["type"] == "pot" and event["outcome"].get("type") == "refund":
        reason = REMATCH_REASONS.get(event["outcome"].get("reason", ""), N_("구사"))
        return [
            _("{reason} 파토: 판돈 {n}칩을 낸 만큼 돌려줘요").format(
                reason=_(reason), n=chips(event["amount"])
            )
        ]
    if event["type"] == "return":
        return [_("{p}에게 {n}칩 돌려줌").format(p=p, n=chips(event["amount"]))]
    if event["type"] == "busted":
        return [_("{p} 칩이 다 떨어졌어요").format(p=p)]
    if event["type"] == "rebuyOpen":
        return [_("리바이를 물어요: {players}").format(players=", ".join(event["players"]))]
    if event["type"] == "rebuy":
        return [(_("{p} 리바이") if event.get("accept") else _("{p} 그만하기")).format(p=p)]
    if event["type"] == "eliminated":
        return [_("{p} 탈락").format(p=p)]
    if event["type"] == "leave":
        return [_("{p} 퇴장 (이후 자동 다이)").format(p=p)]
    if event["type"] == "disconnect":
        return [_("{p} 연결 끊김 (자동 행동)").format(p=p)]
    if event["type"] == "reconnect":
        return [_("{p} 다시 접속").format(p=p)]
    if event["type"] == "schoolUp":
        return [_("학교가 {n}칩으로 올랐어요").format(n=chips(event["baseUnit"]))]
    if event["type"] == "gameEnd":
        return [_("게임 끝! {summary}").format(summary=game_summary(event))]
    return []


#: The engine's summary line (engine/result.py), taken apart to be said in another language.
_SUMMARY = re.compile(
    r"(?P<hands>\d+)판 종료\. (?P<how>1위|최후의 1인) (?P<top>.+?)\((?P<chips>[+-]?[\d,]+)칩\)"
    r"(?:, 최고 족보 (?P<best>[^(]+)\((?P<holder>.+), (?P<hand>\d+)판\))?"
)


def game_summary(event: Mapping[str, Any]) -> str:
    """The engine's one-line summary of a finished game (its Korean ``summary``) in the
    current language; unchanged in Korean (or if it is not of the engine's form)."""
    summary = str(event.get("summary", ""))
    found = _SUMMARY.fullmatch(summary)
    if found is None or language_code() == KOREAN:
        return summary
    parts = found.groupdict()
    hands = int(parts["hands"])
    if parts["how"] == "1위":
        text = ngettext(
            "{hands}판 종료. 1위 {top}({chips}칩)", "{hands}판 종료. 1위 {top}({chips}칩)", hands
        )
    else:
        text = ngettext(
            "{hands}판 종료. 최후의 1인 {top}({chips}칩)",
            "{hands}판 종료. 최후의 1인 {top}({chips}칩)",
            hands,
        )
    text = text.format(hands=parts["hands"], top=parts["top"], chips=parts["chips"])
    if parts["best"]:
        text += _(", 최고 족보 {name}({holder}, {hand}판)").format(
            name=hand_name(parts["best"]), holder=parts["holder"], hand=parts["hand"]
        )
    return text
