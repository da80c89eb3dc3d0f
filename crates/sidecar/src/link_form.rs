//! The form of the links a change run on the folder rewrites, as `--link-form` asks: what
//! Obsidian would write (the default) or each link's own form (`keep`). Core decides the form
//! (`vaultlink_core::link_form`); this holds the one option the process was started with, which
//! every reading of `.obsidian/app.json` adds to the index's configuration. Calls forwarded to
//! the plugin follow the plugin's own setting.

use std::sync::atomic::{AtomicBool, Ordering};

use vaultlink_core::link_form::RewriteForm;

/// Whether `--link-form keep` was given.
static KEEP: AtomicBool = AtomicBool::new(false);

/// The option as the command line spells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum LinkFormOption {
    /// Write a rewritten link as Obsidian would, under the vault's "New link format".
    #[default]
    Obsidian,
    /// Keep each rewritten link in the form it was written in.
    Keep,
}

/// Sets the form for the rest of the process; called once, as the command starts.
pub fn choose(option: LinkFormOption) {
    KEEP.store(option == LinkFormOption::Keep, Ordering::Relaxed);
}

/// The form the process was started with.
pub fn chosen() -> RewriteForm {
    if KEEP.load(Ordering::Relaxed) {
        RewriteForm::Keep
    } else {
        RewriteForm::Obsidian
    }
}
