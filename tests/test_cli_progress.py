"""The command's progress on stderr: a live line on a terminal, a line a stage when piped, none with --quiet.

The stages of the small graphs here are quicker than the half second after which progress
shows, so the end-to-end tests set :data:`grblas_gpu.cli.progress.SHOW_AFTER` to 0.
"""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pytest

from grblas_gpu import cli
from grblas_gpu.cli import progress

BC = ["bc", "--builtin", "grid", "--scale", "4", "--sources", "0,1,2,3,4,5,6,7,8,9", "--batch-size", "4"]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _without_times(text: str) -> str:
    return re.sub(r"\d+\.\d+ s\b", "T s", text)


def test_terminal_line_is_erased() -> None:
    tty = _Terminal()
    with cli.Progress("loading", stream=tty, delay=0.0):
        time.sleep(0.25)
    assert "loading" in tty.getvalue() and tty.getvalue().endswith("\r\033[K")
    assert "\n" not in tty.getvalue()


def test_terminal_counts_with_and_without_tqdm(monkeypatch: pytest.MonkeyPatch) -> None:
    tqdm = pytest.importorskip("tqdm")
    tty = _Terminal()
    with cli.Progress("computing bc", stream=tty, delay=0.0, unit="sources") as p:
        p.update(3, 12)
        time.sleep(0.4)
    assert "computing bc:  25%" in tty.getvalue() and "3/12" in tty.getvalue()  # tqdm's meter
    assert tqdm.tqdm.format_meter(3, 12, 0.0, prefix="x").startswith("x:  25%")
    monkeypatch.setattr(progress, "_tqdm", lambda: None)
    tty = _Terminal()
    with cli.Progress("loading g.e", stream=tty, delay=0.0, unit="B") as p:
        p.update(32_000_000, 128_000_000)
        time.sleep(0.4)
    assert "loading g.e: 32.0 of 128.0 MB (25%)" in tty.getvalue()


def test_piped_lines_and_quiet() -> None:
    pipe = io.StringIO()
    with cli.Progress("computing bc", stream=pipe, delay=0.0, unit="sources", interval=0.1) as p:
        p.update(2, 8)
        time.sleep(0.35)
    lines = pipe.getvalue().splitlines()
    assert lines[0] in ("grblas-gpu: computing bc ...", "grblas-gpu: computing bc: 2 of 8 sources (25%) ...")
    assert any(re.fullmatch(r"grblas-gpu: computing bc: 2 of 8 sources \(25%\), \d+ s so far", x) for x in lines)
    assert re.fullmatch(r"grblas-gpu: computing bc: done in \d+\.\d s", lines[-1])
    for mode, stream in (("off", _Terminal()), ("lines", io.StringIO())):
        with cli.Progress("loading", stream=stream, delay=0.0 if mode == "off" else 5.0, mode=mode):
            time.sleep(0.05)
        assert stream.getvalue() == ""  # quiet, or quicker than the delay


def test_command_piped_stage_lines_on_stderr(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    monkeypatch.setattr(progress, "SHOW_AFTER", 0.0)
    out_file = tmp_path / "bc.csv"
    assert cli.main([*BC, "-o", str(out_file)]) == 0
    shown = capsys.readouterr()
    err = shown.err.splitlines()
    for stage in ("generating the graph", "computing bc", f"writing {out_file}"):
        assert any(line.startswith(f"grblas-gpu: {stage}") for line in err), shown.err
        assert any(re.fullmatch(rf"grblas-gpu: {re.escape(stage)}: done in \d+\.\d s", line) for line in err)
    assert "grblas-gpu: computing bc: done in" in shown.err
    assert "computed: bc" in shown.out and "grblas-gpu:" not in shown.out
    result = out_file.read_text()
    assert cli.main([*BC, "-o", str(out_file), "--quiet"]) == 0
    quiet = capsys.readouterr()
    assert quiet.err == ""
    assert _without_times(quiet.out) == _without_times(shown.out)
    assert out_file.read_text() == result


def test_command_gives_the_readers_byte_counts(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    counts: dict[str, list[tuple[int, int | None]]] = {}
    update = progress.Progress.update

    def spy(self: progress.Progress, done: int, total: int | None = None) -> None:
        counts.setdefault(self.label, []).append((done, total))
        update(self, done, total)

    monkeypatch.setattr(progress.Progress, "update", spy)
    graph = tmp_path / "g.txt"
    graph.write_text("1 2\n2 3\n3 1\n")
    assert cli.main(["cc", str(graph), "-q"]) == 0
    assert counts["loading g.txt"][-1] == (12, 12)
    assert cli.main(BC[:-2] + ["--batch-size", "3", "-q"]) == 0
    assert counts["computing bc"] == [(0, 10), (3, None), (6, None), (9, None), (10, None)]
