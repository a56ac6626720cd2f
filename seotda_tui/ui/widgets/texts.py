"""Every Korean word the screens show for engine data: cards, actions, options, log lines.

Kept apart from the widgets so the wording is in one place and testable without Textual.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.cells import cell_len

from engine import DECK, Options
from engine.betting import ACTION_NAMES as ACTION_NAMES  # re-exported for the screens
from engine.betting import BET_ACTIONS

#: The fixed action bar, left to right, with its number keys (§9: positions never move).
BET_ORDER = BET_ACTIONS
BET_KEYS = {kind: str(i + 1) for i, kind in enumerate(BET_ORDER)}

REMATCH_REASONS = {"gusa": "구사", "mungGusa": "멍텅구리구사", "tie": "동점"}
WIN_REASONS = {
    "ttaengjabi": "땡잡이!",
    "amhaeng": "암행어사 출두!",
    "fold": "모두 다이",
    "rematchCap": "재경기 3번 뒤 나눔",
}
END_REASONS = {
    "hands": "정해진 판을 모두 쳤어요",
    "lastStanding": "최후의 1인이 남았어요",
    "handCap": "300판에 도달했어요",
    "disconnected": "접속한 사람이 1명 이하라 끝났어요",
}

#: Korean labels of every option value, for the create-room form and the lobby.
CHOICE_LABELS: dict[str, dict[Any, str]] = {
    "card_mode": {"two": "2장 섯다", "three": "3장 섯다 (골라 쓰기)"},
    "deal_mode": {"twoRounds": "1장씩 두 번", "oneRound": "2장 한 번에"},
    "starting_chips": {v: f"{v:,}칩" for v in (500, 1000, 2000, 5000)},
    "base_unit": {v: f"{v}칩" for v in (2, 10, 20, 50)},
    "max_raise": {"half": "하프까지", "full": "풀까지"},
    "end_condition": {"hands": "정해진 판 수", "lastStanding": "최후의 1인"},
    "hand_limit": {v: f"{v}판" for v in (10, 20, 30, 50)},
    "school_up_every": {0: "안 올림", 5: "5판마다", 10: "10판마다", 15: "15판마다"},
    "rebuy": {"off": "없음", "limited": "횟수 제한", "unlimited": "무제한"},
    "rebuy_limit": {v: f"{v}번" for v in (1, 2, 3)},
    "turn_seconds": {v: f"{v}초" for v in (15, 20, 30, 60)},
    "dealer_rule": {"winner": "이긴 사람", "rotate": "돌아가며"},
    "gwang_ttaeng": {"all": "38·18·13광땡", "only38": "38광땡만"},
    "ttaengjabi": {"off": "없음", "strict": "엄격 (3광+7열끗)", "loose": "느슨 (3·7 아무 패)"},
    "mung_gusa": {
        "off": "일반 구사로",
        "upTo8": "8땡까지 재경기",
        "upTo9": "9땡까지 재경기",
        "upToJang": "장땡까지 재경기",
    },
    "gusa_when_winning": {"win": "그냥 이김", "rematch": "그래도 발동"},
    "gusa_outcome": {"rematch": "재경기", "refund": "파토 (판돈 반환)"},
    "tie_rule": {"rematch": "재경기", "split": "나눠 가짐"},
    "rejoin_cost": {"none": "재참가 불가", "half": "판돈 절반", "full": "판돈만큼"},
}


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
    return DECK[int(card["id"])].label


_SHORT_KIND = {"gwang": "광", "yeol": "열"}


def card_short(card: Mapping[str, Any]) -> str:
    """ "3광", "7열", "9띠", "8일" (8월 일반): a seat line has no room for full labels."""
    if card.get("hidden") or "id" not in card:
        return "[?]"
    c = DECK[int(card["id"])]
    kind = _SHORT_KIND.get(c.kind) or ("일" if c.month == 8 else "띠")
    return f"{c.month}{kind}"


def cards_label(cards: list[Mapping[str, Any]]) -> str:
    return " + ".join(card_label(c) for c in cards)


def option_summary_forms(options: Options) -> tuple[str, ...]:
    """The lobby's 규칙 cell: the options people pick a room by, longest first, then shorter
    forms that drop the least telling part (the list shows the longest its column fits; the
    selected room's rules are in full below the list)."""
    parts = ["3장" if options.card_mode == "three" else "2장"]
    parts.append(f"{options.starting_chips:,}칩")
    parts.append(f"학교 {options.base_unit}")
    if options.end_condition == "hands":
        parts.append(f"{options.hand_limit}판")
    else:
        parts.append("최후 1인")
    if options.max_raise == "full":
        parts.append("풀")
    return tuple("·".join(parts[:n]) for n in range(len(parts), 0, -1))


def bet_label(kind: str, amount: int | None = None, all_in: bool = False) -> str:
    """Action bar text: "4 콜 (+60)"; the amount is the engine's exact chips."""
    text = f"{BET_KEYS[kind]} {ACTION_NAMES[kind]}"
    if amount:
        text += f" (+{chips(amount)})"
    if all_in:
        text += " 올인"
    return text


def bet_label_forms(label: str) -> tuple[str, ...]:
    """``label`` ("7 하프 (+99,949) 올인"), then shorter forms that keep what matters: the
    amount without brackets ("7 하프 +99,949 올인"), then an all-in without its amount (it is
    the whole stack, shown beside the own cards): "7 하프 올인"."""
    forms = [label]
    bare = label.replace(" (+", " +").replace(")", "")
    if bare != label:
        forms.append(bare)
    if label.endswith(" 올인") and "+" in label:
        forms.append(label.split(" (+")[0].split(" +")[0] + " 올인")
    return tuple(forms)


def event_lines(event: Mapping[str, Any], hand_names: Mapping[str, str] | None = None) -> list[str]:
    """A public event as hand-log lines (most bookkeeping events print nothing).
    ``hand_names``: a showdown's hands as the table names them (an unfired special by its
    plain value, ``table_text.showdown_name``); without it, the engine's names."""
    kind = event.get("type")
    p = event.get("player", "")
    if kind == "roomOpen":
        return [f"{event['host']}님이 방을 만들었어요"]
    if kind == "join":
        return [f"{p}님이 앉았어요"]
    if kind == "watch":
        return [f"{p}님이 관전해요"]
    if kind in ("unwatch", "leaveRoom") and event.get("by"):
        return [f"{p}님이 방장에게 내보내졌어요"]
    if kind == "unwatch":
        return [f"{p}님이 관전을 그만뒀어요"]
    if kind == "leaveRoom":
        return [f"{p}님이 방을 나갔어요"]
    if kind == "host" and event.get("by"):
        return [f"{event['by']}님이 {p}님에게 방장을 넘겼어요"]
    if kind == "host":
        return [f"{p}님이 방장이 됐어요"]
    if kind == "locked":
        return ["방장이 방을 잠갔어요. 새로 앉거나 관전할 수 없어요"]
    if kind == "unlocked":
        return ["방장이 방 잠금을 풀었어요"]
    if kind == "readmitted":
        return [f"방장이 {', '.join(event.get('players', ()))}님을 다시 받아요"]
    if kind == "offline":
        return [f"{p}님의 연결이 끊겼어요"]
    if kind == "online":
        return [f"{p}님이 다시 들어왔어요"]
    if kind == "gameStart":
        return [f"게임 시작! {len(event['players'])}명"]
    if kind == "handStart":
        return [
            f"── {event['handNo']}판 · 선 {event['dealer']} · 학교 {chips(event['baseUnit'])} ──"
        ]
    if kind == "round" and event.get("street") == 1:
        return ["2차 베팅"]
    if kind == "bet":
        text = f"{p} {ACTION_NAMES.get(event['action'], event['action'])}"
        if event.get("amount"):
            text += f" {chips(event['amount'])}"
        return [text + (" (올인)" if event.get("allIn") else "")]
    if kind == "fold":
        return [f"{p} 다이" + (" (자동)" if event.get("auto") else "")]
    if kind == "timeout":
        return [f"{p} 시간 초과"]  # the automatic action follows as its own event
    if kind == "away":
        return [f"{p} 자리 비움" if event.get("away") else f"{p} 돌아왔어요"]
    if kind == "chosen":
        return [f"{p} 카드 선택 완료"]
    if kind == "showdown":
        names = hand_names or {}
        return [
            f"{h['player']}: {cards_label(h['cards'])} = {names.get(h['player'], h['name'])}"
            for h in event["hands"]
        ]
    if kind == "payout":
        why = WIN_REASONS.get(event.get("reason", ""), "")
        return [f"{p} +{chips(event['amount'])}칩" + (f" ({why})" if why else "")]
    if kind == "rematch":
        reason = REMATCH_REASONS.get(event.get("reason", ""), "")
        return [f"재경기 {event['rematchNo']}회차 - {reason}: {', '.join(event['participants'])}"]
    if kind == "rematchStart":
        return [f"── 재경기 {event['rematchNo']}회차 · 선 {event['dealer']} ──"]
    if kind == "rejoinOpen":
        return [f"재참가를 물어요 (재참가 비용 {chips(event['cost'])}칩)"]
    if kind == "rejoin":
        return [f"{p} 재참가" if event.get("accept") else f"{p} 재참가 안 함"]
    if kind == "pot" and event["outcome"].get("type") == "refund":
        reason = REMATCH_REASONS.get(event["outcome"].get("reason", ""), "구사")
        return [f"{reason} 파토: 판돈 {chips(event['amount'])}칩을 낸 만큼 돌려줘요"]
    if kind == "return":
        return [f"{p}에게 {chips(event['amount'])}칩 돌려줌"]
    if kind == "busted":
        return [f"{p} 칩이 다 떨어졌어요"]
    if kind == "rebuyOpen":
        return [f"리바이를 물어요: {', '.join(event['players'])}"]
    if kind == "rebuy":
        return [f"{p} 리바이" if event.get("accept") else f"{p} 그만하기"]
    if kind == "eliminated":
        return [f"{p} 탈락"]
    if kind == "leave":
        return [f"{p} 퇴장 (이후 자동 다이)"]
    if kind == "disconnect":
        return [f"{p} 연결 끊김 (자동 행동)"]
    if kind == "reconnect":
        return [f"{p} 다시 접속"]
    if kind == "schoolUp":
        return [f"학교가 {chips(event['baseUnit'])}칩으로 올랐어요"]
    if kind == "gameEnd":
        return [f"게임 끝! {event.get('summary', '')}"]
    return []
