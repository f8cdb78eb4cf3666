"""The engine: driver, store, verification, time travel, what-if, export and import."""
