"""Formal concept analysis on a classic small context: prime operators, concepts, the lattice.
===========================================================================================

The "planets" context (Wille's teaching example): nine planets (objects) described by their
size, their distance from the sun and whether they have a moon (attributes). We compute the
prime (derivation) operators by hand, check the definition of a formal concept, list every
concept and draw the concept lattice.

Run:  python examples/01_formal_context_and_lattice.py --out example_output/01
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # draw into files, no window needed

import pandas as pd

from logicrules.fca.context import FormalContext
from logicrules.plot import plot_lattice


def planets() -> FormalContext:
    """The context as a 0/1 table: rows are objects, columns attributes."""
    table = pd.DataFrame(
        [
            # small medium large near far moon no_moon
            [1, 0, 0, 1, 0, 0, 1],  # Mercury
            [1, 0, 0, 1, 0, 0, 1],  # Venus
            [1, 0, 0, 1, 0, 1, 0],  # Earth
            [1, 0, 0, 1, 0, 1, 0],  # Mars
            [0, 0, 1, 0, 1, 1, 0],  # Jupiter
            [0, 0, 1, 0, 1, 1, 0],  # Saturn
            [0, 1, 0, 0, 1, 1, 0],  # Uranus
            [0, 1, 0, 0, 1, 1, 0],  # Neptune
            [1, 0, 0, 0, 1, 1, 0],  # Pluto
        ],
        columns=["small", "medium", "large", "near", "far", "moon", "no moon"],
        index=["Mercury", "Venus", "Earth", "Mars", "Jupiter", "Saturn", "Uranus", "Neptune", "Pluto"],
    )
    return FormalContext(table)


def main(argv=None):
    parser = argparse.ArgumentParser(description=(__doc__ or "").partition("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("example_output/01"), help="folder for the outputs")
    parser.add_argument("--fast", action="store_true", help="(no effect: this example is always fast)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)

    K = planets()
    print(K)

    def names(indices, labels):
        return [labels[i] for i in indices]

    # Prime operator on attributes: B' = the objects having every attribute of B (the extent).
    B = ["small", "moon"]
    print(f"{B}' =", names(K.extent(B), K.objects))
    # Prime operator on objects: A' = the attributes shared by every object of A (the intent).
    A = [K.objects.index("Earth"), K.objects.index("Pluto")]
    print(f"{names(A, K.objects)}' =", names(K.intent(A), K.attributes))
    # Closure B'' : every planet that is far has a moon, so {far}'' = {far, moon}.
    print("{far}'' =", names(K.closure(["far"]), K.attributes))

    # A formal concept is a pair (A, B) with A' = B and B' = A; concepts() lists them all.
    concepts = K.concepts()
    rows = []
    for c in concepts:
        assert tuple(K.intent(list(c.extent))) == c.intent      # A' = B
        assert tuple(K.extent(list(c.intent))) == c.extent      # B' = A
        rows.append({"extent": ", ".join(names(c.extent, K.objects)) or "(none)",
                     "intent": ", ".join(names(c.intent, K.attributes)) or "(none)"})
    table = pd.DataFrame(rows)
    print(f"\n{len(concepts)} concepts:\n{table.to_string(index=False)}")
    table.to_csv(args.out / "concepts.csv", index=False)

    # The lattice: ordered by extent inclusion; read an attribute's label at the most general
    # concept having it and an object's label at the most specific concept holding it.
    graph = K.lattice()
    print(f"\nHasse diagram: {graph.number_of_nodes()} nodes, {graph.number_of_edges()} edges")
    ax = plot_lattice(graph)
    ax.set_title("Planets: concept lattice")
    ax.figure.savefig(args.out / "lattice.png", dpi=120, bbox_inches="tight")
    print(f"wrote {args.out / 'concepts.csv'} and {args.out / 'lattice.png'}")


if __name__ == "__main__":
    main()
