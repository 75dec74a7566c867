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


def example_name(text: str) -> str | None:
    """The bundled example `text` names (any case, spaces around it), or None."""
    names = example_names()
    if text in names:
        return text
    folded = text.strip().lower()
    return folded if folded in names else None


def example(name: str = "marias-hra") -> dict[str, Any]:
    """The bundled example `name` (any case) as a position document."""
    if not isinstance(name, str):
        raise InvalidArgumentTypeError(f"an example's name is text (examples: {', '.join(example_names())}), "
                                       f"not {argument_shown(name)}", token=argument_token(name), rule=EXAMPLES_RULE,
                                       field="name")
    found = example_name(name)          # named in any case, as games, modes and suits are
    if found is None:
        raise InvalidOptionError(f"no example {shown(name)} (examples: {', '.join(example_names())})",
                                 token=token_text(name), rule=EXAMPLES_RULE, field="name")
    doc: dict[str, Any] = json.loads(resources.files(__package__).joinpath(found + ".json").read_text(encoding="utf-8"))
    return doc
