//! The named operations that agents and the plugin call, with their arguments, results and
//! errors as plain serde data.
//!
//! The sidecar (standalone, on the folder) and the wasm crate (inside the plugin) both run
//! operations through [`run`], which is why the two paths give equal answers. Names match the
//! MCP tool names, but nothing here knows about MCP.

use serde::{Deserialize, Serialize};

use crate::index::{ResolvedLink, Summary, Vault};
use crate::parse::{LinkKind, Span};
use crate::resolve::Resolution;

/// One call: the operation's name and its arguments, as
/// `{"tool": "get_outgoing_links", "arguments": {"path": "A.md"}}`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(tag = "tool", content = "arguments", rename_all = "snake_case")]
pub enum Request {
    GetOutgoingLinks(NoteArguments),
    GetBacklinks(NoteArguments),
    VaultSummary {},
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoteArguments {
    /// The note's path relative to the vault root; `.md` may be left out.
    pub path: String,
}

/// What an operation returns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Response {
    OutgoingLinks(OutgoingLinks),
    Backlinks(Backlinks),
    Summary(Summary),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutgoingLinks {
    /// The note's path, as found in the vault.
    pub path: String,
    pub links: Vec<OutgoingLink>,
    /// True when the note had more links than the parser keeps.
    pub truncated: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OutgoingLink {
    pub kind: LinkKind,
    /// The target as written.
    pub target: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub subpath: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub display: Option<String>,
    pub line: u32,
    pub column: u32,
    pub span: Span,
    /// `resolved`, `ambiguous` or `unresolved`.
    pub status: &'static str,
    /// The file the link points to, when it points to one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolved_path: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Backlinks {
    pub path: String,
    pub backlinks: Vec<Backlink>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Backlink {
    /// The note that holds the link.
    pub source: String,
    pub kind: LinkKind,
    pub target: String,
    pub line: u32,
    pub column: u32,
}

/// Why an operation failed, with a stable code an agent can act on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpError {
    /// No note at the given path.
    NoteNotFound { path: String },
    /// The arguments do not fit the operation.
    InvalidArguments { detail: String },
}

impl OpError {
    /// A stable, machine-readable code.
    pub fn code(&self) -> &'static str {
        match self {
            OpError::NoteNotFound { .. } => "note_not_found",
            OpError::InvalidArguments { .. } => "invalid_arguments",
        }
    }

    pub fn message(&self) -> String {
        match self {
            OpError::NoteNotFound { path } => format!("there is no note at `{path}` in this vault"),
            OpError::InvalidArguments { detail } => format!("the arguments do not fit: {detail}"),
        }
    }

    /// What to do next.
    pub fn hint(&self) -> &'static str {
        match self {
            OpError::NoteNotFound { .. } => {
                "Give the note's path relative to the vault root, such as `Folder/Note.md`; the `.md` may be left out and case does not matter."
            }
            OpError::InvalidArguments { .. } => {
                "Check the tool's input schema: every required parameter present, no unknown ones."
            }
        }
    }

    /// True when the same call may succeed later without any change.
    pub fn retryable(&self) -> bool {
        false
    }
}

impl std::fmt::Display for OpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for OpError {}

/// Runs one operation on the index.
pub fn run(vault: &Vault, request: &Request) -> Result<Response, OpError> {
    match request {
        Request::GetOutgoingLinks(arguments) => outgoing_links(vault, &arguments.path).map(Response::OutgoingLinks),
        Request::GetBacklinks(arguments) => backlinks(vault, &arguments.path).map(Response::Backlinks),
        Request::VaultSummary {} => Ok(Response::Summary(vault.summary())),
    }
}

pub fn outgoing_links(vault: &Vault, path: &str) -> Result<OutgoingLinks, OpError> {
    let path = find(vault, path)?;
    let links = vault.outgoing_links(path).unwrap_or_default();
    Ok(OutgoingLinks {
        path: path.to_owned(),
        links: links.iter().map(outgoing_link).collect(),
        truncated: vault.is_truncated(path),
    })
}

pub fn backlinks(vault: &Vault, path: &str) -> Result<Backlinks, OpError> {
    let path = find(vault, path)?;
    let backlinks = vault
        .backlinks(path)
        .iter()
        .map(|found| Backlink {
            source: found.source.to_owned(),
            kind: found.link.kind,
            target: found.link.target.clone(),
            line: found.link.line,
            column: found.link.column,
        })
        .collect();
    Ok(Backlinks { path: path.to_owned(), backlinks })
}

fn find<'a>(vault: &'a Vault, path: &str) -> Result<&'a str, OpError> {
    vault.find_note(path).ok_or_else(|| OpError::NoteNotFound { path: path.to_owned() })
}

fn outgoing_link(found: &ResolvedLink<'_>) -> OutgoingLink {
    let link = found.link;
    let status = match found.resolution {
        Resolution::Resolved { .. } => "resolved",
        Resolution::Ambiguous { .. } => "ambiguous",
        Resolution::Unresolved => "unresolved",
    };
    OutgoingLink {
        kind: link.kind,
        target: link.target.clone(),
        subpath: link.subpath.clone(),
        display: link.display.clone(),
        line: link.line,
        column: link.column,
        span: link.span,
        status,
        resolved_path: found.resolution.path().map(str::to_owned),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vault() -> Vault {
        let mut vault = Vault::new();
        vault.upsert("A.md", "[[B#Top|bee]] [[Nowhere]]");
        vault.upsert("B.md", "");
        vault
    }

    #[test]
    fn outgoing_links_carry_their_resolution() {
        let result = outgoing_links(&vault(), "a").unwrap();
        assert_eq!(result.path, "A.md");
        let statuses: Vec<_> =
            result.links.iter().map(|link| (link.status, link.resolved_path.as_deref())).collect();
        assert_eq!(statuses, [("resolved", Some("B.md")), ("unresolved", None)]);
        assert_eq!(result.links[0].subpath.as_deref(), Some("#Top"));
    }

    #[test]
    fn a_missing_note_is_a_typed_error() {
        let error = outgoing_links(&vault(), "C.md").unwrap_err();
        assert_eq!(error.code(), "note_not_found");
        assert!(error.message().contains("C.md"));
    }

    #[test]
    fn backlinks_name_their_sources() {
        let result = backlinks(&vault(), "B.md").unwrap();
        assert_eq!(result.backlinks.len(), 1);
        assert_eq!(result.backlinks[0].source, "A.md");
    }
}
