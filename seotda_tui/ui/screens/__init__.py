"""The app's screens: lobby, room creation form, and the table."""
