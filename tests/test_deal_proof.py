"""Issue 36 item 6, deals anyone can verify (``verifiableDeals``, docs/rules.md §8.4): every
(re)match is committed to before its first card and its seed revealed after; the public
events alone rebuild each match's record, which checks out, and tampering is detected."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from engine import Game, Options, proof

from .gamekit import random_action

OPTIONS = Options(verifiable_deals=True, hand_limit=10)


def played(seed: int, options: Options = OPTIONS, players: int = 3) -> tuple[Game, list[Any]]:
    """A whole game of random legal play, with every event it emitted (all public)."""
    rng = random.Random(seed)
    game = Game.new(options, [f"p{i}" for i in range(players)], f"room-{seed}")
    events: list[Any] = list(game.last_events)
    while not game.finished:
        move = random_action(game, rng)
        events += game.timeout() if move is None else game.apply(*move)
    return game, events


def test_every_match_is_committed_before_its_deal_and_revealed_after() -> None:
    game, events = played(1)
    kinds = [e["type"] for e in events]
    commits = [i for i, k in enumerate(kinds) if k == "dealCommit"]
    reveals = [i for i, k in enumerate(kinds) if k == "dealReveal"]
    assert len(commits) == len(reveals) >= 10  # each hand (and rematch) of the game
    for c, r in zip(commits, reveals, strict=True):
        assert kinds[c + 1] == "dealt"  # the commitment comes before the first card
        assert c < r and "dealCommit" not in kinds[c + 1 : r]
        assert kinds[r + 1] == "handEnd"
        assert events[c]["handNo"] == events[r]["handNo"]
        assert events[c]["rematchNo"] == events[r]["rematchNo"]
    # the game's secret is in no event and no view, only in the server's state
    secret = game.state.deal_secret
    assert secret and secret not in json.dumps(events)
    assert all(secret not in json.dumps(game.view(v)) for v in [None, *game.players])


@pytest.mark.parametrize(
    "opts",
    [
        {},
        {"deal_mode": "oneRound"},
        {"card_mode": "three"},
        {"deal_mode": "oneRound", "tie_rule": "rematch", "gusa_choice": True},
    ],
)
def test_the_public_events_rebuild_records_that_verify(opts: dict[str, Any]) -> None:
    options = Options(**{"verifiable_deals": True, "hand_limit": 10, **opts})
    for seed in range(3):
        game, events = played(seed, options, players=4)
        records = proof.records(events)
        assert len(records) == sum(e["type"] == "dealReveal" for e in events)
        shown = sum(bool(r["shown"]) for r in records)
        assert shown  # some matches reached the showdown: their cards are checked
        for record in records:
            assert proof.verify(record) == [], record


def test_tampering_with_the_seed_the_commitment_or_a_card_is_detected() -> None:
    _, events = played(4)
    record = next(r for r in proof.records(events) if r["shown"])
    assert proof.verify(record) == []
    other = copy.deepcopy(record)
    other["seed"] = "0" * 64
    assert any("약속" in p for p in proof.verify(other))
    other = copy.deepcopy(record)
    other["commitment"] = proof.commitment(record["seed"], "salt")
    assert any("약속" in p for p in proof.verify(other))
    other = copy.deepcopy(record)
    player, cards = next(iter(other["shown"].items()))
    other["shown"][player] = [next(c for c in range(20) if c not in cards), cards[1]]
    problems = proof.verify(other)
    assert len(problems) == 1 and player in problems[0]
    # a seed that matches a forged commitment still deals the wrong cards
    forged = copy.deepcopy(other)
    forged["commitment"] = proof.commitment(forged["seed"], forged["salt"])
    assert proof.verify(forged) and proof.verify({"seed": "x"}) != []


def test_a_revealed_seed_says_nothing_of_the_next() -> None:
    """Seeds come from the game's secret by SHA-256: consecutive seeds share no structure a
    player could extend (unlike the splitmix state, whose next value is the last plus a
    constant), and the room's seed is needed to make any of them."""
    secret = proof.game_secret("room-seed")
    seeds = [proof.deal_seed(secret, hand, 0)[0] for hand in range(1, 40)]
    assert len(set(seeds)) == len(seeds)
    diffs = {(int(b, 16) - int(a, 16)) % 2**256 for a, b in zip(seeds, seeds[1:])}
    assert len(diffs) == len(seeds) - 1  # no constant step
    assert proof.game_secret("room-seed") != proof.game_secret("room-seed2")
    # and the deck really is the seed's: the same seed, the same order; another, another
    assert proof.deck(seeds[0]) == proof.deck(seeds[0]) != proof.deck(seeds[1])
    assert sorted(proof.deck(seeds[0])) == list(range(20))


