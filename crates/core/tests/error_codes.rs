//! The plugin's `plugin/error-codes.ts` is generated from core's closed list of error codes.

use vaultlink_core::error::typescript_module;

#[test]
fn the_plugin_has_the_codes_of_core() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugin/error-codes.ts");
    let expected = typescript_module();
    if std::env::var_os("VAULTLINK_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &expected).expect("plugin/error-codes.ts is writable");
    }
    let found = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(
        found, expected,
        "plugin/error-codes.ts differs from core's codes: run VAULTLINK_UPDATE_SNAPSHOTS=1 cargo test -p vaultlink-core --test error_codes"
    );
}
