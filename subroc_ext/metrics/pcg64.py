"""NumPy's PCG64 stream in compiled code: the same 64-bit words, inlined.

A kernel that needs one random number per row and label draw (the promise's
label draws, :func:`~subroc_ext.metrics.label_draws.drawn_sums`) spends
most of its time getting them; calling NumPy's generator through its
function pointer costs about twice what the 128-bit step inlined costs. So
the kernel takes the generator's state as four ``uint64``
(:func:`state_words`), steps it itself in local variables (:func:`next_word`)
and gives it back (:func:`set_state_words`): the words, and the generator's state after them,
are those of ``bit_generator.random_raw()``, and a word's top 53 bits
``k`` make NumPy's uniform number ``k / 2**53`` (``Generator.random``).

PCG64 is O'Neill's XSL-RR 128/64 generator: the state advances as
``s <- s * M + inc (mod 2**128)`` and each word is the 64-bit xor of the
state's halves rotated right by its top six bits [1]_.

References
----------
.. [1] M. E. O'Neill, "PCG: a family of simple fast space-efficient
   statistically good algorithms for random number generation", Harvey
   Mudd College, HMC-CS-2014-0905, 2014.

Examples
--------
>>> high, low, increment_high, increment_low = state_words(np.random.PCG64(7))
>>> words = []
>>> for _ in range(3):
...     high, low, word = next_word(high, low, increment_high, increment_low)
...     words.append(int(word))
>>> words == np.random.PCG64(7).random_raw(3).tolist()
True
"""

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

__all__ = ["MULTIPLIER", "next_word", "set_state_words", "state_words", "uniform_thresholds"]

#: PCG64's multiplier (``PCG_DEFAULT_MULTIPLIER_128``).
MULTIPLIER = 0x2360ED051FC65DA44385DF649FCCF645

_LOW = (1 << 64) - 1


def state_words(bit_generator):
    """The state of a ``numpy.random.PCG64`` as ``uint64[4]``: the state's high
    and low half, the increment's high and low half."""
    if type(bit_generator) is not np.random.PCG64:
        raise TypeError(f"a PCG64 bit generator is needed, got {type(bit_generator).__name__}")
    state = bit_generator.state["state"]
    return np.array([state["state"] >> 64, state["state"] & _LOW, state["inc"] >> 64, state["inc"] & _LOW],
                    dtype=np.uint64)  # fmt: skip


def set_state_words(bit_generator, words):
    """Give ``bit_generator`` the state ``words`` (:func:`state_words`) left by
    a kernel; its buffered 32 bits are kept."""
    state = bit_generator.state
    state["state"] = {"state": int(words[0]) << 64 | int(words[1]), "inc": int(words[2]) << 64 | int(words[3])}
    bit_generator.state = state


def uniform_thresholds(probabilities):
    """``ceil(p * 2**53)`` as ``uint64``: a word's top 53 bits ``k`` are below it
    exactly when NumPy's uniform number ``k / 2**53`` is below ``p``."""
    return np.ceil(np.asarray(probabilities, dtype=float) * 2.0**53).astype(np.uint64)


@intrinsic
def _step(typingctx, high, low, increment_high, increment_low):
    """``(high, low) * MULTIPLIER + increment (mod 2**128)`` as two ``uint64``
    (one 128-bit multiplication in LLVM)."""
    signature = types.UniTuple(types.uint64, 2)(types.uint64, types.uint64, types.uint64, types.uint64)

    def codegen(context, builder, signature, args):
        wide, narrow = ir.IntType(128), ir.IntType(64)

        def joined(high, low):
            return builder.or_(builder.shl(builder.zext(high, wide), ir.Constant(wide, 64)), builder.zext(low, wide))

        state = builder.add(builder.mul(joined(args[0], args[1]), ir.Constant(wide, MULTIPLIER)),
                            joined(args[2], args[3]))  # fmt: skip
        high = builder.trunc(builder.lshr(state, ir.Constant(wide, 64)), narrow)
        return context.make_tuple(builder, signature.return_type, (high, builder.trunc(state, narrow)))

    return signature, codegen


@njit(cache=True, inline="always")
def next_word(high, low, increment_high, increment_low):
    """The stream's next state (``high``, ``low``) and its 64-bit word."""
    high, low = _step(high, low, increment_high, increment_low)
    mixed = high ^ low
    rotation = high >> np.uint64(58)
    return high, low, (mixed >> rotation) | (mixed << ((np.uint64(64) - rotation) & np.uint64(63)))
