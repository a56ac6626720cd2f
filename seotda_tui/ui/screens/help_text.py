"""What the help screen says: the rules and the keys, for one room's options (the 족보 rows, with
example cards, are :mod:`seotda_tui.ui.jokbo`'s, shared with the table).

Pure data and text (no Textual), so the wording is tested on its own. Only the specials that the
room's options enable are listed (§9 "특수패는 켜진 옵션만 표시").
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from engine import Options

from ...i18n import N_, _
from ..jokbo import SPECIALS
from ..jokbo import jokbo_rows as jokbo_rows  # (re-exported: its rows' tests read them here)
from ..keys import BET_NUMBERS, CARD_NUMBERS, shown, shown_numbers
from ..room_rules import (
    GUSA_CHOICE_TEXT,
    GUSA_OUTCOME_TEXT,
    GUSA_WHEN_WINNING_TEXT,
    TTAENG_TEXT,
    room_rules_lines,
)

VIRTUAL_NOTE = N_(
    "칩은 가상 칩이에요: 이 방에서만 쓰고, 돈이나 재화로 바꾸거나 남에게 줄 수 없어요."
)


def rules_text(options: Options) -> str:
    """The rules for beginners (§9 "규칙 보기"): flow, 끗, specials, betting words."""
    two_rounds = options.card_mode == "two" and options.deal_mode == "twoRounds"
    if options.card_mode == "three":
        flow = _(
            "1. 학교(참가비)를 내요.\n2. 2장씩 받고 1차 베팅.\n3. 1장 더 받아 3장 중 2장을 골라요"
            " (버린 1장은 아무도 못 봐요).\n4. 2차 베팅 뒤 남은 사람끼리 패를 공개해요."
        )
    elif options.card_mode == "indian":  # issue 36
        flow = _(
            "1. 학교(참가비)를 내요.\n2. 1장씩 받아요: 내 첫 장은 남들만 보고 나는 못 봐요"
            " (관전자도 봐요). 1차 베팅.\n3. 1장 더 받아요: 이 장은 나만 봐요. 2차 베팅.\n"
            "4. 2명 이상 남으면 패를 공개해 가장 높은 족보가 판돈을 가져가요."
        )
    elif options.card_mode == "regret":  # issue 36
        flow = _(
            "1. 학교(참가비)를 내요.\n2. 20장을 엎어 두고 선의 오른쪽부터 차례로 1장씩 가져와요"
            " (4장씩, 6명이면 3장씩).\n3. 가진 카드 중 2장을 몰래 골라요.\n4. 베팅 1번 뒤 남은"
            " 사람끼리 고른 2장을 공개하고, 안 고른 카드도 모두 보여 줘요."
        )
    elif options.card_mode == "shared":  # issue 36
        flow = _(
            "1. 학교(참가비)를 내요.\n2. 선이 20장 중 1장을 공유 카드로 골라 모두에게 보여 줘요"
            " (시간이 지나면 아무 장이나).\n3. 남은 카드에서 1장씩 받고 베팅 1번.\n"
            "4. 내 패는 내 카드 + 공유 카드예요. 2명 이상 남으면 패를 공개해 가장 높은 족보가"
            " 판돈을 가져가요 (같은 족보는 동점 처리대로)."
        )
    elif two_rounds:
        flow = _(
            "1. 학교(참가비)를 내요.\n2. 1장씩 받고 1차 베팅.\n3. 1장 더 받고 2차 베팅.\n"
            "4. 2명 이상 남으면 패를 동시에 공개해 가장 높은 족보가 판돈을 가져가요."
        )
    else:
        flow = _(
            "1. 학교(참가비)를 내요.\n2. 2장을 한 번에 받고 베팅 1번.\n"
            "3. 2명 이상 남으면 패를 공개해 가장 높은 족보가 판돈을 가져가요."
        )
    raise_words = _("쿼터·하프·풀") if options.max_raise == "full" else _("쿼터·하프")
    if options.tie_rule == "rematch":
        tie = _("같은 족보끼리는 동점자끼리 재경기해요.")
    else:
        tie = _("같은 족보끼리는 동점자끼리 나눠 가져요.")
    lines = [
        _("■ 이 방의 규칙"),
        *room_rules_lines(options),
        "",
        _("■ 진행 순서"),
        flow,
        _("도중에 다른 사람이 모두 다이하면 남은 1명이 패를 보이지 않고 판돈을 가져가요."),
        "",
        _("■ 끗 계산"),
        _(
            "두 장의 월(숫자)을 더한 값의 일의 자리가 끗이에요. 7 + 8 = 15 → 5끗,"
            " 9 + 10 = 19 → 9끗(갑오), 2 + 8 = 10 → 0끗(망통)."
        ),
        _("땡(같은 월 두 장)과 광땡, 알리~세륙 같은 이름 있는 조합은 끗보다 높아요."),
        tie,
        "",
        _("■ 특수패 (이 방에서 켜진 것)"),
    ]
    specials = [r for r in jokbo_rows(options) if r.section == SPECIALS]
    lines += [f"· {r.name}: {r.note}" for r in specials] or [_("· 없음")]
    if options.gusa:
        lines.append(_(GUSA_WHEN_WINNING_TEXT[options.gusa_when_winning]))
        lines.append(_(GUSA_OUTCOME_TEXT[options.gusa_outcome]))
        if options.gusa_choice:
            lines.append(_(GUSA_CHOICE_TEXT))
    if options.ttaeng_value != "off":
        one = 1 if options.ttaeng_value == "school" else 2
        lines.append(_(TTAENG_TEXT).format(one=one, two=2 * one))
    if options.verifiable_deals:  # issue 36 (docs/rules.md §8.4)
        lines.append(
            _(
                "딜 검증: 판마다 패를 나누기 전에 그 판 덱의 시드(와 소금)의 SHA-256 약속을"
                " 모두에게 보여 주고, 판이 끝나면 시드를 공개해요. 다시 보기에서 v로 판의"
                " 기록을 받아 seotda-server --verify-hand로 확인할 수 있어요."
            )
        )
    lines += [
        "",
        _("■ 베팅 용어"),
        _("· 학교: 판마다 모두 내는 참가비 ({n}칩부터)").format(n=options.base_unit),
        *_school_rise(options),
        _("· 체크: 아무도 걸지 않았을 때 돈을 걸지 않고 넘겨요"),
        _("· 삥: 아무도 걸지 않았을 때 기본 단위만큼 걸어요"),
        _("· 콜: 앞사람이 건 만큼 맞춰요"),
        _("· 따당: 앞사람이 건 금액의 2배를 걸어요"),
        _("· 쿼터: 콜 + (판돈의 1/4)"),
        _("· 하프: 콜 + (판돈의 1/2)"),
    ]
    if options.max_raise == "full":
        lines.append(_("· 풀: 콜 + 판돈 전체"))
    lines += [
        _("· 다이: 이번 판을 포기해요 (낸 칩은 판돈에 남아요)"),
        _("레이즈({words}·따당)는 한 라운드에 1번, 체크나 콜을 한 뒤에는 못 해요.").format(
            words=raise_words
        ),
        _("버튼의 숫자 키(1~8)로 행동하고, 버튼에 적힌 금액이 실제로 내는 칩이에요."),
        "",
        "■ " + _(VIRTUAL_NOTE),
    ]
    return "\n".join(lines)


def _school_rise(options: Options) -> list[str]:
    """§5.7 in words: how the 학교 rises and where it stops (starting chips ÷ 5), with this
    room's steps, so nobody expects 160 after 80 in a 500-chip room."""
    if not options.school_up_every:
        return [_("  이 방에서는 학교가 오르지 않아요.")]
    text = _("  {every}판마다 2배로 오르고, 시작 칩의 1/5({cap}칩)에서 멈춰요: {steps}")
    steps = " → ".join(f"{step:,}" for step in options.school_steps())
    return [text.format(every=options.school_up_every, cap=options.school_cap, steps=steps)]


