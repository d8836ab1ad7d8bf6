"""Study: does plan_evaluation's number of tasks give the half-width it promises.

Run ``python study/planning_assurance.py`` for the full grid (a couple of
minutes on one core) or ``--quick`` for a subset (under 20 s); both are seeded
and print Markdown tables.

For every setting of a grid (mean per-run rate p, intra-task correlation icc,
k, runs per task, target half-width h) the study asks ``plan_evaluation`` for
three plans:

* the expected-half-width plan (``assurance=None``), the older default;
* the assurance plans (``assurance=0.8`` and ``0.9``), the new default and a
  stricter one;
* for comparison, a plan against the normal half-width ``z * s / sqrt(T)`` at
  the same assurance, s the sample standard deviation of the T per-task
  estimates, with a normal approximation to the law of s^2 from the exact
  fourth central moment of one task's estimate (the approximation an earlier
  study proposed); written here, not in the library.

It then simulates evaluations of each planned size under the planning model
(task rates drawn from Beta(mean p, icc), runs binomial given the rate), and
measures the share of evaluations whose half-width ``(high - low) / 2`` is at
most h, for two intervals written here from their definitions, not taken from
the library:

* ``cp_neff``: the interval a curve reports by default -- Clopper-Pearson on
  the tasks that passed all k runs at k runs per task; elsewhere
  Clopper-Pearson at ``m * n`` of ``n = m (1 - m) / Var(m)`` effective tasks,
  ``Var(m) = SS / ((T - 1)(T + 2))`` with SS the squared deviations of the T
  values and a pseudo-task at 0 and one at 1 from their mean, n at most
  ``T * (runs // k)`` and n = T where every value is 0 or every value is 1;
* ``normal``: ``z * s / sqrt(T)``.

The script ends with a check of ``zero_failure_runs`` for tasks that differ:
the chance that a population with mean rate p0 passes every planned run,
by simulation of task rates.
"""

from __future__ import annotations

import argparse
import itertools
import math
import time

import numpy as np
import pandas as pd
from scipy import special, stats

import passk_lab as pk

LEVEL = 0.95
Z = float(stats.norm.ppf(0.5 + LEVEL / 2))


