"""Bundled example positions (JSON position documents)."""
from __future__ import annotations

import json
from importlib import resources
from typing import Any

from ddcards._jsonio import argument_shown, argument_token, shown, token_text
from ddcards.errors import InvalidArgumentTypeError, InvalidOptionError

EXAMPLES_RULE = "bundled examples"


def example_names() -> list[str]:
    """Names of the bundled examples."""
    return sorted(p.name[:-5] for p in resources.files(__package__).iterdir() if p.name.endswith(".json"))


def example(name: str = "marias-hra") -> dict[str, Any]:
    """The bundled example `name` (any case) as a position document."""
    names = example_names()
    if not isinstance(name, str):
        raise InvalidArgumentTypeError(f"an example's name is text (examples: {', '.join(names)}), "
                                       f"not {argument_shown(name)}", token=argument_token(name), rule=EXAMPLES_RULE,
                                       field="name")
    if name not in names and name.strip().lower() in names:
        name = name.strip().lower()         # named in any case, as games, modes and suits are
    if name not in names:
        raise InvalidOptionError(f"no example {shown(name)} (examples: {', '.join(names)})",
                                 token=token_text(name), rule=EXAMPLES_RULE, field="name")
    doc: dict[str, Any] = json.loads(resources.files(__package__).joinpath(name + ".json").read_text(encoding="utf-8"))
    return doc
