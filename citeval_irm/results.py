"""The result of an evaluation and its output formats.

Values are stored as fractions, one row per counted query and one column per measure;
percent is a presentation choice (a protocol's default or the caller's).
``format("trec_eval")`` prints exactly trec_eval's ``-q`` layout and measure names, so
``citeval eval ... --format trec_eval --per-query`` can be ``diff``-ed against
``trec_eval -c -q -m ...``. pandas is imported only when a DataFrame is asked for.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from .errors import EvalWarning, InputError
from .measures import Measure, Protocol, is_integer_measure, parse_measures, trec_eval_sort_key
from .printable import Printable
from .scoring import trec_eval_name
from .ties import TieReport

if TYPE_CHECKING:
    import pandas as pd

FORMATS = ("table", "csv", "json", "trec_eval")


@dataclass(frozen=True)
class RankedQueries:
    """The run's queries (first-appearance order) and how many docs each ranks: what a
    comparison keeps of a run, whichever path (in memory, streamed, on Dask) read it."""

    query_ids: list[str]
    sizes: np.ndarray

    @classmethod
    def of(cls, run) -> RankedQueries:
        """The ranked queries of a whole :class:`~citeval_irm.tables.Run`."""
        from .tables import take

        present, sizes = run.ranked_queries()
        return cls(take(run.query_ids, present).to_pylist(), sizes)

    def cut(self, max_docs: int | None) -> RankedQueries:
        """What the measures see of each ranking when only its first ``max_docs`` count."""
        if max_docs is None:
            return self
        return RankedQueries(self.query_ids, np.minimum(self.sizes, max_docs))


@dataclass
class EvalResult(Printable):
    """Aggregate and per-query values of one evaluation, with its counted warnings.

    ``aggregate``: a Series indexed by measure name (``"RR"``, ``"R@10"``, ...).
    ``per_query``: a DataFrame, one row per counted query, one column per measure.
    ``values``: the same per-query values as a numpy array, rows in ``query_ids`` order.
    """

    measures: list[Measure]
    query_ids: list[str]
    values: np.ndarray
    aggregates: dict[str, float]
    warnings: list[EvalWarning] = field(default_factory=list)
    protocol: Protocol | None = None
    ties: TieReport | None = None
    run_source: str = "<run>"
    qrels_source: str = "<qrels>"
    engine: str = "citeval"
    ranked: RankedQueries | None = field(default=None, repr=False)

    # ------------------------------------------------------------------ access
    @property
    def names(self) -> list[str]:
        return [str(m) for m in self.measures]

    @cached_property
    def per_query(self) -> pd.DataFrame:
        import pandas as pd

        return pd.DataFrame(
            self.values, index=pd.Index(self.query_ids, name="query_id"), columns=self.names
        )

    @cached_property
    def aggregate(self) -> pd.Series:
        import pandas as pd

        return pd.Series(self.aggregates, name="value", dtype=float)

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    def __getitem__(self, measure) -> float:
        """The aggregate of one measure, by object or name (``result["MRR"]``)."""
        name = str(parse_measures(measure)[0]) if not isinstance(measure, Measure) else str(measure)
        try:
            return float(self.aggregates[name])
        except KeyError:
            raise KeyError(f"{measure!r} was not computed; computed: {self.names}") from None

    def default_percent(self) -> bool:
        return bool(self.protocol.percent) if self.protocol else False

    def decimals(self, percent: bool) -> int:
        if self.protocol is not None and percent == self.protocol.percent:
            return self.protocol.decimals
        return 2 if percent else 4

    def to_frame(self, *, percent: bool | None = None, per_query: bool = False) -> pd.DataFrame:
        """The aggregate as a one-row DataFrame (index ``"all"``), or with ``per_query`` the
        per-query table followed by the ``"all"`` row; scaled to percent if asked."""
        import pandas as pd

        percent = self.default_percent() if percent is None else percent
        frame = self.aggregate.to_frame("all").T
        if per_query:
            frame = pd.concat([self.per_query, frame])
        frame.index.name = "query_id"
        return frame * 100 if percent else frame

    # ------------------------------------------------------------------ formats
    FORMATS = FORMATS

    def to_dict(self) -> dict:
        return self._json()

    def _json(self, *, per_query: bool = False, percent: bool | None = None) -> dict:
        percent = self.default_percent() if percent is None else percent
        return self._json_of(self._rows(per_query, 100.0 if percent else 1.0), percent, per_query)

    def _render(self, fmt: str, *, per_query: bool = False, percent: bool | None = None) -> str:
        """``table``, ``csv`` or ``trec_eval``."""
        if fmt == "trec_eval":
            if percent:
                raise InputError(None, "trec_eval format prints fractions; drop --percent")
            return self._format_trec_eval(per_query)
        percent = self.default_percent() if percent is None else percent
        scale = 100.0 if percent else 1.0
        decimals = self.decimals(percent)
        rows = self._rows(per_query, scale)
        if fmt == "csv":
            lines = ["query_id,measure,value"]
            for name in self.names:  # measure-major, as a melted table
                lines += [f"{q},{name},{round(v[name], decimals + 2)!r}" for q, v in rows]
            return "\n".join(lines) + "\n"
        return self._format_table(decimals, percent, per_query)

    def _rows(self, per_query: bool, scale: float) -> list[tuple[str, dict[str, float]]]:
        rows = []
        if per_query:
            for query, values in zip(self.query_ids, (self.values * scale).tolist()):
                rows.append((query, dict(zip(self.names, values))))
        rows.append(("all", {n: v * scale for n, v in self.aggregates.items()}))
        return rows

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

    def _format_table(self, decimals: int, percent: bool, per_query: bool) -> str:
        lines = [self._header() + (" (percent)" if percent else "")]
        if not per_query:
            scale = 100.0 if percent else 1.0
            width = max(len(n) for n in self.names)
            lines += [
                f"  {name:<{width}}  {self.aggregates[name] * scale:.{decimals}f}"
                for name in self.names
            ]
        else:
            frame = self.to_frame(percent=percent, per_query=True)
            text = frame.to_string(float_format=lambda v: f"{v:.{decimals}f}")
            lines += ["  " + line for line in text.splitlines()]
        return "\n".join(lines) + "\n"

    def warnings_text(self) -> str:
        """The warnings, one per line, for a terminal."""
        return "".join(f"warning: {w}\n" for w in self.warnings)

    def _json_of(self, rows, percent: bool, per_query: bool) -> dict:
        out = {
            "run": self.run_source,
            "qrels": self.qrels_source,
            "protocol": self.protocol.name if self.protocol else None,
            "ties": self.ties.policy if self.ties else None,
            "engine": self.engine,
            "num_queries": self.num_queries,
            "percent": percent,
            "aggregate": {k: float(v) for k, v in rows[-1][1].items()},
            "warnings": [w.to_dict() for w in self.warnings],
        }
        if per_query:
            out["per_query"] = {q: {k: float(v) for k, v in row.items()} for q, row in rows[:-1]}
        return out

    def _format_trec_eval(self, per_query: bool) -> str:
        names = {str(m): trec_eval_name(m) for m in self.measures}
        unmapped = [m for m, n in names.items() if n is None]
        if unmapped:
            raise InputError(
                None, f"trec_eval has no measure for {', '.join(unmapped)}; use another format"
            )
        order = sorted(names, key=lambda m: trec_eval_sort_key(names[m]))
        columns = [self.names.index(m) for m in order]
        lines = []

        def line(measure: str, query: str, value: float) -> str:
            trec = names[measure]
            shown = f"{int(round(value))}" if is_integer_measure(trec) else f"{value:6.4f}"
            return f"{trec:<22}\t{query}\t{shown}\n"

        if per_query:
            # trec_eval orders queries by strcmp of their ids, which Python's sort reproduces
            # (for str; ids compared as UTF-8 bytes give the same order as code points).
            values = self.values.tolist()
            for row in sorted(range(len(self.query_ids)), key=self.query_ids.__getitem__):
                query = self.query_ids[row]
                lines += [
                    line(order[i], query, values[row][c])
                    for i, c in enumerate(columns)
                    if names[order[i]] != "num_q"  # trec_eval prints num_q for "all" only
                ]
        lines += [line(m, "all", self.aggregates[m]) for m in order]
        return "".join(lines)
