"""Reliability diagrams: promised against observed risk, binned, with intervals.

:func:`plot_reliability` draws one panel for the whole data and one for each
given subgroup (the headline's findings in a report of a calibration search,
:func:`reliability_section`). The rows of a panel are cut into bins of about
equal size by their probability; each bin is a point at its mean probability
(promised) and its share of positives (observed) with the 95 % Wilson
interval of that share [1]_. On the dashed diagonal the model keeps its
promise; a point above it is a risk underestimated. Each subgroup's panel
shows the whole data's points in grey for comparison.

References
----------
.. [1] E. B. Wilson, "Probable inference, the law of succession, and
   statistical inference", Journal of the American Statistical Association
   22(158), 209-212, 1927.
"""

import numpy as np

from ..metrics.covers import cover_of
from ..inference.whole_calibration import wilson_interval
from ..workflow.global_fix import fixed_scores
from ..utils.validation import check_columns, finite_scores, positive_mask
from .conditions import readable_description
from .findings import headline
from .page import Html, Section, embedded_figure
from .plotting import plain_text, wrapped_name
from .preload import pyplot

__all__ = ["reliability_bins", "plot_reliability", "reliability_section"]

#: The most bins of a panel, and the fewest rows a bin should hold.
MAX_BINS, ROWS_PER_BIN = 10, 40


