"""Seotda over SSH: the asyncssh server, Textual driver, room manager, screens and widgets."""
