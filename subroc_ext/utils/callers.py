"""Warnings that point at the user's line: :func:`user_stacklevel`."""

import os
import sys

__all__ = ["user_stacklevel"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_stacklevel():
    """The ``stacklevel`` that makes a ``warnings.warn`` in the calling function
    name the first line outside subroc-ext (the user's, whether they called
    that function, :func:`~subroc_ext.find_subgroups` or the command line)."""
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level
