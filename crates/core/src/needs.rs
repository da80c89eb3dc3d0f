//! What a call reads from its edge before it runs, decided here for every edge: the notes, the
//! records of changes, what the edge saw change, and the files whose modification times it
//! compares. An edge that reads as it goes (the sidecar, on the folder) is asked through its
//! `Edge` as the call runs; an edge that reads asynchronously (the plugin) gathers exactly what
//! [`needs`] names first and hands it in (`edge::ReadBefore`), so no edge keeps a list of its own
//! of which tools read what, to drift from what the tools do.
//!
//! The answer comes in two steps for the few calls that read the kept changes: the notes an undo
//! reads are those its change touched, so an edge asks once, reads the changes only when
//! [`Needs::kept_changes`] or [`Needs::undone_changes`] says so, and asks again with them.

use serde::Serialize;

use crate::edge::KeptChange;
use crate::index::Vault;
use crate::moves_detected::Observed;
use crate::ops::Request;

/// What a call reads from its edge before it runs (`Edge`'s methods, each named).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Needs {
    /// Whether it reads the changes kept for `undo_change` (`Edge::changes` and
    /// `Edge::unopened_changes`): `list_changes`, `undo_change`, and a call approving a plan,
    /// whose retry after the plan was applied is answered from them (`approval::applied_already`).
    pub kept_changes: bool,
    /// Whether it reads the changes undoes set aside (`Edge::undone_changes`): an undo approving
    /// its plan, whose retry is answered from the record of the undo made.
    pub undone_changes: bool,
    /// Whether it reads what the edge saw change since its first view of the vault
    /// (`Edge::observed`): `detected_moves`, `heal_moves` and `fix_broken_links`, whose strongest
    /// evidence a move made outside vaultlink is. The edge's view is brought up to date first.
    pub observed: bool,
    /// The notes whose texts it reads (`Edge::text`), as far as the index tells now: for a call
    /// that reads the kept changes, only once they are handed in.
    pub notes: Vec<String>,
    /// The files whose modification times it compares (`Edge::modified_ms`), as the index spells
    /// them: a delete's note, for its `expected_mtime`.
    pub modified: Vec<String>,
}

/// What `request` reads before it runs. `changes` are the kept changes (`Edge::changes`), once
/// the edge has read them ([`Needs::kept_changes`]), else empty; `observed` gives what the edge
/// saw change (`Edge::observed`), asked only of a call whose notes follow from it (`heal_moves`
/// reads the notes whose links the moves broke).
pub fn needs(vault: &Vault, request: &Request, changes: &[KeptChange], observed: &mut dyn FnMut() -> Option<Observed>) -> Needs {
    let approving = request.approved_plan_hash().is_some();
    let undo = matches!(request, Request::UndoChange(_));
    Needs {
        kept_changes: approving || undo || matches!(request, Request::ListChanges(_)),
        undone_changes: approving && undo,
        observed: matches!(request, Request::DetectedMoves(_) | Request::HealMoves(_) | Request::FixBrokenLinks(_)),
        notes: match request {
            Request::HealMoves(_) => crate::moves_detected::heal_notes_needed(vault, observed().as_ref()),
            request => crate::ops::notes_needed(vault, request, changes),
        },
        modified: match request {
            Request::DeleteNote(arguments) => crate::change::delete_notes_needed(vault, arguments),
            _ => Vec::new(),
        },
    }
}
