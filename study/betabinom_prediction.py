"""The beta-binomial extrapolation checked honestly: its goodness-of-fit check and its predictions.

Three parts, each printed as Markdown tables:

* **size** of the fit's goodness-of-fit check: task sets drawn from the plain
  beta-binomial model itself (task rates Beta with mean 0.3 to 0.95 and icc 0
  to 0.5; icc 0: every task has the mean), 40, 80 and 150 tasks, 5 and 10
  runs per task (and 3 to 10 runs drawn per task); the share of fits the check
  can test (``df >= 1``), the share it rejects at 0.05 with the model fixed
  to ``"betabinom"`` (its size: near 0.05 when calibrated), and what the
  default ``"auto"`` fit does on the same data (how often it takes the
  inflated model, how often it is flagged).
* **power**: populations the plain model does not describe: the
  mixture (30% of tasks always pass, 70% pass with chance 0.6) and a
  three-part one (20% never pass, 20% always pass, 60% Beta(2, 2)); and, as
  a control the model does describe, a U-shaped Beta(0.05, 0.05).
* **prediction**: task sets with 10 runs per task; the fit sees the first 5
  runs of each task and predicts pass^10; the prediction is compared with the
  pass^10 measured on all 10 runs and with the population's truth (``E[p^10]``
  for a new task). Bias and RMSE against the truth, RMSE against the measured
  value, the coverage of the fit's ``confidence_interval`` (200 resamples) of
  the truth and its width, and how often the fit is flagged (``rejected``),
  for the plain model and for the default ``"auto"``. The measured pass^10's
  own RMSE against the truth is the reference: what running all 10 runs buys.

Run from the repository root::

    python study/betabinom_prediction.py --quick   # a few settings, under 20 s
    python study/betabinom_prediction.py           # the full grids, a few minutes

Every setting has its own seed (from its name), so a run repeats exactly on
the same numpy, in any order.
"""

from __future__ import annotations

import argparse
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy import special

from passk_lab import BetaBinomialFit
from passk_lab._betabinom import beta_shapes
from passk_lab._betabinom_fit import Model
from passk_lab.heterogeneity import fit_cells

Draw = Callable[[np.random.Generator, int], np.ndarray]  # task rates of a population


@dataclass(frozen=True)
class Population:
    """Task pass rates to draw from, with the truth of pass^k for a new task."""

    name: str
    draw: Draw
    pow_k: Callable[[int], float]


def beta_population(mean: float, icc: float) -> Population:
    """Task rates Beta with a mean and an icc; every task at the mean when icc is 0."""
    if icc == 0:
        return Population(
            f"Beta({mean}, icc 0)", lambda rng, size: np.full(size, mean), lambda k: mean**k
        )
    alpha, beta = beta_shapes(mean, icc)
    return shapes_population(f"Beta({mean}, icc {icc})", alpha, beta)


def shapes_population(name: str, alpha: float, beta: float) -> Population:
    """Task rates Beta(alpha, beta): pass^k of a new task is B(alpha + k, beta) / B(alpha, beta)."""

    def pow_k(k: int) -> float:
        return float(np.exp(special.betaln(alpha + k, beta) - special.betaln(alpha, beta)))

    return Population(name, lambda rng, size: rng.beta(alpha, beta, size), pow_k)


def always_and_sixty() -> Population:
    """Return the mixture in which 30% of tasks always pass and the rest pass with chance 0.6."""

    def draw(rng: np.random.Generator, size: int) -> np.ndarray:
        return np.where(rng.random(size) < 0.3, 1.0, 0.6)

    return Population("30% always + 70% at 0.6", draw, lambda k: 0.3 + 0.7 * 0.6**k)


def three_part() -> Population:
    """20% of tasks never pass, 20% always pass, 60% have a Beta(2, 2) rate."""
    beta_part = shapes_population("", 2.0, 2.0).pow_k

    def draw(rng: np.random.Generator, size: int) -> np.ndarray:
        part = rng.choice(3, size=size, p=[0.2, 0.2, 0.6])
        return np.select([part == 0, part == 1], [0.0, 1.0], rng.beta(2.0, 2.0, size))

    return Population(
        "20% never + 20% always + 60% Beta(2, 2)", draw, lambda k: 0.2 + 0.6 * beta_part(k)
    )


