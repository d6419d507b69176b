"""The evaluation behind ``citeval trec_eval``: trec_eval's measures from the measure
table, on the run as trec_eval 10.0 prepares it (see :mod:`.trec_eval`)."""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..base.measures import Measure
from ..base.options import EvalOptions
from ..evaluation.evaluate import evaluate
from ..evaluation.parts import unranked_values
from ..evaluation.settings import Settings
from ..reading.tables import lookup, lookup_unique
from ..scoring.table import MEASURES, POOL_LEVELS, MeasureDef, TrecName
from ..scoring.trec_names import trec_name_of
from .trec_eval_options import BOGUS_DOC, Options, TrecEvalExit, c_atof, c_atol, c_long


def _cleared(name: str) -> bool:
    """Whether trec_eval.c's clean-up of a missing query's bogus ranking resets the value
    printed as ``name``: it compares the printed name, so ``utility``, ``rbp_resid`` and
    ``relstring`` only without parameters (``utility_2,-1,0,0`` keeps its value), every
    ``unj_K`` (it compares 3 characters) and ``num_ret``."""
    return name in ("num_ret", "utility", "rbp_resid", "relstring") or name.startswith("unj")


@dataclass
class Printed:
    """One value trec_eval prints: its name, the measure, how it prints."""

    name: str
    trec: str
    measure: Measure | None  # None for runid and relstring
    shown: str


def _rows_by_trec_name() -> dict[str, tuple[MeasureDef, TrecName]]:
    return {t.name: (row, t) for row in MEASURES.values() for t in row.trec}


def _values(trec: TrecName, text: str | None) -> list[float] | None:
    """The values ``-m name.text`` gives (trec_eval's defaults without text)."""
    cuts: list[float]
    if trec.kind == "long_cuts":
        if text is None:
            return list(trec.defaults)
        cuts = sorted(c_atol(v) for v in text.split(","))
        if cuts[0] <= 0:
            cannot = f"trec_eval: Cannot initialize measure '{trec.name}'"
            raise TrecEvalExit(2, f"trec_eval: Negative cutoff detected\n{cannot}")
    elif trec.kind == "double_cuts":
        cuts = sorted(c_atof(v) for v in text.split(",")) if text else list(trec.defaults)
    else:
        return None
    if len(set(cuts)) != len(cuts):
        raise TrecEvalExit(
            2,
            "trec_eval: duplicate cutoffs detected\n"
            f"trec_eval: Cannot initialize measure '{trec.name}'",
        )
    return cuts


def _pairs(text: str, name: str) -> dict[str, float]:
    """``level=gain`` pairs as meas_init.c's get_param_pairs reads them: malformed unless
    each comma-separated part holds exactly one ``=`` (an empty level is not malformed:
    gain_init.c skips it, as any level that is not a whole number)."""
    pieces = text.split(",")
    if not all(piece.count("=") == 1 for piece in pieces):
        raise TrecEvalExit(
            2,
            f"trec_eval: malformed pair parameters in '{text}'\n"
            f"trec_eval: Cannot initialize measure '{name}'",
        )
    return {level: c_atof(value) for level, _, value in (p.partition("=") for p in pieces)}


