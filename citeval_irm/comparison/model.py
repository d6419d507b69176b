"""The result of :func:`citeval_irm.compare`: the runs' per-query values compared, each
pair's tests, the settings they were made with, and what the result gives a notebook (tidy
DataFrames, JSON). Values are stored as fractions; percent is presentation. Its text
formats are :mod:`citeval_irm.comparison.model_formats`'s, its legend
:mod:`citeval_irm.comparison.model_legend`'s.
"""

from __future__ import annotations

import string
from dataclasses import asdict, dataclass, field

import pandas as pd

from ..base.choices import COMPARE_FORMATS
from ..base.errors import EvalWarning, InputError
from ..base.measures import Protocol
from ..base.options import display_decimals
from ..printing.escaping import finite_values, latex_label
from ..printing.printable import Printable, Shown
from ..resolving.result import LOWER_IS_BETTER
from .family import Family
from .model_formats import ComparisonFormats
from .model_legend import comparison_legend

FORMATS = COMPARE_FORMATS


@dataclass(frozen=True)
class CompareSettings:
    """How the comparison was made: reported with every result so it can be repeated."""

    test: str
    correction: str
    alpha: float
    confidence: float
    permutations: int
    bootstrap: int
    seed: int
    queries: str
    ties: str
    permutations_requested: int | None = None  # when B was raised for the family


