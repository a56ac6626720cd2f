"""The room: the waiting room before a game, the table during it, the result after it.

The screen only ever sees ``RoomUpdate`` pushes (its own redacted view + public events); it holds no
game. Each part of the screen is its own widget with reactive data, so a push repaints only what
changed — a bet by one player repaints that seat, the pot and the action bar, nothing else.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widget import Widget
from textual.widgets import Button, RichLog

from engine import DECK, evaluate

from ..rooms import PLAYING, RoomError, RoomSummary, RoomUpdate
from ..widgets.actions import ActionBar, PromptBar
from ..widgets.card import CardView
from ..widgets.hand import HandCards
from ..widgets.lines import CountdownLine, Line
from ..widgets.seats import SeatList
from ..widgets.texts import (
    ACTION_NAMES,
    BET_ORDER,
    card_label,
    card_short,
    chips,
    event_lines,
    object_particle,
)
from .base import BaseScreen, Pushed
from .table_text import (
    banner_parts,
    pot_parts,
    result_parts,
    seat_infos,
    status_parts,
    title_text,
    waiting_seats,
    waiting_status,
)

#: Terminal height from which the own cards are drawn large (12×7) instead of compact (6×3).
LARGE_CARDS_HEIGHT = 36

LOG_LINES = 200
#: Above this many seats the table drops its blank spacer lines so 10 seats fit 80×24.
CROWDED_SEATS = 6


def _bindings() -> list[BindingType]:
    keys: list[BindingType] = [Binding(str(n), f"num({n})", show=False) for n in range(1, 9)]
    # (key, Korean-IME key on a 두벌식 layout, action)
    pairs = [
        ("enter", None, "confirm"),
        ("r", "ㄱ", "recommend"),
        ("y", "ㅛ", "answer(True)"),
        ("n", "ㅜ", "answer(False)"),
        ("space", None, "ready"),
        ("s", "ㄴ", "start"),
        ("j", "ㅓ", "join"),
        ("q", "ㅂ", "leave"),
        ("escape", None, "leave"),
    ]
    for key, hangul, action in pairs:
        keys.append(Binding(key, action, show=False))
        if hangul:
            keys.append(Binding(hangul, action, show=False))
    return keys


class TableScreen(BaseScreen):
    """One room, seen by one session."""

    BINDINGS: ClassVar[list[BindingType]] = _bindings()

    def __init__(self, room_id: str) -> None:
        super().__init__()
        self.room_id = room_id
        self.latest: RoomUpdate | None = None
        self.selected: list[int] = []  # three-card Seotda: the ids picked so far
        self._unsubscribe: Callable[[], None] | None = None
        self._deadline_at: float | None = None
        self._turn_key: Any = None

    # ------------------------------------------------------------------ layout
    def compose_body(self) -> Iterable[Widget]:
        yield Line(id="title")
        with Horizontal(id="table-main"):
            with Vertical(id="table-left"):
                yield SeatList(id="seats")
                yield Line(id="spectators")
                yield Line(id="pot")
                yield Line(id="banner")
                with Horizontal(id="hand"):
                    yield HandCards(id="hand-cards")
                    yield Line(id="mine")
                yield CountdownLine(id="status")
            yield RichLog(id="log", max_lines=LOG_LINES, wrap=True, markup=False, min_width=16)
        yield PromptBar(id="prompts")
        yield ActionBar(id="actions")
        yield Line(id="message")

    def on_mount(self) -> None:
        try:
            self._unsubscribe = self.manager.subscribe_room(self.room_id, self.nickname, self.deliver)
        except RoomError as exc:
            self.app.notify(str(exc), markup=False)
            self.app.pop_screen()
            return
        self.set_interval(1.0, self._tick)

    def on_unmount(self) -> None:
        if self._unsubscribe:
            self._unsubscribe()
            self._unsubscribe = None

    # ------------------------------------------------------------------ pushes
    def on_pushed(self, message: Pushed) -> None:
        update: RoomUpdate = message.payload
        if update.closed:
            self._unsubscribe = None
            self.app.notify("방이 닫혔어요")
            self._close()
            return
        self.latest = update
        self._write_log(update)
        self._redraw()

    @property
    def room(self) -> RoomSummary | None:
        return self.latest.room if self.latest else None

    @property
    def view(self) -> dict[str, Any] | None:
        """The game view, while a game runs (a finished game shows the waiting room + result)."""
        if self.latest is None or self.latest.room.status != PLAYING:
            return None
        return self.latest.view

    @property
    def seated(self) -> bool:
        return self.room is not None and self.nickname in self.room.players

    @property
    def in_game(self) -> bool:
        return self.view is not None and self.latest is not None and self.latest.viewer is not None

    def legal(self) -> list[dict[str, Any]]:
        view = self.view
        return view["legalActions"] if view and self.in_game else []

    def _write_log(self, update: RoomUpdate) -> None:
        log = self.query_one("#log", RichLog)
        if update.snapshot:
            log.clear()
        for event in update.events:
            for line in event_lines(event):
                log.write(Text(line))

    def _redraw(self) -> None:
        assert self.latest is not None
        room, view = self.latest.room, self.view
        if self.latest.deadline is not None and view is not None:
            self._deadline_at = time.monotonic() + self.latest.deadline
        else:
            self._deadline_at = None
        self._show_title(room, view)
        if view is None:
            self._show_waiting(room)
        else:
            self._show_game(room, view)
        self._tick()

    def _show_title(self, room: RoomSummary, view: dict[str, Any] | None) -> None:
        self.query_one("#title", Line).show((title_text(room, view), "bold"))
        watchers = ", ".join(room.spectators)
        spectators = self.query_one("#spectators", Line)
        spectators.show(f"관전: {watchers}" if watchers else "")
        spectators.display = bool(watchers)
        seats = len(view["seats"]) if view else len(room.players)
        self.set_class(seats > CROWDED_SEATS, "-crowded")  # 7+ seats: drop the spacing

    # ------------------------------------------------------------------ waiting room / result
    def _show_waiting(self, room: RoomSummary) -> None:
        self.query_one(SeatList).set_seats(waiting_seats(room, self.nickname))
        self.query_one("#pot", Line).show("")
        self.query_one("#mine", Line).show("")
        self.query_one(HandCards).show([])
        result = self.latest.result if self.latest else None
        self.query_one("#banner", Line).show(*result_parts(result, room.options))
        self.query_one("#status", CountdownLine).show(waiting_status(room, self.nickname))
        prompts: list[tuple[str, str, bool]] = []
        if not self.seated:
            prompts.append(("join", "j 참가", room.joinable))
        elif room.host == self.nickname:
            prompts.append(("start", "s 시작", len(room.players) >= 2))
        prompts.append(("leave", "q 나가기", True))
        self.query_one(PromptBar).set_prompts(prompts)
        self.query_one(ActionBar).display = False

    # ------------------------------------------------------------------ the game
    def _show_game(self, room: RoomSummary, view: dict[str, Any]) -> None:
        me, legal = self.nickname, self.legal()
        self.query_one(SeatList).set_seats(seat_infos(room, view, me))
        self.query_one("#pot", Line).show(*pot_parts(view))
        self.query_one("#banner", Line).show(*banner_parts(view))
        self.query_one("#mine", Line).show(*self._mine_parts(view))
        self._show_cards(view)
        status = status_parts(view, me, legal, self._choosing(view))
        self.query_one("#status", CountdownLine).show(*status)
        bar = self.query_one(ActionBar)
        bar.display = self.in_game
        bar.set_legal([a for a in self.legal() if a["type"] in ACTION_NAMES])
        self.query_one(PromptBar).set_prompts(self._game_prompts(view))
        turn = (view.get("handNo"), view.get("rematchNo"), view.get("street"), view.get("handPhase"))
        if self.legal() and turn != self._turn_key:
            self._turn_key = turn
            self.app.bell()  # §9 "your turn"
        elif not self.legal():
            self._turn_key = None

    def _own_seat(self, view: dict[str, Any]) -> dict[str, Any] | None:
        return next((s for s in view["seats"] if s["id"] == self.nickname), None)

    def _mine_parts(self, view: dict[str, Any]) -> list[tuple[str, str]]:
        seat = self._own_seat(view) if self.in_game else None
        if seat is None or not seat.get("inHand"):
            return [("관전 중이에요", "dim")] if not self.in_game else []
        cards = [c for c in seat.get("cards", []) if "id" in c]
        chosen = seat.get("chosenIds")
        parts: list[tuple[str, str]] = [("내 패: ", "")]
        for i, card in enumerate(cards):
            thrown = chosen is not None and card["id"] not in chosen
            parts.append(("  " if i else "", ""))
            parts.append((card_label(card), "dim strike" if thrown else "bold"))
        hint = view.get("myHand")
        if self._choosing(view):
            if len(self.selected) == 2 and self.room is not None:
                a, b = (DECK[i] for i in self.selected)
                rank = evaluate(a, b, self.room.options)
                parts.append((f"\n고른 패: {a.label} + {b.label} = {rank.name}", "bold"))
            else:
                parts.append(("\n두 장을 고르세요 (1·2·3 키나 카드 클릭)", ""))
            if hint and hint.get("recommended"):
                a, b = (DECK[i] for i in hint["recommended"])
                parts.append((f"\n추천(r): {a.label} + {b.label} = {hint['name']}", "dim"))
        elif hint:
            style = {"높음": "bold green", "중간": "bold yellow", "낮음": "bold red"}.get(
                hint.get("strength", ""), "bold"
            )
            parts.append((f"\n{hint.get('hint') or hint['name']}", style))
        return parts

    def _show_cards(self, view: dict[str, Any]) -> None:
        """Draw the own cards; raised = picked for the 3-card choice, dimmed = thrown away."""
        seat = self._own_seat(view) if self.in_game else None
        cards = [DECK[c["id"]] for c in (seat or {}).get("cards", []) if "id" in c]
        chosen = (seat or {}).get("chosenIds")
        dimmed = frozenset(c.id for c in cards if chosen is not None and c.id not in chosen)
        selected = frozenset(self.selected) if self._choosing(view) else frozenset()
        size = "large" if self.app.size.height >= LARGE_CARDS_HEIGHT else "compact"
        self.query_one(HandCards).show(cards, selected, dimmed, size)  # type: ignore[arg-type]

    def on_card_view_clicked(self, event: CardView.Clicked) -> None:
        """Clicking a card picks it for the 3-card choice (like its number key)."""
        event.stop()
        view = self.view
        if view is None or event.card is None or not self._choosing(view):
            return
        seat = self._own_seat(view) or {}
        ids = [c["id"] for c in seat.get("cards", []) if "id" in c]
        if event.card.id in ids:
            self.action_num(ids.index(event.card.id) + 1)

    def on_resize(self, event: events.Resize) -> None:
        if self.latest is not None:
            self._redraw()

    def _choosing(self, view: dict[str, Any]) -> bool:
        return any(a["type"] == "choose" for a in self.legal()) and view.get("handPhase") == "choose"

    def _game_prompts(self, view: dict[str, Any]) -> list[tuple[str, str, bool]]:
        prompts: list[tuple[str, str, bool]] = []
        legal = self.legal()
        kinds = {a["type"]: a for a in legal}
        if self._choosing(view):
            seat = self._own_seat(view) or {}
            for i, card in enumerate(c for c in seat.get("cards", []) if "id" in c):
                mark = "*" if card["id"] in self.selected else ""
                prompts.append((f"num({i + 1})", f"{i + 1} {mark}{card_short(card)}", True))
            prompts.append(("confirm", "Enter 확정", len(self.selected) == 2))
            if view.get("myHand") and view["myHand"].get("recommended"):
                prompts.append(("recommend", "r 추천", True))
        elif "rejoin" in kinds:
            accept = next((a for a in legal if a["type"] == "rejoin" and a["accept"]), None)
            cost = f" (+{chips(accept['amount'])})" if accept else ""
            prompts.append(("answer(True)", f"y 재참가{cost}", accept is not None))
            prompts.append(("answer(False)", "n 안 함", True))
        elif "rebuy" in kinds:
            prompts.append(("answer(True)", "y 칩 다시 받기", True))
            prompts.append(("answer(False)", "n 그만하기", True))
        elif "ready" in kinds:
            prompts.append(("ready", "Space 준비", True))
        prompts.append(("leave", "q 나가기", True))
        return prompts

    def _tick(self) -> None:
        status = self.query_one("#status", CountdownLine)
        if self._deadline_at is None:
            status.seconds = None
        else:
            status.seconds = max(0, int(self._deadline_at - time.monotonic() + 0.999))

    # ------------------------------------------------------------------ actions
    def say(self, text: str) -> None:
        self.query_one("#message", Line).show((text, "bold red") if text else "")

    def _act(self, action: dict[str, Any]) -> None:
        error = self.manager.act(self.room_id, self.nickname, action)
        self.say(error or "")

    async def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        button_id = event.button.id or ""
        if button_id.startswith("bet-"):
            self._act({"type": button_id[4:]})
            return
        action = self.query_one(PromptBar).action_for(event.button)
        if action:
            await self.run_action(action)

    def action_num(self, n: int) -> None:
        view = self.view
        if view is None or not self.in_game:
            return
        if self._choosing(view):
            seat = self._own_seat(view) or {}
            cards = [c["id"] for c in seat.get("cards", []) if "id" in c]
            if n <= len(cards):
                card = cards[n - 1]
                if card in self.selected:
                    self.selected.remove(card)
                else:
                    self.selected = (self.selected + [card])[-2:]
                self._redraw()
            return
        kind = BET_ORDER[n - 1]
        if any(a["type"] == kind for a in self.legal()):
            self._act({"type": kind})
        elif self.legal():
            self.say(f"지금은 {object_particle(ACTION_NAMES[kind])} 할 수 없어요")

    def action_confirm(self) -> None:
        view = self.view
        if view is None or not self._choosing(view):
            return
        if len(self.selected) != 2:
            self.say("카드 두 장을 골라 주세요")
            return
        chosen, self.selected = list(self.selected), []
        self._act({"type": "choose", "cardIds": chosen})

    def action_recommend(self) -> None:
        view = self.view
        if view is None or not self._choosing(view) or not view.get("myHand"):
            return
        self.selected = list(view["myHand"].get("recommended") or [])[:2]
        self._redraw()

    def action_answer(self, accept: bool) -> None:
        for action in self.legal():
            if action["type"] in ("rejoin", "rebuy") and action.get("accept") == accept:
                self._act({"type": action["type"], "accept": accept})
                return

    def action_ready(self) -> None:
        if any(a["type"] == "ready" for a in self.legal()):
            self._act({"type": "ready"})

    def action_start(self) -> None:
        try:
            self.manager.start(self.room_id, self.nickname)
        except RoomError as exc:
            self.say(str(exc))
        else:
            self.say("")

    def action_join(self) -> None:
        if self.seated:
            return
        try:
            self.manager.join(self.room_id, self.nickname)
        except RoomError as exc:
            self.say(str(exc))
        else:
            self.say("")

    def action_leave(self) -> None:
        from .confirm import ConfirmScreen

        if self.in_game:
            question = "게임 중에 나가면 남은 판은 모두 자동으로 다이해요.\n정말 나갈까요?"
            self.app.push_screen(ConfirmScreen(question), self._leave_confirmed)
        else:
            self._leave_confirmed(True)

    def _leave_confirmed(self, yes: bool | None) -> None:
        if not yes:
            return
        if self._unsubscribe:
            self._unsubscribe()
            self._unsubscribe = None
        self.manager.leave(self.room_id, self.nickname)
        self._close()

    def _close(self) -> None:
        """Back to the lobby (also from under a modal that is still open)."""
        while self.app.screen is not self and len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        if self.app.screen is self:
            self.app.pop_screen()
