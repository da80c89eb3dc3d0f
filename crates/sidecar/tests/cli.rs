//! The command line as people run it: the built `vaultlink` binary on the sample vault.

use std::process::Command;

fn vaultlink(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_vaultlink")).args(args).output().expect("the binary runs");
    (
        output.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

fn sample() -> String {
    format!("{}/../../examples/vault", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn summary_counts_the_sample_vault() {
    let (status, stdout, stderr) = vaultlink(&["summary", &sample(), "--json"]);
    assert_eq!(status, 0, "{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).expect("JSON on stdout");
    assert_eq!(summary["notes"], 16);
    assert!(summary["links"].as_u64().unwrap_or(0) > summary["unresolved_links"].as_u64().unwrap_or(u64::MAX));
    let (status, text, _) = vaultlink(&["summary", &sample()]);
    assert_eq!(status, 0);
    assert!(text.contains("notes             16"), "{text}");
}

#[test]
fn a_missing_vault_is_a_clear_error_with_status_2() {
    let (status, stdout, stderr) = vaultlink(&["summary", "/nonexistent/vault"]);
    assert_eq!(status, 2);
    assert!(stdout.is_empty());
    assert!(stderr.contains("/nonexistent/vault"), "{stderr}");
}

/// A vault folder with a canvas (tab-indented JSON, as Obsidian writes it) whose file card and
/// text card point at `Notes/Plan.md`.
fn vault_with_canvas() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir_all(dir.path().join("Notes")).expect("a folder");
    std::fs::create_dir_all(dir.path().join("Boards")).expect("a folder");
    std::fs::write(dir.path().join("Notes/Plan.md"), "# Plan\n").expect("a note");
    std::fs::write(dir.path().join("Home.md"), "[[Plan]]\n").expect("a note");
    std::fs::write(dir.path().join("Boards/Board.canvas"), CANVAS).expect("a canvas");
    dir
}

const CANVAS: &str = "{\n\t\"nodes\":[\n\t\t{\"id\":\"a1\",\"type\":\"file\",\"file\":\"Notes/Plan.md\",\"subpath\":\"#Plan\",\"x\":0,\"y\":0,\"width\":400,\"height\":400},\n\t\t{\"id\":\"b2\",\"type\":\"text\",\"text\":\"Next: [[Plan]]\\nand \\\"more\\\"\",\"x\":0,\"y\":500,\"width\":250,\"height\":60}\n\t],\n\t\"edges\":[]\n}\n";

#[test]
fn mv_rewrites_a_canvas_on_disk_and_counts_its_links() {
    let dir = vault_with_canvas();
    let vault = dir.path().to_str().expect("a UTF-8 path");
    let (status, stdout, stderr) = vaultlink(&["backlinks", vault, "Notes/Plan.md", "--json", "--mode", "standalone"]);
    assert_eq!(status, 0, "{stderr}");
    let backlinks: serde_json::Value = serde_json::from_str(&stdout).expect("JSON on stdout");
    let sources: Vec<&str> = backlinks.as_array().expect("a list").iter().filter_map(|link| link["source"].as_str()).collect();
    assert_eq!(sources, ["Boards/Board.canvas", "Boards/Board.canvas", "Home.md"], "{stdout}");

    let (status, stdout, stderr) = vaultlink(&["mv", vault, "Notes/Plan.md", "Archive/Plan 2026.md", "--json", "--mode", "standalone"]);
    assert_eq!(status, 0, "{stderr}");
    let answer: serde_json::Value = serde_json::from_str(&stdout).expect("JSON on stdout");
    assert_eq!(answer["links_changed"], 3, "{stdout}");
    assert_eq!(answer["notes_edited"], 2, "{stdout}");
    let canvas = std::fs::read_to_string(dir.path().join("Boards/Board.canvas")).expect("the canvas is still there");
    let expected = CANVAS.replace("\"file\":\"Notes/Plan.md\"", "\"file\":\"Archive/Plan 2026.md\"").replace("[[Plan]]", "[[Plan 2026]]");
    assert_eq!(canvas, expected, "only the two targets changed, the JSON kept its form");

    // A file card naming a missing file is a broken link the lint reports, naming the canvas.
    std::fs::write(dir.path().join("Boards/Board.canvas"), CANVAS).expect("the old canvas again");
    let (status, stdout, _) = vaultlink(&["lint", vault, "--kinds", "unresolved_link", "--json", "--mode", "standalone"]);
    assert_eq!(status, 1, "findings exit with status 1");
    let report: serde_json::Value = serde_json::from_str(&stdout).expect("JSON on stdout");
    let subjects: Vec<(&str, &str)> = report["proposals"]
        .as_array()
        .expect("proposals")
        .iter()
        .map(|proposal| (proposal["subject"].as_str().unwrap_or(""), proposal["related"][0].as_str().unwrap_or("")))
        .collect();
    assert_eq!(subjects, [("Notes/Plan.md", "Boards/Board.canvas"), ("Plan", "Boards/Board.canvas")], "{stdout}");
}

/// A vault of one cycle (`A -> B -> C -> A`), a note hanging off it and a note alone.
fn vault_with_a_cycle() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("a temporary folder");
    for (name, text) in [("A.md", "[[B]]\n"), ("B.md", "[[C]]\n"), ("C.md", "[[A]] and [[D]]\n"), ("D.md", ""), ("Alone.md", "")] {
        std::fs::write(dir.path().join(name), text).expect("a note");
    }
    dir
}

#[test]
fn path_and_graph_show_the_link_graph() {
    let dir = vault_with_a_cycle();
    let vault = dir.path().to_str().expect("a UTF-8 path");
    let (status, stdout, stderr) = vaultlink(&["path", vault, "A", "D", "--mode", "standalone"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.contains("1 shortest paths of 3 links from A.md to D.md"), "{stdout}");
    assert!(stdout.contains("C.md -> D.md   via D in C.md:1"), "{stdout}");
    let (status, stdout, _) = vaultlink(&["path", vault, "D", "A", "--mode", "standalone"]);
    assert_eq!(status, 0);
    assert!(stdout.starts_with("No path from D.md to A.md") && stdout.contains("direction"), "{stdout}");
    let (status, stdout, stderr) = vaultlink(&["graph", vault, "cycles", "--json", "--mode", "standalone"]);
    assert_eq!(status, 0, "{stderr}");
    let cycles: serde_json::Value = serde_json::from_str(&stdout).expect("JSON on stdout");
    assert_eq!(cycles["cycles"][0]["notes"], serde_json::json!(["A.md", "B.md", "C.md"]), "{stdout}");
    let (status, stdout, _) = vaultlink(&["graph", vault, "health", "--mode", "standalone"]);
    assert_eq!(status, 0);
    assert!(stdout.contains("islands           2") && stdout.contains("isolated notes    1"), "{stdout}");
    let (status, _, stderr) = vaultlink(&["graph", vault, "hubs", "--min-length", "3", "--mode", "standalone"]);
    assert_eq!(status, 2);
    assert!(stderr.contains("invalid_arguments"), "{stderr}");
}
