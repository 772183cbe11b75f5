"""Figure 3: how cover size, class ratio and model quality skew each scoring function.

Synthetic data: scores of positives ~ N(mu, 1), of negatives ~ N(0, 1), so
``mu`` sets the model's quality (ROC AUC = Phi(mu / sqrt 2): mu = 0 is random,
mu = 1 gives 0.76, mu = 3 gives 0.98; mu < 0 is worse than random). The paper
draws a bivariate normal and varies the correlation; a mean shift of the
positives' scores is the same knob with a closed-form AUC.

A reference "whole dataset" D (size 10,000, NCR 0.5, mu = 1) gives m(D). A
random "subgroup" S is drawn with a given size n, NCR r and mu, and scored by
the relative quality q = m(D) - m(S) (ARL: m(S) - m(D); mode "worse") times
the weight w = n^alpha * cb^beta, for alpha = beta = 0 (unweighted) and
alpha = beta = 1 (the full framework's weights). For the attribution mean,
S's rows get their attributions against D's rows. Each cell is the mean over
``skew_repetitions`` draws (fresh D each time).

Panels per measure: quality vs (size, mu) at NCR 0.5, unweighted and
weighted; quality vs (NCR, mu) at size 1,000, unweighted and weighted.
Red = S counts as worse than D (positive quality), blue = better; the black
line is quality 0, grey lines are further contours.

Outputs in ``--out``: ``figure3_skew.png``, ``figure3_skew.csv``.

    python -m experiments.figure3_skew [--smoke] [--out DIR]
"""

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

from experiments import common, config
from subroc_ext import average_ranking_loss, pr_auc_score, roc_auc_score

SKEW_MEASURES = ("arl", "roc_auc", "pr_auc", "attribution_mean")
WEIGHTINGS = {"unweighted (a=b=0)": (0.0, 0.0), "weighted (a=b=1)": (1.0, 1.0)}


def draw(rng, size, ncr, mu):
    negatives = round(size * ncr)
    positives = size - negatives
    y = np.r_[np.ones(positives, dtype=int), np.zeros(negatives, dtype=int)]
    s = np.r_[rng.normal(mu, 1.0, positives), rng.normal(0.0, 1.0, negatives)]
    return y, s


def _half_wins(sorted_other, values):
    """Per value: fraction of ``sorted_other`` strictly below plus half the ties."""
    below = np.searchsorted(sorted_other, values, side="left")
    at_or_below = np.searchsorted(sorted_other, values, side="right")
    return (below + 0.5 * (at_or_below - below)) / len(sorted_other)


class Reference:
    """The whole dataset D: its measure values and what attributions need."""

    def __init__(self, rng, size, ncr, mu):
        y, s = draw(rng, size, ncr, mu)
        self.positives = np.sort(s[y == 1])
        self.negatives = np.sort(s[y == 0])
        self.values = {
            "roc_auc": roc_auc_score(y, s),
            "pr_auc": pr_auc_score(y, s),
            "arl": average_ranking_loss(y, s),
            "attribution_mean": self.attributions(y, s).mean(),
        }

    def attributions(self, y, s):
        """Normalized ROC AUC example attributions of rows (y, s) within D."""
        a = np.empty(len(s))
        pos = y == 1
        a[pos] = 0.5 * _half_wins(self.negatives, s[pos])
        a[~pos] = 0.5 * (1.0 - _half_wins(self.positives, s[~pos]))
        return a


def measure_value(measure, y, s, reference):
    positives, negatives = np.count_nonzero(y == 1), np.count_nonzero(y == 0)
    if measure == "roc_auc":
        return roc_auc_score(y, s) if positives and negatives else np.nan
    if measure == "pr_auc":
        return pr_auc_score(y, s) if positives else np.nan
    if measure == "arl":
        return average_ranking_loss(y, s) if positives else np.nan
    return reference.attributions(y, s).mean()


def quality(measure, value, reference, size, ncr, alpha, beta):
    q = value - reference.values[measure] if measure == "arl" else reference.values[measure] - value
    negatives = round(size * ncr)
    positives = size - negatives
    balance = min(positives, negatives) / max(positives, negatives)
    weight = size**alpha * (balance**beta if beta > 0 else 1.0)
    return weight * q


