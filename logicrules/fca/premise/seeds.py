"""Greedy premises that raise the running threshold before the exhaustive scans of sizes 3 and 4."""

from __future__ import annotations

import numpy as np

from logicrules.fca.premise.space import pair_shapes
from logicrules.fca.premise.state import SearchState

__all__: list[str] = []


class Seeds(SearchState):
    """Greedy extension of good premises by one literal at a time (real premises of their size)."""

    def _literals(self) -> tuple[np.ndarray, np.ndarray, list[tuple]]:
        """Representatives, polarities and specs of every literal of the variables."""
        p = self.prep
        r = self.vars
        neg = np.zeros(len(r), dtype=bool)
        if p.negations:
            r = np.concatenate([r, r])
            neg = np.concatenate([neg, np.ones(len(self.vars), dtype=bool)])
        return r, neg, [("lit", int(a), bool(b)) for a, b in zip(r, neg)]

    def _combined(self, op: str, ep, en, r, neg):
        """Bits of ``premise op literal`` for the literals ``(r, neg)`` (the premise's bits ``ep``, ``en``)."""
        lp, ln = self._lit_bits(r, neg)
        if op == "and":
            return lp & ep, ln & en
        return lp | ep, ln | en

    def _extend_greedily(self, ep, en, spec, size: int, up_to: int, literals) -> None:
        """Offer ``premise AND/OR literal`` for every literal, then extend the best one, up to ``up_to``.

        Greedy premises are real premises of their size, so they raise the running threshold of
        the exhaustive scans early (the scans stay exact whatever the threshold is). The
        literals are counted in blocks of about ``work_bytes`` of bits; extents are rebuilt
        only for the premises offered to the result list.
        """
        r, neg, lit_specs = literals
        words = ep.shape[-1] + en.shape[-1]
        step = max(1, self.work_bytes // (40 * max(words, 1)))
        while size < up_to and len(r):
            size += 1
            best = None
            for op in self.connectives:
                counts = [self._count(*self._combined(op, ep, en, r[i:i + step], neg[i:i + step]))
                          for i in range(0, len(r), step)]
                tp = np.concatenate([c[0] for c in counts])
                fp = np.concatenate([c[1] for c in counts])
                scores = self._scores(tp, fp, size)

                def specs_of(ix, op=op):
                    return [("op", op, spec, lit_specs[i]) for i in ix]

                def materialize(ix, op=op, ep=ep, en=en, specs_of=specs_of):
                    return (*self._combined(op, ep, en, r[ix], neg[ix]), specs_of(ix))

                self._offer_ranked(scores, size, tp, fp, materialize)
                if self.fronts is not None:
                    self.fronts.add(size, tp, fp, specs_of)
                j = int(np.argmax(scores))
                if best is None or scores[j] > best[0]:
                    best = (scores[j], op, j)
            _, op, j = best
            ep, en = self._combined(op, ep, en, r[j:j + 1], neg[j:j + 1])
            spec = ("op", op, spec, lit_specs[j])

    def _seed_starts(self) -> list[tuple]:
        """``(bits_p, bits_n, spec, size)`` of the size-2 seeds (good premises kept by size 2)."""
        shapes = pair_shapes(self.prep.negations, self.connectives)
        starts = []
        for spec in self.seeds:
            cp_, cn_ = self._cells_bits(np.array([[spec[1], spec[2]]]))
            starts.append((*self._extents_from_cells(cp_, cn_, np.array([shapes[spec[3]].mask])), spec, 2))
        return starts

    def _seed_size3(self) -> None:
        """Greedy size-3 premises (good size-2 premise AND/OR any literal) raise the threshold early."""
        if not len(self.vars):
            return
        literals = self._literals()
        for ep, en, spec, size in self._seed_starts():
            self._extend_greedily(ep, en, spec, size, 3, literals)

    def _seed_size4(self) -> None:
        """Greedy size-4 premises from the listed premises of size <= 3 and the size-2 seeds."""
        if not len(self.vars):
            return
        literals = self._literals()
        wp = self.prep.bits_p.shape[1]
        starts = []
        for key, entry in list(self.top.entries.items()):      # key: the extent's bits, both classes
            bits = np.frombuffer(key, dtype=np.uint64)
            starts.append((bits[None, :wp].copy(), bits[None, wp:].copy(), entry[4], entry[1]))
        for ep, en, spec, size in starts + self._seed_starts():
            self._extend_greedily(ep, en, spec, size, 4, literals)
