//! The error every call can end with, as an agent sees it: a stable code (the README's table,
//! `vaultlink_core::error::ErrorCode`, the one closed list), a sentence, what to do next, and whether trying again may help.
//! Its own module, below everything that fails, so that `apply`, `journal`, `bridge` and
//! `standalone` need not import the router.

use serde::{Deserialize, Serialize};
use vaultlink_core::error::ErrorCode;

/// A failed call, as an agent sees it: a stable code, a sentence, and what to do next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolError {
    pub code: String,
    pub message: String,
    pub hint: String,
    pub retryable: bool,
}

impl ToolError {
    pub fn new(code: ErrorCode, message: impl Into<String>, hint: impl Into<String>, retryable: bool) -> ToolError {
        ToolError { code: code.as_str().to_owned(), message: message.into(), hint: hint.into(), retryable }
    }

    /// The plugin refused a request for a reason of the bridge's own (not an operation's).
    pub fn bridge(message: &str) -> ToolError {
        ToolError::new(
            ErrorCode::PluginUnavailable,
            format!("the plugin refused the request: {message}"),
            "Reload the vaultlink plugin in Obsidian, or run the sidecar with --mode standalone.",
            true,
        )
    }
}

/// Any of core's errors, as it crosses to the agent: the one place they become a call's error.
impl From<vaultlink_core::error::CallError> for ToolError {
    fn from(error: vaultlink_core::error::CallError) -> ToolError {
        ToolError::new(error.code, error.message, error.hint, error.retryable)
    }
}