def test_on_by_default_and_a_room_may_turn_it_off() -> None:
    """Every default game commits to its deals (the issue: "before each hand's deal every
    seat is shown a commitment"); a room with ``verifiableDeals`` off deals from the game
    RNG's stream as before, and shows no commitment."""
    default = Game.new(Options(hand_limit=10), ["a", "b"], 3)
    assert default.state.deal_secret is not None
    assert [e["type"] for e in default.last_events].count("dealCommit") == 1
    assert "commitment" in default.view("a")["deal"]
    off = Game.new(Options(hand_limit=10, verifiable_deals=False), ["a", "b"], 3)
    assert off.state.deal_secret is None
    assert "deal" not in off.view(None)
    assert not [e for e in off.last_events if e["type"] == "dealCommit"]


def test_the_view_shows_the_commitment_and_the_seed_once_over() -> None:
    game = Game.new(Options(verifiable_deals=True, deal_mode="oneRound"), ["a", "b"], 3)
    (commit,) = [e for e in game.last_events if e["type"] == "dealCommit"]
    for viewer in (None, "a", "b"):
        assert game.view(viewer)["deal"] == {
            "commitment": commit["commitment"],
            "seed": None,
            "salt": None,
        }
    while game.pending()["phase"] == "betting":
        (actor,) = game.pending()["players"]
        events = game.apply(actor, {"type": "check"})
    (reveal,) = [e for e in events if e["type"] == "dealReveal"]
    deal = game.view(None)["deal"]
    assert (deal["seed"], deal["salt"]) == (reveal["seed"], reveal["salt"])
    assert proof.commitment(reveal["seed"], reveal["salt"]) == commit["commitment"]
    clone = Game.from_dict(game.to_dict())
    assert clone.state_hash() == game.state_hash()


def test_the_verify_hand_command_checks_a_file_and_says_what_is_wrong(tmp_path: Any) -> None:
    """``seotda-server --verify-hand FILE``: the public events of a game check out (exit 0, a
    line per match); a tampered card or seed is reported (exit 1)."""
    import contextlib
    import io

    from seotda_tui.cli import main

    _, events = played(5)
    path = tmp_path / "hands.json"
    path.write_text(json.dumps(events), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--verify-hand", str(path)], environ={}) == 0
    lines = out.getvalue().splitlines()
    assert len(lines) == len(proof.records(events)) and all("확인됨" in x for x in lines)
    shown = next(e for e in events if e["type"] == "showdown")
    card = shown["hands"][0]["cards"][0]
    card["id"] = (card["id"] + 1) % 20  # one shown card changed
    reveal = next(e for e in events if e["type"] == "dealReveal")
    reveal["seed"] = reveal["seed"][::-1]  # and the first match's seed
    path.write_text(json.dumps(events), encoding="utf-8")
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["--verify-hand", str(path)], environ={}) == 1
    text = out.getvalue()
    failed = [line for line in text.splitlines() if line.endswith(": 맞지 않아요")]
    assert len(failed) == 2 and "약속(SHA-256)과 맞지 않아요" in text, text


