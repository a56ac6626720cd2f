"""The table's keys: betting hotkeys, the 3-card choice, prompts, chat, and leaving.

A mixin of :class:`~seotda_tui.ui.screens.table.TableScreen`, kept apart so each module stays
small; it only reads the screen's state and calls the manager.
"""

from __future__ import annotations

import re
from abc import abstractmethod
from collections.abc import Callable
from typing import Any

from rich.cells import cell_len, set_cell_size
from textual.binding import BindingType

from engine import Options
from engine.types import Action, LegalAction, SeatView, View

from ...i18n import N_, _
from ...rooms import RoomError, RoomUpdate
from ...rooms.bot_seats import BOT_TAGS
from ...rooms.moderation import NOT_HOST
from ..keys import BET_NUMBERS, KeyHint, bind, numbered
from ..present.variants import candidate, drawing, picking_shared, stepped
from ..widgets.actions import ActionBar, PromptBar
from ..widgets.card import CardView
from ..widgets.chatline import ChatInput, ChatLine
from ..widgets.lines import Line
from ..widgets.texts import BET_ORDER, event_lines
from .chatting import ChatScreen

#: The level of each bot the host adds with "+", in turn.
BOT_ORDER = tuple(BOT_TAGS)  # cautious, strong, random

#: What the game did for a player whose time ran out (the engine's ``timeout`` event's action);
#: each fits the message's half of the prompt row at 80 columns.
#: (All of these are msgids, translated where they are said.)
TIMEOUT_LINES = {
    "check": N_("시간이 지나 자동으로 체크했어요"),
    "die": N_("시간이 지나 자동으로 다이했어요"),
    "choose": N_("시간이 지나 자동으로 두 장 골랐어요"),
    "rebuy": N_("시간이 지나 리바이하지 않았어요"),
    "rejoin": N_("시간이 지나 재참가하지 않았어요"),
    "gusaChoice": N_("시간이 지나 구사를 발동했어요"),
}
OUT_OF_TURN = N_("아직 내 차례가 아니에요")
#: A spectator's answer to a player-only key (betting, the 3장 choice, y/n, Space): nothing
#: happens, and the line says why (and how to sit down, when the room takes players).
WATCHER_BET = N_("관전 중에는 베팅할 수 없어요")
WATCHER_KEY = N_("관전 중에는 할 수 없어요")
WATCHER_JOIN = KeyHint(N_("관전 중이에요 · {sit} 키로 참가해요"), sit="sit")

#: Events the host's moderation makes (with ``by``): said on the message line to everyone.
MODERATION_EVENTS = frozenset(
    {
        "leaveRoom",
        "unwatch",
        "host",
        "locked",
        "unlocked",
        "readmitted",
        "codeChanged",
        "optionsChanged",
    }
)


#: Where a message may end short: after a sentence, or before a " · " (the reason comes first,
#: then what to do about it).
_CLAUSE_END = re.compile(r"(?<=[.!?])\s+|\s+·\s+")


def shortened(text: str, cells: int) -> str:
    """``text`` if it fits ``cells`` cells, else its leading sentences that fit (the reason,
    without the advice after it), else its leading words that fit and "…": a message shortened
    on purpose, never cut mid-word by the terminal's edge."""
    if cell_len(text) <= cells:
        return text
    ends = [m.start() for m in _CLAUSE_END.finditer(text)]
    for end in reversed(ends):
        if cell_len(text[:end]) <= cells:
            return text[:end]
    words = [m.start() for m in re.finditer(r"\s+", text)]
    for end in reversed(words):
        if cell_len(text[:end]) + 1 <= cells:
            return text[:end] + "…"
    return set_cell_size(text, max(cells - 1, 0)) + "…" if cells > 0 else ""


def table_bindings() -> list[BindingType]:
    """The table's keys (from ui/keys.py, with their input-method aliases)."""
    return [
        *numbered("num({n})", BET_NUMBERS, priority=True),  # see check_action
        bind("confirm", "confirm"),
        bind("recommend", "recommend"),
        bind("yes", "answer(True)"),
        bind("no", "answer(False)"),
        bind("ready", "ready"),
        bind("start", "start"),
        bind("sit", "join"),
        bind("chat", "chat"),
        bind("quick_chat", "quick_chat"),
        bind("toggle_log", "toggle_log"),
        bind("rules", "rules"),
        bind("seat_records", "seat_records"),
        bind("moderate", "moderate"),
        bind(("leave", "cancel"), "leave"),
        # the host seats bots in the waiting room: + (or =, unshifted) adds, - takes the last away
        bind("add_bot", "add_bot"),
        bind("remove_bot", "remove_bot"),
    ]


