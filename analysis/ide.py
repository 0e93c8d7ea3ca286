"""Turning an engine run into plain results: facts, diagnostics, fixes, annotations."""
from __future__ import annotations

import re
import weakref

from . import shapes as S
from .ops.spec import TensorValue
from .results import Diagnostic, FileAnalysis, Fix, Related, ShapeFact, Span, TextEdit
from functools import lru_cache

from .values import UNKNOWN, ListVal, value_key
from .lower import LOCAL_BITS
from .annotations import dims_from_text
from .generic import broadcast_renaming
from . import ir
from .ir import HEADER_NID
from .frames import DiagRecord, decided, reachable


@lru_cache(maxsize=4096)
def _tensor_text(shape) -> str:
    return S.shape_text(shape)


def value_text(v) -> str:
    if isinstance(v, TensorValue):
        return v.text() if v.shape is None else _tensor_text(v.shape)
    if isinstance(v, ListVal):
        inner = ", ".join(value_text(x) for x in v.items)
        return f"({inner},)" if len(v.items) == 1 else f"({inner})"
    return "?"


def _open_rank(v) -> bool:
    """A tensor whose rank this context left open (Tensor[..., dim] or Tensor[...])."""
    return isinstance(v, TensorValue) and v.shape is None


def _join_all(engine, values):
    out = values[0]
    for v in values[1:]:
        out = engine.join(out, v)
    return out


def _span(unit, nid):
    sp = unit.span(nid) if unit is not None else None
    if sp is None:
        return None
    (l1, c1), (l2, c2) = sp
    return Span((l1 - 1, c1), (l2 - 1, c2))


def _from_method_name(span, unit, method):
    """A failing method call whose name is on a later line than the call's start (a chain
    split over lines) is squiggled from the method name, the line Python's traceback names."""
    if span is None or method is None:
        return span
    name = _span(unit, method[0])
    if name is None or name.end[0] <= span.start[0]:
        return span
    return Span((name.end[0], max(0, name.end[1] - method[1])), span.end)


def _engine_view(engine, path: str) -> tuple:
    """(facts' entries by unit, diagnostics records) of a run for a file: made once per
    run (an edit that changes no unit reuses the run: db.py)."""
    views = engine.__dict__.setdefault("_views", {})
    view = views.get(path)
    if view is not None:
        return view
    diags: dict = {}
    # A context that ran a def with an input it cannot compute with (Unknown, a tensor of
    # unknown rank) leaves an '<unknown>' mark on each line it could not evaluate, and a
    # hover there claims no dim (_unit_facts); a line it did evaluate (a constant table)
    # holds in it like in any other.
    by_unit: dict = {}  # unit key -> the live entries holding facts of it
    # An entry only a guessed flag world reaches (infer.flag_worlds) gives no diagnostics in
    # the methods of that world's class: the flag's other value may be the only one used.
    trusted = _trusted_ids(engine)
    guess_classes = getattr(engine, "guess_classes", set())
    defaults = getattr(engine, "default_roots", set())
    by_defaults = {e.id for e in reachable([r for r in engine.roots if r.id in defaults])} if defaults else set()
    marked_only: dict = {}  # unit key -> live entries that only marked lines of it
    replays = engine.replay_ids  # (infer.replay_widened)
    on_decided_ways = _per_run(engine, _decided_ids)
    for entry in engine.live.values():
        generic = entry.id not in engine.real_ids
        facts, marked = _fact_units(entry, path)
        for unit_key in facts | marked:
            if generic and unit_key in engine.real_units and unit_key not in engine.escaped_units \
                    and entry.id not in replays:
                continue  # a def the file really runs: facts come from those runs only (unless
                # it was also handed to code not run, which may call it otherwise: frames.escape,
                # or reached by such a call: infer.replay_widened)
            (by_unit if unit_key in facts else marked_only).setdefault(unit_key, []).append(entry)
        only_guessed = trusted is not None and entry.id not in trusted
        blind_only = entry.id not in on_decided_ways  # (called only on undecided ways)
        if generic and entry.id in replays:
            continue  # (a seen call again with its sizes as symbols: hovers only)
        for rec in entry.diags.values():
            if blind_only and not rec.static:
                continue
            if only_guessed and not rec.static and rec.unit[1].rsplit(".", 1)[0] in guess_classes:
                if entry.id not in by_defaults or rec.severity != "error":
                    continue
                # Run with every flag at its default (too many flags for a world per value):
                # it fails as the model is built by default, a warning (its other flags may
                # be the ones used).
                rec = DiagRecord(rec.unit, rec.nid, "warning", rec.code,
                                 rec.message + " (with the model's default flags)", rec.related, rec.repair,
                                 method=rec.method)
            if rec.unit[0] == path:
                diags.setdefault(rec.key(), rec)
    for rec in getattr(engine, "dropped_static", ()):
        if rec.unit[0] == path:
            diags.setdefault(rec.key(), rec)
    # A context that evaluated none of a def's lines (its input Unknown all along) holds no
    # facts of it, but its marks widen the other contexts' facts: their shapes are not
    # the only ones (a gate run on rank-3 input by one caller and on an unknown one by another).
    for unit_key, entries in marked_only.items():
        if unit_key in by_unit:
            by_unit[unit_key].extend(entries)
    view = views[path] = (by_unit, diags)
    return view


