"""ChatHub: sanitising, the per-sender rate limit, bounded history, subscriptions."""

from __future__ import annotations

import wcwidth
from rich.cells import cell_len

from seotda_tui.rooms.chat import (
    EMPTY,
    LOBBY,
    MAX_CELLS,
    QUICK_LINES,
    TOO_FAST,
    ChatHub,
    ChatMessage,
)
from seotda_tui.rooms.clock import FakeClock


def hub(clock: FakeClock | None = None, **kwargs: object) -> ChatHub:
    return ChatHub(clock=clock or FakeClock(), **kwargs)  # type: ignore[arg-type]


def test_messages_reach_subscribers_of_their_channel_only() -> None:
    h = hub()
    lobby: list[ChatMessage] = []
    room: list[ChatMessage] = []
    h.subscribe(LOBBY, lobby.append)
    h.subscribe("7", room.append)
    assert h.post("7", "철수", "안녕") is None
    assert [(m.nick, m.text) for m in room] == [("철수", "안녕")] and lobby == []
    assert h.history("7")[0].text == "안녕"


def test_escape_control_and_bidi_characters_never_get_through() -> None:
    h = hub()
    got: list[ChatMessage] = []
    h.subscribe(LOBBY, got.append)
    h.post(LOBBY, "x", "a\x1b]0;pwned\x07b\x1b[31mc\x9b2Jd\u202ee\x07f\r\ng")
    (message,) = got
    assert message.text == "abcdef  g"  # the line break became spaces
    assert not any(ch in message.text for ch in "\x1b\x9b\x07\r\n\u202e")


def test_long_messages_are_cut_to_200_cells() -> None:
    h = hub()
    h.post(LOBBY, "x", "가" * 500)
    (message,) = h.history(LOBBY)
    assert cell_len(message.text) <= MAX_CELLS and message.text.startswith("가")


def test_empty_messages_are_refused() -> None:
    h = hub()
    assert h.post(LOBBY, "x", "  \x1b[2J  ") == EMPTY
    assert h.history(LOBBY) == []


def test_messages_that_would_draw_blank_are_refused() -> None:
    h = hub()
    assert h.post(LOBBY, "x", "\u3164\u2800\u3000\u115f\u1160\u200b") == EMPTY
    assert h.history(LOBBY) == []


def test_skin_tones_are_dropped_so_the_line_is_as_wide_everywhere() -> None:
    h = hub()
    h.post(LOBBY, "x", "👍🏽" * 150)  # rich: 2 cells each; tmux/xterm: 4
    (message,) = h.history(LOBBY)
    assert message.text == "👍" * (MAX_CELLS // 2)
    assert sum(wcwidth.wcwidth(ch) for ch in message.text) == cell_len(message.text) == MAX_CELLS


def test_three_messages_per_three_seconds_per_sender() -> None:
    clock = FakeClock()
    h = hub(clock)
    assert [h.post(LOBBY, "x", str(i)) for i in range(3)] == [None, None, None]
    assert h.post(LOBBY, "x", "너무 빨라") == TOO_FAST
    assert h.post(LOBBY, "y", "다른 사람은 돼요") is None
    clock.advance(2.9)
    assert h.post(LOBBY, "x", "아직") == TOO_FAST
    clock.advance(0.2)
    assert h.post(LOBBY, "x", "이제 돼요") is None
    assert [m.text for m in h.history(LOBBY) if m.nick == "x"] == ["0", "1", "2", "이제 돼요"]


def test_history_is_bounded_and_room_history_goes_with_its_last_subscriber() -> None:
    h = hub(history=5, rate_count=100)
    for i in range(8):
        h.post(LOBBY, "x", str(i))
        h.post("3", "x", str(i))
    assert [m.text for m in h.history(LOBBY)] == ["3", "4", "5", "6", "7"]
    unsubscribe = h.subscribe("3", lambda m: None)
    unsubscribe_lobby = h.subscribe(LOBBY, lambda m: None)
    assert h.subscribers("3") == 1
    unsubscribe()
    unsubscribe_lobby()
    assert h.history("3") == [] and len(h.history(LOBBY)) == 5


def test_a_failing_subscriber_does_not_silence_the_others() -> None:
    h = hub()
    got: list[str] = []

    def broken(message: ChatMessage) -> None:
        raise RuntimeError("boom")

    h.subscribe(LOBBY, broken)
    h.subscribe(LOBBY, lambda m: got.append(m.text))
    assert h.post(LOBBY, "x", "hi") is None and got == ["hi"]


def test_notices_are_sanitised_and_have_no_nickname() -> None:
    h = hub()
    h.notice(LOBBY, "점검\x1b[5m 안내")
    (message,) = h.history(LOBBY)
    assert message.nick == "" and message.text == "점검 안내"


def test_a_quick_line_travels_as_its_msgid_marked_canned() -> None:
    h = hub()
    got: list[ChatMessage] = []
    h.subscribe("7", got.append)
    assert h.quick("7", "철수", 1) is None
    assert [(m.nick, m.text, m.canned) for m in got] == [("철수", QUICK_LINES[0], True)]
    assert h.post("7", "철수", QUICK_LINES[1]) is None  # typed, the same words are not canned
    assert got[-1].canned is False
    for number in (0, len(QUICK_LINES) + 1, -1):
        assert h.quick("7", "영희", number) == EMPTY
    assert len(got) == 2


def test_quick_lines_share_the_senders_rate_limit_with_typed_ones() -> None:
    clock = FakeClock()
    h = hub(clock)
    assert [h.post(LOBBY, "x", "a"), h.quick(LOBBY, "x", 2), h.quick(LOBBY, "x", 3)] == [None] * 3
    assert h.quick(LOBBY, "x", 4) == TOO_FAST
    assert h.post(LOBBY, "x", "b") == TOO_FAST
    assert h.quick(LOBBY, "y", 4) is None  # another sender is not held back
    clock.advance(3.0)
    assert h.quick(LOBBY, "x", 4) is None
    assert [m.text for m in h.history(LOBBY) if m.nick == "x"] == ["a", *QUICK_LINES[1:4]]
