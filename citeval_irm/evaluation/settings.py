"""What a run is evaluated with: its measures (given, or a protocol's), its options and
the engine, gathered in :class:`Settings`, what every chunk of a run read in parts is
scored with."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from ..base.errors import InputError
from ..base.measures import Measure, Protocol, parse_measures
from ..base.options import EvalOptions
from ..papers import PROTOCOLS, get_protocol


def resolve_measures(
    measures: str | Measure | Iterable | None, protocol: str | Protocol | None
) -> tuple[list[Measure], Protocol | None]:
    """The measures to compute and the protocol (if any) they come from.

    ``measures`` may itself name a protocol (``evaluate(run, qrels, "goyal2026")``).
    """
    if isinstance(measures, str) and measures.strip() in PROTOCOLS and protocol is None:
        protocol, measures = measures.strip(), None
    if protocol is not None:
        protocol = get_protocol(protocol)
        if measures is None:
            return list(protocol.measures), protocol
        return parse_measures(measures), protocol
    if measures is None:
        raise InputError(None, "give measures (e.g. 'RR R@10 nDCG@10') or a protocol")
    return parse_measures(measures), None


@dataclass(frozen=True)
class Settings:
    """How a run is evaluated: its measures, its options (what the numbers mean) and the
    engine that computes them (``verify``: both), what every piece of a run read in parts
    is scored with. No scheduler, memory or progress bar: nothing that is not picklable or
    not needed by a chunk."""

    measures: list[Measure]
    options: EvalOptions = field(default_factory=EvalOptions)
    engine: str = "citeval"
    verify: bool = False

    ties = property(lambda self: self.options.ties)
    duplicates = property(lambda self: self.options.duplicates)
    empty_queries = property(lambda self: self.options.empty_queries)
    max_docs = property(lambda self: self.options.max_docs)  # trec_eval -M