def reliability_bins(is_positive, probabilities, max_bins=MAX_BINS, rows_per_bin=ROWS_PER_BIN):
    """Promised and observed risk of bins of about equal size.

    Parameters
    ----------
    is_positive : numpy.ndarray of bool
    probabilities : numpy.ndarray of float
    max_bins, rows_per_bin : int
        At most ``max_bins`` bins, fewer so that each holds about
        ``rows_per_bin`` rows (at least one bin). Tied probabilities stay in
        one bin.

    Returns
    -------
    dict of numpy.ndarray
        ``promised`` (mean probability), ``observed`` (share of positives),
        ``low``, ``high`` (its 95 % Wilson interval) and ``size`` of each bin.

    Examples
    --------
    >>> bins = reliability_bins(np.array([0, 0, 1, 1, 1, 0], bool), np.array([.1, .1, .2, .8, .9, .9]),
    ...                         rows_per_bin=3)
    >>> bins["promised"].round(3).tolist(), bins["observed"].round(3).tolist(), bins["size"].tolist()
    ([0.133, 0.867], [0.333, 0.667], [3, 3])
    """
    y = np.asarray(is_positive, dtype=float)
    p = np.asarray(probabilities, dtype=float)
    count = int(np.clip(len(p) // rows_per_bin, 1, max_bins))
    order = np.argsort(p, kind="stable")
    edges = p[order][np.linspace(0, len(p), count + 1).astype(int)[1:-1] - 1]  # each bin's last
    which = np.searchsorted(np.unique(edges), p, side="left")  # ties share their bin
    size = np.bincount(which)
    used = size > 0
    size = size[used]
    promised = np.bincount(which, p)[used] / size
    positives = np.bincount(which, y)[used]
    low, high = wilson_interval(positives, size)
    return {"promised": promised, "observed": positives / size, "low": low, "high": high, "size": size}


def _draw(ax, bins, **style):
    ax.errorbar(bins["promised"], bins["observed"],
                yerr=np.maximum([bins["observed"] - bins["low"], bins["high"] - bins["observed"]], 0.0),
                marker="o", markersize=4, capsize=2, linewidth=1.2, **style)  # fmt: skip


def plot_reliability(subgroups, data, *, label, score, positive_label=1, names=None, split=None, fixed=None):
    """Reliability diagrams of the whole data and of each subgroup (a panel each).

    Parameters
    ----------
    subgroups : sequence of pysubgroup descriptions
        The subgroups, one panel each after the whole data's.
    data : pandas.DataFrame
        Rows with the attributes, label and score (a probability), e.g. the
        validation split. Covers are matched by row position.
    label, score : str
        Label and score columns.
    positive_label : object, default=1
    names : sequence of str, optional
        Panel titles of the subgroups (default: their readable conditions).
    split : str, optional
        Which split ``data`` is, named in the titles.
    fixed : numpy.ndarray of float, optional
        The rows' probabilities after a global fix
        (:mod:`~subroc_ext.workflow.global_fix`): a second panel shows the
        whole data after it, and the subgroups' panels are drawn after it.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> table = subroc_ext.find_subgroups(data, label="y", score="p", measure="calibration_gap")  # doctest: +SKIP
    >>> plot_reliability(table["subgroup"][:3], held_out, label="y", score="p").savefig("r.png")  # doctest: +SKIP
    """
    check_columns(data, [label, score])
    is_positive = positive_mask(data[label], positive_label, label)
    probabilities = finite_scores(data[score], score)
    subgroups = list(subgroups)
    names = [readable_description(sg) for sg in subgroups] if names is None else list(names)
    wholes = [reliability_bins(is_positive, probabilities)]
    if fixed is not None:
        probabilities = np.asarray(fixed, dtype=float)
        wholes.append(reliability_bins(is_positive, probabilities))
    panels = len(wholes) + len(subgroups)
    columns = min(panels, 3)
    rows = -(-panels // columns)
    plt = pyplot()
    figure, axes = plt.subplots(rows, columns, figsize=(3.6 * columns, 3.9 * rows), squeeze=False,
                                layout="constrained")  # fmt: skip
    where = "" if split is None else f" ({split} split)"
    stages = ["scores as given", "after the global fix"] if fixed is not None else [""]
    for index, ax in enumerate(axes.flat):
        if index >= panels:
            ax.set_axis_off()
            continue
        ax.plot([0, 1], [0, 1], linestyle="--", color="0.6", linewidth=1)
        if index < len(wholes):
            _draw(ax, wholes[index], color="0.15")
            title, rows, stage = f"whole data{where}", len(data), stages[index]
        else:
            finding = index - len(wholes)
            cover = cover_of(subgroups[finding], data)
            _draw(ax, wholes[-1], color="0.75")
            _draw(ax, reliability_bins(is_positive[cover], probabilities[cover]), color=f"C{finding}")
            title, rows, stage = wrapped_name(names[finding], 40), int(cover.sum()), stages[-1]
        # the title short (a browser draws it in its own font, taller lines would reach above the
        # figure); the rows and the stage inside the panel, top left, where no point is drawn
        ax.text(0.03, 0.97, f"n={rows:,}" + (f"\n{stage}" if stage else ""), transform=ax.transAxes,
                va="top", ha="left", fontsize="x-small")  # fmt: skip
        ax.set(xlim=(-0.02, 1.02), ylim=(-0.02, 1.02), title=title, aspect="equal")
        ax.title.set_fontsize("small")
        ax.grid(alpha=0.3)
        if index % columns == 0:
            ax.set_ylabel("observed share of positives")
        if index >= panels - columns:
            ax.set_xlabel("promised risk (mean score)")
    return plain_text(figure)


def reliability_section(table, data, *, label, score, positive_label=1, split="validation"):
    """The report's section: :func:`plot_reliability` of the whole ``data`` and
    of the findings of the table's :func:`~subroc_ext.headline`."""
    findings = headline(table, n_rows=len(data)).findings
    fix = table.attrs.get("global_fix")
    fixed = None if not fix else fixed_scores(fix, finite_scores(data[score], score))
    figure = plot_reliability([finding.subgroup for finding in findings], data, label=label, score=score,
                              positive_label=positive_label, split=split, fixed=fixed)  # fmt: skip
    image = embedded_figure(figure, f"reliability diagrams of the whole {split} split and the headline's findings")
    after = "" if not fix else (
        " The second panel and the findings' are after the global fix ({}), the map the search measured "
        "the gaps after.".format(fix["description"])
    )  # fmt: skip
    note = Html(
        '<p class="note">Drawn on the {} split ({:,} rows). Each point is a bin of rows of about equal '
        "size: its mean score (promised) against its share of positives (observed), with the 95 % Wilson "
        "interval; above the dashed diagonal the risk is underestimated. Grey: the whole split.{}</p>"
    ).format(split, len(data), after)
    return Section("Promised against observed risk", image + note, "reliability")
