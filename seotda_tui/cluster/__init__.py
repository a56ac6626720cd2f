"""``--workers N`` (N ≥ 2): SSH sessions in N worker processes, the rooms in one.

:mod:`.supervisor` (the parent: starts, restarts and stops the others), :mod:`.hub` (the rooms
process: the one RoomManager, ChatHub and the global limits), in each worker :mod:`.link` (its
connection to the hub), :mod:`.remote` (the manager and chat the UI calls) and
:mod:`.worker_limits` (the SSH limits and the login registry the server uses), and
:mod:`.protocol` (the versioned frames between them) with :mod:`.calls` (the room API's calls
on it, derived from ``rooms.api.RoomService``) and :mod:`.answers` (what the chat's and the
limits' ops answer, checked like every decode, :mod:`.shape`). With ``--workers 1`` (the
default) nothing here is imported.
"""
