"""The lobby: the live room list, and the keys to create, join or watch a room."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import RichLog, Static

from ...rooms import RoomError, RoomSummary
from ...rooms.chat import LOBBY, ChatMessage
from ..widgets.chatline import KEYS_LOBBY, ChatInput, ChatLine, message_text
from ..widgets.roomlist import RoomList
from ..widgets.texts import first_fit, option_summary
from .base import BaseScreen, Pushed


class LobbyChat(Message):
    def __init__(self, message: ChatMessage) -> None:
        super().__init__()
        self.message = message


#: How long a refusal (a full room, a game already running…) stays on the lobby's message line.
MESSAGE_SECONDS = 5.0

COLUMNS = ("번호", "방 이름", "방장", "인원", "관전", "상태", "규칙")
EMPTY = "아직 방이 없어요. n 키로 새 방을 만들어 보세요."


def row_cells(room: RoomSummary, number: int) -> tuple[str, ...]:
    """One lobby row; ``number`` is the room's place in the list (ids are long and internal)."""
    return (
        str(number),
        room.name,
        room.host or "-",
        f"{len(room.players)}/{room.max_players}",
        str(len(room.spectators)),
        room.status_label,
        option_summary(room.options),
    )


class LobbyScreen(BaseScreen):
    """The live room list, the lobby chat, and the keys to open, join or watch a room."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "create", "새 방 만들기"),
        Binding("enter", "join", "참가"),
        Binding("w", "watch", "관전"),
        Binding("t", "chat", "채팅"),
        Binding("h,ㅗ", "history", "지난 게임"),
        Binding("q", "quit", "나가기"),
        Binding("escape", "close_chat", show=False),
        # The same keys while a Korean input method is on (두벌식 ㅜ/ㅈ/ㅅ/ㅂ).
        Binding("ㅜ", "create", show=False),
        Binding("ㅈ", "watch", show=False),
        Binding("ㅅ", "chat", show=False),
        Binding("ㅂ", "quit", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self._unsubscribe: Callable[[], None] | None = None
        self._chat_unsubscribe: Callable[[], None] | None = None
        self._message_until: float | None = None  # on the app's clock
        self._message_timer: Timer | None = None  # runs only while a message shows

    def compose_body(self) -> Iterable[Widget]:
        yield Static("", id="lobby-title")
        yield Static("", id="motd")
        with Vertical(id="lobby-list"):
            yield RoomList(COLUMNS, id="rooms")
            yield Static(EMPTY, id="lobby-empty")
        yield RichLog(id="lobby-chat", max_lines=100, wrap=True, markup=False)
        yield Static("", id="lobby-message")
        yield ChatLine(f"h 지난 게임 · {KEYS_LOBBY}", id="chat")

    def _show_title(self) -> None:
        keys = "n 새 방  Enter 참가  w 관전  q 나가기"
        title = first_fit(
            self.app.size.width - 2,  # the title's padding
            f"섯다 로비 · {self.nickname}님 환영해요 · {keys}",
            f"섯다 로비 · {self.nickname}님 · {keys}",
            f"{self.nickname}님 · {keys}",
        )
        self.query_one("#lobby-title", Static).update(Text(title))

    def on_resize(self) -> None:
        self._show_title()

    def on_mount(self) -> None:
        self._show_title()
        motd = self.query_one("#motd", Static)
        motd.update(Text(self.seotda.motd))
        motd.display = bool(self.seotda.motd)
        self._listen()
        self.query_one(RoomList).focus()

    def _listen(self) -> None:
        """Follow the room list and the lobby chat (again), starting from what they are now."""
        if self._unsubscribe is not None:
            return
        chat_log = self.query_one("#lobby-chat", RichLog)
        chat_log.clear()
        for message in self.seotda.chat.history(LOBBY):
            chat_log.write(message_text(message))
        self._chat_unsubscribe = self.seotda.chat.subscribe(LOBBY, self._chat_deliver)
        self._unsubscribe = self.manager.subscribe_lobby(self.deliver)

    def _stop_listening(self) -> None:
        for unsubscribe in (self._unsubscribe, self._chat_unsubscribe):
            if unsubscribe:
                unsubscribe()
        self._unsubscribe = self._chat_unsubscribe = None

    def on_unmount(self) -> None:
        self._stop_listening()

    def on_screen_suspend(self) -> None:
        """Under a table (or the room form) the lobby is not seen: stop following it. With
        hundreds of players seated, every join would otherwise update every one of their
        hidden lobbies."""
        self._stop_listening()

    def _chat_deliver(self, message: ChatMessage) -> None:
        """Hub callback (maybe on another session's task): only queue it."""
        self.post_message(LobbyChat(message).set_sender(self))

    def on_lobby_chat(self, event: LobbyChat) -> None:
        self.query_one("#lobby-chat", RichLog).write(message_text(event.message))
        self.query_one(ChatLine).show(event.message)
        self.paint_now()

    def action_chat(self) -> None:
        self.query_one(ChatLine).open()

    def action_close_chat(self) -> None:
        line = self.query_one(ChatLine)
        if line.typing:
            line.close()
            self.query_one(RoomList).focus()

    def on_input_submitted(self, event: ChatInput.Submitted) -> None:
        event.stop()
        line = self.query_one(ChatLine)
        error = self.seotda.chat.post(LOBBY, self.nickname, event.value)
        if error:
            line.refuse(error)
        else:
            line.close()
        self.query_one(RoomList).focus()

    def on_screen_resume(self) -> None:
        self._listen()
        self.query_one(RoomList).focus()

    def on_pushed(self, message: Pushed) -> None:
        self.show_rooms(message.payload)
        self.paint_now()

    def show_rooms(self, rooms: list[RoomSummary]) -> None:
        rows = [(room.id, row_cells(room, n)) for n, room in enumerate(rooms, 1)]
        self.query_one(RoomList).set_rows(rows)
        self.query_one("#lobby-empty", Static).display = not rows

    def say(self, text: str) -> None:
        """Show a refusal for :data:`MESSAGE_SECONDS` (the room list it was about moves on)."""
        self.query_one("#lobby-message", Static).update(Text(text))  # may quote a room name
        self._message_until = self.seotda.clock() + MESSAGE_SECONDS if text else None
        if text and self._message_timer is None:
            self._message_timer = self.set_interval(1.0, self.tick)
        elif not text and self._message_timer is not None:
            self._message_timer.stop()
            self._message_timer = None

    def tick(self) -> None:
        """Once a second (tests call it after moving their fake clock): clear an old message."""
        if self._message_until is not None and self.seotda.clock() >= self._message_until:
            self.say("")

    def on_room_list_selected(self, event: RoomList.Selected) -> None:
        event.stop()
        self.action_join()

    def action_create(self) -> None:
        def created(room_id: str | None) -> None:
            if room_id:
                self._open(room_id)

        self.seotda.create_room(created)

    def action_join(self) -> None:
        self._enter(self.manager.join)

    def action_watch(self) -> None:
        self._enter(self.manager.watch)

    def _enter(self, how: Callable[[str, str], None]) -> None:
        room_id = self.query_one(RoomList).selected_key
        if room_id is None:
            self.say("방을 먼저 골라 주세요 (위아래 화살표)")
            return
        try:
            if self.manager.room_of(self.nickname) != room_id:
                how(room_id, self.nickname)
        except RoomError as exc:
            self.say(str(exc))
            return
        self._open(room_id)

    def _open(self, room_id: str) -> None:
        self.say("")
        self.seotda.open_table(room_id)

    def action_history(self) -> None:
        self.seotda.open_history()

    def action_quit(self) -> None:
        """Ask first: one stray q (or ㅂ) would otherwise end the whole SSH session."""

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.exit()

        self.seotda.confirm("접속을 끊고 나갈까요?", answered)
