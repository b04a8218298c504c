"""Reading a contract's YAML: the fast loader reads as PyYAML's C safe loader does; hostile text stays a problem."""

from __future__ import annotations

import os
import random
import threading
from pathlib import Path

import pytest
import yaml

from toolproof.builtin.skills.yamlguard import too_deep
from toolproof.generator import source
from toolproof.generator.source import MAX_CONTRACT_BYTES, Interned, load_source

REPO = Path(__file__).resolve().parents[2]

SCALARS = """\
plain: [word, 12, -0, +7, 017, 0x1F, 0b101, 1_000, 1:30, 1.5, .5, 1e3, .inf, -.Inf, .nan, ~, null, '', yes, No, on, OFF]
dates: [2024-01-01, 2001-12-14t21:59:43.10-05:00, 2024-02-30]
quoted: ["12", '2024-01-01', "yes", 'null', "~"]
tagged: [!!str 12, !!int '7', !!float '1', !!bool 'true', !!null '', ! 12, !custom x, !!binary aGVsbG8=]
odd: [=, <<, -, '-', ':', '?x', '0o17', 1e, 1.5.6]
block: |
  text
folded: >
  more text
'<<': merged?
anchors: {a: &a 1, b: *a, c: &c [x, {y: z}], d: *c}
"""


def _tree(node: yaml.Node | None) -> object:
    """A node as plain data: kind, tag, value or children, and where it starts."""
    assert node is not None
    where = (node.start_mark.line, node.start_mark.column)
    if isinstance(node, yaml.ScalarNode):
        return ("scalar", node.tag, node.value, node.style, where)
    if isinstance(node, yaml.SequenceNode):
        return ("sequence", node.tag, [_tree(item) for item in node.value], where)
    return ("mapping", node.tag, [(_tree(k), _tree(v)) for k, v in node.value], where)


CONTRACTS = sorted((REPO / "toolproof/builtin/contracts").glob("*.yaml"))


@pytest.mark.parametrize("path", [None, *CONTRACTS], ids=["scalars", *(p.name for p in CONTRACTS)])
def test_the_fast_loader_composes_the_nodes_pyyaml_s_c_safe_loader_composes(path: Path | None) -> None:
    text = SCALARS if path is None else path.read_text(encoding="utf-8")

    assert _tree(yaml.compose(text, Loader=source._Loader)) == _tree(yaml.compose(text, Loader=yaml.CSafeLoader))


def test_a_value_its_tag_cannot_take_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "echo.yaml"
    path.write_text("name: echo\nflag: !!bool maybe\nsize: !!int 12\n", encoding="utf-8")

    loaded, problems = load_source(path, "echo.yaml")

    assert [str(p) for p in problems] == [
        "echo.yaml:2:7: error [TP010] 'maybe' cannot be read as YAML (not a bool value); quote it"
    ]
    assert loaded is not None
    assert loaded.data == {"name": "echo", "flag": "maybe", "size": 12}


def test_the_depth_check_answers_as_yamlguard_does() -> None:
    rng = random.Random(7)
    texts = [
        "k:\n" + " " * 900 + "v\n",
        "k:\n" + "- " * 450 + "v\n",
        "[" * 201 + "]" * 201,
        "a: " + "{" * 150 + "}" * 150 + "\n" + "b: " + "[" * 60 + "]" * 60,
        "x: 1\n" * 5000,
        *("".join(rng.choice(" \t-?:[]{}a\n") for _ in range(rng.randint(0, 1500))) for _ in range(500)),
        *("k:\n" + rng.choice([" ", "- ", "? ", ": ", "\t"]) * rng.randint(0, 500) + "v\n" for _ in range(500)),
    ]

    assert [source._too_deep(t) for t in texts] == [too_deep(t) for t in texts]
    assert any(too_deep(t) for t in texts) and not all(too_deep(t) for t in texts)


def test_files_read_in_one_load_share_equal_paths_and_positions(tmp_path: Path) -> None:
    text = "name: echo\ninput: {type: object}\nlist: [a, b]\n"
    (tmp_path / "a.yaml").write_text(text, encoding="utf-8")
    (tmp_path / "b.yaml").write_text(text, encoding="utf-8")
    interned: Interned = {}

    a, _ = load_source(tmp_path / "a.yaml", "a.yaml", interned=interned)
    b, _ = load_source(tmp_path / "b.yaml", "b.yaml", interned=interned)

    assert a is not None and b is not None
    assert a.marks == b.marks and a.key_marks == b.key_marks
    assert all(x is y for x, y in zip(a.marks, b.marks, strict=True))
    assert all(a.marks[path] is b.marks[path] for path in a.marks)
    assert a.where(("list", 1)) == (3, 11)


def _unblock(fifo: Path) -> None:
    """End a read waiting on ``fifo``: a writer opens it and leaves, so the reader sees an empty file."""
    try:
        os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    except OSError:  # no reader waits
        pass


def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "echo.yaml")
    rescue = threading.Timer(20, _unblock, [tmp_path / "echo.yaml"])  # were it read, fail rather than hang
    rescue.start()
    try:
        loaded, problems = load_source(tmp_path / "echo.yaml", "echo.yaml")
    finally:
        rescue.cancel()

    assert loaded is None
    assert [str(p) for p in problems] == ["echo.yaml:1:1: error [TP001] a FIFO, not a regular file"]


def test_a_device_is_refused_unread() -> None:
    loaded, problems = load_source(Path("/dev/zero"), "zero.yaml")

    assert loaded is None
    assert [str(p) for p in problems] == ["zero.yaml:1:1: error [TP001] a device, not a regular file"]


def test_a_file_larger_than_the_cap_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "echo.yaml"
    with path.open("wb") as file:
        file.truncate(MAX_CONTRACT_BYTES + 1)

    loaded, problems = load_source(path, "echo.yaml")

    assert loaded is None
    assert [str(p) for p in problems] == [
        "echo.yaml:1:1: error [TP001] larger than 8 MiB, the most a contract may hold"
    ]


def test_a_link_is_followed_inside_the_allowed_folders_and_refused_outside_them(tmp_path: Path) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    (project / "shared").mkdir(parents=True)
    elsewhere.mkdir()
    (project / "shared" / "a.yaml").write_text("name: a\n", encoding="utf-8")
    (elsewhere / "b.yaml").write_text("name: b\n", encoding="utf-8")
    (project / "a.yaml").symlink_to(project / "shared" / "a.yaml")
    (project / "b.yaml").symlink_to(elsewhere / "b.yaml")

    inside, inside_problems = load_source(project / "a.yaml", "a.yaml", within=(project,))
    outside, outside_problems = load_source(project / "b.yaml", "b.yaml", within=(project,))

    assert inside is not None and inside.data == {"name": "a"} and inside_problems == []
    assert outside is None
    assert [str(p) for p in outside_problems] == [
        f"b.yaml:1:1: error [TP001] a link to {elsewhere.resolve() / 'b.yaml'}, outside the project; "
        "a contract must lie inside it"
    ]
