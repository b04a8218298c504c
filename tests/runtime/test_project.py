"""Projects: settings found where a team keeps them, every mistake named, nothing served by accident."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from toolproof.runtime.errors import RegistryError
from toolproof.runtime.project import (
    PROJECT_ENV,
    ProjectError,
    activate,
    builtin_project,
    check_importable,
    find_project,
    load_config,
)
from toolproof.runtime.toolbox import included_builtin_specs
from toolproof.testing.replay import _project_key


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_a_pyproject_table_is_found_from_a_folder_below_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PROJECT_ENV, raising=False)
    _write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.toolproof]\nhandlers = "tools.handlers"\n')
    below = tmp_path / "src" / "deep"
    below.mkdir(parents=True)

    config = find_project(start=below)

    assert config.config_file == tmp_path / "pyproject.toml"
    assert (config.contracts, config.generated, config.package) == (
        tmp_path / "contracts",
        tmp_path / "generated",
        "generated",
    )
    assert config.handlers == "tools.handlers"
    assert config.source_roots == (tmp_path,)


def test_a_pyproject_without_the_table_is_not_a_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PROJECT_ENV, raising=False)
    _write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n')

    assert find_project(start=tmp_path).is_builtin


def test_a_toolproof_toml_may_hold_the_settings_at_its_top_level(tmp_path: Path) -> None:
    _write(tmp_path / "toolproof.toml", 'generated = "gen/out"\n')

    config = find_project(tmp_path)

    assert config.generated == tmp_path / "gen" / "out"
    assert config.package == "gen.out"


def test_the_environment_names_the_project_when_no_option_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _write(tmp_path / "toolproof.toml", "[tool.toolproof]\n")
    monkeypatch.setenv(PROJECT_ENV, str(tmp_path))

    assert find_project().root == tmp_path.resolve()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[tool.toolproof]\ncolour = 1\n", "unknown setting(s) colour; known: "),
        ("[tool.toolproof]\ninclude = 'gateway'\n", "include must be a list of non-empty strings"),
        ("[tool.toolproof]\nhandlers = 'my-handlers'\n", "handlers 'my-handlers' is not an importable dotted name"),
        ("[tool.toolproof]\ngenerated = 'class'\n", "package 'class' is not importable: 'class' is a Python keyword"),
        ("[tool.toolproof]\nhandlers = 'a.def'\n", "handlers 'a.def' is not importable: 'def' is a Python keyword"),
        ("[tool.toolproof]\ngenerated = '../out'\n", "generated = '../out' lies outside the project folder"),
        ("[tool.toolproof\n", "is not valid TOML"),
    ],
)
def test_a_wrong_setting_is_named_with_its_file(tmp_path: Path, text: str, message: str) -> None:
    settings = _write(tmp_path / "pyproject.toml", text)

    with pytest.raises(ProjectError) as info:
        load_config(settings)

    assert info.value.where == str(settings.resolve())
    assert message in info.value.message


def test_a_folder_that_is_no_project_is_refused_when_named(tmp_path: Path) -> None:
    with pytest.raises(ProjectError, match="is not a toolproof project"):
        find_project(tmp_path)


def test_a_named_folder_of_contracts_without_settings_gets_the_defaults(tmp_path: Path) -> None:
    (tmp_path / "contracts").mkdir()

    config = find_project(tmp_path)

    assert (config.package, config.handlers, config.config_file) == ("generated", "handlers", None)


def test_outside_any_project_the_built_in_tools_are_served(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PROJECT_ENV, raising=False)

    config = find_project(start=tmp_path)

    assert config == builtin_project()
    assert config.package == "toolproof.builtin.generated" and config.handlers == "toolproof.builtin.handlers"
    assert (config.contracts / "read_file.yaml").is_file()


def test_an_installed_package_that_shadows_the_generated_one_is_named(tmp_path: Path) -> None:
    _write(tmp_path / "toolproof.toml", "[tool.toolproof]\npackage = 'json'\ngenerated = 'out'\n")
    config = find_project(tmp_path)

    with pytest.raises(RegistryError) as info:
        check_importable(config)

    assert "package 'json' imports from" in info.value.problems[0]
    assert "not from the project's" in info.value.problems[0]


def test_a_generated_folder_without_its_init_is_named_with_the_command_that_writes_it(tmp_path: Path) -> None:
    _write(tmp_path / "toolproof.toml", "[tool.toolproof]\npackage = 'gen_no_init'\ngenerated = 'gen_no_init'\n")
    (tmp_path / "gen_no_init" / "contracts").mkdir(parents=True)
    config = find_project(tmp_path)
    before = list(sys.path)
    try:
        activate(config)
        with pytest.raises(RegistryError) as info:
            check_importable(config)
    finally:
        sys.path[:] = before
        sys.modules.pop("gen_no_init", None)

    assert info.value.problems == [
        f"{config.name}: generated package 'gen_no_init' has no __init__.py in {tmp_path / 'gen_no_init'}; "
        "run `toolproof gen`"
    ]


def test_activate_puts_the_source_roots_first_once(tmp_path: Path) -> None:
    _write(tmp_path / "toolproof.toml", "[tool.toolproof]\nsource-roots = ['src', '.']\n")
    config = find_project(tmp_path)
    before = list(sys.path)
    try:
        activate(config)
        activate(config)
        assert sys.path[:2] == [str(tmp_path / "src"), str(tmp_path)]
        assert sys.path.count(str(tmp_path)) == 1
    finally:
        sys.path[:] = before


def test_an_included_tool_set_that_does_not_exist_is_named_with_the_known_ones(tmp_path: Path) -> None:
    _write(tmp_path / "toolproof.toml", "[tool.toolproof]\ninclude = ['gateway', 'nope']\n")

    with pytest.raises(RegistryError) as info:
        included_builtin_specs(find_project(tmp_path))

    assert "include names no built-in tool set: nope (known: aintern, gateway" in info.value.problems[0]


def test_included_tool_sets_select_their_built_in_contracts(tmp_path: Path) -> None:
    _write(tmp_path / "toolproof.toml", "[tool.toolproof]\ninclude = ['gateway', 'queryclaw']\n")

    specs = included_builtin_specs(find_project(tmp_path))

    assert sorted(s.name for s in specs) == ["read_file", "read_skill", "use_skill"]  # queryclaw has the prompt too
    assert {s.package for s in specs} == {"toolproof.builtin.generated"}


def _owned_by_another_user(monkeypatch: pytest.MonkeyPatch, *paths: Path) -> int:
    """Make ``paths`` another user's, as far as the trust check sees: chown them as root, else run as another uid.

    Returns the uid that owns them now, which is neither ours nor root's.
    """
    if os.geteuid() == 0:
        for path in paths:
            os.chown(path, 4242, -1)
        return 4242
    owner = paths[0].stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)
    return owner


def test_a_project_found_above_that_another_user_owns_is_refused_naming_how_to_trust_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PROJECT_ENV, raising=False)
    monkeypatch.delenv("SUDO_UID", raising=False)
    settings = _write(tmp_path / "toolproof.toml", "[tool.toolproof]\n")
    below = tmp_path / "mine"
    below.mkdir()
    other = _owned_by_another_user(monkeypatch, settings, tmp_path)

    with pytest.raises(ProjectError) as refused:
        find_project(start=below)

    assert str(refused.value) == (
        f"{settings}: was found by searching up from here, but it or its folder belongs to another user "
        f"(uid {other}); toolproof runs a project's code, so it does not use one another user controls; "
        f"name it with --project {tmp_path} (or ${PROJECT_ENV}) to trust it"
    )
    assert find_project(tmp_path).config_file == settings  # named, it is trusted
    assert find_project(start=below, trusted_owner=other).config_file == settings  # as the owner of running code


def test_a_project_root_owns_is_found_by_anyone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PROJECT_ENV, raising=False)
    settings = _write(tmp_path / "toolproof.toml", "[tool.toolproof]\n")
    if os.geteuid() == 0:
        monkeypatch.setattr(os, "geteuid", lambda: 4242)  # a container's USER, over files its image copied as root
    else:
        monkeypatch.setattr(os, "stat", _as_root(os.stat))

    assert find_project(start=tmp_path).config_file == settings


def _as_root(real_stat: Any) -> Any:
    """``os.stat`` reporting every file as root's."""

    def stat(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        found = real_stat(path, *args, **kwargs)
        return os.stat_result((found.st_mode, found.st_ino, found.st_dev, found.st_nlink, 0, *found[5:10]))

    return stat


def test_a_generated_test_finds_its_project_whoever_runs_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PROJECT_ENV, raising=False)
    settings = _write(tmp_path / "toolproof.toml", "[tool.toolproof]\n")
    test_file = _write(tmp_path / "generated" / "tests" / "test_x.py", "")
    other = _owned_by_another_user(monkeypatch, settings, tmp_path, test_file)

    assert _project_key(test_file) == settings
    assert other != os.geteuid()


def test_under_sudo_a_project_of_the_invoking_user_is_found(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(PROJECT_ENV, raising=False)
    settings = _write(tmp_path / "toolproof.toml", "[tool.toolproof]\n")
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setenv("SUDO_UID", str(settings.stat().st_uid))

    assert find_project(start=tmp_path).config_file == settings


def test_a_project_found_in_a_folder_anyone_may_write_to_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PROJECT_ENV, raising=False)
    shared = tmp_path / "shared"
    _write(shared / "toolproof.toml", "[tool.toolproof]\n")
    shared.chmod(0o1777)

    with pytest.raises(ProjectError, match="in a folder anyone may write to"):
        find_project(start=shared)
