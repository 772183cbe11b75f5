"""The data layer: a dataset validated and sorted by score once.

:class:`SortedDataset` turns a DataFrame's label and score columns into arrays
in ascending score order (checking them once, with errors that name the
column), and computes selector covers over that order from columns converted
to NumPy once. Everything downstream - measures on covers, quality functions,
the search engine's bitsets, the randomization test - works on positions in
this order, never on index labels, so any DataFrame index works.
"""

import functools
from collections import OrderedDict

import numpy as np
import pandas as pd
import pysubgroup as ps

from ..metrics.kernels import sort_by_score
from ..scoring import bitset
from ..scoring.measures import Cover
from ..utils.validation import check_columns, finite_scores, positive_mask
from .selectors import ValueCodes

__all__ = ["COLUMNS_KEPT", "SortedDataset"]

#: Columns whose converted values (:meth:`SortedDataset.column_values`) a
#: dataset keeps at once, the most recently used: up to 9 bytes a row each
#: (2 M rows, six columns on two splits: 60 MB kept to the end before). A
#: search space lists its conditions column by column, so each column is
#: converted once while its conditions' covers are computed; the covers are
#: then kept as bits (:meth:`SortedDataset.selector_words`).
COLUMNS_KEPT = 2

_NOT_KEPT = object()


