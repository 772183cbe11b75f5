"""Figure 2: does the search recover an injected underperforming subgroup?

On Adult (search and validation splits scored by the xgboost model), pick a
random conjunction of 2 selectors whose cover holds 0.4-1.2% of the search
split (45-135 rows) and both classes (at least 3 of each), uniformly among all
such conjunctions, and negate the model's scores inside it, on the search and
the validation split alike (the paper: "multiplied the predicted scores ... by
-1"; within the cover the ranking is reversed, ROC AUC -> 1 - ROC AUC).

Then search the top-10 with each measure under the baseline (alpha = beta = 0,
no generalization awareness) and the full framework with three weightings
(alpha = beta in {0.3, 0.5, 1}, generalization aware), and report the IoU of
each of the top-10 patterns with the injected cover (on the search split).
The top-10 are also tested on the validation split (Benjamini-Yekutieli over
the 10). Repeated for several seeds of the injected subgroup (the model and
the splits stay those of the configured seed).

Outputs in ``--out``: ``figure2_injection.png`` (all measures),
``figure2_injection_roc_auc.png`` (the paper's Figure 2), ``figure2_patterns.csv``
(every top-10 pattern), ``figure2_injected.csv|md`` (the injected subgroups),
``figure2_summary.csv|md``.

    python -m experiments.figure2_injection [--smoke] [--out DIR]
"""

import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pandas as pd

import subroc_ext
from experiments import common, config
from subroc_ext.pipeline import describe_subgroups, make_quality_function

INJECTION_MEASURES = ("roc_auc", "pr_auc", "arl", "attribution_mean")


def eligible_conjunctions(prepared, fraction, min_class=3):
    """All 2-selector conjunctions (different attributes) whose search cover
    has a size within ``fraction`` of the split and >= ``min_class`` rows of
    each class, also on the validation split."""
    search, validation = prepared.search, prepared.validation
    lo, hi = fraction[0] * len(search), fraction[1] * len(search)
    positive_s = (search[prepared.label] == prepared.positive).to_numpy()
    positive_v = (validation[prepared.label] == prepared.positive).to_numpy()
    selectors = prepared.selectors
    masks_s = [np.asarray(s.covers(search), dtype=bool) for s in selectors]
    masks_v = [np.asarray(s.covers(validation), dtype=bool) for s in selectors]
    found = []
    for i in range(len(selectors)):
        for j in range(i + 1, len(selectors)):
            if selectors[i].attribute_name == selectors[j].attribute_name:
                continue
            cover = masks_s[i] & masks_s[j]
            size = np.count_nonzero(cover)
            if not lo <= size <= hi:
                continue
            pos = np.count_nonzero(cover & positive_s)
            if min(pos, size - pos) < min_class:
                continue
            cover_v = masks_v[i] & masks_v[j]
            pos_v = np.count_nonzero(cover_v & positive_v)
            if min(pos_v, np.count_nonzero(cover_v) - pos_v) < min_class:
                continue
            found.append((i, j))
    return found


def inject(frame, subgroup):
    """A copy of ``frame`` with the scores negated inside the subgroup's cover."""
    cover = np.asarray(subgroup.covers(frame), dtype=bool)
    scores = frame[common.SCORE].to_numpy(copy=True)
    scores[cover] = -scores[cover]
    return frame.assign(**{common.SCORE: scores}), cover


def configurations(st):
    yield "baseline", 0.0, False
    for w in st["injection_weights"]:
        yield f"full a=b={w:g}", w, True