def u_shaped() -> Population:
    """Nearly every task nearly always or nearly never passes, as on public code benchmarks."""
    return shapes_population("U-shaped Beta(0.05, 0.05)", 0.05, 0.05)


def seed_of(*settings: object) -> np.random.Generator:
    """Return a generator seeded from the settings' text, the same in any order of settings."""
    return np.random.default_rng(zlib.crc32(repr(settings).encode()))


def cells_of(n: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return the (n, c) cells of a task set and the tasks in each, as the fit takes them."""
    key, tasks = np.unique(n.astype(np.int64) * 10_000 + c, return_counts=True)
    return key // 10_000, key % 10_000, tasks.astype(np.int64)


def fit(n: np.ndarray, c: np.ndarray, model: Model) -> BetaBinomialFit:
    """Fit the library's model to tasks with n runs and c passes, on the curve's path."""
    return fit_cells(*cells_of(n, c), model=model)


def runs_of(rng: np.random.Generator, tasks: int, runs: int | tuple[int, int]) -> np.ndarray:
    """Return the runs of each task: all the same, or drawn uniformly from a (low, high) range."""
    if isinstance(runs, tuple):
        return rng.integers(runs[0], runs[1] + 1, tasks)
    return np.full(tasks, runs)


def check_rates(
    population: Population, tasks: int, runs: int | tuple[int, int], replicates: int
) -> dict[str, float]:
    """How often the check can test, rejects the plain fit, and what "auto" does."""
    rng = seed_of("check", population.name, tasks, runs)
    tested = rejected = inflated = flagged = 0
    for _ in range(replicates):
        n = runs_of(rng, tasks, runs)
        c = rng.binomial(n, population.draw(rng, tasks))
        plain, auto = fit(n, c, "betabinom"), fit(n, c, "auto")
        tested += plain.goodness_of_fit.df > 0
        rejected += plain.rejected
        inflated += auto.model == "inflated"
        flagged += auto.rejected
    return {
        "tested": tested / replicates,
        "rejected (plain)": rejected / replicates,
        "inflated chosen (auto)": inflated / replicates,
        "flagged (auto)": flagged / replicates,
    }


def runs_label(runs: int | tuple[int, int]) -> str:
    """Name the runs per task in a table."""
    return f"{runs[0]}-{runs[1]}" if isinstance(runs, tuple) else str(runs)


def size_table(quick: bool) -> pd.DataFrame:
    """Return the check's rates on data from the plain model, one row per setting."""
    replicates = 20 if quick else 120
    means = (0.3, 0.95) if quick else (0.3, 0.5, 0.7, 0.9, 0.95)
    iccs = (0.0, 0.5) if quick else (0.0, 0.1, 0.3, 0.5)
    sizes: list[tuple[int, int | tuple[int, int]]] = (
        [(40, 5), (150, 10)]
        if quick
        else [(tasks, runs) for tasks in (40, 80, 150) for runs in (5, 10)] + [(80, (3, 10))]
    )
    rows = []
    for tasks, runs in sizes:
        for mean in means:
            for icc in iccs:
                population = beta_population(mean, icc)
                rates = check_rates(population, tasks, runs, replicates)
                rows.append(
                    {"tasks": tasks, "runs": runs_label(runs), "mean": mean, "icc": icc, **rates}
                )
    return pd.DataFrame(rows)


def power_table(quick: bool) -> pd.DataFrame:
    """Return the check's rates on populations the plain model does not describe."""
    replicates = 20 if quick else 200
    populations = [always_and_sixty()] if quick else [always_and_sixty(), three_part(), u_shaped()]
    sizes = [(80, 5)] if quick else [(tasks, runs) for tasks in (40, 80, 150) for runs in (5, 10)]
    rows = []
    for population in populations:
        for tasks, runs in sizes:
            rates = check_rates(population, tasks, runs, replicates)
            rows.append({"population": population.name, "tasks": tasks, "runs": runs, **rates})
    return pd.DataFrame(rows)


def prediction_rows(
    population: Population, tasks: int, replicates: int, resamples: int
) -> list[dict[str, object]]:
    """Fit on the first 5 of 10 runs, predict pass^10, for the plain and the "auto" model."""
    rng = seed_of("prediction", population.name, tasks)
    truth = population.pow_k(10)
    found: dict[str, list[tuple[float, float, float, float, bool, bool]]] = {
        "betabinom": [],
        "auto": [],
    }
    measured_errors = []
    for _ in range(replicates):
        rates = population.draw(rng, tasks)
        outcomes = rng.random((tasks, 10)) < rates[:, None]
        measured = float(outcomes.all(axis=1).mean())
        measured_errors.append(measured - truth)
        n, c = np.full(tasks, 5), outcomes[:, :5].sum(axis=1)
        model: Model
        for model in ("betabinom", "auto"):
            fitted = fit(n, c, model)
            if model == "auto" and fitted.model == "betabinom":  # the plain fit, interval too
                found["auto"].append((*found["betabinom"][-1][:5], False))
                continue
            predicted, inflated = float(fitted.pow_k(10)), fitted.model == "inflated"
            low, high = fitted.confidence_interval(10, n_resamples=resamples, rng=rng)
            limits = (float(low), float(high))
            found[model].append((predicted, measured, *limits, fitted.rejected, inflated))
    rows = []
    for name, values in found.items():
        predictions, seen, lows, highs, flags, inflations = (
            np.array(v) for v in zip(*values, strict=True)
        )
        covered = (lows <= truth) & (truth <= highs)
        unflagged = ~flags.astype(bool)
        rows.append(
            {
                "population": population.name,
                "tasks": tasks,
                "model": name,
                "truth": truth,
                "bias": float(np.mean(predictions - truth)),
                "RMSE": float(np.sqrt(np.mean((predictions - truth) ** 2))),
                "RMSE vs measured": float(np.sqrt(np.mean((predictions - seen) ** 2))),
                "coverage": float(covered.mean()),
                "coverage unflagged": float(covered[unflagged].mean())
                if unflagged.any()
                else np.nan,
                "width": float(np.mean(highs - lows)),
                "flagged": float(flags.mean()),
                "inflated": float(np.mean(inflations)),
                "measured RMSE": float(np.sqrt(np.mean(np.square(measured_errors)))),
            }
        )
    return rows


def prediction_table(quick: bool) -> pd.DataFrame:
    """Return the prediction check, two rows (plain, auto) per population and task count."""
    replicates, resamples = (8, 100) if quick else (40, 200)
    if quick:
        populations = [beta_population(0.7, 0.3), always_and_sixty()]
        task_counts: tuple[int, ...] = (80,)
    else:
        populations = [
            *(beta_population(mean, icc) for mean in (0.3, 0.7, 0.95) for icc in (0.1, 0.5)),
            always_and_sixty(),
            three_part(),
            u_shaped(),
        ]
        task_counts = (40, 80, 150)
    rows = [
        row
        for population in populations
        for tasks in task_counts
        for row in prediction_rows(population, tasks, replicates, resamples)
    ]
    return pd.DataFrame(rows)


def markdown(frame: pd.DataFrame, digits: int = 3) -> str:
    """Return a table as Markdown, floats to `digits` places and NaN as an empty cell."""

    def cell(value: object) -> str:
        if isinstance(value, float):
            return "" if np.isnan(value) else f"{value:.{digits}f}"
        return str(value)

    lines = [
        "| " + " | ".join(frame.columns) + " |",
        "|" + "|".join("---" for _ in frame.columns) + "|",
    ]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in frame.to_numpy()]
    return "\n".join(lines)


def main() -> None:
    """Run the three parts and print their tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few settings, for CI")
    quick = parser.parse_args().quick
    started = time.perf_counter()
    size = size_table(quick)
    print("## Size of the goodness-of-fit check (data from the plain model)\n")
    print(markdown(size))
    by_cells = size.groupby(["tasks", "runs"])[list(size.columns[4:])].mean().reset_index()
    print("\nAveraged over means and iccs:\n")
    print(markdown(by_cells))
    by_mean = size.groupby("mean")[list(size.columns[4:])].mean().reset_index()
    print("\nAveraged over sizes and iccs:\n")
    print(markdown(by_mean))
    print("\n## Power of the check, and the choice of the inflated model\n")
    print(markdown(power_table(quick)))
    print("\n## Predicting pass^10 from the first 5 runs of each task\n")
    print(markdown(prediction_table(quick)))
    print(f"\n({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
