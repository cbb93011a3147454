"""Mail between the game master and the players: configuration (``mail.yaml``,
secrets, TLS), the SMTP client, the exactly-once send record, and the commands
built on them (``wdg reports send``, ``wdg mail run``, ``wdg mail forms``; the
intake side — ``wdg mail fetch``/``watch`` — lives beside them).

Everything here is I/O; the engine never imports it.
"""
