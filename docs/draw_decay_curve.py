"""Draw ``docs/_static/decay_curve.png``, the picture of the README and of docs/report.md.

Run it from anywhere with the project installed (``.venv/bin/python docs/draw_decay_curve.py``)
after a change to the plots or to the reference simulation, and commit the picture it writes.
It is the reference simulation's reliability curve (40 tasks, 5 runs each, p = 0.85, seed 42)
with predictions to k = 10, drawn by ``pk.plots.decay_curve`` in the shipped style.
"""

from pathlib import Path

OUT = Path(__file__).resolve().parent / "_static" / "decay_curve.png"


def main() -> None:
    """Draw the reference simulation's decay curve and write it to `OUT`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    import passk_lab as pk

    runs = pk.simulate_coin(p=0.85, tasks=40, k=5, seed=42)
    curve = pk.reliability_curve(runs, rng=0, predict_to=10)
    with pk.plots.style():
        fig, ax = plt.subplots(figsize=(8, 4.5))
        pk.plots.decay_curve(curve, ax=ax)
        ax.set_title("The reference simulation: 40 tasks, 5 runs each, p = 0.85")
        OUT.parent.mkdir(exist_ok=True)
        # no software version in the file, so that the same plot writes the same bytes
        fig.savefig(OUT, dpi=120, bbox_inches="tight", metadata={"Software": None})
    plt.close(fig)
    print(f"Wrote {OUT}")


if __name__ == "__main__":
    main()
