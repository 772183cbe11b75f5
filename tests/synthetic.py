"""Synthetic scored data shared by the command-line and report tests."""

import numpy as np
import pandas as pd


def scored_frame(seed, n=2000):
    """A model that ranks no better than chance where ``region == 'east'``."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "region": rng.choice(["north", "south", "east", "west"], n),
            "age": rng.integers(18, 80, n),
            "plan": rng.choice(["basic", "premium"], n),
        }
    )
    frame["y"] = (rng.random(n) < 0.4).astype(int)
    frame["p"] = 1 / (1 + np.exp(-(2.5 * frame["y"] - 1.2 + rng.normal(0, 1, n))))
    east = (frame["region"] == "east").to_numpy()
    frame.loc[east, "p"] = rng.random(east.sum())
    return frame
