"""The form of a rewritten link on the folder: `vaultlink mv` writes links as the vault's
`.obsidian/app.json` asks ("New link format"), and `--link-form keep` keeps each link's form.
The cases in full are in crates/core/tests/spec/link_form.md."""

import subprocess

from conftest import SIDECAR


def make_vault(tmp_path, app_json):
    vault = tmp_path / "v"
    (vault / "n").mkdir(parents=True)
    (vault / "n" / "A.md").write_text("[[T]] and [t](T.md)\n")
    (vault / "T.md").write_text("# T\n")
    if app_json is not None:
        (vault / ".obsidian").mkdir()
        (vault / ".obsidian" / "app.json").write_text(app_json)
    return vault


def mv(vault, *flags):
    done = subprocess.run(
        [str(SIDECAR), "mv", str(vault), "T.md", "sub/U.md", "--mode", "standalone", *flags],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done
    return (vault / "n" / "A.md").read_text()


def test_mv_writes_the_vaults_new_link_format(tmp_path):
    vault = make_vault(tmp_path, '{"newLinkFormat": "relative"}')
    assert mv(vault) == "[[../sub/U]] and [t](../sub/U.md)\n"


def test_mv_writes_the_shortest_form_when_app_json_is_not_json(tmp_path):
    vault = make_vault(tmp_path, "{ not json")
    assert mv(vault) == "[[U]] and [t](U.md)\n"


def test_link_form_keep_keeps_each_links_form(tmp_path):
    vault = make_vault(tmp_path, '{"newLinkFormat": "absolute"}')
    assert mv(vault, "--link-form", "keep") == "[[U]] and [t](../sub/U.md)\n"


def test_an_unknown_link_form_is_refused_before_anything_is_written(tmp_path):
    vault = make_vault(tmp_path, None)
    done = subprocess.run(
        [str(SIDECAR), "mv", str(vault), "T.md", "sub/U.md", "--link-form", "nearest"], capture_output=True, text=True
    )
    assert done.returncode != 0
    assert "possible values: obsidian, keep" in done.stderr
    assert (vault / "T.md").exists() and (vault / "n" / "A.md").read_text() == "[[T]] and [t](T.md)\n"