def _measures(row: MeasureDef, trec: TrecName, text: str | None, options: Options):
    """(printed name, measure) for trec_eval's measure ``trec`` given ``-m``'s ``text``."""
    from ir_measures import measures

    family = measures.registry[row.name]
    base = dict(trec.fixed)
    if "rel" in row.params and (trec.rel_given or trec.name not in ("num_ret",)):
        base["rel"] = options.rel
    if trec.name == "utility":
        base["docs"] = options.docs
    cuts = _values(trec, text)
    if cuts is not None:
        assert trec.param is not None, f"{trec.name}: values without a parameter"
        return [(trec_name_of(trec, c), family(**base, **{trec.param: c})) for c in cuts]
    # a measure without parameters ignores -m name.text and prints its own name
    shown = options.shown.get(trec.name, text)
    name = trec.name if shown is None or trec.kind == "plain" else f"{trec.name}_{shown}"
    if text is not None and trec.kind == "doubles":
        values = tuple(c_atof(v) for v in text.split(","))
        if trec.param == "beta":
            base["beta"] = values[0]
        elif trec.param == "coefficients" and len(values) != 4:
            raise AtFirstQuery(
                4,
                "trec_eval.calc_utility: improper number of coefficients\n"
                "trec_eval: Can't calculate measure 'utility'",
            )
        else:
            base[trec.param] = values
    elif text is not None and trec.kind == "pairs":
        pairs = _pairs(text, trec.name)
        if "p" in pairs and "p" in row.params:
            base["p"] = pairs["p"]
        # gain_init.c's valid_int: an optional sign, then ASCII digits only
        levels = {k: v for k, v in pairs.items() if re.fullmatch(r"[+-]?[0-9]+", k)}
        if any(int(k) < 0 for k in levels) and row.name not in POOL_LEVELS:
            raise TrecEvalExit(
                1,
                f"citeval: error: {trec.name}.{text}: gains for negative "
                "levels (unjudged docs) are not supported",
            )
        if levels and "gains" in row.params:
            base["gains"] = {int(k): v for k, v in levels.items()}
    return [(name, family(**base))]


_ZERO_BY_ZERO = -np.nan  # 0.0 / 0.0 on x86-64: a NaN with its sign bit set


def format_value(value: float, shown: str) -> str:
    """A value as trec_eval's printf prints it: ``%ld`` for a count, else ``%6.4f``."""
    if shown == "long":
        return str(int(value)) if math.isfinite(value) else "-9223372036854775808"
    if math.isnan(value):  # glibc prints a NaN's sign: x86's 0 / 0 makes -nan
        return "  -nan" if math.copysign(1.0, value) < 0 else "   nan"
    return f"{value:6.4f}"


class AtFirstQuery(TrecEvalExit):
    """A measure trec_eval initialises but cannot calculate: it stops at the first query."""


def padded(name: str, encoding: str) -> str:
    """``name`` as ``%-22s`` prints it: padded to 22 bytes (a name given on the command
    line in UTF-8 counts its bytes, not its characters)."""
    return name + " " * (22 - len(name.encode(encoding, "surrogateescape")))


@dataclass
class _Stop:
    """Where trec_eval stops: before the query at ``before`` in its order."""

    before: int
    status: int
    message: str


class Stopped(TrecEvalExit):
    """trec_eval's stop part way, after printing ``lines`` (its ``-q`` lines so far)."""

    def __init__(self, status: int, message: str, lines: list[str]):
        super().__init__(status, message)
        self.lines = lines


def ids_of(inputs) -> list[str]:
    """The qrels' query ids."""
    return inputs.qrels.all_query_ids.to_pylist()


def _top_labels(qrels) -> dict[str, int]:
    """Each qrels query's highest label."""
    top = np.full(len(qrels.all_query_ids), -(2**62), dtype=np.int64)
    np.maximum.at(top, qrels.query, qrels.relevance)
    return dict(zip(qrels.all_query_ids.to_pylist(), top.tolist()))