class SortedDataset:
    """A dataset's labels and scores validated and sorted once by score, plus
    cached selector covers: what the quality functions, :class:`~subroc_ext.FastSearch`
    and the randomization test read.

    Parameters
    ----------
    data : pandas.DataFrame
        Any index; rows are addressed by position.
    label_column, score_column : str
        The binary label and the score (finite numbers).
    positive_label : object
        The label value of the positive class.

    Attributes
    ----------
    order : numpy.ndarray of int
        Row positions in ascending (stable) score order.
    group_ids : numpy.ndarray of int
        Tie-group id of each sorted row.
    is_positive, scores : numpy.ndarray
        Labels (bool) and scores of the sorted rows.
    data, columns, positive_label
        The frame, ``(label_column, score_column)`` and the positive label.
    """

    def __init__(self, data, label_column, score_column, positive_label):
        check_columns(data, [label_column, score_column])
        is_positive = positive_mask(data[label_column], positive_label, label_column)
        scores = finite_scores(data[score_column], score_column)
        self.data = data
        self.columns = (label_column, score_column)
        self.positive_label = positive_label
        self.order, self.group_ids = sort_by_score(scores)
        self.is_positive = is_positive[self.order]
        self.scores = scores[self.order]
        self._selector_words = {}
        self._cache = {}
        self._columns = OrderedDict()

    def __len__(self):
        return len(self.order)

    def __getstate__(self):
        """Pickled without the caches, which are rebuilt on demand (and whose
        keys, pysubgroup selectors, do not always pickle): what the workers
        of a cluster receive."""
        state = self.__dict__.copy()
        state.pop("_whole", None)  # the whole cover, built again where it is asked for
        state["_selector_words"] = {}
        state["_cache"] = {}
        state["_columns"] = OrderedDict()
        return state

    def selector_mask(self, selector):
        """Boolean cover of one selector over the score-sorted rows (not cached).

        A :class:`~subroc_ext.inputs.selectors.Condition` is evaluated on its
        column in score order, converted
        (:meth:`~subroc_ext.inputs.selectors.Condition.column_values`) and kept
        while it is among the :data:`COLUMNS_KEPT` last used (:meth:`column_values`);
        any other selector on the data's order, then reordered.
        """
        if hasattr(selector, "mask_of_values"):  # a selectors.Condition
            name = selector.attribute_name
            values = self.column_values(
                (selector.values_kind, name), lambda: selector.column_values(self.data[name].iloc[self.order])
            )  # fmt: skip
            mask = np.asarray(selector.mask_of_values(values))
        else:
            mask = np.asarray(self._compute_selector_mask(selector))
        if mask.shape != (len(self),) or mask.dtype != bool:
            raise ValueError(
                f"selector {selector!r} covers() returned {mask.dtype} of shape {mask.shape}; "
                f"expected a boolean array of {len(self)} rows"
            )
        return mask if hasattr(selector, "mask_of_values") else mask[self.order]

    def _compute_selector_mask(self, selector):
        """``selector.covers(data)`` in the data's row order, on columns converted to NumPy once."""
        kind = type(selector)
        if kind is ps.IntervalSelector:
            values = self._numeric_column(selector.attribute_name)
            if values is not None:
                return (values >= selector.lower_bound) & (values < selector.upper_bound)
        elif kind is ps.EqualitySelector:
            codes = self._factorized_column(selector.attribute_name)
            if codes is not None:
                value = selector.attribute_value
                return codes.codes == -1 if pd.isnull(value) else codes.mask(value)
        return np.asarray(selector.covers(self.data), dtype=bool)

    def _numeric_column(self, name):
        def values():
            column = self.data[name]
            if not pd.api.types.is_numeric_dtype(column) or isinstance(column.dtype, pd.SparseDtype):
                return None
            return column.to_numpy()

        return self.column_values(("numeric", name), values)

    def _factorized_column(self, name):
        def codes():
            column = self.data[name]
            return None if isinstance(column.dtype, pd.SparseDtype) else ValueCodes(column)

        return self.column_values(("factorized", name), codes)

    def column_values(self, key, compute):
        """``compute()``, a column converted for covers, kept under ``key``
        while it is among the :data:`COLUMNS_KEPT` columns last used: the
        covers of a column's conditions convert it once (reading it from the
        DataFrame alone costs 0.1-1 ms in pandas 3, more than a mask), and the
        dataset does not hold every column converted to its end."""
        kept = self._columns
        values = kept.pop(key, _NOT_KEPT)
        if values is _NOT_KEPT:
            values = compute()
        kept[key] = values
        while len(kept) > COLUMNS_KEPT:
            try:
                kept.popitem(last=False)
            except KeyError:  # another thread emptied it first: each step is atomic, not the loop
                break
        return values

    def cached(self, key, compute):
        """``compute()``, computed once per dataset and ``key`` and kept while
        the dataset lives (the measures prepared on the whole data; columns
        converted for covers are kept only a while: :meth:`column_values`)."""
        if key not in self._cache:
            self._cache[key] = compute()
        return self._cache[key]

    def mask_of(self, subgroup):
        """Boolean cover of ``subgroup`` over the score-sorted rows.

        Accepts what pysubgroup passes (a ``Conjunction``, a
        ``BitSet_Conjunction``, ``slice(None)``), a boolean mask or integer
        positions in the data's row order, or any object with ``covers(data)``.
        A ``Set_Conjunction`` (``ps.SetRepresentation``) is covered from its
        selectors: pysubgroup's set of the empty description holds index
        labels, those of selectors hold positions, so its sets are wrong on
        any index but ``0..n-1``.
        """
        if isinstance(subgroup, slice):
            mask = np.zeros(len(self), dtype=bool)
            mask[subgroup] = True
            return mask[self.order]
        if hasattr(subgroup, "representation") and not isinstance(subgroup.representation, set):
            subgroup = np.asarray(subgroup)  # bool mask (BitSet) or row positions (NumpySet)
        if isinstance(subgroup, np.ndarray):
            if subgroup.dtype == bool:
                return subgroup[self.order]
            mask = np.zeros(len(self), dtype=bool)
            mask[subgroup] = True
            return mask[self.order]
        if isinstance(subgroup, ps.Conjunction):
            if not subgroup.selectors:
                return np.ones(len(self), dtype=bool)
            return bitset.unpack(self._conjunction_words(subgroup.selectors), len(self))
        return np.asarray(subgroup.covers(self.data), dtype=bool)[self.order]

    def masks_of(self, subgroups):
        """The :meth:`mask_of` of each subgroup, one row each (filled one at
        a time: no list of masks beside the array)."""
        masks = np.empty((len(subgroups), len(self)), dtype=bool)
        for row, subgroup in zip(masks, subgroups):
            row[:] = self.mask_of(subgroup)
        return masks

    def words_of(self, subgroup):
        """The cover of ``subgroup`` as bitset words over the score-sorted rows
        (:mod:`subroc_ext.scoring.bitset`; what :meth:`mask_of` gives, packed).

        A plain ``ps.Conjunction`` (what BestFirstSearch, SimpleDFS and
        BeamSearch pass) is the AND of its selectors' cached words, without
        a boolean mask; anything else is packed from :meth:`mask_of`.
        """
        if type(subgroup) is not ps.Conjunction or not subgroup.selectors:
            return bitset.pack(self.mask_of(subgroup))
        return self._conjunction_words(subgroup.selectors)

    def selector_words(self, selector):
        """The cover of one selector as bitset words over the score-sorted rows,
        cached: kept as bits, 1/8 of a boolean mask, for as long as the dataset
        lives (each search on the dataset, and each cover of a conjunction,
        reads them instead of converting the column again). Not to be changed
        in place."""
        words = self._selector_words.get(selector)
        if words is None:
            words = bitset.pack(self.selector_mask(selector))
            self._selector_words[selector] = words
        return words

    def _conjunction_words(self, selectors):
        """The AND of the selectors' cached words (:meth:`selector_words`)."""
        words = None
        for selector in selectors:
            selector_words = self.selector_words(selector)
            words = selector_words if words is None else words & selector_words
        return words

    def cover(self, mask=None):
        """The :class:`~subroc_ext.scoring.measures.Cover` of a sorted mask (all rows if None: one
        cover, built once)."""
        if mask is None:
            return self._whole
        rows = mask.nonzero()[0]
        return Cover(self.is_positive[rows], self.scores, self.group_ids[rows], rows)

    @functools.cached_property
    def _whole(self):
        rows = np.arange(len(self))
        return Cover(self.is_positive, self.scores, self.group_ids, rows)
