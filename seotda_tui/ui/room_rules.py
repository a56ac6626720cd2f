"""One room's rules in a few short Korean lines: the waiting room, the table's ``i`` key and
help's 규칙 tab all show this text, so what a player reads is the same wherever they look.

Pure text (no Textual); every line fits an 80-column terminal (the lobby's one-line summary
cannot hold them all).
"""

from __future__ import annotations

from rich.cells import cell_len

from engine import Options

from ..i18n import N_, _, ngettext

#: The widest line :func:`room_rules_lines` writes, in cells (checked by the tests).
RULES_CELLS = 78

# msgids, translated where they are used
_REBUY = {"off": N_("리바이 없음"), "unlimited": N_("리바이 무제한")}
_REJOIN = {
    "none": N_("구사 재경기 때 다이한 사람 재참가 없음"),
    "half": N_("구사 재경기 때 다이한 사람 재참가: 판돈 절반"),
    "full": N_("구사 재경기 때 다이한 사람 재참가: 판돈만큼"),
}
_MUNG = {"upTo8": N_("8땡까지"), "upTo9": N_("9땡까지"), "upToJang": N_("장땡까지")}
#: Issue #19's two 구사 rules, for help's 규칙 tab (one sentence each; msgids).
GUSA_WHEN_WINNING_TEXT = {
    "win": N_("구사를 든 사람이 이미 이기고 있으면(상대가 모두 2끗 이하) 구사 없이 그냥 이겨요."),
    "rematch": N_(
        "구사를 든 사람이 이기고 있어도(상대가 모두 2끗 이하) 전통 규칙대로 구사가 발동해요."
    ),
}
GUSA_OUTCOME_TEXT = {
    "rematch": N_(
        "구사가 발동하면 판돈은 그대로 두고 남은 사람끼리 재경기해요 (학교는 다시 안 내요)."
    ),
    "refund": N_(
        "구사가 발동하면 사구 파토: 다이한 사람까지 모두 이번 판에 낸 칩(학교 포함)을 그대로"
        " 돌려받고 다음 판으로 가요. 구사와 상관없는 사이드 팟은 평소대로 가려요."
    ),
}
_TTAENGJABI = {"strict": N_("땡잡이(3광+7열)"), "loose": N_("땡잡이(3·7 아무 패)")}
#: Issue 36: help's sentences on 땡값 and 구사 선택권 (the short form: :func:`_ttaeng`).
TTAENG_TEXT = N_(
    "땡값: 쇼다운에서 땡이나 광땡으로 이기면 그 판에서 다이한 사람마다 학교 {one}개(장땡·광땡은"
    " {two}개)를 더 내요. 콜하고 진 사람은 안 내요. 땡잡이·암행어사로 이긴 판은 없어요."
)
GUSA_CHOICE_TEXT = N_(
    "구사 선택권: 구사가 발동할 때 구사를 든 사람이 y(발동)나 n(그대로 판정)을 골라요."
    " 시간이 지나면 발동해요."
)


#: The card mode as the room's rules name it (issue 36 adds the variants).
_MODE = {
    "two": N_("2장 섯다"),
    "three": N_("3장 섯다(2장 고르기)"),
    "indian": N_("인디언 섯다(내 첫 장은 남들만 봐요)"),
    "shared": N_("한장공유(선이 고른 1장을 모두 함께 써요)"),
    "regret": N_("후회의 섯다(4장 가져와 2장 고르기)"),
}


def _game(o: Options) -> list[str]:
    parts = [_(_MODE.get(o.card_mode, "2장 섯다"))]
    if o.card_mode == "two":
        parts.append(_("1장씩 두 번") if o.deal_mode == "twoRounds" else _("2장 한 번에"))
    parts.append(_("시작 {n:,}칩").format(n=o.starting_chips))
    parts.append(_("학교 {n}").format(n=o.base_unit))
    if o.school_up_every:  # §5.7: doubled up to starting chips ÷ 5 (help's rules say more)
        text = _("{n}판마다 2배 (최대 {cap})")
        parts.append(text.format(n=o.school_up_every, cap=o.school_cap))
    if o.end_condition == "hands":
        parts.append(_("{n}판").format(n=o.hand_limit))
    else:
        parts.append(_("최후 1인까지"))
    return parts