@dataclass(frozen=True)
class KeySection:
    """One block of help's 키 tab and its row of the README's keys table (``where``, the
    row's first cell: tests/test_help_keys.py checks that both name the same keys, and that
    every key a screen binds is here). ``entries``: (keys as drawn, what they do: a msgid);
    the keys are drawn from the screens' own key map (ui/keys.py), so they move together."""

    where: str
    title: str  # msgid
    entries: tuple[tuple[str, str], ...]


KEY_SECTIONS = (
    KeySection(
        "anywhere",
        N_("어디서나"),
        (
            (shown("help"), N_("도움말: 족보(카드 그림), 규칙, 키")),
            (shown("ascii"), N_("ASCII 카드 (영문·기호로만 그려요)")),
            (shown("big_text"), N_("큰 글씨 카드 (월 숫자를 크게)")),
            (shown("chat"), N_("채팅 (Enter 보내기, Esc 닫기)")),
            (shown("quick_chat"), N_("빠른 채팅 (숫자 키 하나로 인사·감정 보내기)")),
            (shown("language"), N_("English ↔ 한국어 (입력 칸 밖에서)")),
            (shown(("leave", "cancel")), N_("나가기·닫기 (나가기는 먼저 물어요)")),
        ),
    ),
    KeySection(
        "help",
        N_("도움말"),
        (
            (shown(("left", "right"), "next_field"), N_("탭 바꾸기 (Shift+Tab 거꾸로)")),
            (shown(("up", "down"), ("page_up", "page_down")), N_("스크롤")),
            (shown(("home", "end")), N_("맨 위/맨 아래")),
            (shown(("leave", "cancel", "help")), N_("닫기")),
        ),
    ),
    KeySection(
        "lobby",
        N_("로비"),
        (
            (shown(("up", "down"), ("page_up", "page_down")), N_("방 고르기 (Home/End 처음/끝)")),
            (shown("new_room"), N_("새 방 만들기")),
            (shown("next_field"), N_("새 방: 다음 칸")),
            (shown(("left", "right"), "ready"), N_("새 방: 옵션 바꾸기")),
            (shown("confirm"), N_("새 방: 만들기 · 목록: 고른 방에 참가 (게임 중이면 관전)")),
            (shown("cancel"), N_("새 방: 취소")),
            (shown("watch"), N_("고른 방 관전하기")),
            (shown("code"), N_("코드로 입장 (비공개 방)")),
            (shown("rules"), N_("고른 방의 규칙")),
            (shown("history"), N_("지난 게임 (다시 보기)")),
            (shown("records"), N_("전적")),
            (shown("browser_link"), N_("브라우저 링크 (SSH 키 닉네임을 브라우저에서 한 번)")),
            (shown("leave"), N_("나가기 (먼저 물어요)")),
        ),
    ),
    KeySection(
        "past games",
        N_("지난 게임"),
        (
            (shown(("up", "down"), "confirm"), N_("고르기, 다시 보기")),
            (shown(("left", "right")), N_("다시 보기: 한 수")),
            (
                shown(("previous_hand", "next_hand"), ("page_up", "page_down")),
                N_("다시 보기: 한 판"),
            ),
            (shown(("home", "end")), N_("다시 보기: 처음/끝")),
            (shown("deal_record"), N_("다시 보기: 그 판의 딜 검증 기록 (딜 검증 방)")),
            (shown("leave"), N_("돌아가기")),
        ),
    ),
    KeySection(
        "waiting room",
        N_("대기실"),
        (
            (shown("start"), N_("시작 (방장, 2명 이상 앉았을 때)")),
            (shown("sit"), N_("자리에 앉기")),
            (shown("add_bot"), N_("봇 추가 (누를 때마다 신중 → 강함 → 무작위)")),
            (shown("remove_bot"), N_("마지막 봇 빼기")),
            (shown("moderate"), N_("방장 메뉴: 내보내기 · 잠그기 · 방장 넘기기 · 규칙 바꾸기")),
            (shown("leave"), N_("나가기")),
        ),
    ),
    KeySection(
        "table",
        N_("게임 테이블"),
        (
            (
                shown_numbers(BET_NUMBERS),
                N_("다이 · 체크 · 삥 · 콜 · 따당 · 쿼터 · 하프 · 풀 (버튼의 금액을 내요)"),
            ),
            (shown("sit"), N_("관전 중: 다음 판부터 앉기 (중간 참가가 켜진 방, 학교를 내고)")),
            (shown("rules"), N_("이 방의 규칙")),
            (shown("toggle_log"), N_("판 기록 보기/숨기기")),
            (shown("seat_records"), N_("자리별 전적 보기")),
            (shown("moderate"), N_("방장 메뉴: 내보내기(판과 판 사이) · 방 잠그기 · 방장 넘기기")),
            (shown("leave"), N_("나가기")),
        ),
    ),
    KeySection(
        "3장 섯다",
        N_("3장 섯다"),
        (
            (shown_numbers(CARD_NUMBERS), N_("두 장 고르기 (확정 전에 족보가 보여요)")),
            (shown("recommend"), N_("추천 두 장")),
            (shown("confirm"), N_("확정")),
        ),
    ),
    KeySection(  # issue 36 variants
        "variants",
        N_("한장공유 · 후회의 섯다"),
        (
            (
                shown_numbers(range(1, 3)),
                N_("한장공유: 선이 공유 카드를 넘겨 봐요 (1 이전, 2 다음)"),
            ),
            (shown("confirm"), N_("한장공유: 그 카드를 공유 · 후회의 섯다: 한 장 가져오기")),
            (shown_numbers(range(1, 5)), N_("후회의 섯다: 네 장 중 두 장 고르기")),
        ),
    ),
    KeySection(
        "prompts",
        N_("물음"),
        (
            (shown(("yes", "no")), N_("구사 선택, 구사 재경기 재참가, 리바이 답하기")),
            (shown("ready"), N_("다음 판 준비")),
        ),
    ),
    KeySection(
        "results",
        N_("게임 결과"),
        (
            (shown(("confirm", "ready", "cancel")), N_("방으로")),
            (shown("leave"), N_("로비로")),
        ),
    ),
)


#: The keys column of help's 키 tab: the widest keys ("Enter/Space/Esc") and two spaces.
KEY_CELLS = 17


def keys_table() -> Group:
    """Help's 키 tab in the current language: a heading and a two-column grid per section, so
    a description that wraps goes on under itself, not under the keys."""
    blocks: list[RenderableType] = []
    for n, section in enumerate(KEY_SECTIONS):
        blocks.append(Text(("\n" if n else "") + f"■ {_(section.title)}", style="bold"))
        grid = Table.grid(padding=(0, 1, 0, 0), expand=True)
        grid.add_column(width=KEY_CELLS - 1, no_wrap=True)
        grid.add_column(ratio=1)
        for keys, what in section.entries:
            grid.add_row(Text(keys, style="bold"), Text(_(what)))
        blocks.append(grid)
    return Group(*blocks)
