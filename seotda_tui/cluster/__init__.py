"""``--workers N`` (N ≥ 2): SSH sessions in N worker processes, the rooms in one.

:mod:`.supervisor` (the parent: starts, restarts and stops the others), :mod:`.hub` (the rooms
process: the one RoomManager, ChatHub and the global limits), :mod:`.remote` (a worker's
manager, chat and limits, each call sent to the hub) and :mod:`.protocol` (the versioned frames
between them). With ``--workers 1`` (the default) nothing here is imported.
"""
