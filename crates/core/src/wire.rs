//! The one wire format between core and the plugin: `plugin/wire.ts`, the TypeScript types of
//! core's shapes that cross to JavaScript (derived from the Rust types by `ts-rs`, under the
//! `typescript` feature, which only core's tests turn on) and core's table of tools. A test holds
//! the file to what this module generates, so the plugin never restates a type by hand.

use ts_rs::{Config, TS};

use crate::own_files::CANNOT_BE_READ;

/// The command that rewrites `plugin/wire.ts`, which its header and the test's failure name.
pub const REGENERATE: &str = "VAULTLINK_UPDATE_SNAPSHOTS=1 cargo test -p vaultlink-core --test wire";

/// One declaration: the type's doc comment as JSDoc, then `export type …`.
fn declaration<T: TS>(config: &Config, out: &mut String) {
    if let Some(docs) = T::docs() {
        out.push_str(&docs);
    }
    out.push_str("export ");
    out.push_str(&T::decl(config));
    out.push_str("\n\n");
}

/// The text of `plugin/wire.ts`.
pub fn typescript_module() -> String {
    // Counts and sizes cross as JavaScript numbers (serde-wasm-bindgen's JSON-compatible
    // serializer writes them so), never as bigints.
    let config = Config::new().with_large_int("number");
    let mut out = format!(
        "// Generated from core's types (crates/core/src/wire.rs) by its test `the_plugin_has_the_wire_types_of_core`\n// ({REGENERATE} rewrites it). Do not edit.\n\nimport type {{ ErrorCode }} from \"./error-codes\";\n\n"
    );
    macro_rules! declare {
        ($($type:ty),* $(,)?) => {
            $(declaration::<$type>(&config, &mut out);)*
        };
    }
    declare!(
        crate::span::Span,
        crate::line_index::Utf16Position,
        crate::error::CallError,
        crate::parse::LinkKind,
        crate::parse::LinkSource,
        crate::frontmatter::KeySegment,
        crate::parse::PropertyQuote,
        crate::parse::Destination,
        crate::parse::Link,
        crate::parse::LinkForm,
        crate::parse::Heading,
        crate::parse::BlockId,
        crate::parse::Diagnostic,
        crate::parse::ParsedNote,
        crate::index::SubpathStatus,
        crate::ops::OutgoingLink,
        crate::ops::OutgoingLinks,
        crate::plan::TextEdit,
        crate::plan::FileMove,
        crate::plan::ChangeReason,
        crate::plan::LinkChange,
        crate::plan::NewlyResolved,
        crate::sources::LinkLeft,
        crate::move_answer::MoveAnswer,
        crate::graph::Ratio,
        crate::graph::Health,
        crate::audit::StaleLink,
        crate::audit::RewriteFix,
        crate::audit::RenameAudit,
        crate::batch::BatchWrite,
        crate::batch::BatchCreate,
        crate::batch::BatchRemove,
        crate::batch::BatchMove,
        crate::batch::Batch,
        crate::edge::Change,
        crate::journal::Purpose,
        crate::journal::WriteKind,
        crate::journal::JournalWrite,
        crate::journal::JournalMove,
        crate::journal::Journal,
        crate::edge::KeptChange,
        crate::edge::UnopenedChange,
        crate::needs::Needs,
        crate::step::KeptNote,
        crate::step::StepError,
        crate::step::SavedOver,
        crate::lease::Opened,
        crate::lease::Observed,
        crate::lease::Verdict,
        crate::undo_steps::Condition,
        crate::undo_steps::UndoStep,
        crate::seal_key::Unusable,
        crate::delete::Referrer,
        crate::delete::Captured,
        crate::delete::DeleteAnswer,
    );
    out.push_str("/** vaultlink's folder in a vault and its files (core's `own_files` and the modules of each file). */\n");
    for (name, value) in [
        ("OWN_FOLDER", crate::own_files::FOLDER),
        ("JOURNAL_FILE", crate::journal::JOURNAL_FILE),
        ("CHANGES_FOLDER", crate::history::CHANGES_FOLDER),
        ("KEYS_FOLDER", crate::seal_key::KEYS_FOLDER),
        ("PRESENCE_FILE", crate::presence::PRESENCE_FILE),
        ("RECOVERED_FOLDER", crate::undo_steps::RECOVERED_FOLDER),
    ] {
        out.push_str(&format!("export const {name} = {value:?};\n"));
    }
    out.push_str(&format!(
        "\n/** Why a file of vaultlink's own that could not be read is passed over (core's `own_files::cannot_be_read`). */\nexport function cannotBeRead(reason: string): string {{\n\treturn {:?} + reason + {:?};\n}}\n\n",
        CANNOT_BE_READ.0, CANNOT_BE_READ.1
    ));
    out.push_str("/** Every tool core answers (core's `tools::ALL`): whether it may change the vault, and whether it is long (it reports progress). */\nexport const TOOLS = {\n");
    for tool in crate::tools::ALL {
        out.push_str(&format!("\t{}: {{ writes: {}, long: {} }},\n", tool.name, tool.writes, tool.long));
    }
    out.push_str("} as const;\n\n/** The name of a tool core answers. */\nexport type ToolName = keyof typeof TOOLS;\n");
    out
}
