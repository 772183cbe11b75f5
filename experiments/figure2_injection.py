"""Figure 2 / supp. B.4: does the search recover an injected underperforming subgroup?

The authors' experiment (their public experiment definition ``exp-84``), on
Adult scored by the xgboost model:

1. pick a pattern whose cover holds a given share of the search split, one
   per size class (the authors': 0.4-0.6%, 0.9-1.1%, 20-30%, 45-55% and
   70-80%; the paper's Figure 2 is the smallest), uniformly at random among
   all eligible patterns; here patterns of one or two selectors of the search
   space (the authors: up to three, from 10-bin selectors), with at least 3
   rows of each class on the search and the validation split;
2. inject: negate the model's scores inside the cover, on the search and the
   validation split alike (within the cover the ranking is reversed,
   ROC AUC -> 1 - ROC AUC);
3. search the top-100 with each measure under eight configurations: the
   baseline (alpha = beta = 0, no generalization awareness), generalization
   awareness only, and generalization awareness with one weight at a time,
   (alpha, beta) in {(0, 0.3), (0.3, 0), (0, 1), (1, 0), (0, 2), (2, 0)};
4. test the top-100 on the validation split (Benjamini-Yekutieli over the
   100), keep the significant ones and report the top-10 of those, with the
   IoU of each with the injected cover (on the search split).

Besides, for each configuration, the injected pattern's own quality and its
rank among the top-100 qualities: the arithmetic of why it is (not) found.
``--weights`` replaces the one-weight grid by alpha = beta = w configurations.

``--case-mix`` runs, instead of the paper's configurations, the same
experiment with each measure searched by its shortfall from the promise
(``find_subgroups(case_mix=True)``'s quality,
:class:`subroc_ext.objective.case_mix.CaseMixQF`; the scores read as
probabilities by a map fitted on the injected search split) and tested by
its label draws on the validation split
(:class:`subroc_ext.inference.promise.Promise`, BY over the top-100): the
paper's open problem. The ARL is searched by the ROC AUC's case mix, which
is its own exactly (``ARL / N = 1 - AUC``), and tested by its draws.

Outputs in ``--out``: ``figure2_injection.png`` (all measures),
``figure2_injection_roc_auc.png`` (the paper's Figure 2), ``figure2_patterns.csv``
(every top-100 pattern), ``figure2_injected.csv|md`` (the injected subgroups),
``figure2_summary.csv|md`` (recovery per measure and configuration),
``figure2_recovery.csv|md`` (per injected subgroup).

    python -m experiments.figure2_injection [--smoke] [--out DIR] [--depth 4]
"""

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd
import pysubgroup as ps

from experiments import common, config
from subroc_ext.inference.promise import Promise
from subroc_ext.inputs.probabilities import fit_probabilities
from subroc_ext.objective.case_mix import CaseMixQF
from subroc_ext.objective.generalization import GeneralizationAwareQF
from subroc_ext.workflow import steps
from subroc_ext.workflow.case_mix import with_probabilities
from subroc_ext.workflow.pipeline import make_quality_function

INJECTION_MEASURES = ("roc_auc", "pr_auc", "arl", "attribution_mean")
#: The measures searched by their shortfall from the promise (``--case-mix``).
CASE_MIX_MEASURES = ("roc_auc", "pr_auc", "pr_auc_normalized", "arl")
#: IoU from which the injected subgroup counts as found.
FOUND_IOU = 0.8


def eligible_patterns(prepared, fraction, min_class=3):
    """All patterns of one selector or two (of different attributes) whose
    search cover has a size within ``fraction`` of the split and >= ``min_class``
    rows of each class on the search and the validation split."""
    search, validation = prepared.search, prepared.validation
    lo, hi = fraction[0] * len(search), fraction[1] * len(search)
    positive_s = (search[prepared.label] == prepared.positive).to_numpy()
    positive_v = (validation[prepared.label] == prepared.positive).to_numpy()
    selectors = prepared.selectors
    masks_s = [np.asarray(s.covers(search), dtype=bool) for s in selectors]
    masks_v = [np.asarray(s.covers(validation), dtype=bool) for s in selectors]

    def eligible(cover_s, cover_v):
        size = np.count_nonzero(cover_s)
        if not lo <= size <= hi:
            return False
        pos_s, pos_v = np.count_nonzero(cover_s & positive_s), np.count_nonzero(cover_v & positive_v)
        return min(pos_s, size - pos_s, pos_v, np.count_nonzero(cover_v) - pos_v) >= min_class

    found = [(i,) for i in range(len(selectors)) if eligible(masks_s[i], masks_v[i])]
    for i in range(len(selectors)):
        for j in range(i + 1, len(selectors)):
            if selectors[i].attribute_name != selectors[j].attribute_name and eligible(
                masks_s[i] & masks_s[j], masks_v[i] & masks_v[j]
            ):
                found.append((i, j))
    return found


