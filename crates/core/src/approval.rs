//! The approval decision of the writing tools that apply a plan (`move_note`, `rewrite_link`),
//! made once here for both edges: the preview answers a `plan_hash`; the change is applied only
//! when the caller asks (`dry_run: false`, or the approved hash without `dry_run`), and an
//! approved hash that is not the plan's refuses the call. `delete::decide` is the same decision
//! for `delete_note`, with its own rules (`confirm`, `force`, the note's hash and time).

use crate::error::ErrorCode;
use serde::Deserialize;

/// What the caller said about applying.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct PlanApproval {
    #[serde(default)]
    pub dry_run: Option<bool>,
    #[serde(default)]
    pub approved_plan_hash: Option<String>,
}

/// Why an approval does not hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalError {
    /// The approved hash is not the hash of the plan made now.
    PlanHashMismatch,
}

impl ApprovalError {
    pub fn code(&self) -> ErrorCode {
        match self {
            ApprovalError::PlanHashMismatch => ErrorCode::PlanHashMismatch,
        }
    }

    pub fn message(&self) -> String {
        match self {
            ApprovalError::PlanHashMismatch => {
                "the vault changed since the preview, so the plan is no longer the one approved; nothing was changed".to_owned()
            }
        }
    }

    pub fn hint(&self) -> &'static str {
        match self {
            ApprovalError::PlanHashMismatch => "Preview the move again (dry run), check it, and approve its new plan_hash.",
        }
    }

    pub fn retryable(&self) -> bool {
        false
    }
}

/// Whether to apply the plan whose hash is `plan_hash`: `Ok(false)` answers the preview.
pub fn decide_plan(plan_hash: &str, approval: &PlanApproval) -> Result<bool, ApprovalError> {
    if approval.approved_plan_hash.as_deref().is_some_and(|approved| approved != plan_hash) {
        return Err(ApprovalError::PlanHashMismatch);
    }
    Ok(approval.dry_run == Some(false) || (approval.dry_run.is_none() && approval.approved_plan_hash.is_some()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(dry_run: Option<bool>, approved: Option<&str>) -> Result<bool, ApprovalError> {
        decide_plan("h", &PlanApproval { dry_run, approved_plan_hash: approved.map(str::to_owned) })
    }

    #[test]
    fn a_plan_is_applied_only_when_asked_and_only_as_approved() {
        assert_eq!(decide(None, None), Ok(false), "a preview by default");
        assert_eq!(decide(Some(true), None), Ok(false));
        assert_eq!(decide(Some(false), None), Ok(true));
        assert_eq!(decide(None, Some("h")), Ok(true), "the approved hash applies");
        assert_eq!(decide(Some(false), Some("h")), Ok(true));
        assert_eq!(decide(None, Some("other")), Err(ApprovalError::PlanHashMismatch));
        assert_eq!(decide(Some(false), Some("other")), Err(ApprovalError::PlanHashMismatch));
    }
}
