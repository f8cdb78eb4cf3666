"""The engine: the one driver that runs rule procedures, dice and choice sources, the codec,
scenario files, narration, the typed command syntax, the game systems' registry and the log's
format versions. It imports only the domain: it reads and writes nothing."""