class TrecEvaluation:
    """The run and qrels read, prepared as trec_eval prepares them, and scored."""

    def __init__(self, options: Options):
        self.options = options
        self.encoding = "utf-8"  # how ids print back (trec_eval's own parse: Latin-1)
        by_name = _rows_by_trec_name()
        self.printed: list[Printed] = []
        self.at_first_query: AtFirstQuery | None = None
        from ..scoring.table import TREC_EVAL_ORDER

        # initialised in trec_eval's order, so its first failure is trec_eval's
        for trec_name in sorted(options.marked, key=TREC_EVAL_ORDER.index):
            if trec_name in ("runid", "relstring"):
                text = options.params.get(trec_name) if trec_name == "relstring" else None
                name = trec_name if text is None else f"{trec_name}_{text}"
                self.printed.append(Printed(name, trec_name, None, trec_name))
                continue
            row, trec = by_name[trec_name]
            try:
                made = _measures(row, trec, options.params.get(trec_name), options)
            except AtFirstQuery as stop:
                self.at_first_query = self.at_first_query or stop
                continue
            for name, measure in made:
                self.printed.append(Printed(name, trec_name, measure, trec.shown))

    def lines(self) -> list[str]:
        """trec_eval's output lines; a stop trec_eval makes part way (a query it cannot
        evaluate) is :class:`Stopped`, carrying the lines printed before it."""
        from .trec_eval_files import read_inputs

        options = self.options
        inputs = read_inputs(options.qrels, options.run)
        self.encoding = inputs.encoding
        if self.at_first_query is not None and options.debug_query in (None, *ids_of(inputs)):
            raise Stopped(self.at_first_query.status, str(self.at_first_query), [])
        if self.encoding == "latin-1":  # names given on the command line print as their bytes
            for p in self.printed:
                p.name = os.fsencode(p.name).decode("latin-1")
        qrels, run = inputs.qrels, inputs.run
        ids = qrels.all_query_ids.to_pylist()
        wanted = [i for i in range(len(ids)) if options.debug_query in (None, ids[i])]
        codes = lookup(qrels.all_query_ids, run.query_ids)
        present = np.bincount(run.query, minlength=len(run.query_ids)) > 0
        in_run = (codes >= 0) & present[np.maximum(codes, 0)]
        order = sorted(wanted, key=lambda i: ids[i].encode(self.encoding))
        stop = self._stop([ids[i] for i in order], in_run[order], inputs)
        if stop is not None:
            order = order[: stop.before]
        if not order and stop is None:
            raise TrecEvalExit(7, "trec_eval: No queries with both results and relevance info")
        missing = [i for i in order if not in_run[i]]
        run = self._prepared(run, qrels, [ids[i] for i in missing])
        measures = [p.measure for p in self.printed if p.measure is not None]
        measures += [m for m in self._parts_of_ndcg().values() if m not in measures]
        values = {}
        if measures and order:
            if len(run.query):
                result = evaluate(run, qrels, measures, options=EvalOptions(duplicates="error"))
                position = {q: n for n, q in enumerate(result.query_ids)}
                matrix = result.values[[position[ids[i]] for i in order]]
            else:  # -J or -M0 left no doc: every query scored on an empty ranking
                matrix = unranked_values(Settings(measures), qrels, np.array(order))
            for column, measure in enumerate(measures):
                values[str(measure)] = matrix[:, column]
        printed = self._print(
            [ids[i] for i in order],
            {ids[i] for i in missing},
            values,
            run,
            qrels,
            summary=stop is None,
        )
        if stop is not None:
            raise Stopped(stop.status, stop.message, printed)
        return printed

    def _stop(self, query_ids: list[str], in_run: np.ndarray, inputs) -> _Stop | None:
        """Where trec_eval 10.0 stops, walking the qrels queries in its order: a query the
        run lacks without ``-c`` (trec_eval.c), then, once a measure forms the query's
        ranking (every measure but ``runid`` and ``num_q``: ``form_res_rels.c``), a doc
        repeated in the ranking after the ``-M`` cut, a doc repeated in its qrels, or all
        its labels negative while no query before it had a label >= 0 (its buffer of
        relevance levels is then still unallocated: ``utility_pool.c``)."""
        from .trec_eval_files import first_repeat

        options = self.options
        forms = [p.trec for p in self.printed if p.trec not in ("runid", "num_q")]
        top = _top_labels(inputs.qrels)
        allocated = False
        for n, query in enumerate(query_ids):
            if not in_run[n] and not options.complete:
                return _Stop(n, 4, f"trec_eval: result qid '{query}' not found in qrels")
            if not forms:
                continue
            cannot = f"trec_eval: Can't calculate measure '{forms[0]}'"
            rows = (inputs.run_rows or {}).get(query) if in_run[n] else None
            repeated = first_repeat(rows, options.max_docs) if rows else None
            if repeated is not None:
                return _Stop(n, 4, f"trec_eval.form_res_qrels: duplicate docs {repeated}{cannot}")
            if query in inputs.qrels_repeats:
                doc = inputs.qrels_repeats[query]
                return _Stop(n, 4, f"trec_eval.form_res_rels: duplicate docs {doc}\n{cannot}")
            if top.get(query, -1) >= 0:
                allocated = True
            elif not allocated:
                return _Stop(n, 4, cannot)
            elif top[query] < -1:
                return _Stop(
                    n,
                    4,
                    f"citeval: error: qrels query '{query}' has only labels "
                    "below -1 after a query with a label >= 0: trec_eval 10.0 "
                    "crashes here (memset of a negative size in "
                    "form_res_rels.c); citeval stops",
                )
        return None

    def _prepared(self, run, qrels, missing: list[str]):
        """The run as trec_eval scores it: the bogus doc of each missing query (``-c``),
        cut at ``-M`` in trec_eval's order, then (``-J``) its judged docs only."""
        from ..reading.ties import rank_order

        if missing:
            doc_ids = run.doc_ids
            bogus = lookup(pa.array([BOGUS_DOC]), doc_ids)[0]
            if bogus < 0:
                doc_ids, bogus = pa.concat_arrays([doc_ids, pa.array([BOGUS_DOC])]), len(doc_ids)
            query_ids = pa.concat_arrays([run.query_ids, pa.array(missing)])
            new = np.arange(len(run.query_ids), len(query_ids))
            run = replace(
                run,
                query=np.concatenate((run.query, new)),
                query_ids=query_ids,
                doc=np.concatenate((run.doc, np.full(len(new), bogus))),
                doc_ids=doc_ids,
                score=np.concatenate((run.score, np.ones(len(new)))),
            )
        self.bogus = set(missing)
        if self.options.judged or self.options.max_docs is not None:
            ranked = rank_order(run, "trec_eval", self.options.max_docs)
            rows = ranked.positions if ranked.positions is not None else np.arange(len(run.query))
            run = run.take(rows)
        if self.options.judged:
            run = run.take(np.flatnonzero(_judged(run, qrels)))
        self.num_ret = np.bincount(run.query, minlength=len(run.query_ids))
        self.run_query_ids = run.query_ids
        return run

    def _print(self, query_ids, bogus, values, run, qrels, summary: bool) -> list[str]:
        options = self.options
        out: list[str] = []
        n = len(query_ids)
        retrieved = self.num_ret[lookup(pa.array(query_ids, pa.string()), self.run_query_ids)]
        self._nan_where_empty(values, retrieved, query_ids, qrels)
        self._stale_levels(values, query_ids, qrels)
        cleared = np.array([q in bogus for q in query_ids])
        for p in self.printed:
            if p.measure is not None and _cleared(p.name) and values:
                values[str(p.measure)] = np.where(cleared, 0.0, values[str(p.measure)])
        relstrings = self._relstrings(run, qrels, query_ids, cleared) if options.query else {}
        if options.query and n:
            out.append(self._per_query_lines(query_ids, values, relstrings))
        if not options.summary or not summary:
            return out
        for p in self.printed:
            if p.shown == "relstring":
                continue
            if p.shown == "runid":
                out.append(self._line("runid", "all", _run_tag(options.run, self.encoding)))
                continue
            out.append(self._line(p.name, "all", self._summary(p, values, n, qrels)))
        return out

    def _line(self, name: str, query: str, text: str) -> str:
        return f"{padded(name, self.encoding)}\t{query}\t{text}\n"

    def _per_query_lines(self, query_ids: list[str], values, relstrings) -> str:
        """Every query's lines (``-q``), in one text: query by query, the measures in
        trec_eval's order. Built column-wise: each distinct value is formatted once and the
        lines joined by Arrow, so 5 million lines cost about as much as reading them."""
        per = [p for p in self.printed if p.shown not in ("summary", "runid")]
        n, m = len(query_ids), len(per)
        texts: list[str] = []
        codes = np.empty((n, m), dtype=np.int64)
        for column, p in enumerate(per):
            if p.shown == "relstring":
                shown = [f"'{relstrings[q]}'\n" for q in query_ids]
                codes[:, column] = np.arange(len(texts), len(texts) + n)
                texts += shown
                continue
            column_values = np.ascontiguousarray(values[str(p.measure)], dtype=np.float64)
            bits, inverse = np.unique(column_values.view(np.int64), return_inverse=True)
            codes[:, column] = len(texts) + inverse.reshape(-1)
            texts += [format_value(v, p.shown) + "\n" for v in bits.view(np.float64)]
        names = pa.array([f"{padded(p.name, self.encoding)}\t" for p in per], pa.string())
        queries = pa.array([f"{q}\t" for q in query_ids], pa.string())
        joined = pc.binary_join_element_wise(
            names.take(pa.array(np.tile(np.arange(m), n))),
            queries.take(pa.array(np.repeat(np.arange(n), m))),
            pa.array(texts, pa.string()).take(pa.array(codes.ravel())),
            "",
        )
        offsets = np.frombuffer(joined.buffers()[1], dtype=np.int32, count=len(joined) + 1)
        data = joined.buffers()[2]
        return data[int(offsets[joined.offset]) : int(offsets[-1])].to_pybytes().decode("utf-8")

    def _summary(self, p: Printed, values, n: int, qrels) -> str:
        from ..scoring.table import definition

        row = definition(p.measure) if p.measure is not None else None
        assert row is not None, f"{p.name}: no measure-table row to print its summary by"
        column = values[str(p.measure)]
        # averaged over every qrels query with -c (meas_avg.c: num_q_rels), the n evaluated
        # ones included: fewer only when -D names one query
        queries = len(qrels.all_query_ids) if self.options.complete else n
        if p.trec == "num_q":
            return str(queries)
        if p.trec == "num_rel" and self.options.complete:
            return str(int((qrels.relevance > 0).sum()))
        if row.aggregate == "geometric":  # a query not evaluated counts as MIN_GEO_MEAN
            logs = float(np.cumsum(np.log(np.maximum(column, 1e-5)))[-1])
            logs += (queries - n) * math.log(1e-5)
            return format_value(math.exp(logs / queries), "double")
        # summed in order from +0 as meas_acc.c sums (a sum of -0s is +0 there)
        total = 0.0 + float(np.cumsum(column)[-1]) if n else 0.0
        if row.summed:
            return format_value(total, "long")
        return format_value(total / queries, "double")

    def _parts_of_ndcg(self) -> dict[str, Measure]:
        """For each ``ndcg`` printed with gains for levels -1 or -2 (a gain an all-negative
        query's ranking can earn), its DCG and ideal DCG, by the names ``dcg <ndcg>`` and
        ``ideal <ndcg>``: :meth:`_stale_levels` divides them as trec_eval does."""
        from ir_measures import measures

        parts = {}
        for p in self.printed:
            ndcg = p.measure if p.trec == "ndcg" else None
            given = ndcg.params.get("gains") if ndcg is not None else None
            if given and min(given) < 0:
                parts[f"dcg {p.measure}"] = measures.registry["DCG"](gains=given)
                parts[f"ideal {p.measure}"] = measures.registry["IdealDCG"](gains=given)
        return parts

    def _stale_levels(self, values, query_ids: list[str], qrels) -> None:
        """trec_eval's ``ideal_dcg`` of a query whose labels are all negative: the query's
        relevance levels are never counted (``form_res_rels.c`` clears ``max_rel + 1 = 0``
        of them and keeps ``num_rel_levels`` from before), so its gains, and the ideal DCG
        printed, are those of the last query before it with a label >= 0; its ``ndcg`` is
        its own DCG (non-zero only with gains for levels -1 or -2) over that ideal DCG."""
        if not values:
            return
        top = _top_labels(qrels)
        negative = np.array([top[q] < 0 for q in query_ids])
        if not negative.any():
            return
        last = np.maximum.accumulate(np.where(~negative, np.arange(len(query_ids)), 0))
        for p in self.printed:
            if p.trec == "ideal_dcg":
                values[str(p.measure)] = values[str(p.measure)][last]
        parts = self._parts_of_ndcg()
        for p in self.printed:
            if f"dcg {p.measure}" in parts:
                own = values[str(parts[f"dcg {p.measure}"])]
                ideal = values[str(parts[f"ideal {p.measure}"])][last]
                with np.errstate(invalid="ignore", divide="ignore"):
                    stale = np.where(ideal > 0, own / ideal, 0.0)
                values[str(p.measure)] = np.where(negative, stale, values[str(p.measure)])

    def _nan_where_empty(self, values, retrieved, query_ids, qrels) -> None:
        """trec_eval's 0 / 0: interpolated precision at a cut-off rounding to 0 relevant
        docs, for a query with no doc left (``-J``)."""
        from ..scoring.trec_kernels import lround

        empty = retrieved == 0
        if not empty.any():
            return
        labels = np.maximum(self.options.rel, 0)
        ids = lookup(pa.array(query_ids, pa.string()), qrels.all_query_ids)
        r = np.bincount(qrels.query[qrels.relevance >= labels], minlength=len(qrels.all_query_ids))
        r = r[ids].astype(np.float64)
        for p in self.printed:
            if p.measure is None:  # runid, relstring
                continue
            if p.trec == "iprec_at_recall":
                zero = lround(np.float64(p.measure.params["recall"]) * r) == 0
                values[str(p.measure)] = np.where(
                    empty & zero, _ZERO_BY_ZERO, values[str(p.measure)]
                )
            elif p.trec == "11pt_avg":
                levels = p.measure.params.get("recalls", tuple(i / 10 for i in range(11)))
                zero = np.zeros(len(r), dtype=bool)
                for level in levels:
                    zero |= lround(np.float64(level) * r) == 0
                values[str(p.measure)] = np.where(
                    empty & zero, _ZERO_BY_ZERO, values[str(p.measure)]
                )

    def _relstrings(self, run, qrels, query_ids, cleared) -> dict[str, str]:
        if not any(p.shown == "relstring" for p in self.printed):
            return {}
        from ..scoring.rankings import build_rankings
        from ..scoring.trec_kernels import relstrings

        text = self.options.params.get("relstring")
        length = c_long(c_atof(text.split(",")[0])) if text else 10
        counted = lookup(pa.array(query_ids, pa.string()), qrels.all_query_ids)
        rankings = build_rankings(run, qrels, counted)
        found = relstrings(rankings, length)
        clear = _cleared("relstring" if text is None else f"relstring_{text}")
        return {q: ("" if clear and cleared[i] else found[i]) for i, q in enumerate(query_ids)}