def inject(frame, subgroup):
    """A copy of ``frame`` with the scores negated inside the subgroup's cover."""
    cover = np.asarray(subgroup.covers(frame), dtype=bool)
    scores = frame[common.SCORE].to_numpy(copy=True)
    scores[cover] = -scores[cover]
    return frame.assign(**{common.SCORE: scores}), cover


def configurations(st):
    """(name, alpha, beta, generalization aware) of every configuration."""
    yield "baseline", 0.0, 0.0, False
    if st.get("injection_weights"):
        for w in st["injection_weights"]:
            yield f"GA a=b={w:g}", w, w, True
        return
    for alpha, beta in st["injection_grid"]:
        yield ("GA only" if alpha == beta == 0 else f"GA a={alpha:g} b={beta:g}"), alpha, beta, True


def pick_injected(prepared, st):
    """The injected patterns: one per (size class, seed) of ``st["injections"]``."""
    picked = []
    for lo, hi, seed in st["injections"]:
        candidates = eligible_patterns(prepared, (lo, hi))
        if not candidates:
            raise RuntimeError(f"no pattern of one or two selectors covers {lo:.1%}-{hi:.1%} of the search split")
        chosen = candidates[np.random.default_rng(seed).integers(len(candidates))]
        picked.append((f"{lo:g}-{hi:g}", seed, ps.Conjunction([prepared.selectors[i] for i in chosen])))
        common.log(f"figure2: {len(candidates)} eligible patterns cover {lo:.1%}-{hi:.1%}; seed {seed}: {picked[-1][2]}")
    return picked


def case_mix_search(prepared, search, validation, measure, st):
    """``(name, search qf, its target, searched frame, test)`` of each
    configuration of ``measure`` searched by its shortfall from the promise;
    ``test(subgroups, seed)`` gives each subgroup's significance by the
    measure's label draws on ``validation``."""
    label, score = prepared.label, common.SCORE
    is_positive = (search[label] == prepared.positive).to_numpy()
    try:
        probabilities = fit_probabilities(search[score].to_numpy(dtype=float), is_positive)
    except ValueError as error:  # an injection that reverses most of the ranking leaves no promise to read
        common.log(f"  {measure}: no case mix ({error})")
        return
    searched, target = with_probabilities(search, probabilities(search[score].to_numpy(dtype=float)), label, score)
    named = {**steps.MEASURES, **steps.REQUESTED_MEASURES}
    tested = named[measure]()
    ranked = tested if measure != "arl" else named["roc_auc"]()  # ARL / N = 1 - AUC: the ROC AUC's shortfall
    valid_positive = (validation[label] == prepared.positive).to_numpy()
    valid_scores = validation[score].to_numpy(dtype=float)

    def test(subgroups, seed):
        if not subgroups:
            return np.zeros(0, dtype=bool)
        promise = Promise(tested, valid_positive, valid_scores, probabilities(valid_scores), seed=seed)
        table = promise.test(common.covers(subgroups, validation), mode="worse", method=config.CORRECTION,
                             alpha=config.ALPHA, max_samples=st["injection_n_samples"])  # fmt: skip
        return table["significant"].to_numpy(dtype=bool)

    for name, alpha, beta, ga in configurations(st):
        qf = CaseMixQF(label, positive_label=prepared.positive, size_weight=alpha, balance_weight=beta,
                       measure=ranked)  # fmt: skip
        yield name, GeneralizationAwareQF(qf) if ga else qf, target, searched, test


def paper_search(prepared, search, validation, measure, st):
    """The same as :func:`case_mix_search` for the paper's quality functions and test."""
    statistic = make_quality_function(measure, prepared.label, positive_label=prepared.positive)

    def test(subgroups, seed):
        return steps.test(
            subgroups, validation, statistic, prepared.target,
            n_samples=st["injection_n_samples"], method=config.CORRECTION,
            alpha=config.ALPHA, random_state=seed, intervals="simultaneous",  # the paper's protocol
        )["significant"].to_numpy(dtype=bool)  # fmt: skip

    for name, alpha, beta, ga in configurations(st):
        qf = make_quality_function(
            measure, prepared.label, positive_label=prepared.positive, size_weight=alpha,
            balance_weight=beta, generalization_aware=ga,
        )  # fmt: skip
        yield name, qf, prepared.target, search, test