def _per_run(engine, make):
    """`make(engine)`, made once per run (kept on the engine: a comment edit reuses the run)."""
    made = engine.__dict__.setdefault("_per_run", {})
    if make not in made:
        made[make] = make(engine)
    return made[make]


def build_file_analysis(host, engine, path: str) -> FileAnalysis:
    units = host.units(path)
    lines = host.lines(path)
    by_unit, diags = _engine_view(engine, path)
    result = FileAnalysis(path)
    # The facts are made when first read (a hover, inlay hints), not here: the diagnostics
    # of an edit are published first. Where each def and top-level statement is now is
    # taken here (a later edit moves segments in place); the rest they read (the run's
    # entries, span tables, these lines) no later edit changes. They are placed in file
    # lines when read too, so an edit that moves lines does not re-place every fact below.
    places = _places(units)
    result.make_facts = _facts_maker(host.defer(
        lambda: _collect_facts(host, engine, path, units, places, lines, by_unit, _per_run(engine, context_notes_by_entry))))

    for rec in diags.values():
        unit = units.get(rec.unit[1])
        span = _from_method_name(_span(unit, rec.nid), unit, rec.method)
        if span is None:
            continue
        related = []
        for (rpath, rkey), rnid, message in rec.related:
            runits = host.units(rpath)
            runit = runits.get(rkey)
            rspan = _span(runit, rnid)
            if rspan is None:
                continue
            text = source_text(host.lines(rpath), runit.span(rnid))
            related.append(Related(rspan, message.replace("{text}", text),
                                   None if rpath == path else rpath))
        fixes = ()
        if rec.repair is not None:
            (rpath, rkey), rnid, new_text, title, tail = rec.repair
            runit = host.units(rpath).get(rkey)
            rspan = _span(runit, rnid)
            if rspan is not None and tail:  # only the last `tail` characters (a method name)
                rspan = Span((rspan.end[0], rspan.end[1] - tail), rspan.end)
            if rspan is not None and rpath == path:
                fixes = (Fix(title, (TextEdit(rspan, new_text),), "quickfix", True),)
        result.diagnostics.append(Diagnostic(span, rec.severity, rec.code, rec.message,
                                             tuple(related), fixes))
    result.diagnostics.sort(key=lambda d: d.span.start)
    unknown_ops = dict(engine.unknown_ops)
    for entry in engine.live.values():
        for name, n in entry.unknown_ops.items():
            unknown_ops[name] = unknown_ops.get(name, 0) + n
    result.unknown_ops = unknown_ops
    result.make_annotations = _annotation_maker(host, path, result, host.settings.annotation_style)
    return result


class _FactGroup:
    """The facts of one def, or of one top-level statement of the module, with spans in
    the lines they were recorded in; `at(shift)` gives them in file lines. A group is
    recomputed when the runs behind it or its span table change, and only re-placed when
    the lines above it move."""

    __slots__ = ("signature", "raw", "placed", "made_from", "facts")

    def __init__(self, signature, raw: list, made_from=None, facts=None):
        self.signature = signature
        self.raw = raw  # [(recorded span, (text, shape, origin, is_target, variants, notes))]
        self.placed = (None, [])  # (shift, facts): one attribute, so a reader never mixes two
        # (runs, code digest) and the facts by node id before placing: a comment edit
        # inside the def re-lowers it to the same code, and only the spans move.
        self.made_from = made_from
        self.facts = facts

    def at(self, shift: int) -> list:
        """Thread-safe: the server reads facts while the next analysis runs."""
        placed = self.placed
        if placed[0] != shift:
            placed = self.placed = (shift, [ShapeFact(Span((l1 - 1 + shift, c1), (l2 - 1 + shift, c2)), *rest)
                                            for ((l1, c1), (l2, c2)), rest in self.raw])
        return placed[1]


def _facts_maker(placements):
    """The file's facts from `placements()` ([(group, shift)]), sorted, made when first read."""
    def make() -> list:
        out: list = []
        for group, shift in placements():
            out.extend(group.at(shift))
        out.sort(key=_fact_order)
        return out

    return make


def _places(units) -> dict:
    """Where the units are in the file's lines now: unit key -> line shift, and for the
    module (base of a segment) -> (its lowering, its line offset)."""
    out = {key: unit.shift() for key, unit in units.items() if unit.kind != "module"}
    module = units.get("<module>")
    if module is not None:
        out.update((base, (seg.lowered, seg.offset)) for base, seg in module.spans.by_base.items())
    return out


