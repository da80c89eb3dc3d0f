//! Routes a tool call to where it runs: the plugin over the bridge, or the core on the vault
//! folder. Both paths take the same name and arguments and give the same JSON.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::bridge::BridgeClient;
use crate::discovery;
use crate::standalone::FolderIndex;

/// A failed call, as an agent sees it: a stable code, a sentence, and what to do next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolError {
    pub code: String,
    pub message: String,
    pub hint: String,
    pub retryable: bool,
}

impl ToolError {
    pub fn new(code: &str, message: impl Into<String>, hint: impl Into<String>, retryable: bool) -> ToolError {
        ToolError { code: code.to_owned(), message: message.into(), hint: hint.into(), retryable }
    }

    pub fn from_op(error: &vaultlink_core::ops::OpError) -> ToolError {
        ToolError::new(error.code(), error.message(), error.hint(), error.retryable())
    }

    /// The plugin refused a request for a reason of the bridge's own (not an operation's).
    pub fn bridge(message: &str) -> ToolError {
        ToolError::new(
            "plugin_unavailable",
            format!("the plugin refused the request: {message}"),
            "Reload the vaultlink plugin in Obsidian, or run the sidecar with --mode standalone.",
            true,
        )
    }

    fn plugin_unavailable(reason: &str) -> ToolError {
        ToolError::new(
            "plugin_unavailable",
            format!("the vaultlink plugin is not serving this vault: {reason}"),
            "Open the vault in Obsidian with the vaultlink plugin enabled, or start the sidecar with --mode auto (the default) to work on the folder directly.",
            true,
        )
    }

    fn io(message: String) -> ToolError {
        ToolError::new(
            "vault_unreadable",
            message,
            "Check that the vault folder exists and is readable, then call again.",
            true,
        )
    }
}

/// Where calls may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// The plugin when a live bridge exists for the vault, else the folder.
    Auto,
    /// The plugin only; fail when it is not running.
    Plugin,
    /// The folder only; never the plugin.
    Standalone,
}

/// Which path answered a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    Plugin,
    Standalone,
}

/// Runs calls for one vault.
#[derive(Debug)]
pub struct Router {
    vault: PathBuf,
    mode: Mode,
    bridge: Option<BridgeClient>,
    folder: Option<FolderIndex>,
}

impl Router {
    /// `vault` must be canonical (see [`crate::standalone::canonical_vault`]).
    pub fn new(vault: PathBuf, mode: Mode) -> Router {
        Router { vault, mode, bridge: None, folder: None }
    }

    pub fn vault(&self) -> &Path {
        &self.vault
    }

    pub async fn call(&mut self, tool: &str, arguments: Value) -> (Served, Result<Value, ToolError>) {
        if self.mode != Mode::Standalone {
            match self.call_plugin(tool, &arguments).await {
                Ok(answer) => return (Served::Plugin, answer),
                Err(reason) if self.mode == Mode::Plugin => {
                    return (Served::Plugin, Err(ToolError::plugin_unavailable(&reason)))
                }
                Err(reason) => tracing::debug!("no bridge ({reason}); answering from the folder"),
            }
        }
        (Served::Standalone, self.call_folder(tool, arguments))
    }

    /// Forwards a call over the bridge, reconnecting once if a kept connection has gone.
    /// `Err` says why no plugin could answer.
    async fn call_plugin(&mut self, tool: &str, arguments: &Value) -> Result<Result<Value, ToolError>, String> {
        for attempt in 0..2 {
            if self.bridge.is_none() {
                let discovery = match discovery::read(&self.vault) {
                    Ok(Some(discovery)) => discovery,
                    Ok(None) => return Err("no discovery file: Obsidian is closed or the plugin is off".to_owned()),
                    Err(error) => {
                        tracing::warn!("{error:#}");
                        return Err(format!("{error:#}"));
                    }
                };
                match BridgeClient::connect(&discovery).await {
                    Ok(client) => self.bridge = Some(client),
                    Err(error) => return Err(format!("{error:#}")),
                }
            }
            let Some(bridge) = self.bridge.as_mut() else { continue };
            match bridge.call(tool, arguments.clone()).await {
                Ok(answer) => return Ok(answer),
                Err(error) => {
                    tracing::info!("the bridge connection failed ({error:#}); attempt {}", attempt + 1);
                    self.bridge = None;
                }
            }
        }
        Err("the plugin's connection failed twice".to_owned())
    }

    fn call_folder(&mut self, tool: &str, arguments: Value) -> Result<Value, ToolError> {
        if self.folder.is_none() {
            self.folder = Some(FolderIndex::new(self.vault.clone()));
        }
        let folder = self.folder.as_mut().expect("just set");
        folder.refresh().map_err(|error| ToolError::io(format!("{error:#}")))?;
        run_on(folder.vault(), tool, arguments)
    }
}

/// Runs a named operation of the core on an index.
pub fn run_on(vault: &vaultlink_core::Vault, tool: &str, arguments: Value) -> Result<Value, ToolError> {
    let arguments = if arguments.is_null() { json!({}) } else { arguments };
    let request = serde_json::from_value(json!({ "tool": tool, "arguments": arguments })).map_err(|error| {
        ToolError::from_op(&vaultlink_core::ops::OpError::InvalidArguments { detail: error.to_string() })
    })?;
    let response = vaultlink_core::ops::run(vault, &request).map_err(|error| ToolError::from_op(&error))?;
    serde_json::to_value(response).map_err(|error| ToolError::new("internal", error.to_string(), "Report this as a bug.", false))
}
