"""Concept enumeration and Hasse diagram against brute force over all attribute subsets."""

from itertools import combinations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from logicrules.fca.concepts import Concept, concept_lattice, enumerate_concepts
from logicrules.fca.context import FormalContext


@st.composite
def small_incidences(draw, max_m=7, max_n=None):
    n = draw(st.one_of(st.sampled_from([0, 1, 63, 64, 65]), st.integers(0, 12))
             if max_n is None else st.integers(0, max_n))
    m = draw(st.integers(0, max_m))
    density = draw(st.sampled_from([0.2, 0.5, 0.8]))
    seed = draw(st.integers(0, 2**32 - 1))
    return np.random.default_rng(seed).random((n, m)) < density


def brute_force_concepts(X):
    """{(B', B'')} over every attribute subset B, from set-based prime operators."""
    n, m = X.shape
    found = set()
    for r in range(m + 1):
        for B in combinations(range(m), r):
            A = tuple(g for g in range(n) if all(X[g, j] for j in B))
            closed = tuple(j for j in range(m) if all(X[g, j] for g in A))
            found.add((A, closed))
    return found


def brute_force_covers(concepts):
    """(lower extent, upper extent) pairs of the cover relation, by checking every triple."""
    extents = [frozenset(a) for a, _ in concepts]
    covers = set()
    for u in extents:
        for v in extents:
            if u < v and not any(u < w < v for w in extents):
                covers.add((tuple(sorted(u)), tuple(sorted(v))))
    return covers


@settings(max_examples=80, deadline=None)
@given(X=small_incidences())
def test_concepts_match_brute_force(X):
    K = FormalContext(X)
    concepts = enumerate_concepts(K)
    assert all(isinstance(c, Concept) for c in concepts)
    assert len(concepts) == len(set(concepts))  # each concept once
    assert {(c.extent, c.intent) for c in concepts} == brute_force_concepts(X)
    top = concepts[0]
    assert top.extent == tuple(range(X.shape[0]))
    assert K.concepts() == concepts


@settings(max_examples=60, deadline=None)
@given(X=small_incidences(max_m=6))
def test_lattice_covers_match_brute_force(X):
    K = FormalContext(X)
    G = concept_lattice(K)
    concepts = enumerate_concepts(K)
    assert sorted(G.nodes) == list(range(len(concepts)))
    for i, c in enumerate(concepts):
        node = G.nodes[i]
        assert (node["extent"], node["intent"]) == (c.extent, c.intent)
        assert node["intent_names"] == tuple(K.attributes[j] for j in c.intent)
        assert node["extent_names"] == tuple(K.objects[g] for g in c.extent)
    edges = {(G.nodes[u]["extent"], G.nodes[v]["extent"]) for u, v in G.edges}
    assert edges == brute_force_covers(concepts)
    assert nx.is_directed_acyclic_graph(G)
    assert [v for v in G if G.out_degree(v) == 0] == [0]  # the top is the only maximal node
    assert sum(1 for v in G if G.in_degree(v) == 0) == 1  # a single bottom


LIVING_BEINGS = {  # Ganter & Wille, "living beings and water": 19 concepts
    "leech": "abg", "bream": "abgh", "frog": "abcgh", "dog": "acghi",
    "spike-weed": "abdf", "reed": "abcdf", "bean": "acde", "maize": "acdf",
}
PLANETS = {  # Wille's planets (small, medium, large, near, far, moon, no moon): 12 concepts
    "Mercury": "sN0", "Venus": "sN0", "Earth": "sNm", "Mars": "sNm", "Jupiter": "lFm",
    "Saturn": "lFm", "Uranus": "dFm", "Neptune": "dFm", "Pluto": "sFm",
}


def _table(rows, letters):
    return pd.DataFrame([[c in v for c in letters] for v in rows.values()],
                        index=list(rows), columns=list(letters))


@pytest.mark.parametrize("X, expected", [
    (_table(LIVING_BEINGS, "abcdefghi"), 19),
    (_table(PLANETS, "sdlNFm0"), 12),
    (np.eye(6, dtype=bool), 8),               # nominal scale: n atoms + top + bottom
    (~np.eye(6, dtype=bool), 64),             # contranominal scale: Boolean lattice 2**n
    (np.triu(np.ones((6, 6), dtype=bool)), 6),  # ordinal scale: a chain
])
def test_classic_contexts_have_known_concept_counts(X, expected):
    assert len(FormalContext(X).concepts()) == expected


def test_boolean_lattice_has_hypercube_covers():
    G = FormalContext(~np.eye(5, dtype=bool)).lattice()
    assert G.number_of_nodes() == 32 and G.number_of_edges() == 5 * 2**4


def test_lattice_node_names_use_labels():
    K = FormalContext(_table(PLANETS, "sdlNFm0"))
    G = K.lattice()
    by_intent = {G.nodes[v]["intent_names"]: G.nodes[v]["extent_names"] for v in G}
    assert by_intent[("s", "N")] == ("Mercury", "Venus", "Earth", "Mars")
    assert by_intent[("l", "F", "m")] == ("Jupiter", "Saturn")


def test_limit_raises_clear_error():
    K = FormalContext(~np.eye(5, dtype=bool))  # 32 concepts
    assert len(K.concepts(limit=32)) == 32
    assert len(K.concepts(limit=None)) == 32
    with pytest.raises(ValueError, match="more than limit=31 formal concepts"):
        K.concepts(limit=31)
    with pytest.raises(ValueError, match="more than limit=10 formal concepts"):
        K.lattice(limit=10)
    with pytest.raises(ValueError, match="limit must be >= 1"):
        K.concepts(limit=0)
    with pytest.raises(TypeError, match="limit must be a positive int or None"):
        K.concepts(limit=2.5)


def test_enumeration_scales_with_concepts_not_subsets():
    # 40 attributes but only a handful of concepts: brute force over 2**40 subsets is impossible
    rng = np.random.default_rng(1)
    base = rng.random((30, 4)) < 0.5
    X = np.repeat(base, 10, axis=1)  # each attribute repeated: at most 2**4 concepts
    concepts = FormalContext(X).concepts(limit=16)
    assert {(c.extent, tuple(j // 10 for j in c.intent[::10])) for c in concepts} == \
        brute_force_concepts(base)


@settings(max_examples=25, deadline=None)
@given(X=small_incidences(max_m=12, max_n=8), pairs=st.integers(1, 7), words=st.integers(1, 50))
def test_batched_and_chunked_paths_agree_with_brute_force(X, pairs, words):
    # tiny batches / chunks force the multi-batch code paths; m up to 12 packs intents in 2 bytes;
    # n <= 8 keeps the cubic brute-force cover check small (at most 2**8 concepts)
    from logicrules.fca import concepts as module

    K = FormalContext(X)
    old = module._PAIRS_PER_BATCH, module._CHUNK_WORDS
    module._PAIRS_PER_BATCH, module._CHUNK_WORDS = pairs, words
    try:
        G = concept_lattice(K)
    finally:
        module._PAIRS_PER_BATCH, module._CHUNK_WORDS = old
    concepts = [(G.nodes[v]["extent"], G.nodes[v]["intent"]) for v in sorted(G)]
    assert [tuple(c) for c in enumerate_concepts(K)] == concepts
    if X.shape[1] <= 8:
        assert set(concepts) == brute_force_concepts(X)
    edges = {(G.nodes[u]["extent"], G.nodes[v]["extent"]) for u, v in G.edges}
    assert edges == brute_force_covers(concepts)
