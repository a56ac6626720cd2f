"""The browser's way in (``--web-port``): a page with a terminal and a WebSocket per player."""
