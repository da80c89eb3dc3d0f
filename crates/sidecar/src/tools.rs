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
        if let Some(spec) = crate::catalogue::find(tool) {
            if let Err(error) = validate(&spec, &arguments) {
                let served = if self.mode == Mode::Standalone { Served::Standalone } else { Served::Plugin };
                return (served, Err(error));
            }
        }
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
        match tool {
            "move_note" => return crate::apply::move_note(folder, &arguments),
            "rewrite_link" => return crate::apply::rewrite_link(folder, &arguments),
            "delete_note" => return crate::apply::delete_note(folder, &arguments),
            "find_evidence" => return find_evidence(folder, arguments),
            _ => {}
        }
        let mut arguments = arguments;
        if tool == "read_note" {
            let path = arguments.get("path").and_then(Value::as_str).unwrap_or_default();
            if let Some(found) = folder.vault().find_note(path).map(str::to_owned) {
                let text = folder.read_text(&found)?;
                arguments["text"] = Value::String(text);
            }
        }
        run_on(folder.vault(), tool, arguments)
    }
}

/// `find_evidence` on the folder: core ranks, the notes' texts come from disk.
fn find_evidence(folder: &FolderIndex, arguments: Value) -> Result<Value, ToolError> {
    let arguments = if arguments.is_null() { json!({}) } else { arguments };
    let arguments: vaultlink_core::evidence::EvidenceArguments = serde_json::from_value(arguments).map_err(|error| {
        ToolError::from_op(&vaultlink_core::ops::OpError::InvalidArguments { detail: error.to_string() })
    })?;
    let mut read = |path: &str| folder.read_text(path).ok();
    let evidence = vaultlink_core::evidence::find_evidence(folder.vault(), &arguments, &mut read).map_err(|error| ToolError::from_op(&error))?;
    serde_json::to_value(evidence).map_err(|error| ToolError::new("internal", error.to_string(), "Report this as a bug.", false))
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

/// Parameters that name a place in the vault.
const PATH_PARAMETERS: [&str; 4] = ["path", "from", "to", "folder"];

/// Checks arguments against the tool's advertised input schema, server-side: an object, no
/// unknown parameter, every required one, each of its type, range and allowed values, and
/// paths that stay inside the vault. The error names the parameter.
pub fn validate(spec: &crate::catalogue::ToolSpec, arguments: &Value) -> Result<(), ToolError> {
    let invalid = |message: String| {
        ToolError::new("invalid_arguments", message, format!("See the input schema of `{}` in tools/list.", spec.name), false)
    };
    let empty = serde_json::Map::new();
    let given = match arguments {
        Value::Object(map) => map,
        Value::Null => &empty,
        _ => return Err(invalid("the arguments must be a JSON object".to_owned())),
    };
    let properties = spec.input_schema["properties"].as_object().cloned().unwrap_or_default();
    for key in given.keys() {
        if !properties.contains_key(key) {
            let known: Vec<&str> = properties.keys().map(String::as_str).collect();
            return Err(invalid(format!("unknown parameter `{key}`; `{}` takes: {}", spec.name, known.join(", "))));
        }
    }
    for required in spec.input_schema["required"].as_array().into_iter().flatten().filter_map(Value::as_str) {
        if !given.contains_key(required) {
            return Err(invalid(format!("missing parameter `{required}`")));
        }
    }
    for (key, value) in given {
        let schema = &properties[key];
        let fits = match schema["type"].as_str() {
            Some("string") => value.is_string(),
            Some("integer") => value.as_u64().is_some_and(|number| {
                schema["minimum"].as_u64().is_none_or(|minimum| number >= minimum)
                    && schema["maximum"].as_u64().is_none_or(|maximum| number <= maximum)
            }),
            Some("boolean") => value.is_boolean(),
            _ => true,
        };
        if !fits {
            return Err(invalid(format!("parameter `{key}` must be {}", describe(schema))));
        }
        if let Some(allowed) = schema["enum"].as_array() {
            if !allowed.contains(value) {
                return Err(invalid(format!("parameter `{key}` must be one of {}", Value::Array(allowed.clone()))));
            }
        }
        if PATH_PARAMETERS.contains(&key.as_str()) {
            check_vault_path(key, value.as_str().unwrap_or_default())?;
        }
    }
    Ok(())
}

fn describe(schema: &Value) -> String {
    match (schema["type"].as_str(), schema["minimum"].as_u64(), schema["maximum"].as_u64()) {
        (Some("integer"), Some(minimum), Some(maximum)) => format!("a whole number from {minimum} to {maximum}"),
        (Some("integer"), _, _) => "a whole number".to_owned(),
        (Some(kind), _, _) => format!("a {kind}"),
        _ => "of the advertised type".to_owned(),
    }
}

/// Refuses a path that could leave the vault: absolute, with a drive, home-relative, or with
/// a `..` segment. (A symbolic link leading out is refused where files are read.)
pub fn check_vault_path(parameter: &str, path: &str) -> Result<(), ToolError> {
    let leaves = path.starts_with('/')
        || path.starts_with('\\')
        || path.starts_with('~')
        || path.contains('\0')
        || path.as_bytes().get(1) == Some(&b':')
        || path.split(['/', '\\']).any(|segment| segment == "..");
    if leaves {
        return Err(ToolError::new(
            "invalid_path",
            format!("`{parameter}` {path:?} is not a path inside the vault"),
            "Give paths relative to the vault root, such as `Folder/Note.md`, without a leading `/`, `~` or `..`.",
            false,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(tool: &str, arguments: Value) -> Result<(), String> {
        let spec = crate::catalogue::find(tool).expect("a catalogued tool");
        validate(&spec, &arguments).map_err(|error| format!("{} {}", error.code, error.message))
    }

    #[test]
    fn arguments_are_checked_against_the_advertised_schema() {
        assert_eq!(check("get_backlinks", json!({"path": "A", "limit": 5, "response_format": "concise"})), Ok(()));
        let refusals = [
            (json!({}), "missing parameter `path`"),
            (json!({"path": "A", "text": "x"}), "unknown parameter `text`"),
            (json!({"path": 3}), "parameter `path` must be a string"),
            (json!({"path": "A", "limit": 0}), "from 1 to 1000"),
            (json!({"path": "A", "limit": 1001}), "from 1 to 1000"),
            (json!({"path": "A", "response_format": "short"}), "must be one of"),
            (json!(["A"]), "must be a JSON object"),
        ];
        for (arguments, expected) in refusals {
            let refusal = check("get_backlinks", arguments.clone()).expect_err("refused");
            assert!(refusal.starts_with("invalid_arguments") && refusal.contains(expected), "{arguments}: {refusal}");
        }
    }

    #[test]
    fn paths_that_leave_the_vault_are_refused() {
        for path in ["../x.md", "a/../../x.md", "/etc/passwd", "~/x.md", "C:\\x.md", "a\\..\\..\\x.md"] {
            let refusal = check("read_note", json!({ "path": path })).expect_err(path);
            assert!(refusal.starts_with("invalid_path"), "{path}: {refusal}");
        }
        assert_eq!(check("read_note", json!({"path": "a/b..c/x.md"})), Ok(()));
    }
}
