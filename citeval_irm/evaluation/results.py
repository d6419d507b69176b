"""The result of an evaluation and its output formats.

Values are stored as fractions, one row per counted query and one column per measure;
percent is a presentation choice (a protocol's default or the caller's).
``format("trec_eval")`` prints exactly trec_eval's ``-q`` layout and measure names, so
``citeval eval ... --format trec_eval --per-query`` can be ``diff``-ed against
``trec_eval -c -q -m ...``. pandas is imported only when a DataFrame is asked for.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, cast

import numpy as np

from ..base.choices import EVAL_FORMATS
from ..base.errors import EvalWarning, InputError, deprecated
from ..base.measures import Measure, Protocol, parse_measures
from ..base.options import EvalOptions, display_decimals, display_percent
from ..printing.escaping import (
    csv_text,
    latex_comment,
    latex_label,
    latex_text,
    plain_text,
    trec_field,
)
from ..printing.printable import Printable, file_name, warning_line
from ..printing.text_tables import blocks, latex_tabular, number, render, wrap
from ..reading.ties import TieReport
from ..scoring import (
    is_integer_measure,
    is_summary_only,
    percent_scale,
    trec_eval_name,
    trec_eval_sort_key,
)

if TYPE_CHECKING:
    import pandas as pd

FORMATS = EVAL_FORMATS
AGGREGATE = "all"
"""The query id of the aggregate row (trec_eval's own)."""


@dataclass(frozen=True)
class RankedQueries:
    """The run's queries (first-appearance order) and how many docs each ranks: what a
    comparison keeps of a run, whichever path (in memory, streamed, on Dask) read it."""

    query_ids: list[str]
    sizes: np.ndarray

    @classmethod
    def of(cls, run) -> RankedQueries:
        """The ranked queries of a whole :class:`~citeval_irm.reading.tables.Run`."""
        from ..reading.tables import take

        present, sizes = run.ranked_queries()
        return cls(take(run.query_ids, present).to_pylist(), sizes)

    def cut(self, max_docs: int | None) -> RankedQueries:
        """What the measures see of each ranking when only its first ``max_docs`` count."""
        if max_docs is None:
            return self
        return RankedQueries(self.query_ids, np.minimum(self.sizes, max_docs))


@dataclass(repr=False)
class EvalResult(Printable):
    """Aggregate and per-query values of one evaluation, with its counted warnings.

    One way to each need:

    - the mean of each measure: :attr:`aggregate`, a Series indexed by measure name
      (``result.aggregate["nDCG@10"]``);
    - each query's values: :attr:`per_query`, a DataFrame, one row per counted query, one
      column per measure;
    - one frame of both, as ``trec_eval -q`` prints them (and in percent if asked):
      :meth:`to_frame`;
    - everything, ready for JSON: :meth:`to_dict`; text: :meth:`format`.

    ``aggregates`` and ``values`` are what the object is built from (a dict and a numpy
    array in ``query_ids`` order): read :attr:`aggregate` and :attr:`per_query` instead.
    ``result[measure]`` is deprecated: use ``result.aggregate[name]``.
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
    options: EvalOptions | None = field(default=None, repr=False)  # what its numbers mean
    qrels_fingerprint: str | None = field(default=None, repr=False)  # which judgements

    # ------------------------------------------------------------------ access
    def _summary(self) -> dict[str, object]:
        facts = {"run": file_name(self.run_source), "queries": self.num_queries}
        return {**facts, "measures": len(self.measures), **self.aggregates}

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
        """Deprecated: ``result.aggregate[name]`` (the measure's canonical name) instead."""
        name = str(parse_measures(measure)[0]) if not isinstance(measure, Measure) else str(measure)
        deprecated(
            f"EvalResult[{str(measure)!r}]",
            f"result.aggregate[{name!r}] (every aggregate, one Series)",
        )
        try:
            return float(self.aggregates[name])
        except KeyError:
            raise KeyError(f"{measure!r} was not computed; computed: {self.names}") from None

    def default_percent(self) -> bool:
        """Percent when the protocol's unit is percent (a format's ``percent=`` wins)."""
        return display_percent(None, self.protocol)

    def decimals(self, percent: bool, decimals: int | None = None) -> int:
        """Decimals values print with (:func:`~citeval_irm.base.options.display_decimals`): as
        given here, else the rule's."""
        return display_decimals(percent, self.protocol, decimals)

    def to_frame(self, *, percent: bool | None = None) -> pd.DataFrame:
        """The per-query table followed by the aggregate row ``"all"`` (as trec_eval ``-q``
        prints them).

        Parameters
        ----------
        percent : bool, optional
            Values in percent (fractions only: counts such as NumRet stay counts). Default:
            the protocol's unit.

        Returns
        -------
        pandas.DataFrame
            One row per counted query (index ``query_id``), then ``"all"``; one column
            per measure. The aggregate alone: :attr:`aggregate`.

        Examples
        --------
        >>> import citeval_irm
        >>> result = citeval_irm.evaluate({"q1": {"d1": 1.0}}, {"q1": {"d1": 1}}, "RR")
        >>> result.to_frame().loc["all", "RR"]
        np.float64(1.0)
        """
        return self._frame(self.default_percent() if percent is None else percent, True)

    def _frame(self, percent: bool, per_query: bool) -> pd.DataFrame:
        """The aggregate row ``"all"``, after the per-query rows if ``per_query``."""
        import pandas as pd

        frame = self.aggregate.to_frame(AGGREGATE).T
        if per_query:
            self._check_aggregate_name()
            frame = pd.concat([self.per_query, frame])
        frame.index.name = "query_id"
        return frame * [percent_scale(m, percent) for m in self.measures]

    def _check_aggregate_name(self) -> None:
        """A query named ``all`` beside the aggregate row named ``all`` cannot be told from
        it (trec_eval prints both alike, and a script reading the file takes it for the
        aggregate): an error, not a guess, in every per-query layout that has that row."""
        if AGGREGATE in self.query_ids:
            raise InputError(
                self.run_source,
                f"has a query named {AGGREGATE!r}, the name of the aggregate row of per-query "
                "output: rename the query, or print per-query values as JSON, which keeps "
                "them apart",
            )

    def scales(self, percent: bool) -> dict[str, float]:
        """Each measure's factor when printed (100 for fractions in percent, else 1)."""
        return {str(m): percent_scale(m, percent) for m in self.measures}

    # ------------------------------------------------------------------ formats
    FORMATS = FORMATS

    def to_dict(self) -> dict:
        return self._json()

    def _json(
        self, *, per_query: bool = False, percent: bool | None = None, decimals: int | None = None
    ) -> dict:
        """The values in full (``decimals`` is for the text formats)."""
        percent = self.default_percent() if percent is None else percent
        return self._json_of(self._rows(per_query, percent), percent, per_query)

    def _render(
        self,
        fmt: str,
        *,
        per_query: bool = False,
        percent: bool | None = None,
        decimals: int | None = None,
    ) -> str:
        """``table``, ``markdown``, ``latex``, ``csv`` or ``trec_eval`` (``decimals``: the
        text tables', default :meth:`decimals`)."""
        if fmt == "trec_eval":
            if percent:
                raise InputError(None, "trec_eval format prints fractions; drop --percent")
            return self._format_trec_eval(per_query)
        percent = self.default_percent() if percent is None else percent
        if per_query and fmt != "table":  # a query named "all" would pass for the aggregate
            self._check_aggregate_name()
        if fmt == "csv":
            return self._format_csv(per_query, percent)
        if fmt == "markdown":
            return self._format_markdown(self.decimals(percent, decimals), percent, per_query)
        if fmt == "latex":
            return self._format_latex(self.decimals(percent, decimals), percent, per_query)
        return self._format_table(self.decimals(percent, decimals), percent, per_query)

    def _rows(self, per_query: bool, percent: bool) -> list[tuple[str, dict[str, float]]]:
        scales, names = self.scales(percent), self.names
        rows = []
        if per_query:
            factors = np.array([scales[n] for n in names])
            for query, values in zip(self.query_ids, (self.values * factors).tolist()):
                rows.append((query, dict(zip(names, values))))
        rows.append((AGGREGATE, {n: v * scales[n] for n, v in self.aggregates.items()}))
        return rows

    def _format_csv(self, per_query: bool, percent: bool) -> str:
        """A melted table (query_id, measure, value), measure by measure, each measure's
        queries and then its ``all`` row; values at full precision."""
        names = self.names
        scales = self.scales(percent)
        aggregate = np.array([[self.aggregates[n] for n in names]])
        values = np.vstack([self.values, aggregate]) if per_query else aggregate
        values = values * np.array([scales[n] for n in names])
        queries = [*self.query_ids, AGGREGATE] if per_query else [AGGREGATE]
        return csv_text(
            ["query_id", "measure", "value"],
            [queries * len(names), np.repeat(names, len(queries)), values.T.ravel()],
        )

    def _repr_html_(self) -> str:
        return self._frame(self.default_percent(), per_query=False).to_html(
            float_format=lambda v: f"{v:.{self.decimals(self.default_percent())}f}"
        )

    def _header(self, short: bool = False) -> str:
        """What the values are of (unescaped): the run, the qrels (``short``: by their file
        names, as a caption names them), the queries, the protocol and the tie policy."""
        protocol = f", protocol {self.protocol.name}" if self.protocol else ""
        ties = f", ties: {self.ties.policy}" if self.ties else ""
        run, qrels = self.run_source, self.qrels_source
        if short:
            run, qrels = file_name(run), file_name(qrels)
        return f"run {run} vs qrels {qrels}: {self.num_queries:,} queries{protocol}{ties}"

    def _grid(self, decimals: int, percent: bool, per_query: bool) -> list[list[str]]:
        """The rows of the Markdown and LaTeX tables (unescaped): a query id (``all`` for
        the aggregate, last), then its value of each measure."""
        return [
            [query, *(number(values[name], decimals) for name in self.names)]
            for query, values in self._rows(per_query, percent)
        ]

    def _format_markdown(self, decimals: int, percent: bool, per_query: bool) -> str:
        """The heading as a paragraph, the values as a pipe table: a row per query (with
        ``per_query``), then ``all``."""
        heading = wrap(self._header() + (" (percent)" if percent else ""), "", "markdown")
        table = render(
            ["query_id", *self.names], self._grid(decimals, percent, per_query), "markdown"
        )
        return blocks([heading, table], "markdown")

    def _format_latex(self, decimals: int, percent: bool, per_query: bool) -> str:
        """A booktabs table (the aggregate row ``all`` after a rule, with ``per_query``),
        what it is of as its caption, a label unique to its content, as a comparison's."""
        rows: list[list[str] | None] = [
            [latex_text(cell) for cell in row] for row in self._grid(decimals, percent, per_query)
        ]
        if per_query:
            rows.insert(len(rows) - 1, None)
        headers = [latex_text(name) for name in ["query_id", *self.names]]
        unit = " (percent)" if percent else ""
        caption = latex_text(f"{self._header(short=True)}{unit}.")
        key = (file_name(self.run_source), file_name(self.qrels_source), self.names)
        label = latex_label("eval", repr(key), self.num_queries, per_query)
        return (
            latex_comment(f"citeval eval: {self.run_source} vs {self.qrels_source}")
            + "\\begin{table}[t]\n\\centering\n"
            + latex_tabular(headers, rows)
            + f"\\caption{{{caption}}}\n\\label{{{label}}}\n\\end{{table}}\n"
        )

    def _format_table(self, decimals: int, percent: bool, per_query: bool) -> str:
        lines = [plain_text(self._header()) + (" (percent)" if percent else "")]
        if not per_query:
            scales = self.scales(percent)
            width = max(len(n) for n in self.names)
            lines += [
                f"  {name:<{width}}  {self.aggregates[name] * scales[name]:.{decimals}f}"
                for name in self.names
            ]
        else:
            frame = self._frame(percent, per_query=True)
            frame.index = frame.index.map(plain_text)
            text = frame.to_string(float_format=lambda v: f"{v:.{decimals}f}")
            lines += ["  " + line for line in text.splitlines()]
        return "\n".join(lines) + "\n"

    def warnings_text(self) -> str:
        """The warnings, one per line, for a terminal."""
        return "".join(warning_line(w) + "\n" for w in self.warnings)

    def _json_of(self, rows, percent: bool, per_query: bool) -> dict:
        out = {
            "run": self.run_source,
            "qrels": self.qrels_source,
            "protocol": self.protocol.name if self.protocol else None,
            "ties": self.ties.policy if self.ties else None,
            "engine": self.engine,
            "options": asdict(self.options) if self.options is not None else None,
            "num_queries": self.num_queries,
            "percent": percent,
            "aggregate": {k: float(v) for k, v in rows[-1][1].items()},
            "warnings": [w.to_dict() for w in self.warnings],
        }
        if per_query:
            out["per_query"] = {q: {k: float(v) for k, v in row.items()} for q, row in rows[:-1]}
        return out

    def _format_trec_eval(self, per_query: bool) -> str:
        given = {str(m): trec_eval_name(m) for m in self.measures}
        unmapped = [m for m, n in given.items() if n is None]
        if unmapped:
            raise InputError(
                None, f"trec_eval has no measure for {', '.join(unmapped)}; use another format"
            )
        names = cast("dict[str, str]", given)  # every measure has its trec_eval name
        order = sorted(names, key=lambda m: trec_eval_sort_key(names[m]))
        columns = [self.names.index(m) for m in order]
        lines = []

        def line(measure: str, query: str, value: float) -> str:
            trec = names[measure]
            shown = f"{int(round(value))}" if is_integer_measure(trec) else f"{value:6.4f}"
            return f"{trec:<22}\t{query}\t{shown}\n"

        if per_query:
            self._check_aggregate_name()
            # trec_eval orders queries by strcmp of their ids, which Python's sort reproduces
            # (for str; ids compared as UTF-8 bytes give the same order as code points).
            values = self.values.tolist()
            for row in sorted(range(len(self.query_ids)), key=self.query_ids.__getitem__):
                query = trec_field(self.query_ids[row], "query id")
                lines += [
                    line(order[i], query, values[row][c])
                    for i, c in enumerate(columns)
                    if not is_summary_only(names[order[i]])  # num_q, gm_map: "all" only
                ]
        lines += [line(m, AGGREGATE, self.aggregates[m]) for m in order]
        return "".join(lines)
