//! The approval decision of the writing tools that apply a plan (`move_note`, `rewrite_link`),
//! made once here for both edges: the preview answers a `plan_hash`; the change is applied only
//! when the caller asks (`dry_run: false`, or the approved hash without `dry_run`), and an
//! approved hash that is not the plan's refuses the call. `delete::decide` is the same decision
//! for `delete_note`, with its own rules (`confirm`, `force`, the note's hash and time).

use crate::error::{ErrorCode, Failure};
use serde::Deserialize;

/// What the caller said about applying.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct PlanApproval {
    #[serde(default)]
    pub dry_run: Option<bool>,
    #[serde(default)]
    pub approved_plan_hash: Option<String>,
}

/// Declares a writing tool's arguments: its own fields, then the ones every writing tool takes
/// (`dry_run`, `approved_plan_hash`, `response_format`) and, after `paged`, the page of its
/// preview (`limit`, `cursor`); with `approval()`, the one way a call's approval is read
/// from them. (One struct flattened into each would do the same, but serde's `flatten` does not
/// work with `deny_unknown_fields`, which every tool's arguments keep.)
macro_rules! writing_arguments {
    ($(#[$meta:meta])* pub struct $name:ident { $($(#[$field_meta:meta])* pub $field:ident : $type:ty,)* } $($paged:ident)?) => {
        $crate::approval::writing_arguments!(@struct [$(#[$meta])*] $name [$($(#[$field_meta])* pub $field: $type,)*] $($paged)?);
        impl $name {
            /// What the caller said about applying.
            pub fn approval(&self) -> $crate::approval::PlanApproval {
                $crate::approval::PlanApproval { dry_run: self.dry_run, approved_plan_hash: self.approved_plan_hash.clone() }
            }
        }
    };
    (@struct [$($meta:tt)*] $name:ident [$($fields:tt)*] paged) => {
        $crate::approval::writing_arguments!(@struct [$($meta)*] $name [$($fields)*
            /// The most items on a page of the preview.
            #[serde(default)]
            pub limit: Option<usize>,
            /// Where the preview goes on: the `next_cursor` of its previous page.
            #[serde(default)]
            pub cursor: Option<String>,
        ]);
    };
    (@struct [$($meta:tt)*] $name:ident [$($fields:tt)*]) => {
        $($meta)*
        pub struct $name {
            $($fields)*
            /// Left out, the call applies only when `approved_plan_hash` is given.
            #[serde(default)]
            pub dry_run: Option<bool>,
            /// The `plan_hash` of the preview the caller approves.
            #[serde(default)]
            pub approved_plan_hash: Option<String>,
            #[serde(default)]
            pub response_format: $crate::answer::ResponseFormat,
        }
    };
}
pub(crate) use writing_arguments;

/// The plan hashes an edge has answered lately: those its previews gave, and those it applied.
/// The edge keeps it (per session, or per plugin) and hands it in; core decides with it what a
/// hash that is not the plan's means.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
pub struct PlanHistory {
    #[serde(default)]
    pub issued: Vec<String>,
    #[serde(default)]
    pub applied: Vec<String>,
}

impl PlanHistory {
    /// How many hashes of each kind are kept; the oldest go first.
    pub const KEPT: usize = 256;

    pub fn record_preview(&mut self, plan_hash: &str) {
        Self::keep(&mut self.issued, plan_hash);
    }

    pub fn record_applied(&mut self, plan_hash: &str) {
        Self::keep(&mut self.applied, plan_hash);
    }

    fn keep(list: &mut Vec<String>, plan_hash: &str) {
        list.retain(|kept| kept != plan_hash);
        list.push(plan_hash.to_owned());
        if list.len() > Self::KEPT {
            list.remove(0);
        }
    }
}

/// Why an approval does not hold: `plan_hash_mismatch`, saying which it is, or `already_applied`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalError {
    /// No preview of this server gave the approved hash: another session's, or mistyped.
    UnknownHash,
    /// The approved plan was applied already.
    AlreadyApplied,
    /// A preview gave it, and the vault has changed since, so the plan made now is another.
    Changed,
}

impl Failure for ApprovalError {
    fn code(&self) -> ErrorCode {
        match self {
            ApprovalError::AlreadyApplied => ErrorCode::AlreadyApplied,
            ApprovalError::UnknownHash | ApprovalError::Changed => ErrorCode::PlanHashMismatch,
        }
    }

    fn message(&self) -> String {
        match self {
            ApprovalError::UnknownHash => {
                "the approved plan_hash was not given by a preview of this server (it is from another session, or mistyped); nothing was changed".to_owned()
            }
            ApprovalError::AlreadyApplied => "the approved plan was applied already; nothing was changed".to_owned(),
            ApprovalError::Changed => {
                "the vault changed since the preview, so the plan is no longer the one approved; nothing was changed".to_owned()
            }
        }
    }

    fn hint(&self) -> &'static str {
        match self {
            ApprovalError::UnknownHash => "Preview the change (dry run), check it, and approve the plan_hash that preview answers.",
            ApprovalError::AlreadyApplied => "Nothing is left to do for that plan; preview again if another change is wanted.",
            ApprovalError::Changed => "Preview the move again (dry run), check it, and approve its new plan_hash.",
        }
    }

    fn retryable(&self) -> bool {
        false
    }
}

/// Whether to apply the plan whose hash is `plan_hash`: `Ok(false)` answers the preview. An
/// approved hash that is not the plan's is refused, saying which of the three it is.
pub fn decide_plan(plan_hash: &str, approval: &PlanApproval, history: &PlanHistory) -> Result<bool, ApprovalError> {
    if let Some(approved) = approval.approved_plan_hash.as_deref().filter(|approved| *approved != plan_hash) {
        return Err(if history.applied.iter().any(|hash| hash == approved) {
            ApprovalError::AlreadyApplied
        } else if history.issued.iter().any(|hash| hash == approved) {
            ApprovalError::Changed
        } else {
            ApprovalError::UnknownHash
        });
    }
    Ok(approval.asks_to_apply())
}

impl PlanApproval {
    /// Whether the caller asks for the change to be made (and not only previewed): `dry_run:
    /// false`, or an approved plan hash without `dry_run`.
    pub fn asks_to_apply(&self) -> bool {
        self.dry_run == Some(false) || (self.dry_run.is_none() && self.approved_plan_hash.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(dry_run: Option<bool>, approved: Option<&str>) -> Result<bool, ApprovalError> {
        let history = PlanHistory { issued: vec!["issued".to_owned()], applied: vec!["applied".to_owned()] };
        decide_plan("h", &PlanApproval { dry_run, approved_plan_hash: approved.map(str::to_owned) }, &history)
    }

    #[test]
    fn a_plan_is_applied_only_when_asked_and_only_as_approved() {
        assert_eq!(decide(None, None), Ok(false), "a preview by default");
        assert_eq!(decide(Some(true), None), Ok(false));
        assert_eq!(decide(Some(false), None), Ok(true));
        assert_eq!(decide(None, Some("h")), Ok(true), "the approved hash applies");
        assert_eq!(decide(Some(false), Some("h")), Ok(true));
        assert_eq!(decide(None, Some("other")), Err(ApprovalError::UnknownHash));
        assert_eq!(decide(Some(false), Some("issued")), Err(ApprovalError::Changed));
        assert_eq!(decide(None, Some("applied")), Err(ApprovalError::AlreadyApplied));
        for error in [ApprovalError::UnknownHash, ApprovalError::Changed] {
            assert_eq!(error.code(), "plan_hash_mismatch");
        }
        assert_eq!(ApprovalError::AlreadyApplied.code(), "already_applied");
        assert!(ApprovalError::UnknownHash.message().contains("not given by a preview"));
        assert!(!ApprovalError::UnknownHash.message().contains("vault changed"));
    }
    #[test]
    fn the_history_keeps_a_bounded_number_of_hashes() {
        let mut history = PlanHistory::default();
        for index in 0..PlanHistory::KEPT + 10 {
            history.record_preview(&index.to_string());
        }
        history.record_preview("5");
        assert_eq!(history.issued.len(), PlanHistory::KEPT);
        assert_eq!(history.issued.last().map(String::as_str), Some("5"));
        assert!(!history.issued.contains(&"0".to_owned()));
    }
}

/// A retried call whose approved plan was applied already: the change it names is kept in the
/// vault (`history`: its `change_id` is the plan hash's first 16 digits, so the kept changes are
/// the record of what was applied, and it survives a restart), or this edge applied it lately.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedAlready {
    pub change_id: Option<String>,
}

impl Failure for AppliedAlready {
    fn code(&self) -> ErrorCode {
        ErrorCode::AlreadyApplied
    }

    fn message(&self) -> String {
        match &self.change_id {
            Some(id) => format!("the approved plan was applied already, as the change `{id}`; nothing was written again"),
            None => "the approved plan was applied already; nothing was written again".to_owned(),
        }
    }

    fn hint(&self) -> &'static str {
        "The change is made: read the notes to see it, or undo it with undo_change and its change_id. Preview again if another change is wanted."
    }
}

/// Whether the plan `approved` names was applied already: the change it made among `kept` (the
/// kept changes, or for an undo the changes undoes set aside, whose ids begin their plan hashes),
/// or this edge's record of plans it applied. Asked only once a call with that approval cannot be
/// carried out as it is now, so that a vault put back as it was may take the same plan again.
pub fn applied_already(approved: &str, kept: &[crate::edge::KeptChange], history: &PlanHistory) -> Option<AppliedAlready> {
    let approved = approved.trim();
    if approved.len() < 16 {
        return None;
    }
    let id = crate::batch::change_id(approved);
    if let Some(kept) = kept.iter().find(|kept| kept.journal.change_id == id) {
        return Some(AppliedAlready { change_id: Some(kept.journal.change_id.clone()) });
    }
    history.applied.iter().any(|hash| hash == approved).then_some(AppliedAlready { change_id: None })
}