@dataclass(repr=False)
class Comparison(ComparisonFormats, Printable):
    """Runs compared query by query (see :func:`citeval_irm.compare`).

    ``pairs``: one row per measure and (baseline, system) pair, ``system`` minus
    ``baseline``; ``tukey``: the randomised Tukey HSD over all pairs (or ``None``);
    ``per_query``: the compared values (columns: measure, run; NaN where a query is not
    compared on that measure); ``coverage``: per run, the queries evaluated, ranked and not
    ranked; ``results``: each run's EvalResult; ``published``: the runs beside the published
    results, when asked; ``rates``: the resolution rates among ``measures`` (resolutions
    compared), each tested on the queries every run has a value of it for.
    """

    names: list[str]
    baseline: str | None
    measures: list[str]
    per_query: pd.DataFrame
    pairs: pd.DataFrame
    tukey: pd.DataFrame | None
    settings: CompareSettings
    coverage: pd.DataFrame
    warnings: list[EvalWarning]
    protocol: Protocol | None
    qrels_source: str
    results: dict = field(default_factory=dict)
    published: object | None = None
    popularity: pd.DataFrame | None = None
    family: Family | None = None  # the tests corrected together (None: no pairs)
    rates: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ access
    def _summary(self) -> dict[str, object]:
        facts = {"runs": self.names, "queries": self.num_queries, "measures": len(self.measures)}
        if self.baseline is not None:
            facts["baseline"] = self.baseline
        facts["test"] = self.settings.test
        if len(self.pairs):
            marked = int(self.pairs["significant"].astype(bool).sum())
            facts["significant"] = Shown(f"{marked} of {len(self.pairs)}")
        return facts

    @property
    def num_queries(self) -> int:
        """The number of queries compared (on the field's measures, when rates are too)."""
        fields = [m for m in self.measures if m not in self.rates]
        if not self.rates or not fields:
            return len(self.per_query)
        return int(self.per_query[fields].notna().all(axis=1).sum())

    @property
    def means(self) -> pd.DataFrame:
        """Mean of each measure (rows) for each run (columns) over the compared queries."""
        return self.per_query.mean().unstack("run").reindex(index=self.measures, columns=self.names)

    def to_frame(self) -> pd.DataFrame:
        """The compared per-query values: one row per query (index ``query_id``), one column
        per (measure, run), as fractions.

        Returns
        -------
        pandas.DataFrame
            A copy of :attr:`per_query`. The other tables are attributes: :attr:`pairs`
            (one row per measure and pair), :attr:`means` (measures by runs),
            :attr:`tukey`; the published rows: ``comparison.published.to_frame()``.
        """
        return self.per_query.copy()

    def percent_default(self) -> bool:
        """The protocol's unit, else the published table's (its rows share the runs'
        table), else fractions."""
        if self.protocol is not None:
            return bool(self.protocol.percent)
        return bool(self.published.paper.percent) if self.published is not None else False

    def shown(self, percent: bool | None = None, decimals: int | None = None) -> tuple[bool, int]:
        """The unit and decimals values print with: as given, else the defaults
        (:meth:`percent_default`, :func:`~citeval_irm.base.options.display_decimals`)."""
        percent = self.percent_default() if percent is None else bool(percent)
        return percent, display_decimals(percent, self.protocol, decimals)

    # ---------------------------- formats (the text ones: model_formats.ComparisonFormats)
    FORMATS = FORMATS

    def _repr_html_(self) -> str:
        return self.pairs.to_html() if len(self.pairs) else self.means.to_html()

    def to_dict(self) -> dict:
        return finite_values(self._dict())

    def _dict(self) -> dict:
        return {
            "runs": self.names,
            "baseline": self.baseline,
            "qrels": self.qrels_source,
            "protocol": self.protocol.name if self.protocol else None,
            "num_queries": self.num_queries,
            "coverage": self.coverage.reset_index().to_dict(orient="records"),
            "settings": asdict(self.settings),
            "means": {m: dict(row) for m, row in self.means.iterrows()},
            "pairs": self.pairs.to_dict(orient="records"),
            "tukey": self.tukey.to_dict(orient="records") if self.tukey is not None else None,
            "family": asdict(self.family) if self.family is not None else None,
            "warnings": [w.to_dict() for w in self.warnings],
            "published": self.published.to_dict() if self.published is not None else None,
            "popularity": (
                {**self.popularity.attrs, "runs": self.popularity.to_dict(orient="index")}
                if self.popularity is not None
                else None
            ),
        }

    # ------------------------------------------------------------------ pieces
    def letters(self) -> dict[str, str]:
        """The letter that stands for each run in the significance marks: a, b, c, ..."""
        alphabet = string.ascii_lowercase
        return {
            name: alphabet[i] if i < len(alphabet) else f"r{i + 1}"
            for i, name in enumerate(self.names)
        }

    def beats(self) -> dict[tuple[str, str], list[str]]:
        """``(measure, run)``: the runs it is significantly better than (by the chosen test,
        corrected), as letters."""
        letters = self.letters()
        out: dict[tuple[str, str], list[str]] = {}
        for row in self.pairs[self.pairs["significant"]].itertuples():
            # the direction of the test behind the mark: wins against losses for the sign
            # test, the signed-rank sum for Wilcoxon, the mean for the others
            better = row.direction > 0 if row.measure not in LOWER_IS_BETTER else row.direction < 0
            winner, loser = (row.system, row.baseline) if better else (row.baseline, row.system)
            out.setdefault((row.measure, winner), []).append(letters[loser])
        return out

    def table(
        self, kind: str, percent: bool | None = None, decimals: int | None = None
    ) -> tuple[list[str], list[list[str]]]:
        """Headers and rows of a table as the text formats print it (cells as strings):
        ``means`` (with significance letters), ``pairs`` or ``tukey``."""
        percent, decimals = self.shown(percent, decimals)
        if kind == "means":
            return self._means_rows(percent, decimals)
        if kind == "pairs":
            return self._pair_rows(percent, decimals)
        if kind == "tukey" and self.tukey is not None:
            return ["measure", "pair", "diff", "p(tukey)"], self._tukey_rows(percent, decimals)
        raise InputError(None, f"no {kind!r} table; choose means, pairs or tukey (if computed)")

    def legend(self) -> list[str]:
        """What every column means and how it was computed, one sentence per line."""
        return comparison_legend(
            self.pairs, self.tukey, self.settings, self.family, self.baseline, self.num_queries
        )

    def label(self) -> str:
        """A LaTeX label unique to this comparison (its runs, measures, queries, qrels and
        settings), so two tables of one paper never share one; the same where the files
        are (the qrels by name, not folder), so a regenerated table keeps its ``\\ref``."""
        qrels = self.qrels_source.replace("\\", "/").rsplit("/", 1)[-1]
        key = repr((self.names, self.measures, self.num_queries, qrels))
        return latex_label("compare", key, repr(asdict(self.settings)))