def _collect_facts(host, engine, path, units, places, lines, by_unit, notes) -> list:
    """[(group, shift)]: each def's or module statement's facts and where they were when
    the analysis ran (`places`, from _places)."""
    cache = host.fact_cache
    used = set()
    out: list = []
    forwards: dict = {}  # class name -> the fact group of its `forward` (top-level classes)
    for unit_key, entries in by_unit.items():
        unit = units.get(unit_key)
        if unit is None:
            continue
        runs = _runs_signature(engine, path, unit_key, entries, notes)
        if unit.kind != "module":
            key = (path, unit_key)
            used.add(key)
            group = cache.get(key)
            if group is None or group.signature != (runs, unit.stamp):
                made_from = (runs, unit.digest)
                facts = group.facts if group is not None and group.made_from == made_from else \
                    _unit_facts(engine, path, unit_key, entries, runs[1])
                group = cache[key] = _FactGroup((runs, unit.stamp),
                                                _placed(facts, unit.spans, lines, places[unit_key]), made_from, facts)
            out.append((group, places[unit_key]))
            owner, _, method = unit_key.partition(".")
            if method == "forward":
                forwards[owner] = group
            continue
        # The module: one group per segment (analysis.lower), so an edit re-places the
        # facts of the statements below it instead of recomputing them.
        key = (path, unit_key)
        used.add(key)
        per_segment = cache.get(key)
        if per_segment is None or per_segment[0] != runs:
            facts = _unit_facts(engine, path, unit_key, entries, runs[1])
            buckets: dict = {}
            for fact in facts:
                buckets.setdefault(fact[0] >> LOCAL_BITS, []).append(fact)
            per_segment = cache[key] = (runs, buckets)
        for base, facts in per_segment[1].items():
            low, offset = places.get(base, (None, 0))
            if low is None:
                continue
            gkey = (path, unit_key, base)
            used.add(gkey)
            group = cache.get(gkey)
            if group is None or group.signature != (runs, low.stamp):
                group = cache[gkey] = _FactGroup((runs, low.stamp),
                                                 _placed(facts, low.spans, lines, offset))
            out.append((group, offset))
    out.extend(_class_contracts(path, units.get("<module>"), places, forwards, cache, used, lines))
    for key in [k for k in cache if k[0] == path and k not in used]:
        del cache[key]
    return out


def _runs_signature(engine, path, unit_key, entries, notes) -> tuple:
    """What a unit's facts are made of in a run (its entries and the notes), made
    once per run."""
    sigs = engine.__dict__.setdefault("_run_signatures", {})
    sig = sigs.get((path, unit_key))
    if sig is None:
        labels = tuple(sorted((e.id, context_labels(engine).get(e.id, ())) for e in entries)) \
            if len(entries) > 1 else ()
        sig = sigs[(path, unit_key)] = (tuple(sorted(e.id for e in entries)), _unit_notes(notes, entries), labels)
    return sig


def _decided_ids(engine) -> set:
    """The entries the run's roots reach by calls on decided ways (frames.decided)."""
    return {e.id for e in decided(engine.roots)}


def _trusted_ids(engine):
    """The ids of the entries some context that is no guess reaches (None: no guesses)."""
    return _per_run(engine, _reached_without_guesses) or None


def _widening_ids(engine) -> set:
    """The entries a way with an optional input given as an unknown value reaches: their
    marks widen the default way's shapes (infer._run_with_instances)."""
    return _per_run(engine, _reached_by_widening)


def _reached_by_widening(engine):
    roots = getattr(engine, "widen_roots", None)
    return _reached_from(engine, lambda r: r.id in roots) if roots else set()


def _reached_without_guesses(engine):
    guessed = getattr(engine, "guess_roots", None)
    return _reached_from(engine, lambda r: r.id not in guessed) if guessed else None


def _reached_from(engine, keep) -> set:
    """The ids of the entries the run's roots that `keep` admits reach."""
    return {e.id for e in reachable([r for r in engine.roots if keep(r)])}


def context_labels(engine) -> dict:
    """entry id -> the names of the contexts that reach it (sorted): the hover labels the
    shapes it lists with where they come from. Made once per run, when a def has several
    contexts."""
    return _per_run(engine, _labels_by_entry)


def _labels_by_entry(engine) -> dict:
    found: dict = {}
    for root in engine.roots:
        label = _root_label(engine, root)
        for e in reachable([root]):
            found.setdefault(e.id, set()).add(label)
    return {k: tuple(sorted(v)) for k, v in found.items()}


def _root_label(engine, root) -> str:
    """What a context is called in a hover: the file's own run, a function nobody calls
    (`_demo()`, a factory), the model a factory builds, or a def with no caller."""
    label = root.__dict__.get("context_label")
    if label:
        return label
    if root.unit_key == "<module>":
        return "this file's run"
    if "." not in root.unit_key:
        return f"{root.unit_key}()"
    return "no caller"


def _class_contracts(path, module, places, forwards, cache, used, lines) -> list:
    """[(group, shift)]: on the name of each top-level class, its `forward`'s contract (the
    hover of `class Stem` is the hover of `def forward`)."""
    out: list = []
    if module is None or not forwards:
        return out
    for stmt in module.body:
        group = forwards.get(stmt.name) if isinstance(stmt, ir.ClassDef) else None
        low, offset = places.get(stmt.nid >> LOCAL_BITS, (None, 0)) if group else (None, 0)
        if low is None:
            continue
        key = (path, stmt.name, "<class>")
        signature = (group.signature, low.stamp)
        cached = cache.get(key)
        if cached is None or cached.signature != signature:
            contract = next((rest for _, rest in group.raw if rest[2] == CONTRACT_ORIGIN), None)
            if contract is None:
                continue
            fact = (stmt.nid, contract[1], CLASS_CONTRACT_ORIGIN, False) + tuple(contract[4:])
            cached = cache[key] = _FactGroup(signature, _placed([fact], low.spans, lines, offset))
        used.add(key)
        out.append((cached, offset))
    return out