def run(prepared, st, seeds):
    """Patterns (one row per seed, measure, configuration and rank) and the injected subgroups."""
    import pysubgroup as ps

    candidates = eligible_conjunctions(prepared, st["injection_fraction"])
    if not candidates:
        raise RuntimeError("no conjunction of 2 selectors has the requested cover size")
    common.log(f"figure2: {len(candidates)} eligible conjunctions of 2 selectors")
    rows, injected_rows = [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        i, j = candidates[rng.integers(len(candidates))]
        injected = ps.Conjunction([prepared.selectors[i], prepared.selectors[j]])
        search, cover = inject(prepared.search, injected)
        validation, _ = inject(prepared.validation, injected)
        before = describe_subgroups([injected], prepared.search, prepared.target, positive_label=prepared.positive)
        after = describe_subgroups([injected], search, prepared.target, positive_label=prepared.positive)
        injected_rows.append(
            {
                "seed": seed, "description": str(injected), "size": int(before["size"][0]),
                "ncr": float(before["ncr"][0]),
                **{f"{m}_before": float(before[m][0]) for m in config.MEASURES},
                **{f"{m}_after": float(after[m][0]) for m in config.MEASURES},
            }
        )  # fmt: skip
        common.log(f"figure2: seed {seed}: injected {injected} ({cover.sum()} rows)")
        for measure in st.get("injection_measures", INJECTION_MEASURES):
            statistic = make_quality_function(measure, prepared.label, positive_label=prepared.positive)
            for name, w, ga in configurations(st):
                qf = make_quality_function(
                    measure, prepared.label, positive_label=prepared.positive, size_weight=w,
                    balance_weight=w, generalization_aware=ga,
                )  # fmt: skip
                found = common.run_search(
                    search, prepared.target, prepared.selectors, qf, depth=st["injection_depth"],
                    result_set_size=st["injection_top"], min_support=st["min_support"], search=st["search"],
                )  # fmt: skip
                subgroups = [d for _, d in found.results]
                if subgroups:
                    tested = subroc_ext.randomization_test(
                        subgroups, validation, statistic, target=prepared.target,
                        n_samples=st["injection_n_samples"], method=config.CORRECTION,
                        alpha=config.ALPHA, random_state=seed,
                    )["significant"].to_numpy()  # fmt: skip
                else:
                    tested = np.zeros(0, dtype=bool)
                cover_matrix = common.covers(subgroups, search)
                negatives = (search[prepared.label] != prepared.positive).to_numpy()
                for rank, ((quality, sg), sg_cover, significant) in enumerate(
                    zip(found.results, cover_matrix, tested), start=1
                ):
                    size = int(sg_cover.sum())
                    rows.append(
                        {
                            "seed": seed, "measure": measure, "configuration": name, "rank": rank,
                            "description": str(sg), "quality": quality, "size": size,
                            "ncr": np.count_nonzero(sg_cover & negatives) / size,
                            "iou": common.iou(sg_cover, cover), "significant": bool(significant),
                            "search_s": found.seconds,
                        }
                    )  # fmt: skip
                best = max((r["iou"] for r in rows[-len(subgroups):]), default=np.nan) if subgroups else np.nan
                common.log(f"  {measure:>16} {name:>14}: {found.seconds:5.1f}s, best IoU {best:.2f}")
    return pd.DataFrame(rows), pd.DataFrame(injected_rows)


def summarize(patterns, st, seeds):
    rows = []
    for measure in patterns["measure"].unique():
        for name, _, _ in configurations(st):
            group = patterns[(patterns.measure == measure) & (patterns.configuration == name)]
            per_seed = []
            for seed in seeds:
                g = group[group.seed == seed].sort_values("rank")
                hits = g[g.iou >= 0.8]
                per_seed.append(
                    {
                        "iou_rank1": g.iou.iloc[0] if len(g) else 0.0,
                        "best_iou": g.iou.max() if len(g) else 0.0,
                        "first_hit_rank": hits["rank"].iloc[0] if len(hits) else np.nan,
                        "hit_top2": bool(len(hits) and hits["rank"].iloc[0] <= 2),
                        "hit_significant": bool(len(hits) and hits["significant"].any()),
                    }
                )
            per_seed = pd.DataFrame(per_seed)
            rows.append(
                {
                    "measure": config.MEASURE_NAMES[measure], "configuration": name,
                    "mean IoU at rank 1": per_seed.iou_rank1.mean(),
                    "mean best IoU in top-k": per_seed.best_iou.mean(),
                    "found (IoU>=0.8) at rank 1-2": f"{per_seed.hit_top2.sum()}/{len(seeds)}",
                    "found (IoU>=0.8) in top-k": f"{per_seed.first_hit_rank.notna().sum()}/{len(seeds)}",
                    "found and significant": f"{per_seed.hit_significant.sum()}/{len(seeds)}",
                    "mean search s": group.drop_duplicates("seed").search_s.mean(),
                }
            )  # fmt: skip
    return pd.DataFrame(rows)


def plot(patterns, st, seeds, measures, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [name for name, _, _ in configurations(st)]
    fig, axes = plt.subplots(
        len(measures), len(names), figsize=(3.2 * len(names), 2.6 * len(measures)),
        sharex=True, sharey=True, squeeze=False,
    )  # fmt: skip
    colors = plt.get_cmap("tab10")
    for r, measure in enumerate(measures):
        for c, name in enumerate(names):
            ax = axes[r][c]
            group = patterns[(patterns.measure == measure) & (patterns.configuration == name)]
            for k, seed in enumerate(seeds):
                g = group[group.seed == seed].sort_values("rank")
                offset = (k - (len(seeds) - 1) / 2) * 0.08
                ax.plot(g["rank"] + offset, g.iou, "-", color=colors(k), alpha=0.5, lw=1)
                sig = g.significant.to_numpy(dtype=bool)
                ax.scatter(g["rank"][sig] + offset, g.iou[sig], color=colors(k), s=22, zorder=3)
                ax.scatter(g["rank"][~sig] + offset, g.iou[~sig], facecolors="none",
                           edgecolors=colors(k), s=22, zorder=3)  # fmt: skip
            ax.set_ylim(-0.05, 1.05)
            ax.set_xticks(range(1, st["injection_top"] + 1))
            if r == 0:
                ax.set_title(name, fontsize=10)
            if c == 0:
                ax.set_ylabel(f"{config.MEASURE_NAMES[measure]}\nIoU with injected")
            if r == len(measures) - 1:
                ax.set_xlabel("rank in top-k")
    fig.suptitle(
        "IoU of the top patterns with the injected subgroup (one colour per seed; "
        "filled = significant on validation)", fontsize=10,
    )  # fmt: skip
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv=None):
    p = common.parser(__doc__.splitlines()[0])
    p.add_argument("--weights", type=float, nargs="+", help="alpha = beta of the full-framework runs")
    p.add_argument("--measures", nargs="+", choices=INJECTION_MEASURES, help="measures to run")
    args = p.parse_args(argv)
    st = common.settings_from(args)
    if args.weights:
        st["injection_weights"] = tuple(args.weights)
    if args.measures:
        st["injection_measures"] = tuple(args.measures)
    prepared = common.prepare("adult", st)
    seeds = list(st["injection_seeds"])
    patterns, injected = run(prepared, st, seeds)
    patterns.to_csv(args.out / "figure2_patterns.csv", index=False)
    common.write_table(injected, args.out, "figure2_injected", title="Injected subgroups (search split)")
    summary = summarize(patterns, st, seeds)
    common.write_table(summary, args.out, "figure2_summary", title="Figure 2: recovery of the injected subgroup")
    measures = [m for m in st.get("injection_measures", INJECTION_MEASURES)]
    plot(patterns, st, seeds, measures, args.out / "figure2_injection.png")
    plot(patterns, st, seeds, ["roc_auc"], args.out / "figure2_injection_roc_auc.png")
    common.log("figure2: done")


if __name__ == "__main__":
    main()
