"""LDBC Graphalytics conformance for CDLP (exact) and LCC (1e-4 relative) on every
``test-*`` and ``example-*`` graph of the shared validation data that lists them."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SHARED_DATA
from grblas_gpu.algorithms.cdlp import cdlp
from grblas_gpu.algorithms.lcc import local_clustering_coefficient

from grblas_gpu.io import parse_properties, read_graphalytics, read_graphalytics_output

DATA = SHARED_DATA / "graphalytics"


def graphs_with(algorithm: str) -> list[str]:
    """Names of the graphs whose ``.properties`` list ``algorithm`` (lower case)."""
    if not DATA.is_dir():
        return []
    names = []
    for props in sorted(DATA.glob("*.properties")):
        name = props.name.removesuffix(".properties")
        algorithms = parse_properties(props, name).get("algorithms", [])
        if name.startswith(("test-", "example-")) and algorithm in algorithms:
            names.append(name)
    return names


def skip_without_data(names: list[str]) -> list:
    reason = f"Graphalytics validation data not found in {DATA}"
    return names or [pytest.param("", marks=pytest.mark.skip(reason=reason))]


@pytest.mark.parametrize("name", skip_without_data(graphs_with("cdlp")))
def test_cdlp(backend: str, name: str) -> None:
    g = read_graphalytics(DATA / name, backend=backend)
    iterations = g.properties["cdlp.max-iterations"]
    labels = cdlp(g.matrix, max_iter=iterations, directed=g.directed).to_dense()
    got = {int(g.ids[v]): int(g.ids[label]) for v, label in enumerate(labels)}  # labels are vertex rows
    assert got == read_graphalytics_output(DATA / f"{name}-CDLP")


@pytest.mark.parametrize("name", skip_without_data(graphs_with("lcc")))
def test_lcc(backend: str, name: str) -> None:
    g = read_graphalytics(DATA / name, backend=backend)
    got = local_clustering_coefficient(g.matrix, directed=g.directed).to_dense()
    expected_by_id = read_graphalytics_output(DATA / f"{name}-LCC")
    assert sorted(expected_by_id) == g.ids.tolist()
    expected = np.array([expected_by_id[int(i)] for i in g.ids], dtype=np.float64)
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=0)


def test_every_conformance_graph_is_found() -> None:
    if not DATA.is_dir():
        pytest.skip(f"Graphalytics validation data not found in {DATA}")
    assert len(graphs_with("cdlp")) == 4 and len(graphs_with("lcc")) == 4
