"""The lobby: the live room list, and the keys to create, join or watch a room.

The list's 규칙 column is a short summary (shortened to fit at 80 columns); the selected room's
rules show in full below the list, and ``i`` opens all of them (help's 규칙 tab, as at the table).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import ClassVar

from rich.text import Text
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import RichLog, Static

from ...i18n import N_, _
from ...rooms import RoomError, RoomSummary
from ...rooms.chat import LOBBY
from ...rooms.private import NEED_CODE
from ..keys import KeyHint, bind
from ..room_rules import room_rules_lines
from ..timers import ScreenTimer, after
from ..widgets.chatline import KEYS_LOBBY, ChatInput, ChatLine
from ..widgets.code_prompt import CodePrompt, CodeRow
from ..widgets.roomlist import RoomList
from ..widgets.texts import first_fit, option_summary_forms
from .base import Pushed
from .chatting import ChatScreen

#: How long a refusal (a full room, a game already running…) stays on the lobby's message line.
MESSAGE_SECONDS = 5.0

COLUMNS = (N_("번호"), N_("방 이름"), N_("방장"), N_("인원"), N_("관전"), N_("상태"), N_("규칙"))
EMPTY = KeyHint(N_("아직 방이 없어요. {new} 키로 새 방을 만들어 보세요."), new="new_room")
#: Above the selected room's rules: the key that opens all of them.
RULES_HEAD = KeyHint(N_("■ {n}번 방의 규칙 ({rules} 자세히)"), "n", rules="rules")
#: The title's keys (apart by two spaces, as the title's parts are by " · ").
TITLE_KEYS = KeyHint(
    N_("{new} 새 방  {join} 참가  {watch} 관전  {code} 코드  {quit} 나가기"),
    new="new_room",
    join="confirm",
    watch="watch",
    code="code",
    quit="leave",
)
PICK_FIRST = N_("방을 먼저 골라 주세요 (위아래 화살표)")
#: The lobby's u: a one-time browser link (ssh/browser_links.py: 10 minutes, one login).
LINK_SECONDS_SHOWN = 60.0  # long enough to copy it
LINK_OK = N_(
    "브라우저 링크예요. 10분 안에 한 번만 이 닉네임으로 들어갈 수 있어요 (남에게 보이지 마세요):"
)
LINK_OFF = N_("이 서버는 브라우저 접속이 꺼져 있어요.")
LINK_AWAY = N_("지금은 브라우저 링크를 만들 수 없어요. 잠시 뒤에 다시 해 주세요.")
LINK_NO_KEY = N_(
    "브라우저 링크는 SSH 키로 접속했을 때만 만들 수 있어요. "
    "비밀번호가 있는 닉네임은 브라우저에서 그 비밀번호로 들어가요."
)


def headers() -> tuple[str, ...]:
    return tuple(_(column) for column in COLUMNS)


def row_cells(room: RoomSummary, number: int) -> tuple[str | tuple[str, ...], ...]:
    """One lobby row; ``number`` is the room's place in the list (ids are long and internal)."""
    return (
        str(number),
        _("{name} (비공개)").format(name=room.name) if room.private else room.name,
        room.host or "-",
        f"{len(room.players)}/{room.max_players}",
        str(len(room.spectators)),
        _(room.status_label) + (" " + _("잠김") if room.locked else ""),
        option_summary_forms(room.options),
    )


def room_rules_text(room: RoomSummary, number: int, cells: int) -> Text:
    """Below the list: the selected room's game and play rules (the topics people choose a
    room by), wrapped between rules to ``cells``; the rest is one key away."""
    lines = room_rules_lines(room.options, cells, topics=2)
    head = RULES_HEAD.text(n=number)
    return Text.assemble((head, "bold"), "\n", "\n".join(lines))


