"""The value line of a recorded deal as an inline SVG chart (no script, no network).

The x axis is the card count (0 = before the first card), the y axis the
value from the maximising side's view; tricks are marked by faint vertical
rules.  A card that changed the outcome is a diamond, a card that lost value
a triangle, so the marks read without colour (and on paper); each such mark
links to its row of the play table.  The SVG carries a <title> and a <desc>
(the text alternative), and the caller prints a caption that says the same.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from html import escape
from typing import Any

from ddcards.report.display import signed, tricks_before

WIDTH, HEIGHT = 760, 260
LEFT, RIGHT, TOP, BOTTOM = 56, 16, 16, 40


def step_kind(step: Mapping[str, Any]) -> str:
    """'mistake' (it changed the outcome), 'lost' (it cost value, same outcome) or 'best'."""
    if step.get("changes_outcome"):
        return "mistake"
    return "lost" if step["cost"] > 0 else "best"


def _tick_steps() -> Iterator[int]:
    """The round steps between ticks, smallest first, without end: 1 2 5 10 20 25 50 ... 1000 2000 5000 ..."""
    yield from (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500)
    power = 1000
    while True:
        yield from (power, 2 * power, 5 * power)
        power *= 10


def _ticks(low: int, high: int, count: int = 5) -> list[int]:
    """Round values between low and high for the y axis, 0 always among them."""
    span = max(high - low, 1)
    raw = span / count
    step = next(s for s in _tick_steps() if s >= raw)
    first = -(-low // step) * step
    return list(range(first, high + 1, step)) or [0]


def value_chart(doc: Mapping[str, Any], title: str, description: str, unit: str = "card") -> str:
    """The SVG of the value before the first card and after every card of `doc` (an analysis);
    `unit`: what a step plays (Page.unit: "action" in Prší)."""
    steps: Sequence[Mapping[str, Any]] = doc["steps"]
    values = [doc["initial_value"]] + [s["value_after"] for s in steps]
    low, high = min(values + [0]), max(values + [0])
    if low == high:
        low, high = low - 1, high + 1
    pad = (high - low) * 0.08
    lo: float = low - pad
    hi: float = high + pad
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    n = max(len(steps), 1)

    def x(i: int) -> float:
        return LEFT + plot_w * i / n

    def y(v: float) -> float:
        return TOP + plot_h * (hi - v) / (hi - lo)

    out = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" role="img" '
           f'aria-labelledby="chart-title" aria-describedby="chart-desc" xmlns="http://www.w3.org/2000/svg">',
           f'<title id="chart-title">{escape(title)}</title>',
           f'<desc id="chart-desc">{escape(description)}</desc>']
    out.append('<g class="grid" aria-hidden="true">')
    for t in _ticks(low, high):
        cls = "zero" if t == 0 else "tick"
        out.append(f'<line class="{cls}" x1="{LEFT}" x2="{WIDTH - RIGHT}" y1="{y(t):.1f}" y2="{y(t):.1f}"/>'
                   f'<text class="ylabel" x="{LEFT - 6}" y="{y(t) + 4:.1f}">{escape(signed(t))}</text>')
    trick = first_trick = tricks_before(doc)
    for i, step in enumerate(steps, 1):
        if step.get("trick_winner") is not None:
            trick += 1
            out.append(f'<line class="trick" x1="{x(i):.1f}" x2="{x(i):.1f}" y1="{TOP}" y2="{TOP + plot_h}"/>'
                       f'<text class="xlabel" x="{x(i):.1f}" y="{HEIGHT - BOTTOM + 16}">{trick}</text>')
    out.append(f'<text class="axis" x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 6}">'
               f'{"tricks (the value after each card)" if trick > first_trick else unit + "s played"}</text>')
    out.append("</g>")
    points = " ".join(f"{x(i):.1f},{y(v):.1f}" for i, v in enumerate(values))
    out.append(f'<polyline class="line" points="{points}" aria-hidden="true"/>')
    out.append(f'<circle class="dot start" cx="{x(0):.1f}" cy="{y(values[0]):.1f}" r="3.5" aria-hidden="true"/>')
    for i, step in enumerate(steps, 1):
        kind = step_kind(step)
        cx, cy = x(i), y(step["value_after"])
        label = (f'ply {step["ply"]}: {step["move"]} by seat {step["seat"]}, value {signed(step["value_after"])}'
                 + ("" if kind == "best" else f', cost {step["cost"]}'))
        if kind == "mistake":
            shape = (f'<path class="mark mistake" d="M{cx:.1f},{cy - 7:.1f} L{cx + 7:.1f},{cy:.1f} '
                     f'L{cx:.1f},{cy + 7:.1f} L{cx - 7:.1f},{cy:.1f} Z"/>')
        elif kind == "lost":
            shape = (f'<path class="mark lost" d="M{cx:.1f},{cy - 6:.1f} L{cx + 6:.1f},{cy + 5:.1f} '
                     f'L{cx - 6:.1f},{cy + 5:.1f} Z"/>')
        else:
            shape = f'<circle class="dot" cx="{cx:.1f}" cy="{cy:.1f}" r="2.5"/>'
        if kind == "best":
            out.append(f'<g class="point" data-ply="{escape(str(step["ply"]))}" aria-hidden="true">{shape}</g>')
        else:   # a link, so the marks are reachable with the keyboard too
            ply = escape(str(step["ply"]))
            out.append(f'<a class="point" href="#ply-{ply}" data-ply="{ply}" '
                       f'aria-label="{escape(label)}"><title>{escape(label)}</title>{shape}</a>')
    out.append("</svg>")
    return "\n".join(out)