def _placed(facts, spans, lines, shift) -> list:
    out = []
    for fact in facts:
        span = spans.get(fact[0])
        if span is not None:
            (l1, c1), (l2, c2) = span
            out.append((span, (source_text(lines, ((l1 + shift, c1), (l2 + shift, c2))),) + fact[1:]))
    return out


def source_text(lines, span) -> str:
    """The code at a span (1-based lines, as parso counts), or "" when longer than a hover
    shows."""
    if span is None:
        return ""
    (l1, c1), (l2, c2) = span
    if l2 - l1 > 4 or l2 > len(lines):
        return ""
    if l1 == l2:
        code = lines[l1 - 1][c1:c2]
    else:
        code = lines[l1 - 1][c1:] + "".join(lines[l1:l2 - 1]) + lines[l2 - 1][:c2]
    return code.strip() if len(code) <= 200 else ""


def _unknown_dims(v, rank=False):
    """`v` with every dim unknown (and every rank too, with `rank`)."""
    from .shapes import UNKNOWN
    if isinstance(v, TensorValue) and rank:
        return TensorValue(None, v.dtype)
    if isinstance(v, TensorValue) and v.shape is not None:
        return TensorValue(tuple(UNKNOWN for _ in v.shape), v.dtype)
    if isinstance(v, ListVal):
        return ListVal([_unknown_dims(x, rank) for x in v.items], v.kind)
    return v


def _fact_order(f):
    return f.span


def _facts_by_unit(entry) -> dict:
    """The entry's facts grouped by the unit they belong to, {(path, unit key): [(fact key,
    values)]}: computed once per entry (its facts do not change after its run)."""
    cached = entry.__dict__.get("_facts_by_unit")
    if cached is None:
        cached = {}
        for key, vals in entry.facts.items():
            unit = (key[1], key[2]) if isinstance(key[0], str) and key[0].startswith("<") else (key[0], key[1])
            cached.setdefault(unit, []).append((key, vals))
        entry._facts_by_unit = cached
    return cached


def _fact_units(entry, path) -> tuple:
    """(the units of `path` an entry holds facts for, those where it only marked lines it
    could not evaluate), computed once per entry and path. (Marks alone are no facts of
    their own: they widen other contexts' facts.)"""
    cached = entry.__dict__.setdefault("_fact_units", {})
    units = cached.get(path)
    if units is None:
        facts, marked = set(), set()
        for (p, unit_key), keys in _facts_by_unit(entry).items():
            if p == path:
                (facts if any(k[0] != "<unknown>" for k, _ in keys) else marked).add(unit_key)
        units = cached[path] = (facts, marked)
    return units


