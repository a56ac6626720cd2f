"""§2 모드와 옵션: the 26 options (the spec's 20, issue #19's two 구사 rules, issue 32's
``midJoin``: joining a running game at the next hand, and issue 36's 땡값 ``ttaengValue`` and
구사 선택권 ``gusaChoice`` and verifiable deals ``verifiableDeals``), their values, defaults and validation."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypedDict, TypeVar

#: An option's value: every option is a word, a number or on/off.
OptionValue = str | int | bool
_V = TypeVar("_V", str, int, bool)


class OptionsError(ValueError):
    """An option value outside the spec; the message is Korean and names the option.

    ``template`` and ``values`` are the message before formatting, so a UI can show it in
    another language (the template is the catalogue's msgid)."""

    def __init__(self, template: str, **values: object) -> None:
        super().__init__(template.format(**values) if values else template)
        self.template = template
        self.values = values


def _has_batchim(word: str) -> bool:
    """True when the last syllable of ``word`` ends in a consonant (chooses 은/는, 이/가)."""
    last = word.rstrip()[-1:]
    if not last:
        return False
    code = ord(last) - 0xAC00
    if 0 <= code < 11172:
        return code % 28 != 0
    return last in "0136781LMNR"  # digits/letters read with a final consonant


def topic(word: str) -> str:
    """``word`` + the right topic particle (은/는)."""
    return word + ("은" if _has_batchim(word) else "는")


@dataclass(frozen=True)
class _Spec:
    field: str
    camel: str
    label: str
    choices: tuple[OptionValue, ...]


_BOOL = (True, False)

SPECS: tuple[_Spec, ...] = (
    _Spec(
        "card_mode", "cardMode", "카드 방식", ("two", "three", "indian", "shared", "regret")
    ),  # issue 36
    _Spec("deal_mode", "dealMode", "분배 방식", ("twoRounds", "oneRound")),
    _Spec("starting_chips", "startingChips", "시작 칩", (500, 1000, 2000, 5000)),
    _Spec("base_unit", "baseUnit", "기본 단위(학교)", (2, 10, 20, 50)),
    _Spec("max_raise", "maxRaise", "최대 레이즈", ("half", "full")),
    _Spec("end_condition", "endCondition", "종료 방식", ("hands", "lastStanding")),
    _Spec("hand_limit", "handLimit", "판 수", (10, 20, 30, 50)),
    _Spec("school_up_every", "schoolUpEvery", "학교 상승 주기", (0, 5, 10, 15)),
    _Spec("rebuy", "rebuy", "리바이", ("off", "limited", "unlimited")),
    _Spec("rebuy_limit", "rebuyLimit", "리바이 횟수", (1, 2, 3)),
    _Spec("mid_join", "midJoin", "중간 참가", _BOOL),
    _Spec("turn_seconds", "turnSeconds", "행동 제한 시간", (15, 20, 30, 60)),
    _Spec("dealer_rule", "dealerRule", "선 정하기", ("winner", "rotate")),
    _Spec("gwang_ttaeng", "gwangTtaeng", "광땡 종류", ("all", "only38")),
    _Spec("ttaengjabi", "ttaengjabi", "땡잡이", ("off", "strict", "loose")),
    _Spec("amhaeng", "amhaeng", "암행어사", _BOOL),
    _Spec("gusa", "gusa", "구사", _BOOL),
    _Spec("mung_gusa", "mungGusa", "멍텅구리구사", ("off", "upTo8", "upTo9", "upToJang")),
    _Spec("gusa_when_winning", "gusaWhenWinning", "구사가 이길 때", ("win", "rematch")),
    _Spec("gusa_outcome", "gusaOutcome", "구사 처리", ("rematch", "refund")),
    _Spec("gusa_choice", "gusaChoice", "구사 선택권", _BOOL),
    _Spec("tie_rule", "tieRule", "동점 처리", ("rematch", "split")),
    _Spec("rejoin_cost", "rejoinCost", "재참가 비용", ("none", "half", "full")),
    _Spec("ttaeng_value", "ttaengValue", "땡값", ("off", "school", "double")),
    _Spec("verifiable_deals", "verifiableDeals", "딜 검증", _BOOL),
    _Spec("hints", "hints", "힌트", _BOOL),
)
SPEC_BY_FIELD = {s.field: s for s in SPECS}
_KEY_TO_FIELD = {s.camel: s.field for s in SPECS} | {s.field: s.field for s in SPECS}

MIN_PLAYERS = 2
MAX_PLAYERS = 10
MAX_PLAYERS_THREE = 6


def _choice_text(spec: _Spec) -> str:
    if spec.choices == _BOOL:
        return "켬(true) 또는 끔(false)이어야 해요"
    return ", ".join(str(c) for c in spec.choices) + " 중 하나여야 해요"


def _invalid(spec: _Spec) -> OptionsError:
    return OptionsError(f"{topic(spec.label)} {_choice_text(spec)}")


def _valid(spec: _Spec, value: object) -> bool:
    if spec.choices == _BOOL:
        return isinstance(value, bool)
    if isinstance(value, bool):  # True == 1 must not pass as a number
        return False
    return any(type(value) is type(c) and value == c for c in spec.choices)


class OptionsDict(TypedDict):
    """:meth:`Options.to_dict`: the spec's camelCase form, as rooms, the wire and the journal
    keep it (the game state's ``options`` too); keys in :data:`SPECS` order."""

    cardMode: str
    dealMode: str
    startingChips: int
    baseUnit: int
    maxRaise: str
    endCondition: str
    handLimit: int
    schoolUpEvery: int
    rebuy: str
    rebuyLimit: int
    midJoin: bool
    turnSeconds: int
    dealerRule: str
    gwangTtaeng: str
    ttaengjabi: str
    amhaeng: bool
    gusa: bool
    mungGusa: str
    gusaWhenWinning: str
    gusaOutcome: str
    gusaChoice: bool
    tieRule: str
    rejoinCost: str
    ttaengValue: str
    verifiableDeals: bool
    hints: bool


@dataclass(frozen=True)
class Options:
    """A room's rules; values are spelled exactly as in the spec (``"twoRounds"``, ``"upTo8"``)."""

    card_mode: str = "two"
    deal_mode: str = "twoRounds"
    starting_chips: int = 1000
    base_unit: int = 10
    max_raise: str = "half"
    end_condition: str = "hands"
    hand_limit: int = 20
    school_up_every: int = 0
    rebuy: str = "unlimited"
    rebuy_limit: int = 1
    mid_join: bool = True  # issue 32: a spectator takes a seat at the next hand, paying school
    turn_seconds: int = 20
    dealer_rule: str = "winner"
    gwang_ttaeng: str = "all"
    ttaengjabi: str = "strict"
    amhaeng: bool = True
    gusa: bool = True
    mung_gusa: str = "upTo8"
    gusa_when_winning: str = "win"  # §6.3 step 4: "rematch" checks a 구사 that already wins too
    gusa_outcome: str = "rematch"  # "refund": 사구 파토, every player takes back their stake
    gusa_choice: bool = False  # issue 36: the holder decides whether a 구사 that fires does
    tie_rule: str = "rematch"
    rejoin_cost: str = "none"
    ttaeng_value: str = "off"  # issue 36: who died pays a 땡/광땡 winner "school"/"double"
    verifiable_deals: bool = True  # issue 36: each deal committed before, its seed revealed after
    hints: bool = True

    def __post_init__(self) -> None:
        for spec in SPECS:
            if not _valid(spec, getattr(self, spec.field)):
                raise _invalid(spec)
        if self.base_unit * 20 > self.starting_chips:
            raise OptionsError(
                "기본 단위(학교) × 20이 시작 칩({chips})보다 클 수 없어요",
                chips=self.starting_chips,
            )

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Options:
        """Build from snake_case or the spec's camelCase keys (a client's form, the journal, a
        config file: untrusted). Unknown or doubled keys and values outside the spec are
        refused with the same Korean messages as the constructor's, in :data:`SPECS` order."""
        given: dict[str, object] = {}
        for key, value in data.items():
            name = _KEY_TO_FIELD.get(key) if isinstance(key, str) else None
            if name is None:
                raise OptionsError("알 수 없는 옵션이에요: {key}", key=repr(key))
            if name in given:
                raise OptionsError(f"{topic(SPEC_BY_FIELD[name].label)} 한 번만 정할 수 있어요")
            given[name] = value
        for spec in SPECS:
            if spec.field in given and not _valid(spec, given[spec.field]):
                raise _invalid(spec)

        def pick(name: str, default: _V) -> _V:
            """The checked value given for ``name`` (of its default's type), or the default."""
            value = given.get(name, default)
            assert isinstance(value, type(default))  # checked above against the spec's choices
            return value

        d = _DEFAULTS
        return cls(
            card_mode=pick("card_mode", d.card_mode),
            deal_mode=pick("deal_mode", d.deal_mode),
            starting_chips=pick("starting_chips", d.starting_chips),
            base_unit=pick("base_unit", d.base_unit),
            max_raise=pick("max_raise", d.max_raise),
            end_condition=pick("end_condition", d.end_condition),
            hand_limit=pick("hand_limit", d.hand_limit),
            school_up_every=pick("school_up_every", d.school_up_every),
            rebuy=pick("rebuy", d.rebuy),
            rebuy_limit=pick("rebuy_limit", d.rebuy_limit),
            mid_join=pick("mid_join", d.mid_join),
            turn_seconds=pick("turn_seconds", d.turn_seconds),
            dealer_rule=pick("dealer_rule", d.dealer_rule),
            gwang_ttaeng=pick("gwang_ttaeng", d.gwang_ttaeng),
            ttaengjabi=pick("ttaengjabi", d.ttaengjabi),
            amhaeng=pick("amhaeng", d.amhaeng),
            gusa=pick("gusa", d.gusa),
            mung_gusa=pick("mung_gusa", d.mung_gusa),
            gusa_when_winning=pick("gusa_when_winning", d.gusa_when_winning),
            gusa_outcome=pick("gusa_outcome", d.gusa_outcome),
            gusa_choice=pick("gusa_choice", d.gusa_choice),
            tie_rule=pick("tie_rule", d.tie_rule),
            rejoin_cost=pick("rejoin_cost", d.rejoin_cost),
            ttaeng_value=pick("ttaeng_value", d.ttaeng_value),
            verifiable_deals=pick("verifiable_deals", d.verifiable_deals),
            hints=pick("hints", d.hints),
        )

    def to_dict(self) -> OptionsDict:
        """The spec's camelCase form (JSON-serialisable), keys in :data:`SPECS` order."""
        return {
            "cardMode": self.card_mode,
            "dealMode": self.deal_mode,
            "startingChips": self.starting_chips,
            "baseUnit": self.base_unit,
            "maxRaise": self.max_raise,
            "endCondition": self.end_condition,
            "handLimit": self.hand_limit,
            "schoolUpEvery": self.school_up_every,
            "rebuy": self.rebuy,
            "rebuyLimit": self.rebuy_limit,
            "midJoin": self.mid_join,
            "turnSeconds": self.turn_seconds,
            "dealerRule": self.dealer_rule,
            "gwangTtaeng": self.gwang_ttaeng,
            "ttaengjabi": self.ttaengjabi,
            "amhaeng": self.amhaeng,
            "gusa": self.gusa,
            "mungGusa": self.mung_gusa,
            "gusaWhenWinning": self.gusa_when_winning,
            "gusaOutcome": self.gusa_outcome,
            "gusaChoice": self.gusa_choice,
            "tieRule": self.tie_rule,
            "rejoinCost": self.rejoin_cost,
            "ttaengValue": self.ttaeng_value,
            "verifiableDeals": self.verifiable_deals,
            "hints": self.hints,
        }

    @property
    def max_players(self) -> int:
        # 3장 섯다 and 후회의 섯다 (issue 36: 4 cards each, 3 with six players) use the deck up
        return MAX_PLAYERS_THREE if self.card_mode in ("three", "regret") else MAX_PLAYERS

    def check_players(self, n: int) -> None:
        """Refuse a player count outside 2..10 (2..6 for three-card Seotda)."""
        if not isinstance(n, int) or isinstance(n, bool) or n < MIN_PLAYERS:
            raise OptionsError("참가 인원은 {n}명 이상이어야 해요", n=MIN_PLAYERS)
        if n > self.max_players:
            if self.card_mode == "three":
                raise OptionsError("3장 섯다는 최대 {n}명까지예요", n=self.max_players)
            if self.card_mode == "regret":
                raise OptionsError("후회의 섯다는 최대 {n}명까지예요", n=self.max_players)
            raise OptionsError("참가 인원은 최대 {n}명까지예요", n=self.max_players)

    @property
    def school_cap(self) -> int:
        """§5.7: the 학교 rises to at most ``startingChips / 5``."""
        return self.starting_chips // 5

    def raised_school(self, base_unit: int) -> int:
        """§5.7: the 학교 after a rise (``schoolUpEvery``): doubled, at most :attr:`school_cap`
        (the one place this is decided; help's rules text shows it from here)."""
        return min(base_unit * 2, self.school_cap)

    def school_steps(self) -> list[int]:
        """Every 학교 a game of these options can reach, from ``baseUnit`` (20, 40, 80, 100
        for 20 of 500 chips); one value if it never rises."""
        steps = [self.base_unit]
        while self.school_up_every and (raised := self.raised_school(steps[-1])) > steps[-1]:
            steps.append(raised)
        return steps

    @property
    def effective_mung_gusa(self) -> str:
        """§2: with ``gusa`` off, ``mung_gusa`` is ignored."""
        return self.mung_gusa if self.gusa else "off"

    @property
    def effective_gusa_when_winning(self) -> str:
        """Issue #19: with ``gusa`` off, ``gusa_when_winning`` is ignored."""
        return self.gusa_when_winning if self.gusa else "win"

    @property
    def effective_gusa_outcome(self) -> str:
        """Issue #19: with ``gusa`` off, ``gusa_outcome`` is ignored."""
        return self.gusa_outcome if self.gusa else "rematch"

    @property
    def effective_gusa_choice(self) -> bool:
        """Issue 36: with ``gusa`` off, ``gusa_choice`` is ignored (no 구사 ever fires)."""
        return self.gusa_choice and self.gusa

    @property
    def rule_key(self) -> tuple[str, str, bool, bool, str, str]:
        """The options that change hand values or hints; equal keys share one hand table."""
        return (
            self.gwang_ttaeng,
            self.ttaengjabi,
            self.amhaeng,
            self.gusa,
            self.effective_mung_gusa,
            self.effective_gusa_outcome,
        )


#: The defaults, which :meth:`Options.from_dict` fills in for the options a dict leaves out.
_DEFAULTS = Options()
