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