def run(prepared, st, case_mix=False):
    """Patterns (one row per injected subgroup, measure, configuration and
    rank in the top-100), the injected subgroups, and the injected pattern's
    own quality per search; ``case_mix``: searched by the shortfall from
    the promise (:func:`case_mix_search`)."""
    rows, injected_rows, own_rows = [], [], []
    searches = case_mix_search if case_mix else paper_search
    for number, (size_class, seed, injected) in enumerate(pick_injected(prepared, st)):
        search, cover = inject(prepared.search, injected)
        validation, _ = inject(prepared.validation, injected)
        before = steps.describe([injected], prepared.search, prepared.target, positive_label=prepared.positive)
        after = steps.describe([injected], search, prepared.target, positive_label=prepared.positive)
        injected_rows.append(
            {
                "injected": number, "size_class": size_class, "seed": seed, "description": str(injected),
                "size": int(before["size"][0]), "ncr": float(before["ncr"][0]),
                **{f"{m}_before": float(before[m][0]) for m in config.MEASURES},
                **{f"{m}_after": float(after[m][0]) for m in config.MEASURES},
            }
        )  # fmt: skip
        negatives = (search[prepared.label] != prepared.positive).to_numpy()
        for measure in st.get("injection_measures", CASE_MIX_MEASURES if case_mix else INJECTION_MEASURES):
            for name, qf, target, searched, test in searches(prepared, search, validation, measure, st):
                found = common.run_search(
                    searched, target, prepared.selectors, qf, depth=st["injection_depth"],
                    result_set_size=st["injection_top"], min_support=st["min_support"], search=st["search"],
                )  # fmt: skip
                subgroups = [d for _, d in found.results]
                significant = test(subgroups, seed)
                own = qf.calculate_statistics(injected, target, searched).quality
                qualities = np.array([q for q, _ in found.results])
                own_rows.append(
                    {
                        "injected": number, "measure": measure, "configuration": name,
                        "injected_quality": own, "top1_quality": qualities[0] if len(qualities) else np.nan,
                        "top100_last_quality": qualities[-1] if len(qualities) else np.nan,
                        "injected_rank_by_quality": int(np.count_nonzero(qualities > own)) + 1,
                    }
                )  # fmt: skip
                covers = common.covers(subgroups, search)
                reported = np.cumsum(significant)
                for rank, ((quality, sg), sg_cover, sig) in enumerate(zip(found.results, covers, significant), start=1):
                    size = int(sg_cover.sum())
                    rows.append(
                        {
                            "injected": number, "measure": measure, "configuration": name, "rank": rank,
                            "rank_significant": int(reported[rank - 1]) if sig else np.nan,
                            "description": str(sg), "quality": quality, "size": size,
                            "ncr": np.count_nonzero(sg_cover & negatives) / size,
                            "iou": common.iou(sg_cover, cover), "significant": bool(sig),
                            "search_s": found.seconds,
                        }
                    )  # fmt: skip
                best = max((common.iou(c, cover) for c in covers), default=0.0)
                common.log(
                    f"  #{number} {measure:>16} {name:>14}: {found.seconds:5.1f}s, {int(significant.sum())}/"
                    f"{len(subgroups)} significant, best IoU in top-{st['injection_top']} {best:.2f}"
                )
    return pd.DataFrame(rows), pd.DataFrame(injected_rows), pd.DataFrame(own_rows)


def recovery(patterns, own, injected, st):
    """One row per injected subgroup, measure and configuration: where it was found."""
    rows = []
    report = st["injection_report"]
    for (number, measure, name), group in own.groupby(["injected", "measure", "configuration"], sort=False):
        g = patterns[(patterns.injected == number) & (patterns.measure == measure) & (patterns.configuration == name)]
        reported = g[g.rank_significant <= report].sort_values("rank_significant")
        hits = reported[reported.iou >= FOUND_IOU]
        hits_unfiltered = g[g.iou >= FOUND_IOU]
        row = group.iloc[0]
        rows.append(
            {
                "injected": number, "size_class": injected.size_class[number], "size": injected["size"][number],
                "measure": config.MEASURE_NAMES[measure], "configuration": name,
                "rank in reported top-10": hits.rank_significant.iloc[0] if len(hits) else np.nan,
                "rank in top-100": hits_unfiltered["rank"].iloc[0] if len(hits_unfiltered) else np.nan,
                "best IoU in reported top-10": reported.iou.max() if len(reported) else 0.0,
                "IoU at rank 1": reported.iou.iloc[0] if len(reported) else 0.0,
                "significant / top-100": f"{int(g.significant.sum())}/{len(g)}",
                "injected quality": row.injected_quality, "top-1 quality": row.top1_quality,
                "100th quality": row.top100_last_quality, "injected rank by quality": row.injected_rank_by_quality,
            }
        )  # fmt: skip
    return pd.DataFrame(rows)


