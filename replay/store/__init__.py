"""The store: the hash-chained log of battles (an eventsourcing application), its backends
(SQLite, PostgreSQL, memory), and the read models kept beside the log in the same transaction
(the battle index, voids, snapshots). It never runs a rule procedure."""
