"""The result of an evaluation and its output formats.

Values are stored as fractions; percent is a presentation choice (a protocol's default or
the caller's). ``format("trec_eval")`` prints exactly trec_eval's ``-q`` layout and measure
names, so ``citeval eval ... --format trec_eval --per-query`` can be ``diff``-ed against
``trec_eval -c -q -m ...``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pandas as pd

from .errors import EvalWarning, InputError
from .measures import (
    Measure,
    Protocol,
    is_integer_measure,
    parse_measures,
    trec_eval_name,
    trec_eval_sort_key,
)
from .ties import TieReport

FORMATS = ("table", "csv", "json", "trec_eval")


@dataclass
class EvalResult:
    """Aggregate and per-query values of one evaluation, with its counted warnings.

    ``aggregate``: a Series indexed by measure name (``"RR"``, ``"R@10"``, ...).
    ``per_query``: a DataFrame, one row per counted query, one column per measure.
    """

    measures: list[Measure]
    per_query: pd.DataFrame
    aggregate: pd.Series
    warnings: list[EvalWarning] = field(default_factory=list)
    protocol: Protocol | None = None
    ties: TieReport | None = None
    run_source: str = "<run>"
    qrels_source: str = "<qrels>"

    # ------------------------------------------------------------------ access
    @property
    def num_queries(self) -> int:
        return len(self.per_query)

    def __getitem__(self, measure) -> float:
        """The aggregate of one measure, by object or name (``result["MRR"]``)."""
        name = str(parse_measures(measure)[0]) if not isinstance(measure, Measure) else str(measure)
        try:
            return float(self.aggregate[name])
        except KeyError:
            raise KeyError(
                f"{measure!r} was not computed; computed: {list(self.aggregate.index)}"
            ) from None

    def default_percent(self) -> bool:
        return bool(self.protocol.percent) if self.protocol else False

    def decimals(self, percent: bool) -> int:
        if self.protocol is not None and percent == self.protocol.percent:
            return self.protocol.decimals
        return 2 if percent else 4

    def to_frame(self, *, percent: bool | None = None, per_query: bool = False) -> pd.DataFrame:
        """The aggregate as a one-row DataFrame (index ``"all"``), or with ``per_query`` the
        per-query table followed by the ``"all"`` row; scaled to percent if asked."""
        percent = self.default_percent() if percent is None else percent
        frame = self.aggregate.to_frame("all").T
        if per_query:
            frame = pd.concat([self.per_query, frame])
        frame.index.name = "query_id"
        return frame * 100 if percent else frame

    # ------------------------------------------------------------------ formats
    def format(
        self, fmt: str = "table", *, per_query: bool = False, percent: bool | None = None
    ) -> str:
        """Render as ``table``, ``csv``, ``json`` or ``trec_eval``."""
        if fmt not in FORMATS:
            raise InputError(None, f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
        if fmt == "trec_eval":
            if percent:
                raise InputError(None, "trec_eval format prints fractions; drop --percent")
            return self._format_trec_eval(per_query)
        percent = self.default_percent() if percent is None else percent
        frame = self.to_frame(percent=percent, per_query=per_query)
        decimals = self.decimals(percent)
        if fmt == "csv":
            long = frame.reset_index().melt(id_vars="query_id", var_name="measure")
            long["value"] = long["value"].round(decimals + 2)
            return long.to_csv(index=False)
        if fmt == "json":
            return json.dumps(self._json(frame, percent, per_query), indent=2) + "\n"
        return self._format_table(frame, decimals, percent)

    def __str__(self) -> str:
        return self.format("table")

    def _repr_html_(self) -> str:
        return self.to_frame().to_html(
            float_format=lambda v: f"{v:.{self.decimals(self.default_percent())}f}"
        )

    def _header(self) -> str:
        protocol = f", protocol {self.protocol.name}" if self.protocol else ""
        ties = f", ties: {self.ties.policy}" if self.ties else ""
        return (
            f"run {self.run_source} vs qrels {self.qrels_source}: "
            f"{self.num_queries} queries{protocol}{ties}"
        )

    def _format_table(self, frame: pd.DataFrame, decimals: int, percent: bool) -> str:
        lines = [self._header() + (" (percent)" if percent else "")]
        if len(frame) == 1:
            width = max(len(c) for c in frame.columns)
            lines += [
                f"  {name:<{width}}  {value:.{decimals}f}" for name, value in frame.iloc[0].items()
            ]
        else:
            text = frame.to_string(float_format=lambda v: f"{v:.{decimals}f}")
            lines += ["  " + line for line in text.splitlines()]
        return "\n".join(lines) + "\n"

    def warnings_text(self) -> str:
        """The warnings, one per line, for a terminal."""
        return "".join(f"warning: {w}\n" for w in self.warnings)

    def _json(self, frame: pd.DataFrame, percent: bool, per_query: bool) -> dict:
        out = {
            "run": self.run_source,
            "qrels": self.qrels_source,
            "protocol": self.protocol.name if self.protocol else None,
            "ties": self.ties.policy if self.ties else None,
            "num_queries": self.num_queries,
            "percent": percent,
            "aggregate": {k: float(v) for k, v in frame.loc["all"].items()},
            "warnings": [w.to_dict() for w in self.warnings],
        }
        if per_query:
            body = frame.drop(index="all")
            out["per_query"] = {
                str(q): {k: float(v) for k, v in row.items()} for q, row in body.iterrows()
            }
        return out

    def _format_trec_eval(self, per_query: bool) -> str:
        names = {str(m): trec_eval_name(m) for m in self.measures}
        unmapped = [m for m, n in names.items() if n is None]
        if unmapped:
            raise InputError(
                None, f"trec_eval has no measure for {', '.join(unmapped)}; use another format"
            )
        order = sorted(names, key=lambda m: trec_eval_sort_key(names[m]))
        lines = []

        def line(measure: str, query: str, value: float) -> str:
            trec = names[measure]
            shown = f"{int(round(value))}" if is_integer_measure(trec) else f"{value:6.4f}"
            return f"{trec:<22}\t{query}\t{shown}\n"

        if per_query:
            # trec_eval orders queries by strcmp of their ids, which Python's sort reproduces.
            for query in sorted(self.per_query.index):
                row = self.per_query.loc[query]
                lines += [line(m, query, row[m]) for m in order]
        lines += [line(m, "all", self.aggregate[m]) for m in order]
        return "".join(lines)
