"""Issue 36 variants over real SSH at 80×24 (pyte): for each mode, the acting player, a waiting
player (in English) and a spectator see what the mode shows them, and the actor's keys play it.

인디언 섯다: the holder's own first card is a "?" on their screen, the others read it on the
holder's seat. 한장공유: the 선 browses and picks the shared card, then everyone sees it beside the
pot. 후회의 섯다: the drawer takes a card with Enter, the others see who is drawing."""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from engine import Options
from engine.dealing import DealRequest, StackedDeck
from seotda_tui.rooms import RoomManager
from seotda_tui.ui.app import make_app_factory

from .gamekit import deal_order
from .ssh_harness import ssh_server, wait_until

#: (month-kind) codes per player in deal order: 1광 2열, 3광 4띠, 9열 10띠
CARDS = ([0, 2], [4, 7], [16, 19])


def _deals(request: DealRequest) -> list[int]:
    stacked = StackedDeck()
    if request.hand_no == 1 and request.rematch_no == 0:
        stacked.rig(dict(zip(request.receivers, CARDS, strict=False)))
    return stacked(request)


@pytest.mark.parametrize("mode", ["indian", "shared", "regret"])
async def test_each_variant_over_real_ssh_at_80x24(tmp_path: Path, mode: str) -> None:
    manager = RoomManager(seed_source=lambda: 7, reconnect_grace=30, deal=_deals)
    room = manager.create_room("영희", "변형 판", Options(card_mode=mode))
    for nick in ("bob", "철수"):
        manager.join(room.id, nick)
    manager.start(room.id, "영희")
    game = manager.live_game(room.id)
    assert game is not None
    actor, waiting, _third = deal_order(game)
    if mode == "regret":  # the draw starts right of the 선
        actor, waiting = game.pending()["players"][0], actor
    english = {waiting}
    nicks = [*game.players, "관전"]
    async with ssh_server(tmp_path, make_app_factory(manager)) as server, AsyncExitStack() as st_:
        clients = {
            nick: await st_.enter_async_context(
                server.connect(
                    nick,
                    size=(80, 24),
                    env={"LANG": "en_US.UTF-8" if nick in english else "ko_KR.UTF-8"},
                )
            )
            for nick in nicks
        }
        await clients["관전"].wait_for("변형 판")  # the spectator watches from the lobby (w)
        await clients["관전"].press("w")
        if mode == "indian":
            first = {p: c[0] for p, c in zip(deal_order(game), CARDS, strict=True)}
            short = {0: "1광", 4: "3광", 16: "9열"}
            await clients[actor].wait_for("내 차례예요")
            await clients[waiting].wait_for(f"{actor}'s turn")
            await clients["관전"].wait_for(short[first[waiting]])
            mine = clients[actor].text
            assert short[first[actor]] not in mine and short[first[waiting]] in mine
            assert any(line.strip() == "?" for line in mine.splitlines())
            english_short = {0: "1Br", 4: "3Br", 16: "9An"}
            theirs = clients[waiting].text
            assert (
                english_short[first[actor]] in theirs
                and english_short[first[waiting]] not in theirs
            )
            await clients[actor].press("2")  # check
            await wait_until(lambda: game.view(None).get("actor") != actor)
        elif mode == "shared":
            await clients[actor].wait_for("공유 카드를 골라요")
            await clients[waiting].wait_for("is picking the shared card")
            await clients["관전"].wait_for(f"{actor}님이 공유 카드를 고르는 중")
            await clients[actor].press("2")
            await clients[actor].wait_for("Enter 1띠 공유")
            await clients[actor].press("enter")
            await wait_until(lambda: game.view(None).get("sharedCard") is not None)
            assert game.view(None)["sharedCard"] == {"id": 1, "month": 1, "kind": "normal"}
            await clients["관전"].wait_for("공유 카드 1띠")
            await clients[waiting].wait_for("shared 1")
        else:
            await clients[actor].wait_for("Enter로 카드를 한 장 가져와요")
            await clients[waiting].wait_for(f"{actor} is taking a card")
            await clients["관전"].wait_for(f"{actor}님이 카드를 가져가는 중")
            await clients[waiting].press("enter")  # not its turn: nothing is taken
            await clients[actor].press("enter")
            await wait_until(lambda: game.pending()["players"] != [actor])
            assert (
                game.view(actor)["seats"]
                and len(next(s for s in game.view(actor)["seats"] if s["id"] == actor)["cards"])
                == 1
            )
