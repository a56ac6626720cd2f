"""The chat's and the shared limits' answers over the worker link (``cluster/answers.py``):
checked on arrival against their types like every other decode. A real hub's answers fit; an
answer that does not is logged (``hub_protocol``, saying what) and counts as a hub the worker
cannot use (the chat says the hub is away, the limits fall back to the worker's own), never an
exception in the session that asked."""

from __future__ import annotations

import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from seotda_tui.cluster import answers
from seotda_tui.cluster.hub import _OPS as hub_ops
from seotda_tui.cluster.link import HubLink
from seotda_tui.cluster.remote import MSG_HUB_DOWN, RemoteChat
from seotda_tui.cluster.worker_limits import AWAY, RemoteLimits
from seotda_tui.config import Settings
from seotda_tui.logs import record_fields
from seotda_tui.rooms import RoomManager
from seotda_tui.rooms.clock import FakeClock
from seotda_tui.ui.app import make_app_factory

from .test_workers_protocol import Worker, held, serving


class Answering(HubLink):
    """A link whose hub answers each op with what ``answers`` says (no socket, no hub)."""

    def __init__(self, answers: dict[str, object]) -> None:
        super().__init__(Path("/nonexistent"), worker=0)
        self.answers = answers
        self.notified: list[tuple[object, ...]] = []

    def call(self, op: str, *args: Any) -> Any:
        return self.answers.get(op)

    def notify(self, op: str, *args: Any) -> None:
        self.notified.append((op, *args))


async def test_a_real_hubs_answers_fit_their_types(tmp_path: Path) -> None:
    """Every checked op is one the hub serves, and what it answers passes the check (so a
    type written wrong here would refuse every real answer, and fails here first)."""
    asked = {
        "chat_post": ("lobby", "영희", "안녕"),
        "chat_quick": ("lobby", "영희", 2),
        "chat_history": ("lobby",),
        "chat_subscribers": ("lobby",),
        "connect_allowed": ("10.0.0.1",),
        "admit": ("10.0.0.1",),
        "auth_failed": ("10.9.9.9",),
        "jail_remaining": ("10.9.9.9",),
        "link_issue": ("영희",),
        "link_redeem": ("영희", "not-the-token"),
        "restore": (held(["10.0.0.2"], {"10.9.9.8": [1.0]}),),
        "name_locked": ("영희", "10.0.0.1"),
        "name_failed": ("영희",),
        "registration_allowed": ("10.0.0.1",),
        "pending_admit": ("10.0.0.1", 1),
    }
    assert set(asked) == set(answers.ANSWERS) and set(asked) <= set(hub_ops)
    async with serving(tmp_path) as (_hub, path):
        w = await Worker.connect(path)
        for op, args in asked.items():
            answer, _pushes = await w.call(op, *args)
            assert "e" not in answer, (op, answer)
            answers.ANSWERS[op].decode(answer["v"])  # (raises if it does not fit)
        # and a second failure jails: the answers that are not the first ones fit too
        answer, _ = await w.call("auth_failed", "10.9.9.9")
        assert answers.AUTH_FAILED.decode(answer["v"]) is True
        answer, _ = await w.call("jail_remaining", "10.9.9.9")
        assert answers.JAIL_REMAINING.decode(answer["v"]) > 0


MALFORMED: dict[str, object] = {
    "chat_post": 42,
    "chat_quick": ["안녕"],
    "chat_history": {"lines": []},
    "chat_subscribers": "three",
    "connect_allowed": "yes",
    "admit": 7,
    "auth_failed": "no",
    "jail_remaining": "long",
    "link_issue": 5,
    "link_redeem": "true",
    "name_locked": "soon",
    "name_failed": 1,  # (an int is not a bool)
    "registration_allowed": [True],
    "pending_admit": ["logins_full"],  # (two items: the refusal and the token)
    "restore": {"jailed": {"10.0.0.9": "forever"}, "locks": {}},
}