async def test_every_seat_and_spectator_is_shown_the_commitment_then_the_seed() -> None:
    """At the table (pilot, 80×24, the log opened with l): the commitment before the cards,
    the seed and salt when the hand is over, for the players and a spectator alike; the room's
    rules say the room has it."""
    from seotda_tui.testing import Table

    from .test_table_status import log_text

    options = Options(verifiable_deals=True, deal_mode="oneRound")
    async with Table.open(["a", "b"], options=options, seed=3, spectators=["s"]) as t:
        deal = t.game.view(None)["deal"]
        for nick in ("a", "b", "s"):  # the title line has its first 8 digits
            assert f"약속 {deal['commitment'][:8]}" in t.text(nick).splitlines()[0]
            await t.press(nick, "l")
            assert f"딜약속(SHA-256):{deal['commitment']}" in log_text(t, nick).replace(" ", "")
        t.play_until(lambda g: g.view(None).get("handPhase") == "handEnd")
        await t.settle()
        deal = t.game.view(None)["deal"]
        assert (
            deal["seed"]
            and proof.commitment(deal["seed"], deal["salt"] or "") == deal["commitment"]
        )
        for nick in ("a", "b", "s"):
            assert f"딜시드공개:{deal['seed']}·소금{deal['salt']}" in log_text(t, nick).replace(
                " ", ""
            )
        await t.press("a", "i")  # the room's rules say it; the rules tab explains it
        assert "딜 검증 켬 (SHA-256 약속)" in t.text("a")
        from seotda_tui.ui.screens.help_text import rules_text

        assert "판이 끝나면 시드를 공개해요" in rules_text(t.manager.room(t.room_id).options)
        assert "딜 검증:" not in rules_text(Options(verifiable_deals=False))


async def test_the_replay_gives_each_hands_record_as_json_that_verifies(tmp_path: Any) -> None:
    """A finished verifiable-deals game, replayed: v at a hand's end shows its record as JSON
    laid out so the screen's lines, copied as they are, parse and pass --verify-hand's check;
    before the hand is over there is nothing to check yet."""
    from types import SimpleNamespace

    from seotda_tui.rooms import RoomManager
    from seotda_tui.rooms.clock import FakeClock
    from seotda_tui.rooms.journal import Journal
    from seotda_tui.ui.app import make_app_factory
    from seotda_tui.ui.screens.deal_record import DealRecordScreen
    from seotda_tui.ui.screens.replay import ReplayScreen

    options = Options(verifiable_deals=True, deal_mode="oneRound", hand_limit=10)
    journal = Journal(tmp_path / "games.sqlite3")
    manager = RoomManager(clock=FakeClock(1000.0), seed_source=lambda: "v1", journal=journal)
    room = manager.create_room("a", "검증 방", options)
    manager.join(room.id, "b")
    manager.start(room.id, "a")
    rng = random.Random(2)
    while (game := manager.live_game(room.id)) is not None and not game.finished:
        move = random_action(game, rng)
        if move is None:
            manager.clock.advance(game.pending()["seconds"] or 1)  # type: ignore[attr-defined]
        else:
            manager.act(room.id, *move)
    manager.leave(room.id, "a")
    app = make_app_factory(manager)(SimpleNamespace(nickname="a"), None)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        await pilot.press("h", "enter")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ReplayScreen)
        assert "v 딜 기록" in str(screen.query_one("#replay-keys").render())
        await pilot.press("v")  # the first frame: the hand has only begun
        await pilot.pause()
        empty: object = app.screen
        assert isinstance(empty, DealRecordScreen) and not empty.records
        await pilot.press("escape")
        end = screen.replay.hand_starts[1] - 1  # the first hand's last frame
        await pilot.press(*["right"] * end, "v")
        await pilot.pause()
        shown: object = app.screen
        assert isinstance(shown, DealRecordScreen) and shown.records
        lines = [line.rstrip() for line in _screen_lines(app)]
        start = lines.index("[")
        stop = len(lines) - lines[::-1].index("]")
        copied = json.loads("\n".join(lines[start:stop]))  # the lines as a terminal copies them
        assert copied[0]["handNo"] == 1 and [proof.verify(r) for r in copied] == [[]]
    manager.close()


def _screen_lines(app: Any) -> list[str]:
    from seotda_tui.testing import screen_text

    return [line[1:] for line in screen_text(app).splitlines()]  # (the box's padding)