def _judged(run, qrels) -> np.ndarray:
    """Per run row: whether the qrels judge its (query, doc) with a label >= 0."""
    keep = qrels.relevance >= 0
    query = lookup(qrels.query_ids, run.query_ids)[qrels.query[keep]]
    doc = lookup_unique(qrels.doc_ids, run.doc_ids)[qrels.doc[keep]]
    both = (query >= 0) & (doc >= 0)
    width = np.int64(len(run.doc_ids) + 1)
    judged = np.unique(query[both] * width + doc[both])
    return np.isin(run.query.astype(np.int64) * width + run.doc, judged)


def _run_tag(path: str, encoding: str) -> str:
    """The run tag trec_eval prints as ``runid``: the sixth field of the last line it reads
    (read from the end of the file back, a block at a time, to the last data line)."""
    with open(path, "rb") as handle:
        end = handle.seek(0, 2)
        tail = b""
        while True:
            start = max(end - (1 << 16), 0)
            handle.seek(start)
            tail = handle.read(end - start) + tail
            lines = tail.split(b"\n")
            complete = lines if start == 0 else lines[1:]  # the first may be cut
            for raw in reversed(complete):
                fields = raw.split(b"\0", 1)[0].split()
                if len(fields) >= 6 and not fields[0].startswith(b"#"):
                    return fields[5].decode(encoding, "surrogateescape")
            if start == 0:
                return ""
            end, tail = start, lines[0]
