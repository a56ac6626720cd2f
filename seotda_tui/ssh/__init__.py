"""The SSH side: listener, logins (auth, identity store, limits, admission) and one channel per player."""