def _unit_facts(engine, path, unit_key, entries, notes=((), ())) -> list:
    """The facts of one unit, from the live entries that ran it, as
    (nid, shape, origin, is_target, variants, notes) tuples; `notes` are the unit's
    (defaults, assumed batch dims) from _unit_notes."""
    facts: dict = {}
    origins: dict = {}
    targets: set = set()
    many: set = set()
    unevaluated: set = set()  # nodes a context reached and could not evaluate
    rank_blind: set = set()  # ... with an argument of unknown rank: their rank is not known
    kind_unknown: set = set()  # ... where not even the value's kind (tensor, tuple) was known
    kind_unknown_run: set = set()  # ... by a context the file really runs (engine.real_ids)
    labels = context_labels(engine) if len(entries) > 1 else {}
    trusted = _trusted_ids(engine) if len(entries) > 1 else None
    sources: dict = {}  # node -> {value text: the contexts it comes from}
    for entry in entries:
        guessed = trusted is not None and entry.id not in trusted
        # (a way with an optional input given as an unknown value: only its marks count)
        widen_only = guessed and entry.id in _widening_ids(engine)
        # A seen call run again with symbolic sizes (infer.replay_widened), in a def the file
        # really runs: its dims widen the real runs' ones, its rank (made up) hides none.
        replayed = unit_key in engine.real_units and entry.id not in engine.real_ids and \
            entry.id in engine.replay_ids
        for key, vals in _facts_by_unit(entry).get((path, unit_key), ()):
            kind = key[0]
            if widen_only and kind != "<unknown>":
                continue
            if kind == "<many>":
                many.add(key[3])
            elif kind == "<origin>":
                bucket = origins.setdefault(key[3], [])
                bucket.extend(v for v in vals if v not in bucket)
            elif kind == "<targets>":
                targets.update(vals)
            elif kind == "<unknown>":
                if guessed and not widen_only:
                    continue  # a guessed way (an optional input given) adds shapes, never removes them
                unevaluated.add(key[3])
                if widen_only or replayed:
                    continue  # (an unknown given value hides the dims the default way computed, no more)
                if "rank" in vals or entry.rank_blind:  # (marked so when a later call reused it)
                    rank_blind.add(key[3])
                if "whole" in vals:
                    kind_unknown.add(key[3])
                    if _stands_for_real_calls(engine, entry):
                        kind_unknown_run.add(key[3])
            else:
                if replayed and any(_open_rank(v) for v in vals):
                    unevaluated.add(key[2])  # (its dims are not known: the real runs' are not either)
                    vals = [v for v in vals if not _open_rank(v)]
                    if not vals:
                        continue
                bucket = facts.setdefault(key[2], [])
                if labels:
                    by_text = sources.setdefault(key[2], {})
                    for v in vals:
                        by_text.setdefault(value_text(v), set()).update(labels.get(entry.id, ()))
                for v in vals:
                    if all(value_key(v) != value_key(b) for b in bucket):
                        if len(bucket) >= 128:
                            many.add(key[2])
                            break
                        bucket.append(v)
    out = []
    for nid, vals in facts.items():
        vals = sorted(vals, key=value_text)  # the order calls ran in must not matter
        shown = {value_text(o) for v in vals for o in getattr(v, "options", None) or (v,)}
        variants = tuple(sorted(shown)) if len(shown) > 1 else ()  # (a tensor of one of a few ranks: each)
        ranked = [v for v in vals if not _open_rank(v)]
        if ranked and len(ranked) < len(vals) and any(isinstance(v, TensorValue) for v in ranked):
            # A context where the rank is open (Tensor[..., dim], Tensor[...]) beside ones where
            # it is known. When the file really runs the def, that context may be a call of
            # another rank (an input it cannot compute, of rank 4 where the others pass rank
            # 3): the join claims no rank, only the last dims every context agrees on. Among
            # symbolic contexts alone (no caller), all made up, the ranked ones' rank stands,
            # with its dims unknown.
            if not any(_stands_for_real_calls(engine, e) for e in entries):
                vals = ranked
            unevaluated.add(nid)
        joined = _join_all(engine, vals)
        if nid in many:
            variants = variants + ("…",)  # more shapes than listed; the join covers them
        if nid in unevaluated:
            # Some call of this def could not evaluate this line: what it computed there is
            # unknown, so no single concrete shape is claimed (nor a rank, when that call's
            # argument had an unknown rank: `look_one_back(x)` on rank-3 and rank-4 tensors).
            # (nor when a call the file really makes did not know even the value's kind: a
            # whole result Unknown may be of another rank, esm's attention weights averaged
            # over the heads on another path; made-up contexts keep the rank the others show)
            joined = _unknown_dims(joined, rank=nid in rank_blind or nid in kind_unknown_run)
            if nid in kind_unknown and isinstance(joined, ListVal):
                joined = UNKNOWN  # a tuple here, and who knows what there: no structure claimed
            variants = variants or (value_text(vals[0]),)
            variants = variants + ("…",)
        origin = "; ".join(sorted(origins.get(nid, []))[:3])
        by_text = sources.get(nid, {})
        from_where = tuple(", ".join(sorted(by_text.get(v, ()))) for v in variants) \
            if by_text and len({frozenset(x) for x in by_text.values()}) > 1 else ()
        out.append((nid, value_text(joined), origin or _origin_text(vals), nid in targets, variants,
                    _notes_for([joined], notes), from_where))
    contract = _contract(engine, unit_key, entries, notes)
    if contract is not None:
        out.append(contract)
    return out


def _stands_for_real_calls(engine, entry) -> bool:
    """A context the file really runs, or the generic run of a def it hands to code not run
    (frames.escape): that code's calls are real ones, of shapes the analysis did not see."""
    return entry.id in engine.real_ids or entry.unit_key in engine.escaped_units


def _contract(engine, unit_key, entries, notes=((), ())):
    """The def's inferred contract over the contexts that ran it, as a fact on its name:
    `(x: Tensor[N, 3, H, W]) -> Tensor[N, num_classes]`, or None when no input or result is
    a tensor. Each parameter and the result are joined over the contexts, like any fact."""
    params: dict = {}
    results: list = []
    for e in entries:
        key = e.key
        if e.unit_key != unit_key or len(key) != 5 or not isinstance(key[3], tuple):
            continue
        for name, v in key[3]:
            if name != "self":
                params.setdefault(name, []).append(v)
        results.append(e.result)
    if not results:
        return None

    def joined(vals):
        vals = sorted(vals, key=value_text)
        return _join_all(engine, vals)

    shown = [(n, joined(vs)) for n, vs in params.items()]
    result = joined([r for r in results if r is not None]) if any(r is not None for r in results) else None
    same = broadcast_renaming(shown, [c for e in entries if e.unit_key == unit_key
                                            for c, _ in getattr(e, "preconditions", ())])
    if same:
        shown = [(n, _substituted(v, same)) for n, v in shown]
        result = _substituted(result, same)
    if not any(isinstance(v, (TensorValue, ListVal)) for _, v in shown + [("", result)]):
        return None
    variants = ()
    if len(results) > 1:
        texts = {value_text(r) for r in results if isinstance(r, (TensorValue, ListVal))}
        variants = tuple(sorted(texts)) if len(texts) > 1 else ()
    values = [v for _, v in shown] + [result]
    return (HEADER_NID, _contract_text(shown, result), CONTRACT_ORIGIN, False, variants,
            _notes_for(values, notes, lambda text: _contract_text(shown, result, text)))


