"""The Textual side: one app per player, its screens and widgets, and the driver that feeds it a channel."""