def summarize(per_injected):
    """Recovery per measure and configuration, over the injected subgroups."""
    rows = []
    for (measure, name), g in per_injected.groupby(["measure", "configuration"], sort=False):
        n = len(g)
        rows.append(
            {
                "measure": measure, "configuration": name,
                "found at rank 1-2": f"{int((g['rank in reported top-10'] <= 2).sum())}/{n}",
                "found in reported top-10": f"{int(g['rank in reported top-10'].notna().sum())}/{n}",
                "found in top-100 (untested)": f"{int(g['rank in top-100'].notna().sum())}/{n}",
                "mean best IoU in top-10": g["best IoU in reported top-10"].mean(),
                "mean IoU at rank 1": g["IoU at rank 1"].mean(),
            }
        )  # fmt: skip
    return pd.DataFrame(rows)


def plot(patterns, injected, st, measures, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [name for name, *_ in configurations(st)]
    report = st["injection_report"]
    fig, axes = plt.subplots(
        len(measures), len(names), figsize=(2.6 * len(names), 2.5 * len(measures)),
        sharex=True, sharey=True, squeeze=False,
    )  # fmt: skip
    colors = plt.get_cmap("tab10")
    numbers = list(injected.injected)
    for r, measure in enumerate(measures):
        for c, name in enumerate(names):
            ax = axes[r][c]
            group = patterns[(patterns.measure == measure) & (patterns.configuration == name)]
            for k, number in enumerate(numbers):
                g = group[(group.injected == number) & (group.rank_significant <= report)].sort_values("rank_significant")
                offset = (k - (len(numbers) - 1) / 2) * 0.06
                label = f"{injected.size_class[number]} (n={injected['size'][number]})" if r == c == 0 else None
                ax.plot(g.rank_significant + offset, g.iou, "o-", color=colors(k), ms=3.5, lw=0.8, alpha=0.8, label=label)
            ax.set_ylim(-0.05, 1.05)
            ax.set_xticks(range(1, report + 1))
            if r == 0:
                ax.set_title(name, fontsize=9)
            if c == 0:
                ax.set_ylabel(f"{config.MEASURE_NAMES[measure]}\nIoU with injected")
            if r == len(measures) - 1:
                ax.set_xlabel("rank among significant")
    fig.legend(loc="upper right", fontsize=7, title="injected (share of search split)", title_fontsize=7)
    fig.suptitle(
        f"IoU of the top-{report} significant patterns (of the top-{st['injection_top']}) with the injected subgroup",
        fontsize=10,
    )  # fmt: skip
    fig.tight_layout(rect=(0, 0, 0.9, 0.97))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    p = common.parser(__doc__.splitlines()[0])
    p.add_argument("--weights", type=float, nargs="+", help="alpha = beta configurations instead of the one-weight grid")
    p.add_argument("--measures", nargs="+", choices=sorted(set(INJECTION_MEASURES + CASE_MIX_MEASURES)),
                   help="measures to run")
    p.add_argument("--case-mix", action="store_true",
                   help="search each measure by its shortfall from the promise, test it by its label draws")
    p.add_argument("--grid", type=int, nargs="+", help="run only these entries of the configuration grid")
    p.add_argument("--injections", type=int, nargs="+", help="run only these entries of the configured injections")
    args = p.parse_args(argv)
    st = common.settings_from(args)
    if args.weights:
        st["injection_weights"] = tuple(args.weights)
    if args.measures:
        st["injection_measures"] = tuple(args.measures)
    if args.depth:
        st["injection_depth"] = args.depth
    if args.n_samples:
        st["injection_n_samples"] = args.n_samples
    if args.injections:
        st["injections"] = tuple(st["injections"][i] for i in args.injections)
    if args.grid:
        st["injection_grid"] = tuple(st["injection_grid"][i] for i in args.grid)
    prepared = common.prepare("adult", st)
    patterns, injected, own = run(prepared, st, case_mix=args.case_mix)
    patterns.to_csv(args.out / "figure2_patterns.csv", index=False)
    common.write_table(injected, args.out, "figure2_injected", title="Injected subgroups (search split)")
    per_injected = recovery(patterns, own, injected, st)
    ranks = ["rank in reported top-10", "rank in top-100"]
    common.write_table(
        per_injected.assign(**{c: per_injected[c].map(lambda r: "-" if np.isnan(r) else str(int(r))) for c in ranks}),
        args.out, "figure2_recovery",
        title=f"Recovery of each injected subgroup (found: IoU >= {FOUND_IOU})",
    )  # fmt: skip
    common.write_table(
        summarize(per_injected), args.out, "figure2_summary",
        title=f"Figure 2: recovery over the injected subgroups (found: IoU >= {FOUND_IOU})",
    )  # fmt: skip
    measures = list(st.get("injection_measures", CASE_MIX_MEASURES if args.case_mix else INJECTION_MEASURES))
    plot(patterns, injected, st, measures, args.out / "figure2_injection.png")
    if "roc_auc" in measures:
        plot(patterns, injected, st, ["roc_auc"], args.out / "figure2_injection_roc_auc.png")
    common.log("figure2: done")


if __name__ == "__main__":
    main()