async def test_malformed_chat_and_limits_answers_are_logged_and_fall_back(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Each op's malformed answer is logged saying what, and the worker answers as while the
    hub is away: the chat refuses with the hub-down line, the limits use the worker's own."""
    link = Answering(MALFORMED)
    chat = RemoteChat(link)
    limits = RemoteLimits(link, Settings())
    with caplog.at_level(logging.ERROR, logger="seotda.cluster"):
        assert chat.post("lobby", "영희", "안녕") == MSG_HUB_DOWN  # (was: None, "sent")
        assert chat.quick("lobby", "영희", 2) == MSG_HUB_DOWN
        assert chat.history("lobby") == []
        assert chat.subscribers("lobby") == 0  # (was: int("three") raised)
        assert limits.connect_allowed("10.0.0.1") is True  # the worker's own limiter
        assert limits.admit("10.0.0.1") == AWAY  # "try again in a moment"
        assert limits.auth_failed("10.9.9.9") is False  # the worker's own count: one failure
        assert limits.jail_remaining("10.9.9.9") == 0.0  # (was: float("long") raised)
        assert limits.browser_link("영희") is None
        assert limits.redeem_browser_link("영희", "token") is False
        assert limits.name_guard().locked("영희", "10.0.0.1") == 0.0
        assert limits.name_guard().failure("영희") is False
        assert limits.registrations().allowed("10.0.0.1") is True
        pending = limits.pending_logins(lambda conn, by: None, lambda conn: 0)
        conn = object()
        assert pending.admit("10.0.0.1", conn) == (None, None)  # counted here instead
        assert conn in pending
        limits._restore()  # (run on each connect: what the hub knows of jails and locks)
    said = [str(record_fields(r)["error"]) for r in caplog.records]
    assert [r.getMessage() for r in caplog.records] == ["hub_protocol"] * len(MALFORMED), said
    assert "malformed answer to chat_post: expected str, got int" in said[0], said
    assert any("answer to jail_remaining: expected number, got str" in s for s in said), said
    assert any("answer to restore: jailed.10.0.0.9: expected number" in s for s in said), said
    # the hub may hold the pending login it answered amiss about: told to let it go
    assert ("pending_discard", 1) in link.notified


async def test_well_formed_answers_are_used_as_the_hub_gave_them() -> None:
    link = Answering(
        {
            "chat_post": "too_fast",
            "chat_subscribers": 3,
            "admit": None,
            "jail_remaining": 12,
            "name_locked": 30.5,
            "pending_admit": ["logins_ip_full", None],
            "link_issue": "TOKEN",
            "link_redeem": True,
        }
    )
    chat, limits = RemoteChat(link), RemoteLimits(link, Settings())
    assert chat.post("lobby", "영희", "안녕") == "too_fast"
    assert chat.subscribers("lobby") == 3
    assert limits.admit("10.0.0.1") is None
    assert limits.jail_remaining("10.0.0.1") == 12
    assert limits.name_guard().locked("영희", "10.0.0.1") == 30.5
    assert limits.browser_link("영희") == "TOKEN"
    assert limits.redeem_browser_link("영희", "TOKEN") is True
    pending = limits.pending_logins(lambda conn, by: None, lambda conn: 0)
    assert pending.admit("10.0.0.1", object()) == ("logins_ip_full", None)


async def test_a_lobby_chat_answered_amiss_says_so_and_the_session_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A session whose chat line is answered with something that is not a refusal or None
    (a hub of another build, a bug) is told the hub is away, and keeps working."""
    link = Answering({"chat_post": {"refused": True}, "chat_history": []})
    manager = RoomManager(clock=FakeClock(), seed_source=lambda: 1)
    app = make_app_factory(manager, chat=RemoteChat(link))(SimpleNamespace(nickname="영희"), None)
    with caplog.at_level(logging.ERROR, logger="seotda.cluster"):
        async with app.run_test(size=(140, 30)) as pilot:  # (the whole line beside the keys)
            await pilot.press("t", *"안녕", "enter")
            await pilot.pause()
            text = "\n".join(s.text for s in app.screen._compositor.render_strips())
            assert MSG_HUB_DOWN in text, text
            await pilot.press("n")  # the session goes on: the new-room form opens
            await pilot.pause()
            assert type(app.screen).__name__ == "CreateRoomScreen"
    assert [r.getMessage() for r in caplog.records] == ["hub_protocol"]