def _substituted(v, mapping: dict):
    if isinstance(v, TensorValue) and v.shape is not None:
        return TensorValue(tuple(S.substitute(d, mapping) for d in v.shape), v.dtype)
    if isinstance(v, ListVal):
        return ListVal([_substituted(x, mapping) for x in v.items], v.kind)
    return v


_INDEX_MARK = " (int64)"


def _index_mark(v) -> str:
    """An input the body uses as indices (token ids into an Embedding) says so: a float
    tensor there fails, and the inserted annotation must be Int[...]."""
    return _INDEX_MARK if isinstance(v, TensorValue) and v.dtype == "int64" else ""


def _contract_text(shown, result, text=value_text) -> str:
    """`(x: Tensor[N, 3, H, W]) -> Tensor[N, num_classes]`, each value written by `text`."""
    args = ", ".join(f"{n}: {text(v)}{_index_mark(v)}" if isinstance(v, (TensorValue, ListVal)) else n
                     for n, v in shown)
    tail = f" -> {text(result)}" if isinstance(result, (TensorValue, ListVal)) else ""
    return f"({args}){tail}"


# -- notes on symbolic contexts (generic.context_notes) -----------------------------------------
def context_notes_by_entry(engine) -> dict:
    """entry id -> (defaults, assumed batch dims) of the symbolic contexts the entry ran in:
    {symbol: the default of the parameter it stands for} and {symbol of a batch dim the
    probe assumed}. A context is a root of the run with everything it reached; an entry
    several contexts reached keeps what they all agree on (none when one records nothing)."""
    live = engine.live
    class_defaults = {}  # class qualname -> its generic instance's defaults
    nested: dict = {}  # entry id -> batch dims assumed by a call with unknown inputs below it
    for e in live.values():
        recorded = e.__dict__.get("generic_notes")
        if not recorded:
            continue
        if recorded.get("defaults") and e.unit_key.endswith(".<new>"):
            class_defaults[e.unit_key[:-len(".<new>")]] = recorded["defaults"]
        assumed = {s for per_def in recorded.get("batch", {}).values() for s in per_def.values()}
        if assumed:
            for r in reachable([e]):
                nested.setdefault(r.id, set()).update(assumed)
    by_def = engine.__dict__.get("generic_notes", {}).get("batch", {})
    contexts: dict = {}
    plain = []
    for root in engine.roots:
        defaults, batch = _root_notes(engine, root, class_defaults, by_def)
        if defaults or batch:
            for e in reachable([root]):
                contexts.setdefault(e.id, []).append((defaults, batch))
        else:
            plain.append(root)
    if not contexts and not nested:
        return {}
    for e in reachable(plain):
        contexts.setdefault(e.id, []).append(({}, frozenset()))
    out = {}
    for eid in contexts.keys() | nested.keys():
        ctx = contexts.get(eid, [({}, frozenset())])
        defaults = _agreed([d for d, _ in ctx])
        batch = frozenset.intersection(*(b for _, b in ctx)) | nested.get(eid, frozenset())
        if defaults or batch:
            out[eid] = (defaults, batch)
    return out


def _root_notes(engine, root, class_defaults, by_def):
    """(defaults, assumed batch dims) of the context a root of the run starts."""
    if root.id in engine.real_ids:
        return {}, frozenset()
    recorded = root.__dict__.get("generic_notes", {})
    if root.unit_key.endswith(".<new>"):
        return dict(recorded.get("defaults", {})), frozenset()
    owner = root.unit_key.rsplit(".", 1)[0] if "." in root.unit_key else None
    defaults = dict(class_defaults.get(owner, {})) if owner else {}
    qualname = root.key[0] if isinstance(root.key, tuple) and root.key else None
    return defaults, frozenset(by_def.get(qualname, {}).values())


def _agreed(dicts: list) -> dict:
    """The items every dict has, with the same value."""
    out = dict(dicts[0]) if dicts else {}
    for d in dicts[1:]:
        out = {k: v for k, v in out.items() if d.get(k) == v}
    return out


def _unit_notes(notes: dict, entries) -> tuple:
    """(defaults as sorted items, assumed batch dims sorted) of a unit over the entries
    that ran it: what every entry agrees on. Part of the facts' cache signature."""
    if not notes:
        return (), ()
    per_entry = [notes.get(e.id, ({}, frozenset())) for e in entries]
    defaults = _agreed([d for d, _ in per_entry])
    batch = frozenset.intersection(*(b for _, b in per_entry)) if per_entry else frozenset()
    return tuple(sorted(defaults.items())), tuple(sorted(batch))


def _notes_for(values, notes, render=None) -> tuple:
    """The hover's lines under a shape made of these values: the shape with the defaults
    of the hyperparameters it mentions substituted, and the batch dims the probe assumed."""
    defaults, batch = notes
    if not defaults and not batch:
        return ()
    used = set()
    for v in values:
        _symbols_of(v, used)
    out = []
    mapping = {k: v for k, v in defaults if k in used}
    if mapping:
        def text(v):
            return _text_with(v, mapping)
        out.append(f"with the defaults: {render(text) if render else text(values[0])}")
    assumed = [b for b in batch if b in used]
    if assumed:
        dims = ", ".join(assumed)
        out.append(f"assuming a batch dim: {dims}")
    return tuple(out)