def compute(st):
    rng = np.random.default_rng(st["seed"])
    ref = st["skew_reference"]
    grids = {
        "size": [(n, st["skew_fixed_ncr"]) for n in st["skew_sizes"]],
        "ncr": [(st["skew_fixed_size"], r) for r in st["skew_ncrs"]],
    }
    records = []
    for repetition in range(st["skew_repetitions"]):
        reference = Reference(rng, ref["size"], ref["ncr"], ref["mu"])
        for axis, cells in grids.items():
            for size, ncr in cells:
                for mu in st["skew_mus"]:
                    y, s = draw(rng, size, ncr, mu)
                    for measure in SKEW_MEASURES:
                        value = measure_value(measure, y, s, reference)
                        for weighting, (alpha, beta) in WEIGHTINGS.items():
                            records.append(
                                {
                                    "repetition": repetition, "axis": axis, "measure": measure,
                                    "weighting": weighting, "size": size, "ncr": ncr, "mu": mu,
                                    "value": value,
                                    "quality": quality(measure, value, reference, size, ncr, alpha, beta),
                                }
                            )  # fmt: skip
    frame = pd.DataFrame(records)
    keys = ["axis", "measure", "weighting", "size", "ncr", "mu"]
    return frame.groupby(keys, sort=False).agg(
        mean_value=("value", "mean"), mean_quality=("quality", "mean"), std_quality=("quality", "std")
    ).reset_index()


def plot(summary, st, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.colors import TwoSlopeNorm

    columns = [(axis, w) for axis in ("size", "ncr") for w in WEIGHTINGS]
    fig, axes = plt.subplots(
        len(SKEW_MEASURES), len(columns), figsize=(4.0 * len(columns), 3.0 * len(SKEW_MEASURES)),
        squeeze=False,
    )  # fmt: skip
    mus = list(st["skew_mus"])
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    for r, measure in enumerate(SKEW_MEASURES):
        for c, (axis, weighting) in enumerate(columns):
            ax = axes[r][c]
            g = summary[(summary.measure == measure) & (summary.axis == axis) & (summary.weighting == weighting)]
            xs = list(st["skew_sizes"] if axis == "size" else st["skew_ncrs"])
            grid = g.pivot_table(index="mu", columns=axis, values="mean_quality").reindex(index=mus, columns=xs)
            z = grid.to_numpy(dtype=float)
            finite = z[np.isfinite(z)]
            lo, hi = (finite.min(), finite.max()) if finite.size else (-1.0, 1.0)
            # Always centred at 0, so that red means "worse than D" in every panel.
            eps = 1e-9 * max(abs(lo), abs(hi), 1e-12)
            norm = TwoSlopeNorm(0.0, min(lo, -eps), max(hi, eps))
            image = ax.imshow(z, origin="lower", aspect="auto", cmap="RdBu_r", norm=norm)
            fig.colorbar(image, ax=ax, fraction=0.046, pad=0.03)
            if z.shape[0] > 1 and z.shape[1] > 1 and finite.size:
                zz = np.where(np.isfinite(z), z, np.nanmean(z))
                ax.contour(zz, levels=7, colors="grey", linewidths=0.5)
                if lo < 0 < hi:
                    ax.contour(zz, levels=[0.0], colors="black", linewidths=1.2)
            ax.set_xticks(range(len(xs)))
            ax.set_xticklabels([f"{x:g}" for x in xs], rotation=45, fontsize=7)
            ax.set_yticks(range(len(mus)))
            ax.set_yticklabels([f"{m:g}" for m in mus], fontsize=7)
            ax.set_xlabel("cover size (NCR 0.5)" if axis == "size" else f"NCR (size {st['skew_fixed_size']})")
            ax.set_ylabel("mu (positives' mean score)")
            ax.set_title(f"({next(letters)}) {config.MEASURE_NAMES[measure]}, {weighting}", fontsize=9)
    ref = st["skew_reference"]
    fig.suptitle(
        f"Mean relative quality of random subgroups vs a dataset with size {ref['size']}, "
        f"NCR {ref['ncr']}, mu {ref['mu']} ({st['skew_repetitions']} repetitions per cell)",
        fontsize=11,
    )  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    args = common.parser(__doc__.splitlines()[0]).parse_args(argv)
    st = common.settings_from(args)
    common.log("figure3: computing")
    summary = compute(st)
    summary.to_csv(args.out / "figure3_skew.csv", index=False)
    plot(summary, st, args.out / "figure3_skew.png")
    common.log("figure3: done")


if __name__ == "__main__":
    main()