def task_law(p: float, icc: float, runs: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Values C(c, k) / C(runs, k) for c = 0..runs and their chances under the model."""
    c = np.arange(runs + 1)
    values = special.comb(c, k) / math.comb(runs, k)
    if icc == 0:
        chances = stats.binom.pmf(c, runs, p)
    else:
        a, b = p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc
        chances = np.exp(
            special.gammaln(runs + 1)
            - special.gammaln(c + 1)
            - special.gammaln(runs - c + 1)
            + special.betaln(c + a, runs - c + b)
            - special.betaln(a, b)
        )
    return values, chances / chances.sum()


def normal_plan(h: float, p: float, k: int, icc: float, runs: int, assurance: float) -> int:
    """Smallest T with P(z s / sqrt(T) <= h) >= assurance, s^2 taken as normal (exact moments)."""
    values, chances = task_law(p, icc, runs, k)
    mu = chances @ values
    var = chances @ (values - mu) ** 2
    mu4 = chances @ (values - mu) ** 4
    za = stats.norm.ppf(assurance)
    tasks = max(2, math.ceil((Z * math.sqrt(var) / h) ** 2))
    while True:
        var_s2 = max(mu4 / tasks - var**2 * (tasks - 3) / (tasks * (tasks - 1)), 0.0)
        if var + za * math.sqrt(var_s2) <= tasks * h * h / Z**2:
            return tasks
        tasks += 1


def half_widths(values: np.ndarray, runs: int, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Per evaluation (a row of per-task values): the cp_neff and the normal half-widths."""
    tasks = values.shape[1]
    m = values.mean(axis=1)
    s = values.std(axis=1, ddof=1)
    normal = Z * s / math.sqrt(tasks)
    if runs == k:
        trials = np.full(len(m), float(tasks))
    else:
        padded = np.hstack([values, np.zeros((len(m), 1)), np.ones((len(m), 1))])
        squares = ((padded - padded.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
        variance = squares / ((tasks - 1) * (tasks + 2))
        effective = np.minimum(m * (1 - m) / variance, tasks * (runs // k))
        trials = np.where((m > 0) & (m < 1), effective, float(tasks))
    x = m * trials
    tail = (1 - LEVEL) / 2
    with np.errstate(all="ignore"):
        low = np.where(x > 0, stats.beta.ppf(tail, x, trials - x + 1), 0.0)
        high = np.where(x < trials, stats.beta.ppf(1 - tail, x + 1, trials - x), 1.0)
    return (high - low) / 2, normal


def simulate(rng, p, icc, runs, k, tasks, h, reps) -> tuple[float, float, float]:
    """Share of `reps` evaluations of `tasks` tasks reaching h: cp_neff, normal; cp median."""
    shares = np.zeros(2)
    medians = []
    chunk = max(1, 2_000_000 // max(tasks, 1))  # evaluations a block, to bound memory
    done = 0
    while done < reps:
        size = min(chunk, reps - done)
        if icc == 0:
            rates = np.full((size, tasks), p)
        else:
            rates = rng.beta(p * (1 - icc) / icc, (1 - p) * (1 - icc) / icc, size=(size, tasks))
        passes = rng.binomial(runs, rates)
        values = special.comb(passes, k) / math.comb(runs, k)
        cp, normal = half_widths(values, runs, k)
        shares += [(cp <= h).sum(), (normal <= h).sum()]
        medians.append(cp)
        done += size
    return shares[0] / reps, shares[1] / reps, float(np.median(np.concatenate(medians)))


def grid(quick: bool) -> list[tuple[float, float, int, int, float]]:
    """Return the settings (h, p, k, runs, icc); every fourth for --quick."""
    cells = []
    for h, p, k in itertools.product([0.05, 0.1], [0.5, 0.7, 0.85, 0.95], [1, 3, 5]):
        for runs in (k, 2 * k):
            for icc in (0.0, 0.1, 0.2, 0.4):
                if runs == 1 and icc > 0:
                    continue  # one run of each task: icc cannot matter
                cells.append((h, p, k, runs, icc))
    return cells[::4] if quick else cells


def md(frame: pd.DataFrame, index: bool = False) -> str:
    """Return a Markdown table (pandas' own needs the optional tabulate)."""
    if index:
        frame = frame.reset_index()
    lines = ["| " + " | ".join(map(str, frame.columns)) + " |", "|" + "---|" * frame.shape[1]]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join("" if pd.isna(v) else str(v) for v in row) + " |")
    return "\n".join(lines)


def plans_study(args) -> pd.DataFrame:
    """Return one row per setting and plan: its tasks and the shares reaching h."""
    rng = np.random.default_rng(args.seed)
    reps = args.reps or (400 if args.quick else 2000)
    rows = []
    for h, p, k, runs, icc in grid(args.quick):
        setting = {"half_width": h, "p": p, "k": k, "runs": runs, "icc": icc}

        def plan(assurance, h=h, p=p, k=k, runs=runs, icc=icc):
            frame = pk.plan_evaluation(h, p, k, runs_per_task=runs, icc=icc, assurance=assurance)
            return frame.iloc[0]

        old = plan(None)
        t_old = int(old["n_tasks"])
        cp, normal, median = simulate(rng, p, icc, runs, k, t_old, h, reps)
        rows.append(
            {
                **setting,
                "plan": "expected",
                "assurance": np.nan,
                "tasks": t_old,
                "reported": old["assurance"],
                "cp_neff": cp,
                "normal": normal,
                "median_cp": median,
                "extra": 0.0,
            }
        )
        for assurance in (0.5, 0.8, 0.9):
            new = plan(assurance)
            tasks = int(new["n_tasks"])
            cp, normal, median = simulate(rng, p, icc, runs, k, tasks, h, reps)
            rows.append(
                {
                    **setting,
                    "plan": "assurance",
                    "assurance": assurance,
                    "tasks": tasks,
                    "reported": new["assurance"],
                    "cp_neff": cp,
                    "normal": normal,
                    "median_cp": median,
                    "extra": tasks / t_old - 1,
                }
            )
            if assurance == 0.5:
                continue  # the median plan: only to split the cost of the assurance off
            tasks = normal_plan(h, p, k, icc, runs, assurance)
            cp, normal, median = simulate(rng, p, icc, runs, k, tasks, h, reps)
            rows.append(
                {
                    **setting,
                    "plan": "normal_s",
                    "assurance": assurance,
                    "tasks": tasks,
                    "reported": np.nan,
                    "cp_neff": cp,
                    "normal": normal,
                    "median_cp": median,
                    "extra": tasks / t_old - 1,
                }
            )
    frame = pd.DataFrame(rows)
    frame.attrs["reps"] = reps
    return frame


KEYS = ["half_width", "p", "k", "runs", "icc"]


def summarise(res: pd.DataFrame) -> None:
    """Print the summary tables and every setting."""
    reps = res.attrs["reps"]
    print(
        f"\n{len(res[res.plan == 'expected'])} settings, {reps} simulated evaluations each plan\n"
    )
    print("### Share of evaluations reaching the half-width, over the settings\n")
    print(
        "cp_neff: the interval a curve reports; normal: z s / sqrt(T). extra: tasks over the "
        "expected plan's.\n"
    )
    table = (
        res.assign(target=res.assurance.map(lambda a: "-" if np.isnan(a) else str(a)))
        .groupby(["plan", "target"])
        .agg(
            cp_neff_min=("cp_neff", "min"),
            cp_neff_median=("cp_neff", "median"),
            cp_neff_max=("cp_neff", "max"),
            normal_min=("normal", "min"),
            normal_median=("normal", "median"),
            tasks_median=("tasks", "median"),
            extra_median=("extra", "median"),
            extra_max=("extra", "max"),
        )
        .round(3)
    )
    print(md(table, index=True))
    new = res[res.plan == "assurance"].copy()
    # a cell misses when its share is below the target by more than sampling error
    # (one-sided binomial test at 0.001 per cell)
    floor = new.assurance.map(lambda a: stats.binom.ppf(0.001, reps, a) / reps)
    new["misses"] = new.cp_neff < floor
    print(
        f"\nassurance plans below their target beyond sampling error (binomial, 0.001 a cell): "
        f"{int(new.misses.sum())} of {len(new)}; "
        f"largest gap between the simulated share and the plan's own `assurance` column: "
        f"{(new.cp_neff - new.reported).abs().max():.3f}"
    )
    expected = res[res.plan == "expected"].set_index(KEYS)
    median = new[new.assurance == 0.5].set_index(KEYS)
    wide = new[new.assurance == 0.8].set_index(KEYS)
    wide = wide.assign(
        expected_reach=expected.cp_neff,
        median_plan_reach=median.cp_neff,
        interval_cost=median.tasks / expected.tasks - 1,
        assurance_cost=wide.tasks / median.tasks - 1,
    ).reset_index()
    wide["runs_per_task"] = np.where(wide.runs == wide.k, "k", "2k")
    aggregate = {
        "settings": ("tasks", "size"),
        "expected_reach_median": ("expected_reach", "median"),
        "reach_min": ("cp_neff", "min"),
        "reach_median": ("cp_neff", "median"),
        "interval_cost_median": ("interval_cost", "median"),
        "assurance_cost_median": ("assurance_cost", "median"),
        "assurance_cost_max": ("assurance_cost", "max"),
        "extra_median": ("extra", "median"),
        "extra_max": ("extra", "max"),
    }
    print(
        "\n### The assurance-0.8 plan by k and runs per task\n\n"
        "interval_cost: tasks of the assurance-0.5 (median) plan over the expected plan's, the "
        "price of planning on the interval reported; assurance_cost: tasks of the 0.8 plan over "
        "the median plan's; extra: the 0.8 plan over the expected plan.\n"
    )
    print(md(wide.groupby(["k", "runs_per_task"]).agg(**aggregate).round(3), index=True))
    print("\n### The assurance-0.8 plan by p and icc\n")
    print(md(wide.groupby(["p", "icc"]).agg(**aggregate).round(3), index=True))
    print("\n### The settings where the 0.8 plan costs most over the expected plan\n")
    cols = [*KEYS, "tasks", "expected_reach", "cp_neff", "interval_cost", "assurance_cost", "extra"]
    print(md(wide.nlargest(8, "extra")[cols].round(3)))
    print("\n### Every setting (cp_neff and normal: the shares reaching the half-width)\n")
    cols = [*KEYS, "plan", "assurance", "tasks", "reported", "cp_neff", "normal", "median_cp"]
    print(md(res[[*cols, "extra"]].round(3)))


def zero_failure_study(args) -> None:
    """Print the simulated chance that a population of mean rate p0 passes every planned run."""
    rng = np.random.default_rng(args.seed + 1)
    draws = 20_000 if args.quick else 200_000
    rows = []
    for p0, icc, per_task in itertools.product([0.9, 0.95, 0.99], [0.1, 0.3], [1, 5, 20]):
        independent = pk.zero_failure_runs(p0)
        runs = pk.zero_failure_runs(p0, icc=icc, runs_per_task=per_task)
        a, b = p0 * (1 - icc) / icc, (1 - p0) * (1 - icc) / icc
        # chance that the independent answer's runs, spread per_task to a task, all pass
        tasks_indep = math.ceil(independent / per_task)
        rates = rng.beta(a, b, size=(draws, tasks_indep))
        naive = float(np.mean(np.prod(rates**per_task, axis=1)))
        rates = rng.beta(a, b, size=(draws, runs // per_task))
        planned = float(np.mean(np.prod(rates**per_task, axis=1)))
        rows.append(
            {
                "p0": p0,
                "icc": icc,
                "runs_per_task": per_task,
                "independent_runs": independent,
                "passes_then": round(naive, 3),
                "heterogeneous_runs": runs,
                "tasks": runs // per_task,
                "passes_then_heterogeneous": round(planned, 4),
            }
        )
    # 59 runs on one task at mean 0.95, icc 0.1: the independent answer's figure
    rates = rng.beta(0.95 * 9, 0.05 * 9, size=draws)
    print(
        "\n### zero_failure_runs when tasks differ (95% confidence: the chance should be <= 0.05)\n"
    )
    print(
        f"59 straight passes on one task, mean 0.95, icc 0.1: simulated chance "
        f"{np.mean(rates**59):.3f}\n"
    )
    print(md(pd.DataFrame(rows)))


def main() -> None:
    """Run the study from the command line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a subset of the grid, few repeats")
    parser.add_argument("--reps", type=int, default=0, help="evaluations simulated per plan")
    parser.add_argument("--seed", type=int, default=17)
    args = parser.parse_args()
    start = time.perf_counter()
    print("## plan_evaluation: the share of evaluations that reach the planned half-width")
    summarise(plans_study(args))
    zero_failure_study(args)
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