class TableActions(ChatScreen):
    """Key and button handlers of the table screen (state and drawing live in TableScreen)."""

    room_id: str
    latest: RoomUpdate | None
    selected: list[int]
    _said_moment: tuple[Any, ...] | None = None  # see _feedback
    _said: tuple[str, str] = ("", "")  # the message in full (fit_message shows it)
    log_shown: bool | None
    _unsubscribe: Callable[[], None] | None

    # Provided by TableScreen (declared here so the handlers below type-check).
    @property
    @abstractmethod
    def view(self) -> View | None: ...

    @property
    @abstractmethod
    def in_game(self) -> bool: ...

    @property
    @abstractmethod
    def seated(self) -> bool: ...

    @property
    @abstractmethod
    def paused(self) -> bool: ...

    @abstractmethod
    def legal(self) -> list[LegalAction]: ...

    @abstractmethod
    def _choosing(self, view: View) -> bool: ...

    @abstractmethod
    def _own_seat(self, view: View) -> SeatView | None: ...

    @abstractmethod
    def _redraw(self) -> None: ...

    @abstractmethod
    def _log_visible(self) -> bool: ...

    @abstractmethod
    def _layout(self) -> None: ...

    @abstractmethod
    def help_context(self) -> tuple[Options, str | None]: ...

    def say(self, text: str) -> None:
        self._message((text, "bold red") if text else ("", ""))

    def notice(self, text: str) -> bool:
        """Not an error: plain bold, gone with the moment (see :meth:`_feedback`)."""
        self._message((text, "bold"))
        self._said_moment = self._moment()
        return True

    def _message(self, part: tuple[str, str]) -> None:
        if not (self.is_mounted and self.live):  # e.g. a host-menu answer after leaving
            return
        self._said = part
        self.fit_message()

    def fit_message(self) -> None:
        """The message takes every cell the prompts leave (the engine's reasons run to ~45
        cells at 80 columns); a longer one (the host's 방장 handover beside the host's five
        prompts) takes the middle prompts' cells too for its moment: the bar keeps its first
        prompts that fit and always ``q 나가기``. One longer still than all that is shortened
        on purpose (:func:`shortened`); the whole text comes back at a wider size."""
        width = self.size.width - 2  # the row's padding (app.tcss #prompt-row); known at a resize
        bar, line = self.query_one(PromptBar), self.query_one("#message", Line)
        text, style = self._said
        if width <= 0 or not text:  # (no message: its width is moot, and a new one each
            line.show((text, style))  # phase would lay the screen out at every hand's start,
            return  # tests/test_repaint)
        room = width - bar.needed - PromptBar.GAP
        padding = line.styles.padding
        wanted = cell_len(text) + padding.left + padding.right
        if wanted > room:  # (the bar then puts its prompts a cell apart, or drops middle ones)
            most = width - bar.needed_last - PromptBar.GAP
            text = shortened(text, most - padding.left - padding.right)
            room = min(cell_len(text) + padding.left + padding.right, most)
        line.show((text, style))
        line.styles.max_width = max(room, width // 3)

    def _ask(self, request: Callable[[], object]) -> None:
        """Ask the manager for something: its refusal (a RoomError) goes on the message row,
        success clears it."""
        try:
            request()
        except RoomError as exc:
            self.say(exc.shown())
        else:
            self.say("")

    def _moment(self) -> tuple[Any, ...]:
        """What a message on the line is about: the room's state, the game's phase and
        street, and whether it is this player's turn (for a spectator: whose turn it is).
        When it changes, the message's moment has passed (a reminder to pick two cards must
        not stay into the betting)."""
        view = self.view
        status = self.latest.room.status if self.latest else None
        where: tuple[object, ...] = (None,) * 5
        if view:
            where = (
                view["phase"],
                view.get("handNo"),
                view.get("rematchNo"),
                view.get("street"),
                view.get("handPhase"),
            )
        watching = self.latest is not None and self.nickname in self.latest.room.spectators
        turn = (
            view.get("actor") if view and watching else None
        )  # a spectator's "not while watching"
        return (status, *where, bool(self.legal()), turn)

    def _feedback(self, update: RoomUpdate) -> None:
        """On each push: clear a message whose moment has passed, then tell this player
        (and only them) what the game played for them when their time ran out."""
        moment = self._moment()
        if moment != self._said_moment:
            self._said_moment = moment
            self.say("")
        if update.snapshot:
            return
        for event in update.events:  # the host's moderation, for everyone (the log may be hidden)
            if event.get("by") and event.get("type") in MODERATION_EVENTS:
                lines = event_lines(event)  # (new rules: the headline; the log lists them)
                self.say(lines[0] if event["type"] == "optionsChanged" else " ".join(lines))
        if update.viewer != self.nickname:
            return
        for event in update.events:
            if event.get("type") == "timeout" and event.get("player") == self.nickname:
                line = TIMEOUT_LINES.get(str(event.get("action")))
                self.say(_(line) if line else "")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The number keys are priority bindings, run as the key reaches the app: otherwise
        Textual sends the key to the screen and back up to the app to find its binding, two
        more turns of the event loop behind every other session's work, for the key whose
        latency every seat sees. While chat is being typed they are the chat's digits."""
        if not super().check_action(action, parameters):
            return False
        return not (action == "num" and isinstance(self.focused, ChatInput))

    def _watcher_refused(self, line: str = WATCHER_KEY) -> bool:
        """True (and a feedback line) if this viewer only watches: a player-only key then
        changes nothing, but must not be silent either."""
        room = self.latest.room if self.latest else None
        if room is None or self.nickname not in room.spectators:
            return False
        self.say(WATCHER_JOIN.text() if room.joinable else _(line))
        return True

    def _act(self, action: Action) -> None:
        latency = self.seotda.action_latency
        latency.sent()
        try:
            self.manager.act(self.room_id, self.nickname, action)
        except RoomError as exc:
            latency.refused()
            self.say(exc.shown())
        else:
            self.say("")

    def on_action_bar_chosen(self, event: ActionBar.Chosen) -> None:
        event.stop()
        self._act({"type": event.kind})

    async def on_prompt_bar_chosen(self, event: PromptBar.Chosen) -> None:
        event.stop()
        await self.run_action(event.action)

    def on_card_view_clicked(self, event: CardView.Clicked) -> None:
        """Clicking a card picks it for the 3-card choice (like its number key)."""
        event.stop()
        view = self.view
        if view is None or event.card is None or not self._choosing(view):
            return
        seat = self._own_seat(view)
        ids = [c["id"] for c in (seat.get("cards", []) if seat else []) if "hidden" not in c]
        if event.card.id in ids:
            self.action_num(ids.index(event.card.id) + 1)

    def action_num(self, n: int) -> None:
        if self._watcher_refused(WATCHER_BET):
            return
        view = self.view
        if view is None or not self.in_game:
            return
        if picking_shared(view, self.legal()):  # issue 36 한장공유: step through the 20 cards
            self.selected = stepped(self.selected, n)
            self._redraw()
            return
        if self._choosing(view):
            seat = self._own_seat(view)
            cards = [c["id"] for c in (seat.get("cards", []) if seat else []) if "hidden" not in c]
            if n <= len(cards):
                card = cards[n - 1]
                if card in self.selected:
                    self.selected.remove(card)
                else:
                    self.selected = (self.selected + [card])[-2:]
                self._redraw()
            return
        kind = BET_ORDER[n - 1]
        if self.legal():
            # A key the bar does not offer goes to the engine too: it changes nothing and says
            # why (풀 in a room capped at 하프, a check after someone bet), its one place for that.
            self._act({"type": kind})
        elif not self.paused:  # (paused: the status line already says why nothing moves)
            self.say(_(OUT_OF_TURN))

    def action_confirm(self) -> None:
        if self._watcher_refused():
            return
        view = self.view
        if view is not None and drawing(self.legal()):  # issue 36 후회의 섯다: take a card
            self._act({"type": "draw"})
            return
        if view is not None and picking_shared(view, self.legal()):  # issue 36 한장공유
            card, self.selected = candidate(self.selected), []
            self._act({"type": "pickShared", "cardId": card})
            return
        if view is None or not self._choosing(view):
            return
        if len(self.selected) != 2:
            self.say(_("카드 두 장을 골라 주세요"))
            return
        chosen, self.selected = list(self.selected), []
        self._act({"type": "choose", "cardIds": chosen})

    def action_recommend(self) -> None:
        if self._watcher_refused():
            return
        view = self.view
        hand = view.get("myHand") if view is not None else None
        if view is None or not self._choosing(view) or not hand:
            return
        self.selected = list(hand.get("recommended") or [])[:2]
        self._redraw()

    def action_answer(self, accept: bool) -> None:
        if self._watcher_refused():
            return
        for action in self.legal():
            if (
                action["type"] in ("rejoin", "rebuy", "gusaChoice")
                and action.get("accept") == accept
            ):
                self._act({"type": action["type"], "accept": accept})
                return

    def action_ready(self) -> None:
        if self._watcher_refused():
            return
        if any(a["type"] == "ready" for a in self.legal()):
            self._act({"type": "ready"})

    def action_start(self) -> None:
        self._ask(lambda: self.manager.start(self.room_id, self.nickname))

    def action_join(self) -> None:
        if self.seated:
            return
        try:
            self.manager.join(self.room_id, self.nickname)
        except RoomError as exc:
            self.say(exc.shown())
            return
        self.say("")  # (a seat at the next hand: the own row says so, issue 32)

    # ------------------------------------------------------------------ bots (host, waiting room)
    def action_add_bot(self) -> None:
        """Seat a bot; each press takes the next level (신중 → 강함 → 무작위 → 신중 …)."""
        if self.view is not None:  # only in the waiting room
            return
        turn = getattr(self, "_bot_presses", 0)
        self._bot_presses = turn + 1
        level = BOT_ORDER[turn % len(BOT_ORDER)]
        self._ask(lambda: self.manager.add_bot(self.room_id, self.nickname, level))

    def action_remove_bot(self) -> None:
        if self.view is not None:
            return
        self._ask(lambda: self.manager.remove_bot(self.room_id, self.nickname))

    # ------------------------------------------------------------------ moderation (host)
    def action_moderate(self) -> None:
        """The host's menu: remove someone, lock the room, hand the host role on."""
        room = self.latest.room if self.latest else None
        if room is None:
            return
        if room.host != self.nickname:
            self.say(_(NOT_HOST))
            return
        self.seotda.moderate(room, self._moderation_chosen)

    def _moderation_chosen(self, choice: tuple[str, str] | None) -> None:
        if choice is None:
            return
        what, whom = choice
        if what == "rules":  # the filled-in room form is the step that asks
            if self.latest is not None:
                self.seotda.edit_rules(self.latest.room, lambda _room: None)
            return
        private = self.latest is not None and self.latest.room.private
        if what == "remove" and private:
            question = _(
                "{whom}님을 이 방에서 내보낼까요?\n방장이 다시 받아 주기 전에는 들어올 수 없어요."
                "\n방 코드도 새로 바뀌어요."
            ).format(whom=whom)
        elif what == "remove":
            question = _(
                "{whom}님을 이 방에서 내보낼까요?\n방장이 다시 받아 주기 전에는 들어올 수 없어요."
            ).format(whom=whom)
        elif what == "code":
            question = _("방 코드를 새로 바꿀까요?\n지금 코드로는 더 들어올 수 없어요.")
        elif what == "host":
            question = _("{whom}님에게 방장을 넘길까요?").format(whom=whom)
        elif what == "lock":
            question = _(
                "방을 잠글까요?\n새로 앉거나 관전하러 들어올 수 없어요."
                "\n지금 관전 중인 사람은 앉을 수 있어요."
            )
        elif what == "unlock":
            question = _("방 잠금을 풀까요?\n새로 온 사람도 앉거나 관전할 수 있어요.")
        else:  # readmit
            barred = ", ".join(self.latest.room.barred) if self.latest is not None else ""
            question = _("내보낸 사람을 다시 받을까요?\n{names}님이 다시 들어올 수 있어요.").format(
                names=barred
            )
        self.seotda.confirm(question, lambda yes: self._moderate(what, whom) if yes else None)

    def _moderate(self, what: str, whom: str) -> None:
        manager, room_id, me = self.manager, self.room_id, self.nickname
        try:
            if what == "remove":
                manager.remove(room_id, me, whom)
            elif what == "host":
                manager.hand_host(room_id, me, whom)
            elif what == "readmit":
                manager.readmit(room_id, me)
            elif what == "code":
                manager.change_code(room_id, me)
            else:
                manager.set_locked(room_id, me, what == "lock")
        except RoomError as exc:
            self.say(exc.shown())
        else:
            self.say("")

    # ------------------------------------------------------------------ chat and log
    def action_rules(self) -> None:
        """The room's rules (help's 규칙 tab, which starts with them): never cut at 80 columns."""
        options, hand = self.help_context()
        self.seotda.open_help(options, hand, tab="help-rules-pane")

    def action_seat_records(self) -> None:
        """Every seat's record (전적) in a compact panel over the table."""
        room = self.latest.room if self.latest is not None else self.manager.room(self.room_id)
        if room is not None:
            self.seotda.open_seat_records(room.players, room.bots)

    def action_toggle_log(self) -> None:
        self.log_shown = not self._log_visible()
        self._layout()
        if self.view is not None:
            self._redraw()  # the seat boxes' columns follow the width the log leaves them

    # ------------------------------------------------------------------ leaving
    def action_leave(self) -> None:
        line = self.query_one(ChatLine)
        if line.typing:  # Esc in the chat input closes it, nothing more
            line.close()
            return
        view = self.view
        if self.in_game and view is not None:
            seat = self._own_seat(view)
            self.seotda.confirm_leave(seat["status"] if seat else None, self._leave_confirmed)
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
        """Back to the lobby (also from under a modal that is still open). The lobby is not
        kept under the table (see ``SeotdaApp.open_table``), so a fresh one replaces the table."""
        self.seotda.open_lobby(self)