def _play(o: Options) -> list[str]:
    if o.rebuy in _REBUY:
        rebuy = _(_REBUY[o.rebuy])
    else:
        n = o.rebuy_limit
        rebuy = ngettext("리바이 {n}번까지", "리바이 {n}번까지", n).format(n=n)
    return [
        _("차례 {n}초").format(n=o.turn_seconds),
        _("풀 베팅 가능") if o.max_raise == "full" else _("레이즈는 하프까지 (풀 없음)"),
        rebuy,
        _("선: 이긴 사람") if o.dealer_rule == "winner" else _("선: 돌아가며"),
        # issue 32: a spectator may take a seat at the next hand of a running game
        _("게임 중 참가: 다음 판부터") if o.mid_join else _("게임 중 참가 없음"),
    ]


def _specials(o: Options) -> list[list[str]]:
    on = [_("광땡 모두") if o.gwang_ttaeng == "all" else _("38광땡만")]
    if o.ttaengjabi in _TTAENGJABI:
        on.append(_(_TTAENGJABI[o.ttaengjabi]))
    if o.amhaeng:
        on.append(_("암행어사"))
    if o.gusa:
        on.append(_("구사"))
    if o.effective_mung_gusa != "off":
        on.append(_("멍구사({upto})").format(upto=_(_MUNG[o.effective_mung_gusa])))
    off = [
        _(name)
        for name, enabled in (
            (N_("땡잡이"), o.ttaengjabi != "off"),
            (N_("암행어사"), o.amhaeng),
            (N_("구사"), o.gusa),
            (N_("멍구사"), o.effective_mung_gusa != "off"),
        )
        if not enabled
    ]
    topics = [[_("특수패: {first}").format(first=on[0]), *on[1:]]]
    if off:
        topics.append([_("꺼진 특수패: {names}").format(names=", ".join(off))])
    return topics


def gusa_effect(options: Options) -> str:
    """What a 구사 that fires does in this room (``gusaOutcome``), in the session's language."""
    return _("파토(판돈 반환)") if options.effective_gusa_outcome == "refund" else _("재경기")


def _gusa_rules(o: Options) -> list[str]:
    """The 구사 rules that differ from the defaults, and the rejoin rule when it applies."""
    parts = []
    if o.effective_gusa_when_winning == "rematch":
        parts.append(_("구사는 이기고 있어도 {effect}").format(effect=gusa_effect(o)))
    elif o.effective_gusa_outcome == "refund":
        parts.append(_("구사는 {effect}").format(effect=gusa_effect(o)))
    if o.effective_gusa_choice:
        parts.append(_("구사 발동은 든 사람이 골라요"))
    if o.effective_gusa_outcome != "refund":
        parts.append(_(_REJOIN[o.rejoin_cost]))
    return parts


def _ttaeng(o: Options) -> list[list[str]]:
    """Issue 36 땡값 as one topic, when the room has it (schools per 땡, per 장땡/광땡)."""
    if o.ttaeng_value == "off":
        return []
    one = 1 if o.ttaeng_value == "school" else 2
    return [
        [
            _("땡값: 다이한 사람이 내요"),
            _("땡 학교 {n}개").format(n=one),
            _("장땡·광땡 학교 {n}개").format(n=2 * one),
        ]
    ]


def rule_topics(options: Options) -> list[list[str]]:
    """The rules as topics of short parts (the options of engine/options.py)."""
    tie = _("동점이면 재경기") if options.tie_rule == "rematch" else _("동점이면 나눠 가짐")
    if options.hints:
        hints = _("힌트(내 패 이름·강도) 켬")
    else:
        hints = _("힌트 끔 (패 이름은 공개 때 보여요)")
    return [
        _game(options),
        _play(options),
        *_specials(options),
        [tie, *_gusa_rules(options)],
        *_ttaeng(options),
        [hints, _("딜 검증 켬 (SHA-256 약속)") if options.verifiable_deals else _("딜 검증 끔")],
    ]


def room_rules_lines(
    options: Options,
    cells: int = RULES_CELLS,
    topics: int | None = None,
    rows: int | None = None,
) -> list[str]:
    """The room's rules, a topic a line, wrapped between parts to ``cells`` (continuation
    lines indented): never cut in the middle of a rule. ``topics``: only the first few (the
    lobby's short view of the selected room: the game and the play); ``rows``: the topics
    that fit in that many lines, in order (the waiting room of a full table; ``i`` has all)."""
    lines: list[str] = []
    for topic in rule_topics(options)[:topics]:
        topic_lines: list[str] = []
        line = ""
        for part in topic:
            joined = f"{line} · {part}" if line else part
            if line and cell_len(joined) > cells:
                topic_lines.append(line)
                joined = "  " + part
            line = joined
        topic_lines.append(line)
        if rows is not None and len(lines) + len(topic_lines) > rows:
            break
        lines.extend(topic_lines)
    return lines
