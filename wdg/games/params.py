"""Game parameters as the command line gives them (``-n`` and ``--param KEY=VALUE``),
for ``wdg games`` and the search-budget script (:mod:`wdg.games.budget`)."""

from __future__ import annotations

from typing import Any

import yaml

from wdg.games.base import GameError


def game_params(players: int | None, param: list[str]) -> dict[str, Any]:
    """Game parameters from ``-n`` and ``--param KEY=VALUE``; a ``players``
    given both ways must agree."""
    params: dict[str, Any] = {}
    for item in param:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise GameError(f"bad --param {item!r}; expected KEY=VALUE (value in YAML, e.g. true, 4)")
        try:
            params[key.strip()] = yaml.safe_load(value)
        except yaml.YAMLError as exc:
            raise GameError(f"bad --param {item!r}: the value is not YAML "
                            f"({str(exc).splitlines()[0]})") from None
    if players is not None:
        if "players" in params and params["players"] != players:
            raise GameError(f"-n/--players {players} and --param players={params['players']!r} "
                            f"disagree; give the number of players once")
        params["players"] = players
    params.setdefault("players", 4)
    return params