def _symbols_of(v, out: set) -> None:
    if isinstance(v, TensorValue) and v.shape is not None:
        for d in v.shape:
            out |= S.free_symbols(d)
    elif isinstance(v, ListVal):
        for x in v.items:
            _symbols_of(x, out)


def _text_with(v, mapping) -> str:
    """value_text of `v` with symbols replaced by values."""
    if isinstance(v, TensorValue) and v.shape is not None:
        return _tensor_text(tuple(S.substitute(d, mapping) for d in v.shape))
    if isinstance(v, ListVal):
        inner = ", ".join(_text_with(x, mapping) for x in v.items)
        return f"({inner},)" if len(v.items) == 1 else f"({inner})"
    return value_text(v)


CONTRACT_ORIGIN = "the inferred contract"
CLASS_CONTRACT_ORIGIN = "the inferred contract of forward"  # not annotated: the header is a class's
_JAX_DIM = re.compile(r"^(?:[A-Za-z_][A-Za-z_0-9]*|\d+)$")


def _jax_dims(shape: str):
    """`Tensor[N, 3, H, W]` as jaxtyping's "N 3 H W", or None when a dim is not a name or
    an int (an expression or `?` has no faithful jaxtyping spelling)."""
    if not shape.startswith("Tensor[") or not shape.endswith("]"):
        return None
    dims = [d.strip() for d in shape[len("Tensor["):-1].split(",")] if shape != "Tensor[]" else []
    if not all(_JAX_DIM.match(d) for d in dims):
        return None
    return " ".join(dims)


def _jax_spelling(dims: str):
    """`N, d, H - 2` as jaxtyping's `N d H-2`, or None when a dim has no spelling that
    reads back as itself (`max(N, y_N)`, `(H - 1)//2 + 1`: jaxtyping's expressions are
    single tokens, which annotations.dims_from_text reads left to right)."""
    tokens = []
    for d in split_top(dims):
        token = d.replace(" ", "")
        parsed = dims_from_text(token) if token and "(" not in token else None
        if not parsed or len(parsed) != 1 or S.dim_text(parsed[0]) != d:
            return None
        tokens.append(token)
    return " ".join(tokens)


def _has_error_in_body(lines, header: int, errors: list) -> bool:
    """Is an error on the lines of the def whose header is on line `header` (up to the next
    line as little indented as the header)?"""
    indent = len(lines[header]) - len(lines[header].lstrip())
    for line in errors:
        if line < header:
            continue
        between = lines[header + 1:line + 1]
        return all(not t.strip() or len(t) - len(t.lstrip()) > indent for t in between)
    return False


def _contract_fix(f, line, has_jax, import_line, jax_names=frozenset({"Float"})):
    """Annotate a one-line def header with its contract: each tensor parameter and the
    result whose dims are names or ints (jaxtyping reads them back as the same symbols)."""
    header = line.rstrip("\r\n")
    if not header.rstrip().endswith(":") or "(" not in header:
        return None
    contract = f.shape
    params_text, _, result_text = contract.partition(" -> ")
    edits = []
    kinds = set()
    for part in split_top(params_text[1:-1]):
        name, sep, shape = part.partition(": ")
        kind = "Int" if shape.endswith(_INDEX_MARK) else "Float"
        shape = shape[:-len(_INDEX_MARK)] if kind == "Int" else shape
        dims = _jax_dims(shape) if sep else None
        if dims is None:
            continue
        m = re.search(r"[(,]\s*(" + re.escape(name) + r")\s*(?=[,)=])", header)
        if m is None:
            continue
        if kind == "Float" and header[m.end():].lstrip().startswith("="):
            kind = "Shaped"  # an optional input (`mask=None`) given: its dtype is not known (a bool mask)
        at = m.end(1)
        edits.append(TextEdit(Span((f.span.start[0], at), (f.span.start[0], at)), f': {kind}[Tensor, "{dims}"]'))
        kinds.add(kind)
    dims = _jax_dims(result_text) if result_text else None
    if dims is not None and "->" not in header:
        close = header.rstrip().rfind(")")
        if close > 0:
            at = close + 1
            edits.append(TextEdit(Span((f.span.start[0], at), (f.span.start[0], at)), f' -> Float[Tensor, "{dims}"]'))
            kinds.add("Float")
    if not edits:
        return None
    here = (import_line, 0)
    if not has_jax:
        names = ", ".join(sorted(kinds))
        edits.insert(0, TextEdit(Span(here, here), f"from jaxtyping import {names}\nfrom torch import Tensor\n"))
    elif kinds - set(jax_names):  # jaxtyping is imported, but not Int (or Float)
        names = ", ".join(sorted(kinds - set(jax_names)))
        edits.insert(0, TextEdit(Span(here, here), f"from jaxtyping import {names}\n"))
    return Fix(f"Annotate {f.text} with its inferred shapes (jaxtyping)", tuple(edits), "refactor.rewrite")


