"""Row sets as bitsets: the cover representation of the search engine.

A cover over ``n`` rows (presorted by score) is an array of ``ceil(n / 64)``
unsigned 64-bit words; row ``r`` is bit ``r % 64`` of word ``r // 64``. The
intersection of two covers is a word-wise AND, a cover's size a sum of
popcounts, and the rows of a cover come out in ascending order (that is,
ascending score) by scanning set bits. The compiled helpers here are the
primitives of :mod:`subroc_ext.scoring.cover_kernels`.
"""

from collections import OrderedDict

import numpy as np
from numba import njit, types
from numba.extending import intrinsic

__all__ = [
    "pack", "unpack", "popcount", "lowest_bit", "highest_bit", "count_below", "prefix_counts", "permute",
    "sizes", "intersection_sizes", "PackedMasks",
]


def pack(mask):
    """Bitset words of a boolean mask (or of each row of a 2-D boolean matrix).

    Parameters
    ----------
    mask : numpy.ndarray of bool, shape (n,) or (k, n)

    Returns
    -------
    numpy.ndarray of uint64, shape (ceil(n / 64),) or (k, ceil(n / 64))

    Examples
    --------
    Rows 1, 2 and 4 are bits 1, 2 and 4 of the first word (2 + 4 + 16):

    >>> pack([False, True, True, False, True])
    array([22], dtype=uint64)
    >>> pack(np.ones((2, 65), dtype=bool)).shape
    (2, 2)
    """
    mask = np.asarray(mask, dtype=bool)
    n_bytes = 8 * -(-mask.shape[-1] // 64)
    packed = np.zeros(mask.shape[:-1] + (n_bytes,), dtype=np.uint8)
    # packbits fills the last byte with zero bits; the rest of the last word stays 0
    packed[..., : -(-mask.shape[-1] // 8)] = np.packbits(mask, axis=-1, bitorder="little")
    return packed.view(np.uint64)


def unpack(words, n):
    """The boolean mask of ``n`` rows held by bitset ``words`` (inverse of :func:`pack`).

    Examples
    --------
    >>> unpack(pack([False, True, True, False, True]), 5)
    array([False,  True,  True, False,  True])
    """
    as_bytes = np.ascontiguousarray(words, dtype=np.uint64).view(np.uint8)
    return np.unpackbits(as_bytes, count=n, bitorder="little").view(bool)  # 0/1 bytes: valid booleans


@intrinsic
def popcount(typingctx, word):
    """Number of set bits of a uint64 (compiled to one instruction; callable
    from compiled code only)."""
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.ctpop(args[0])

    return signature, codegen


@intrinsic
def _trailing_zeros(typingctx, word):
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.cttz(args[0], context.get_constant(types.boolean, True))

    return signature, codegen


@intrinsic
def _leading_zeros(typingctx, word):
    signature = types.uint64(types.uint64)

    def codegen(context, builder, sig, args):
        return builder.ctlz(args[0], context.get_constant(types.boolean, True))

    return signature, codegen


@njit(cache=True, inline="always")
def lowest_bit(word):
    """Index (0-63) of the lowest set bit of a nonzero word.

    Examples
    --------
    >>> int(lowest_bit(pack([False, True, True, False, True])[0]))
    1
    """
    return np.int64(_trailing_zeros(word))


@njit(cache=True, inline="always")
def highest_bit(word):
    """Index (0-63) of the highest set bit of a nonzero word.

    Examples
    --------
    >>> int(highest_bit(pack([False, True, True, False, True])[0]))
    4
    """
    return np.int64(63 - _leading_zeros(word))


@njit(cache=True)
def prefix_counts(words, out):
    """``out[w]`` = set bits in ``words[:w]`` (``out`` has ``len(words) + 1`` entries).

    Returns the number of set bits of all words.

    Examples
    --------
    >>> words = pack(np.arange(130) % 2 == 0)  # rows 0, 2, ..., 128: 32 + 32 + 1
    >>> out = np.empty(len(words) + 1, dtype=np.int64)
    >>> int(prefix_counts(words, out)), out.tolist()
    (65, [0, 32, 64, 65])
    """
    total = np.int64(0)
    for w in range(len(words)):
        out[w] = total
        total += np.int64(popcount(words[w]))
    out[len(words)] = total
    return total


@njit(cache=True, inline="always")
def count_below(words, prefix, row):
    """Set bits of ``words`` at positions ``< row``, given its :func:`prefix_counts`.

    Examples
    --------
    >>> words = pack(np.arange(130) % 2 == 0)
    >>> prefix = np.empty(len(words) + 1, dtype=np.int64)
    >>> _ = prefix_counts(words, prefix)
    >>> int(count_below(words, prefix, 0)), int(count_below(words, prefix, 5)), int(count_below(words, prefix, 129))
    (0, 3, 65)
    """
    word = row >> 6
    bit = row & 63
    if bit == 0:
        return prefix[word]
    mask = (np.uint64(1) << np.uint64(bit)) - np.uint64(1)
    return prefix[word] + np.int64(popcount(words[word] & mask))


@njit(cache=True)
def permute(words, position, out):
    """Write into ``out`` the bitset with bit ``position[r]`` set for every set
    bit ``r`` of ``words``: the same rows in another order (compiled, one step
    per set bit), as ``pack(unpack(out, n)[position] ...)`` would invert.

    Parameters
    ----------
    words : numpy.ndarray of uint64
    position : numpy.ndarray of int64
        The new position of each row (a permutation of ``range(n)``).
    out : numpy.ndarray of uint64
        Overwritten; as long as ``words``.

    Examples
    --------
    >>> out = np.empty(1, dtype=np.uint64)
    >>> permute(pack([True, True, False]), np.array([2, 0, 1]), out)
    >>> unpack(out, 3).tolist()
    [True, False, True]
    """
    out[:] = 0
    for w in range(len(words)):
        word = words[w]
        while word:
            row = position[w * 64 + lowest_bit(word)]
            out[row >> 6] |= np.uint64(1) << np.uint64(row & 63)
            word &= word - np.uint64(1)


@njit(cache=True, nogil=True)
def sizes(words):
    """Set bits of each bitset: ``out[i] = |words[i]|``.

    Parameters
    ----------
    words : numpy.ndarray of uint64, shape (k, w)

    Returns
    -------
    numpy.ndarray of int64, shape (k,)

    Examples
    --------
    >>> sizes(pack([[True, False, True], [False, False, False]])).tolist()
    [2, 0]
    """
    out = np.zeros(words.shape[0], dtype=np.int64)
    for i in range(words.shape[0]):
        for w in range(words.shape[1]):
            out[i] += np.int64(popcount(words[i, w]))
    return out


@njit(cache=True, nogil=True)
def intersection_sizes(first, second):
    """Rows in both of every pair of bitsets: ``out[i, j] = |first[i] & second[j]|``.

    Parameters
    ----------
    first : numpy.ndarray of uint64, shape (k, w)
    second : numpy.ndarray of uint64, shape (m, w)

    Returns
    -------
    numpy.ndarray of int64, shape (k, m)

    Examples
    --------
    >>> covers = pack([[True, True, False], [False, True, True]])
    >>> intersection_sizes(covers, covers).tolist()
    [[2, 1], [1, 2]]
    """
    out = np.zeros((first.shape[0], second.shape[0]), dtype=np.int64)
    for i in range(first.shape[0]):
        for j in range(second.shape[0]):
            count = np.int64(0)
            for w in range(first.shape[1]):
                count += np.int64(popcount(first[i, w] & second[j, w]))
            out[i, j] = count
    return out


class PackedMasks:
    """Boolean masks over the same rows, by key, kept as bits (100 masks of a
    million rows were 100 MB as bytes), each unpacked when asked for; the
    last ``unpacked`` asked stay unpacked (the headline's walk asks of the
    failures it has named again and again).

    Parameters
    ----------
    masks : iterable of (key, numpy.ndarray of bool)
        Taken one at a time (a generator's masks are never all held).
    unpacked : int, default=32

    Examples
    --------
    >>> masks = PackedMasks((k, np.arange(70) % k == 0) for k in (2, 3))
    >>> [(k, int(mask.sum())) for k, mask in masks.items()], bool(masks[3][69])
    ([(2, 35), (3, 24)], True)
    """

    def __init__(self, masks, unpacked=32):
        self._bits, self._rows, self._unpacked, self._keep = {}, 0, OrderedDict(), unpacked
        for key, mask in masks:
            self._bits[key], self._rows = pack(mask), len(mask)

    def __getitem__(self, key):
        if key in self._unpacked:
            self._unpacked.move_to_end(key)
        else:
            self._unpacked[key] = unpack(self._bits[key], self._rows)
            if len(self._unpacked) > self._keep:
                self._unpacked.popitem(last=False)
        return self._unpacked[key]

    def items(self):
        """(key, mask) in the order the masks came."""
        return ((key, self[key]) for key in self._bits)
