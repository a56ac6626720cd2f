// The browser's side of seotda_tui/web/session.py (its docstring is the wire protocol):
// a nickname form, the passphrase prompts the server asks, then an xterm.js terminal whose
// bytes ride binary WebSocket frames. Nothing the server or the address bar says is ever put
// into the page as HTML: only as text (textContent, input values).
"use strict";

(function () {
  const MIN_COLS = 80, MIN_ROWS = 24;
  const FONT_SIZES = [16, 15, 14, 13, 12, 11, 10, 9, 8, 7];
  const $ = (id) => document.getElementById(id);
  const form = $("login-form"), nameInput = $("name"), passInput = $("passphrase");
  const promptsBox = $("prompts"), message = $("message"), enter = $("enter");
  const encoder = new TextEncoder();
  let ws = null, term = null, fit = null, promptInputs = [], rounds = 0;

  // The room to go straight to: ?room=K7QX3 or #K7QX3 (letters, digits, a few marks; shown
  // as text only, and the server checks it as it checks name+CODE over ssh).
  function roomFromAddress() {
    const params = new URLSearchParams(location.search);
    let room = params.get("room") || decodeURIComponent(location.hash.replace(/^#/, ""));
    room = (room || "").trim().slice(0, 24);
    return room;
  }
  const room = roomFromAddress();
  // A one-time browser link (?link=TOKEN, made in the ssh lobby with u) for a nickname held by
  // an SSH key: sent with the login, and taken out of the address bar (it works once: a reload
  // must not send it again).
  const link = (new URLSearchParams(location.search).get("link") || "").slice(0, 128);
  if (link) {
    const params = new URLSearchParams(location.search);
    params.delete("link");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
    say("브라우저 링크로 들어가요: 닉네임만 쓰면 돼요. (A browser link: just type the nickname.)");
  }
  if (room) {
    $("room-code").textContent = room;
    $("room-line").hidden = false;
  }
  try { nameInput.value = sessionStorage.getItem("seotda-name") || ""; } catch (e) { /* private mode */ }

  function say(text) { message.textContent = text || ""; }

  function socketUrl() {
    const base = location.pathname.replace(/[^/]*$/, "");
    return (location.protocol === "https:" ? "wss://" : "ws://") + location.host + base + "ws";
  }

  function showPrompts(msg) {
    rounds += 1;
    promptsBox.textContent = "";
    promptInputs = [];
    const intro = document.createElement("p");
    intro.id = "prompt-message";
    intro.textContent = msg.message || "";
    promptsBox.appendChild(intro);
    const prompts = Array.isArray(msg.prompts) ? msg.prompts : [];
    const kinds = Array.isArray(msg.kinds) ? msg.kinds : [];
    prompts.forEach((text, i) => {
      const label = document.createElement("label");
      label.textContent = String(text);
      const input = document.createElement("input");
      input.type = "password";
      input.maxLength = 256;
      input.autocomplete = prompts.length > 1 ? "new-password" : "current-password";
      label.htmlFor = input.id = "prompt-" + i;
      promptsBox.appendChild(label);
      promptsBox.appendChild(input);
      promptInputs.push(input);
    });
    // The passphrase typed in the form answers the first round's passphrase (or fills the
    // first of a new one's two fields); a round with nothing else to ask is sent at once.
    const typed = passInput.value;
    if (rounds === 1 && typed) {
      kinds.forEach((kind, i) => {
        if ((kind === "passphrase" || kind === "new_passphrase") && promptInputs[i]) promptInputs[i].value = typed;
      });
      if (promptInputs.length && promptInputs.every((input) => input.value)) {
        send({ type: "answers", answers: promptInputs.map((input) => input.value) });
        return;
      }
    }
    promptsBox.hidden = false;
    passInput.disabled = true;
    enter.disabled = false;
    (promptInputs.find((i) => !i.value) || promptInputs[0] || enter).focus();
  }

  function send(obj) {
    if (ws && ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify(obj));
  }

  function resetForm() {
    promptsBox.hidden = true;
    promptsBox.textContent = "";
    promptInputs = [];
    passInput.disabled = false;
    enter.disabled = false;
    rounds = 0;
  }

  function fitTerminal() {
    if (!term || !fit) return;
    for (const size of FONT_SIZES) {
      term.options.fontSize = size;
      const dims = fit.proposeDimensions();
      if (dims && dims.cols >= MIN_COLS && dims.rows >= MIN_ROWS) break;
    }
    fit.fit();
    $("too-small").hidden = term.cols >= MIN_COLS && term.rows >= MIN_ROWS;
  }

  function startTerminal() {
    $("login").hidden = true;
    const box = $("terminal");
    box.hidden = false;
    term = new Terminal({
      // A font whose Hangul is exactly two of its Latin cells comes first (D2Coding, Sarasa,
      // Noto Sans Mono CJK): with a Latin font measuring the cell, a Hangul fallback is
      // narrower than its two cells and every syllable stands apart ("게 임  결 과").
      fontFamily: '"D2Coding", "Sarasa Mono K", "Noto Sans Mono CJK KR", "Cascadia Mono", Consolas, Menlo, "DejaVu Sans Mono", "Noto Sans Mono", monospace',
      fontSize: 15,
      cursorBlink: false,
      scrollback: 0,
      allowProposedApi: false,
    });
    fit = new FitAddon.FitAddon();
    term.loadAddon(fit);
    term.open(box);
    fitTerminal();
    term.onData((data) => { if (ws && ws.readyState === WebSocket.OPEN) ws.send(encoder.encode(data)); });
    term.onBinary((data) => {
      if (ws && ws.readyState === WebSocket.OPEN) ws.send(Uint8Array.from(data, (c) => c.charCodeAt(0) & 255));
    });
    term.onResize(({ cols, rows }) => send({ type: "resize", cols, rows }));
    let pending = null;
    window.addEventListener("resize", () => {
      clearTimeout(pending);
      pending = setTimeout(fitTerminal, 80);
    });
    send({ type: "resize", cols: term.cols, rows: term.rows });
    term.focus();
  }

  function connect() {
    const name = nameInput.value.trim();
    if (!name) { say("닉네임을 써 주세요. (Type a nickname.)"); nameInput.focus(); return; }
    try { sessionStorage.setItem("seotda-name", name); } catch (e) { /* private mode */ }
    say("");
    enter.disabled = true;
    ws = new WebSocket(socketUrl());
    ws.binaryType = "arraybuffer";
    let ready = false;
    ws.onopen = () => {
      // The size a terminal in this window would have, for the first screen.
      const cols = Math.max(MIN_COLS, Math.floor(window.innerWidth / 9));
      const rows = Math.max(MIN_ROWS, Math.floor(window.innerHeight / 18));
      const languages = (navigator.languages || [navigator.language || ""]).slice(0, 8);
      send({ type: "login", name, room, cols, rows, languages, link });
    };
    ws.onmessage = (event) => {
      if (typeof event.data !== "string") {
        if (term) term.write(new Uint8Array(event.data));
        return;
      }
      let msg;
      try { msg = JSON.parse(event.data); } catch (e) { return; }
      if (msg.type === "prompts") showPrompts(msg);
      else if (msg.type === "refused") say(msg.message);
      else if (msg.type === "ready") { ready = true; startTerminal(); }
    };
    ws.onclose = () => {
      ws = null;
      if (ready) {
        const note = "\r\n\x1b[0m[연결이 끊겼어요. 새로 고치면 다시 들어가요. / Disconnected: reload to come back.]\r\n";
        if (term) term.write(note);
      } else {
        if (!message.textContent) say("연결이 끊겼어요. 다시 해 주세요. (Disconnected, try again.)");
        resetForm();
      }
    };
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (ws && promptInputs.length) {
      enter.disabled = true;
      send({ type: "answers", answers: promptInputs.map((i) => i.value) });
      return;
    }
    if (!ws) connect();
  });
})();