def split_top(text: str) -> list:
    """Split on commas outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += ch in "[("
        depth -= ch in "])"
        cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _origin_text(vals) -> str:
    if len(vals) > 1:
        return f"{len(vals)} different shapes over the calls analysed"
    return ""


def _annotation_maker(host, path, result, style):
    """A function making one "annotate" fix per assignment target whose shape is fully
    known. It keeps only data that no later edit mutates, so it can run on another thread."""
    text = host.text(path) or ""
    has_jax = "jaxtyping" in text
    jax_names = set(re.findall(r"\b[A-Z][A-Za-z0-9]*\b", " ".join(re.findall(r"from jaxtyping import ([^\n]+)", text))))
    lines = host.lines(path)  # parso's split: the same rule as LSP (\n, \r\n, \r)
    import_line = _import_insertion_line(host.units(path).get("<module>"))
    # `result` holds this function: a strong reference back would make every analysis a
    # reference cycle (all its facts garbage for the cyclic collector only).
    result_ref = weakref.ref(result)

    def make() -> list:
        out = []
        result = result_ref()
        errors = sorted({d.span.start[0] for d in (result.diagnostics if result is not None else ())
                         if d.severity == "error"})
        for f in (result.facts if result is not None else ()):
            if f.origin == CONTRACT_ORIGIN:
                # (a def that fails for every input has no contract to write down)
                fix = _contract_fix(f, lines[f.span.start[0]], has_jax, import_line, jax_names) \
                    if style == "jaxtyping" and f.span.start[0] < len(lines) \
                    and not _has_error_in_body(lines, f.span.start[0], errors) else None
                if fix is not None:
                    out.append(fix)
                continue
            if not f.is_target or f.variants or "?" in f.shape or not f.shape.startswith("Tensor[") \
                    or f.shape == "Tensor[...]":
                continue
            line_no = f.span.start[0]
            if line_no >= len(lines):
                continue
            fix = _annotation_fix(f, lines[line_no], style, has_jax, import_line)
            if fix is not None:
                out.append(fix)
        return out

    return make


@lru_cache(maxsize=8)
def _lines_of(text: str) -> list:
    return _lsp_lines(text)


@lru_cache(maxsize=4096)
def _annotation_fix(f, line, style, has_jax, import_line):
    line_no = f.span.start[0]
    dims = f.shape[len("Tensor["):-1]
    if style == "comment":
        if "# shape:" in line:
            return None
        end = len(line.rstrip("\r\n"))
        edit = TextEdit(Span((line_no, end), (line_no, end)), f"  # shape: [{dims}]")
        return Fix(f"Annotate {f.text} with its shape (comment)", (edit,), "refactor.rewrite")
    if style == "assert":
        indent = line[: len(line) - len(line.lstrip())]
        end = len(line.rstrip("\r\n"))
        tuple_dims = dims + ("," if "," not in dims else "")
        edit = TextEdit(Span((line_no, end), (line_no, end)), f"\n{indent}assert {f.text}.shape == ({tuple_dims})")
        return Fix(f"Assert the shape of {f.text}", (edit,), "refactor.rewrite")
    if not f.text.isidentifier() or ":" in line[f.span.end[1]:].split("=")[0]:
        return None
    after = line[f.span.end[1]:].lstrip()
    if not after.startswith("=") or after.startswith("=="):
        return None
    jax_dims = _jax_spelling(dims)
    if jax_dims is None:
        return None
    edits = [TextEdit(Span(f.span.end, f.span.end), f': Float[Tensor, "{jax_dims}"]')]
    if not has_jax:
        at = (import_line, 0)
        edits.insert(0, TextEdit(Span(at, at), "from jaxtyping import Float\nfrom torch import Tensor\n"))
    return Fix(f"Annotate {f.text} as Float[Tensor, \"{jax_dims}\"]", tuple(edits), "refactor.rewrite")


def _import_insertion_line(module_unit) -> int:
    """The line after the file's last top-level import (0 when it has none)."""
    line = 0
    for stmt in module_unit.body if module_unit is not None else ():
        if isinstance(stmt, (ir.Import, ir.ImportFrom)):
            span = module_unit.span(stmt.nid)
            if span:
                line = max(line, span[1][0])  # parso lines are 1-based: end line + 1 - 1
    return line


def _lsp_lines(text: str) -> list[str]:
    """Split on \\n, \\r\\n and \\r only (LSP's rule), keeping the ends."""
    out, start, i, n = [], 0, 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n" or ch == "\r":
            end = i + 2 if ch == "\r" and i + 1 < n and text[i + 1] == "\n" else i + 1
            out.append(text[start:end])
            start = i = end
            continue
        i += 1
    out.append(text[start:])
    return out


def apply_edits(text: str, edits) -> str:
    """Apply non-overlapping edits (0-based line, code-point column) to a text."""
    lines = _lsp_lines(text)
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln))

    def off(pos):
        line, col = pos
        if line >= len(lines):
            return len(text)
        return offsets[line] + min(col, len(lines[line].rstrip("\r\n")))

    for e in sorted(edits, key=lambda e: off(e.span.start), reverse=True):
        a, b = off(e.span.start), off(e.span.end)
        text = text[:a] + e.new_text + text[b:]
    return text
