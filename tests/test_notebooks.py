"""Execute every notebook in notebooks/ top to bottom on the CPU (NumPy) backend.

Each notebook runs in a fresh kernel with ``GRBLAS_GPU_BACKEND=numpy``; any cell that raises
fails the test.  Skips, saying why, where nbclient / nbformat / ipykernel are not installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parent.parent / "notebooks").glob("*.ipynb"))
CELL_TIMEOUT_S = 300

nbformat = pytest.importorskip("nbformat", reason="nbformat is not installed (pip install nbformat)")
nbclient = pytest.importorskip("nbclient", reason="nbclient is not installed (pip install nbclient)")
pytest.importorskip("ipykernel", reason="ipykernel is not installed (pip install ipykernel)")
pytest.importorskip("matplotlib", reason="matplotlib is not installed (the notebooks draw with it)")


def test_notebooks_exist():
    assert NOTEBOOKS, "no notebooks found in notebooks/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The kernel is a child process: it inherits this environment.
    monkeypatch.setenv("GRBLAS_GPU_BACKEND", "numpy")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        nb,
        timeout=CELL_TIMEOUT_S,
        kernel_name="python3",
        allow_errors=False,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, f"{path.name}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