class LobbyScreen(ChatScreen):
    """The live room list, the lobby chat, and the keys to open, join or watch a room."""

    CHAT_LOG = "#lobby-chat"
    chat_channel = LOBBY
    BINDINGS: ClassVar[list[BindingType]] = [
        bind("new_room", "create", "새 방 만들기", show=True),
        bind("confirm", "join", "참가", show=True),
        bind("watch", "watch", "관전", show=True),
        bind("chat", "chat", "채팅", show=True),
        bind("quick_chat", "quick_chat"),
        bind("records", "records", "전적", show=True),
        bind("code", "code", "코드로 입장", show=True),
        bind("history", "history", "지난 게임", show=True),
        bind("leave", "quit", "나가기", show=True),
        bind("rules", "rules"),
        bind("browser_link", "browser_link"),
        bind("cancel", "close_chat"),
    ]

    def __init__(self, notice: str = "") -> None:
        super().__init__()
        self._notice = notice  # e.g. why ``ssh 철수+CODE@host`` did not find its room
        self._private: set[str] = set()  # ids of the listed private rooms
        self._unsubscribe: Callable[[], None] | None = None
        self._message_timer: ScreenTimer | None = None  # clears the message (app's clock)
        self._rooms: list[RoomSummary] = []
        #: The code prompt while it shows: one at a time, known by this state (not by a
        #: query, which finds a removed prompt until its removal completes).
        self._prompt: CodePrompt | None = None
        self._prompt_row: CodeRow | None = None  # the prompt's line (its label and keys)

    def compose_body(self) -> Iterable[Widget]:
        yield Static("", id="lobby-title")
        yield Static("", id="motd")
        with Vertical(id="lobby-list"):
            yield RoomList(headers(), id="rooms")
            yield Static(EMPTY.text(), id="lobby-empty")
        yield Static("", id="lobby-room")
        yield RichLog(id="lobby-chat", max_lines=100, wrap=True, markup=False)
        yield Static("", id="lobby-message")
        yield ChatLine(KEYS_LOBBY, id="chat")

    def _show_title(self) -> None:
        keys = TITLE_KEYS.text()
        nick = self.nickname
        title = first_fit(
            self.app.size.width - 2,  # the title's padding
            _("섯다 로비 · {nick}님 환영해요 · {keys}").format(nick=nick, keys=keys),
            _("섯다 로비 · {nick}님 · {keys}").format(nick=nick, keys=keys),
            _("{nick}님 · {keys}").format(nick=nick, keys=keys),
        )
        self.query_one("#lobby-title", Static).update(Text(title))

    def on_resize(self) -> None:
        self._show_title()
        self._show_selected()

    def relabel(self) -> None:
        self._show_title()
        self.query_one("#lobby-empty", Static).update(EMPTY.text())
        self.query_one(RoomList).set_headers(headers())
        self.query_one(ChatLine).relabel()
        self.show_rooms(self._rooms)

    def on_mount(self) -> None:
        self._show_title()
        motd = self.query_one("#motd", Static)
        motd.update(Text(self.seotda.motd))
        motd.display = bool(self.seotda.motd)
        self._listen()
        self.query_one(RoomList).focus()
        if self._notice:
            self.say(self._notice)

    def _listen(self) -> None:
        """Follow the room list and the lobby chat (again), starting from what they are now."""
        if self._unsubscribe is not None:
            return
        self.chat_log().clear()
        self.follow_chat()
        self._unsubscribe = self.manager.subscribe_lobby(self.deliver)

    def _stop_listening(self) -> None:
        self.stop_chat()
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None

    def on_unmount(self) -> None:
        self._stop_listening()
        if self._message_timer is not None:
            self._message_timer.stop()

    def on_screen_suspend(self) -> None:
        """Under a table (or the room form) the lobby is not seen: stop following it. With
        hundreds of players seated, every join would otherwise update every one of their
        hidden lobbies."""
        self._stop_listening()

    def chat_done(self) -> None:
        self.query_one(RoomList).focus()

    def action_close_chat(self) -> None:
        if self._close_code_prompt():
            return
        line = self.query_one(ChatLine)
        if line.typing:
            line.close()
            self.query_one(RoomList).focus()

    def other_input(self, event: ChatInput.Submitted) -> bool:
        if isinstance(event.input, CodePrompt):
            self._code_entered(event.input, event.value)
            return True
        return False

    def on_screen_resume(self) -> None:
        self._listen()
        self.query_one(RoomList).focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While the code prompt shows, only Esc acts: keys typed in the same packet as the
        ``c`` that opened it (before it has the focus) must not open another one or a room."""
        if self._prompt is not None and action != "close_chat":
            return False
        return super().check_action(action, parameters)

    def on_pushed(self, message: Pushed) -> None:
        rooms = message.payload
        assert isinstance(rooms, list)  # (the lobby subscribes to the room list only)
        self.show_rooms(rooms)
        self.paint_now()

    def show_rooms(self, rooms: list[RoomSummary]) -> None:
        rows = [(room.id, row_cells(room, n)) for n, room in enumerate(rooms, 1)]
        self._rooms = list(rooms)
        self._private = {room.id for room in rooms if room.private}
        self.query_one(RoomList).set_rows(rows)
        self.query_one("#lobby-empty", Static).display = not rows
        self._show_selected()

    def _selected(self) -> tuple[int, RoomSummary] | None:
        """The room under the cursor and its number in the list."""
        key = self.query_one(RoomList).selected_key
        return next(((n, r) for n, r in enumerate(self._rooms, 1) if r.id == key), None)

    def _show_selected(self) -> None:
        detail = self.query_one("#lobby-room", Static)
        selected = self._selected()
        detail.display = selected is not None
        if selected is not None:
            cells = max(24, self.app.size.width - 2)  # the detail's padding
            detail.update(room_rules_text(selected[1], selected[0], cells))

    def on_room_list_highlighted(self, event: RoomList.Highlighted) -> None:
        event.stop()
        self._show_selected()

    def action_rules(self) -> None:
        """All of the selected room's rules: help's 규칙 tab, as the table's ``i`` opens it."""
        selected = self._selected()
        if selected is None:
            self.say(_(PICK_FIRST))
            return
        self.seotda.open_help(selected[1].options, None, tab="help-rules-pane")

    def say(self, text: str, seconds: float = MESSAGE_SECONDS) -> None:
        """Show a refusal for :data:`MESSAGE_SECONDS` (the room list it was about moves on)."""
        self.query_one("#lobby-message", Static).update(Text(text))  # may quote a room name
        if self._message_timer is not None:
            self._message_timer.stop()
            self._message_timer = None
        if text:
            clock = self.seotda.clock
            self._message_timer = after(clock, self, seconds, lambda: self.say(""))

    def action_browser_link(self) -> None:
        """A one-time link into the browser page for this nickname, to a login that proved
        its SSH key (a browser has none: its name is refused there without such a link)."""
        make = self.seotda.browser_link
        status, url = make() if make is not None else ("no_key", "")
        if status == "ok":
            self.say(_(LINK_OK) + "\n" + url, LINK_SECONDS_SHOWN)
        else:
            refusal = {"off": LINK_OFF, "away": LINK_AWAY}.get(status, LINK_NO_KEY)
            self.say(_(refusal))

    def notice(self, text: str) -> bool:
        self.say(text)
        return True

    def on_room_list_selected(self, event: RoomList.Selected) -> None:
        event.stop()
        self.action_join()

    def action_create(self) -> None:
        def created(room_id: str | None) -> None:
            if room_id:
                self._open(room_id)

        self.seotda.create_room(created)

    def action_join(self) -> None:
        self._enter(self._join_else_watch)

    def _join_else_watch(self, room_id: str, nick: str, code: str | None = None) -> None:
        """Enter sits down; in a running game it opens the table to watch (issue 32 item 13),
        where ``j`` asks for a seat and says when one opens."""
        try:
            self.manager.join(room_id, nick, code)
        except RoomError as exc:
            if exc.code != "game_running":
                raise
            self.manager.watch(room_id, nick, code)

    def action_watch(self) -> None:
        self._enter(self.manager.watch)

    def _enter(self, how: Callable[[str, str], object]) -> None:
        room_id = self.query_one(RoomList).selected_key
        if room_id is None:
            self.say(_(PICK_FIRST))
            return
        if room_id in self._private and self.manager.room_of(self.nickname) != room_id:
            self._open_code_prompt(room_id, "watch" if how == self.manager.watch else "join")
            return
        try:
            if self.manager.room_of(self.nickname) != room_id:
                how(room_id, self.nickname)
        except RoomError as exc:
            self.say(exc.shown())
            return
        self._open(room_id)

    # ------------------------------------------------------------------ private rooms' codes
    def action_code(self) -> None:
        """Type a code to enter a private room, listed or not (seat, else watch)."""
        self._open_code_prompt(None, "join")

    def _open_code_prompt(self, room_id: str | None, how: str) -> None:
        """Show the prompt for ``room_id`` (or any room's code), or aim the one showing there."""
        prompt = self._prompt
        if prompt is None:
            prompt = self._prompt = CodePrompt(room_id, how)
            self._prompt_row = CodeRow(prompt)
            self.mount(self._prompt_row, before="#lobby-message")
        else:
            prompt.aim(room_id, how)
        prompt.focus()
        if room_id is not None:
            self.say(_(NEED_CODE))

    def _close_code_prompt(self) -> bool:
        prompt, self._prompt = self._prompt, None
        row, self._prompt_row = self._prompt_row, None
        if prompt is None:
            return False
        (row or prompt).remove()
        self.query_one(RoomList).focus()
        return True

    def _code_entered(self, prompt: CodePrompt, code: str) -> None:
        room_id, how = prompt.room_id, prompt.how
        self._close_code_prompt()
        try:
            if room_id is None:
                room_id = self.manager.direct_join(code, self.nickname)
            elif how == "watch":
                self.manager.watch(room_id, self.nickname, code)
            else:
                self._join_else_watch(room_id, self.nickname, code)
        except RoomError as exc:
            self.say(exc.shown())
            return
        self._open(room_id)

    def _open(self, room_id: str) -> None:
        self.say("")
        self.seotda.open_table(room_id)

    def action_records(self) -> None:
        self.seotda.open_records()

    def action_history(self) -> None:
        self.seotda.open_history()

    def action_quit(self) -> None:
        """Ask first: one stray q (or ㅂ) would otherwise end the whole SSH session."""

        def answered(yes: bool | None) -> None:
            if yes:
                self.app.exit()

        self.seotda.confirm(_("접속을 끊고 나갈까요?"), answered)
