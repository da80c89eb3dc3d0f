//! The plugin's `plugin/wire.ts` is generated from core's types and its table of tools.

use vaultlink_core::wire::{typescript_module, REGENERATE};

#[test]
fn the_plugin_has_the_wire_types_of_core() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../plugin/wire.ts");
    let expected = typescript_module();
    if std::env::var_os("VAULTLINK_UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &expected).expect("plugin/wire.ts is writable");
    }
    let found = std::fs::read_to_string(&path).unwrap_or_default();
    assert_eq!(found, expected, "plugin/wire.ts differs from core's types: run {REGENERATE}");
}
