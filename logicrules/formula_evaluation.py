"""Evaluating and printing a formula: text, boolean rows, packed bitsets, SymPy (one fold over its nodes)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from logicrules.fca import bitset
from logicrules.formula_algebras import _BitsAlgebra, _BoolAlgebra, _SympyAlgebra
from logicrules.formula_inputs import (Attribute, _boolean_rows, _count, _is_context, _is_frame, _namer, _ordered,
                                       _resolve)


class _FormulaEvaluation:
    """Evaluation and printing of every :class:`~logicrules.formula.Formula`: as text, on a boolean
    matrix, DataFrame or formal context, on packed bitsets, and as a SymPy expression; all by one
    bottom-up fold (``_fold``) of the formula's nodes."""

    __slots__ = ()

    # --- printing ---------------------------------------------------------------------------
    def to_string(self, feature_names: Sequence[str] | None = None) -> str:
        """Readable text with ``AND``, ``OR``, ``NOT`` and parentheses only where needed.

        Parameters
        ----------
        feature_names : sequence of str, optional
            Names for ``int`` attributes (attribute ``i`` prints as ``feature_names[i]``);
            without them ``int`` attribute ``i`` prints as ``x{i}``. ``str`` attributes always
            print as they are.

        Returns
        -------
        str

        Examples
        --------
        >>> from logicrules.formula import Literal
        >>> (Literal(0) | Literal(1)).to_string()
        'x0 OR x1'
        >>> (Literal(0) | Literal(1)).to_string(["a", "b"])
        'a OR b'
        """
        return self._text(_namer(feature_names))

    def __str__(self) -> str:
        return self.to_string()

    # --- evaluation -------------------------------------------------------------------------
    def evaluate(self, X: Any, feature_names: Sequence[str] | None = None) -> np.ndarray:
        """Truth value of the formula on every row of ``X``.

        Parameters
        ----------
        X : ndarray of shape (n, m), DataFrame or FormalContext
            Boolean data: dtype bool, or numeric / object values in {0, 1}. ``str`` attributes
            are looked up by name (``feature_names``, else the DataFrame's column labels as
            ``str``, else the context's attribute names); ``int`` attributes are column
            positions. Only the columns the formula reads are converted and checked.
        feature_names : sequence of str, optional
            Column names of ``X``; overrides the names a DataFrame or context carries.

        Returns
        -------
        ndarray of bool, shape (n,)

        Raises
        ------
        ValueError
            If ``X`` is not 2-D, a column read is not boolean (other values, NaN), an attribute
            is unknown or ambiguous, or ``feature_names`` has the wrong length.

        Examples
        --------
        >>> import numpy as np
        >>> from logicrules.formula import Literal
        >>> f = Literal("a") & ~Literal("b")
        >>> f.evaluate(np.array([[1, 0], [1, 1]]), feature_names=["a", "b"])
        array([ True, False])
        """
        if _is_context(X):
            names = list(X.attributes) if feature_names is None else list(feature_names)
            words = self.evaluate_bits(np.asarray(X.bits), int(X.n_objects), names)
            return bitset.unpack(words, int(X.n_objects))
        if _is_frame(X):
            names = [str(c) for c in X.columns] if feature_names is None else feature_names
            n, m = X.shape
            index = _resolve(self.attributes, names, m)
            used = X.iloc[:, list(index.values())]
            missing = [names[j] for j, bad in zip(index.values(), used.isna().any()) if bad]
            if missing:
                raise ValueError(f"column(s) {missing!r} are not boolean: they hold missing values")
            block = np.array([used.iloc[:, c].to_numpy() for c in range(len(index))]) if index \
                else np.zeros((0, n), dtype=bool)
        else:
            array = np.asarray(X)
            if array.ndim != 2:
                raise ValueError("X must be 2-D (n_samples, n_attributes), got shape "
                                 f"{array.shape}")
            n, m = array.shape
            names = feature_names
            index = _resolve(self.attributes, names, m)
            block = np.ascontiguousarray(array.take(list(index.values()), axis=1).T)  # private copy
        labels = [j if names is None else names[j] for j in index.values()]
        columns = dict(zip(index, _boolean_rows(block, labels)))
        return self._fold(_BoolAlgebra(columns, n))

    def evaluate_bits(self, bits: np.ndarray, n_objects: int,
                      names: Sequence[str] | None = None) -> np.ndarray:
        """Extent of the formula on packed bitsets.

        Parameters
        ----------
        bits : ndarray of uint64, shape (m, W)
            One bitset per attribute: object ``i`` is bit ``i % 64`` of word ``i // 64``,
            ``W = (n_objects + 63) // 64``, bits past ``n_objects`` zero (as
            :mod:`logicrules.fca.bitset` and ``FormalContext.bits`` store them).
        n_objects : int
            Number of objects.
        names : sequence of str, optional
            Attribute names of the rows of ``bits`` (needed for ``str`` attributes); ``int``
            attributes are row positions.

        Returns
        -------
        ndarray of uint64, shape (W,)
            The formula's extent, tail bits zero.

        Examples
        --------
        >>> import numpy as np
        >>> from logicrules.formula import Literal
        >>> bits = np.array([[0b0011], [0b0101]], dtype=np.uint64)
        >>> int((Literal(0) & ~Literal(1)).evaluate_bits(bits, 4)[0])
        2
        """
        bits = np.asarray(bits)
        if bits.ndim != 2:
            raise ValueError(f"bits must be 2-D (n_attributes, n_words), got shape {bits.shape}")
        if bits.dtype != np.uint64:
            raise ValueError(f"bits must have dtype uint64, got {bits.dtype}")
        n_objects = _count(n_objects, "n_objects")
        m, width = bits.shape
        if width != bitset.n_words(n_objects):
            raise ValueError(f"bits has {width} words per row but {n_objects} objects need "
                             f"{bitset.n_words(n_objects)}")
        mask = bitset.tail_mask(n_objects)
        if width and np.any(bits[:, -1] & ~mask[-1]):
            raise ValueError(f"bits has set bits beyond n_objects={n_objects} "
                             "(tail bits must be zero)")
        index = _resolve(self.attributes, names, m)
        return self._fold(_BitsAlgebra({a: bits[j] for a, j in index.items()}, n_objects))

    # --- SymPy ------------------------------------------------------------------------------
    def to_sympy(self, feature_names: Sequence[str] | None = None) -> Any:
        """SymPy Boolean expression with one ``sympy.Symbol`` per attribute.

        Symbols are created with ``sympy.Symbol(name)`` (never parsed), so names such as
        ``"age > 54.5"`` are safe. ``int`` attribute ``i`` becomes ``Symbol("x{i}")`` or
        ``Symbol(feature_names[i])``. SymPy may reorder and simplify trivially (``a & ~a`` is
        ``false``).

        Raises
        ------
        ValueError
            If two attributes would get the same symbol name (e.g. ``"x0"`` and ``0``).

        Examples
        --------
        >>> from logicrules.formula import Literal
        >>> (Literal("b") & ~Literal("a")).to_sympy()
        b & ~a
        """
        import sympy

        name = _namer(feature_names)
        symbols: dict[Attribute, Any] = {}
        seen: dict[str, Attribute] = {}
        for attribute in _ordered(self.attributes):
            text = name(attribute)
            if text in seen:
                raise ValueError(f"attributes {seen[text]!r} and {attribute!r} both map to the "
                                 f"symbol name {text!r}")
            seen[text] = attribute
            symbols[attribute] = sympy.Symbol(text)
        return self._fold(_SympyAlgebra(symbols))
