"""``Workspace.locate``: an absolute path in any spelling of a root, compared component by component."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.builtin.files.workspace import Workspace


def _parts(path: str | Path) -> list[str]:
    return [part for part in str(path).split("/") if part]


@pytest.fixture
def linked(tmp_path: Path) -> tuple[Path, Path]:
    """(``real``, ``link`` -> ``real``)."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    return real, tmp_path / "link"


def test_a_root_given_through_a_link_keeps_its_spelling_beside_its_real_path(linked: tuple[Path, Path]) -> None:
    real, link = linked

    workspace = Workspace.of([link])

    assert workspace.roots == (real,)
    assert workspace.spellings == ((str(real), str(link)),)


def test_a_root_given_by_its_real_path_has_one_spelling(linked: tuple[Path, Path]) -> None:
    real, _ = linked

    assert Workspace.of([real]).spellings == ((str(real),),)


def test_a_relative_or_dotted_root_is_spelled_absolute(
    linked: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    real, link = linked
    monkeypatch.chdir(link.parent)

    assert Workspace.of(["./real/../link/"]).spellings == ((str(real), str(link)),)


@pytest.mark.parametrize("spelling", ["real", "link"])
def test_either_spelling_locates_the_real_root_and_what_lies_below(linked: tuple[Path, Path], spelling: str) -> None:
    real, link = linked
    workspace = Workspace.of([link])

    assert workspace.locate(_parts(f"{real.parent}/{spelling}/a/../b.txt")) == (real, ["a", "..", "b.txt"])
    assert workspace.locate(_parts(f"{real.parent}/{spelling}")) == (real, [])


@pytest.mark.parametrize("path", ["real-evil/x", "lin/x", "link-evil/x", "", "other/real/x"])
def test_a_path_in_no_spelling_of_a_root_is_not_located(linked: tuple[Path, Path], path: str) -> None:
    real, link = linked

    assert Workspace.of([link]).locate(_parts(f"{real.parent}/{path}")) is None


def test_the_longest_spelling_wins_for_nested_roots(tmp_path: Path) -> None:
    inner = tmp_path / "outer" / "inner"
    inner.mkdir(parents=True)
    workspace = Workspace.of([tmp_path / "outer", inner])

    assert workspace.locate(_parts(inner / "x")) == (inner, ["x"])
    assert workspace.locate(_parts(tmp_path / "outer" / "x")) == (tmp_path / "outer", ["x"])


def test_first_limits_the_roots_considered(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    workspace = Workspace.of([one, two])

    assert workspace.locate(_parts(two / "x"), first=1) is None
    assert workspace.locate(_parts(one / "x"), first=1) == (one, ["x"])


def test_a_workspace_built_from_roots_alone_locates_by_them(tmp_path: Path) -> None:
    assert Workspace((tmp_path,)).locate(_parts(tmp_path / "x")) == (tmp_path, ["x"])


def test_a_spelling_that_cleaning_made_name_another_folder_is_dropped(tmp_path: Path) -> None:
    deep = tmp_path / "far" / "deep"
    deep.mkdir(parents=True)
    (tmp_path / "far" / "ws").mkdir()  # what "near/link/../ws" names: ".." of the link's target
    (tmp_path / "near").mkdir()
    (tmp_path / "near" / "link").symlink_to(deep)
    (tmp_path / "near" / "ws").mkdir()  # what it names when ".." is removed as written

    workspace = Workspace.of([tmp_path / "near" / "link" / ".." / "ws"])

    assert workspace.roots == (tmp_path / "far" / "ws",)
    assert workspace.spellings == ((str(tmp_path / "far" / "ws"),),)
