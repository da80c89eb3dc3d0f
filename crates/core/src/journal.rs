//! The journal of a batch being applied, as data: its format, its seal, and the checks that
//! decide whether a journal found in a vault may be acted on.
//!
//! Both edges write the journal (`<vault>/.vaultlink/journal.json`) before a batch's first
//! change, so that a batch a crash interrupts can be undone from it. A journal found in a vault
//! is untrusted input: it may have arrived with the vault (git, a sync service, a zip) and name
//! any path. So a journal is *sealed*: the file is
//!
//! ```text
//! {"seal":"<64 hex digits>","journal":<the journal as JSON>}
//! ```
//!
//! where the seal is the HMAC-SHA256 of the journal's exact bytes under a key that is private to
//! one user on one machine (the edges keep it outside the vault, readable by that user alone).
//! [`open`] acts on a journal only when its seal verifies under that key, its version is this
//! one, and every path it names passes the path rules; anything else is a [`Refusal`], and the
//! journal is left for the user. A journal made with another key (another machine, another
//! user, or nobody's) is never acted on, whatever it says.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::hex::{hex, parse_hex};
use crate::paths::{engine_path_problem, is_temporary_beside};

/// The version of the journal this engine writes and reads.
pub const VERSION: u32 = 2;

/// Where a batch's journal is, in the vault: the vault's lock while it is there.
pub const JOURNAL_FILE: &str = ".vaultlink/journal.json";

/// The `pid` of a journal whose batch failed and could not be wholly undone: no process is
/// applying it any more, so recovery may run at once.
pub const ABANDONED: u32 = 0;

/// The length in bytes of a journal key.
pub const KEY_BYTES: usize = 32;

const PREFIX: &str = "{\"seal\":\"";
const MIDDLE: &str = "\",\"journal\":";
const SUFFIX: &str = "}";
const SEAL_HEX: usize = 64;

/// What a batch is about to change, written before its first change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Journal {
    pub version: u32,
    /// The process applying the batch; recovery leaves a live one alone.
    pub pid: u32,
    /// The tool that made the batch (`move_note`, `rewrite_link`).
    pub tool: String,
    pub started_unix_ms: u64,
    /// The machine the batch ran on (its host name), for the messages about a journal that is
    /// not this machine's. The seal is what proves where a journal was written.
    #[serde(default)]
    pub machine: String,
    pub writes: Vec<JournalWrite>,
    pub moves: Vec<JournalMove>,
    /// Folders the batch creates, top first.
    pub made_folders: Vec<String>,
    /// The id the change is kept under once applied (`history`); empty for one that is not.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub change_id: String,
}

/// A note the batch rewrites. Paths are relative to the vault, with `/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalWrite {
    pub path: String,
    /// The temporary file the new text is written to before it is renamed over the note;
    /// empty when the note is written in place (the plugin's `vault.process`).
    #[serde(default)]
    pub temporary: String,
    /// The note's text before the batch.
    pub before: String,
    /// The SHA-256 of the text the batch writes.
    pub after_hash: String,
    /// What the batch does to the file: replaces its text (left out of the file), or creates it
    /// (`before` is empty: undone by removing the file while it still holds what was written).
    #[serde(default, skip_serializing_if = "WriteKind::is_replace")]
    pub kind: WriteKind,
}

/// What a journal's write does to its file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WriteKind {
    #[default]
    Replace,
    /// The file did not exist before the batch.
    Create,
    /// The batch removes the file, which held `before`.
    Remove,
}

impl WriteKind {
    pub fn is_replace(&self) -> bool {
        *self == WriteKind::Replace
    }
}

/// A file the batch moves. `via` is the intermediate name of a move that changes only the
/// case of a name, made in two renames so a case-insensitive filesystem cannot skip it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct JournalMove {
    pub from: String,
    pub to: String,
    pub via: Option<String>,
    /// For a move of a cycle of names (a swap): the content hash of the file it moves, so that
    /// recovery can tell a move that happened from one that did not (the vault before a swap
    /// and after it hold files at the same names).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hash: Option<String>,
}

/// Why a journal found in a vault is not acted on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not a sealed journal at all (an older version's, or not written by vaultlink).
    NotSealed,
    /// Sealed, but not with this user's key on this machine, or changed since it was sealed.
    WrongSeal,
    /// The seal holds, but the journal inside is not one this engine reads.
    Unreadable(String),
    Version(u32),
    /// A path in it breaks the path rules.
    UnsafePath {
        path: String,
        problem: String,
    },
}

impl Refusal {
    /// The sentence for a person: what is wrong with the journal. Every refusal leaves the
    /// vault as it is.
    pub fn message(&self) -> String {
        match self {
            Refusal::NotSealed => "it is not a sealed vaultlink journal (an older vaultlink's, or not written by vaultlink)".to_owned(),
            Refusal::WrongSeal => {
                "its seal does not verify: it was written on another machine or by another user, or changed since".to_owned()
            }
            Refusal::Unreadable(reason) => format!("it cannot be read: {reason}"),
            Refusal::Version(version) => format!("it is a version {version} journal; this vaultlink reads version {VERSION}"),
            Refusal::UnsafePath { path, problem } => format!("it names {path:?}, which is not a path the engine writes: {problem}"),
        }
    }
}

/// The seal of a journal's bytes under `key`, as 64 hex digits.
fn seal_of(key: &[u8], body: &[u8]) -> String {
    hex(&mac(key, body).finalize().into_bytes())
}

fn mac(key: &[u8], body: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length; `new_from_slice` cannot fail for it.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    mac.update(body);
    mac
}

/// A short, public name for a key, so a message can say whether two journals share one.
pub fn key_id(key: &[u8]) -> String {
    hex(&Sha256::digest(key)[..8])
}

/// The journal file's text: the journal sealed under `key`.
pub fn seal(key: &[u8], journal: &Journal) -> String {
    // Serialising plain strings, numbers and lists cannot fail.
    let body = serde_json::to_string(journal).unwrap_or_else(|_| unreachable!("a journal always serialises"));
    format!("{PREFIX}{}{MIDDLE}{body}{SUFFIX}", seal_of(key, body.as_bytes()))
}

/// The journal in a journal file's bytes, when it may be acted on: sealed under `key`, of this
/// version, and naming only paths the engine could have written. Anything else is refused.
pub fn open(key: &[u8], bytes: &[u8]) -> Result<Journal, Refusal> {
    let (seal, body) = split(bytes).ok_or(Refusal::NotSealed)?;
    let expected = parse_hex(seal).ok_or(Refusal::NotSealed)?;
    mac(key, body).verify_slice(&expected).map_err(|_| Refusal::WrongSeal)?;
    let journal: Journal = serde_json::from_slice(body).map_err(|error| Refusal::Unreadable(error.to_string()))?;
    if journal.version != VERSION {
        return Err(Refusal::Version(journal.version));
    }
    check_paths(&journal)?;
    Ok(journal)
}

/// The journal's own account of itself, read without the key, for a message about a journal
/// that [`open`] refused: `(tool, pid, machine)` when its body can be read at all.
pub fn describe_unverified(bytes: &[u8]) -> Option<(String, u32, String)> {
    let (_, body) = split(bytes)?;
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    Some((
        value.get("tool")?.as_str()?.to_owned(),
        u32::try_from(value.get("pid")?.as_u64()?).ok()?,
        value.get("machine").and_then(serde_json::Value::as_str).unwrap_or("").to_owned(),
    ))
}

fn split(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let rest = bytes.strip_prefix(PREFIX.as_bytes())?;
    let (seal, rest) = (rest.get(..SEAL_HEX)?, rest.get(SEAL_HEX..)?);
    let body = rest.strip_prefix(MIDDLE.as_bytes())?.strip_suffix(SUFFIX.as_bytes())?;
    Some((seal, body))
}

/// Every path the journal names passes the rules for a path the engine writes: notes, moves and
/// folders are visible vault paths, and each temporary name is the engine's own, beside its note.
pub fn check_paths(journal: &Journal) -> Result<(), Refusal> {
    let unsafe_path = |path: &str, problem: &str| Refusal::UnsafePath { path: path.to_owned(), problem: problem.to_owned() };
    let check = |path: &str| engine_path_problem(path).map_or(Ok(()), |problem| Err(unsafe_path(path, problem)));
    for write in &journal.writes {
        check(&write.path)?;
        if !write.temporary.is_empty() && !is_temporary_beside(&write.temporary, &write.path, "tmp") {
            return Err(unsafe_path(&write.temporary, "it is not a temporary name beside the note it belongs to"));
        }
    }
    for file_move in &journal.moves {
        check(&file_move.from)?;
        check(&file_move.to)?;
        if let Some(via) = &file_move.via {
            if !is_temporary_beside(via, &file_move.from, "case") {
                return Err(unsafe_path(via, "it is not a temporary name beside the file it belongs to"));
            }
        }
    }
    for folder in &journal.made_folders {
        check(folder)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal() -> Journal {
        Journal {
            version: VERSION,
            pid: 7,
            tool: "move_note".to_owned(),
            started_unix_ms: 1,
            machine: "here".to_owned(),
            writes: vec![JournalWrite {
                path: "a/A.md".to_owned(),
                temporary: "a/.A.md.vaultlink-7.tmp".to_owned(),
                before: "[[Old]] \"é\"\n".to_owned(),
                after_hash: "00".to_owned(),
                kind: WriteKind::Replace,
            }],
            moves: vec![JournalMove { from: "Old.md".to_owned(), to: "d/New.md".to_owned(), via: None, hash: None }],
            made_folders: vec!["d".to_owned()],
            change_id: String::new(),
        }
    }

    const KEY: [u8; KEY_BYTES] = [3; KEY_BYTES];

    #[test]
    fn a_sealed_journal_opens_under_its_key_and_no_other() {
        let text = seal(&KEY, &journal());
        assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok(), "the file is JSON: {text}");
        assert_eq!(open(&KEY, text.as_bytes()), Ok(journal()));
        assert_eq!(open(&[4; KEY_BYTES], text.as_bytes()), Err(Refusal::WrongSeal));
        let tampered = text.replace("Old.md", "Olc.md");
        assert_eq!(open(&KEY, tampered.as_bytes()), Err(Refusal::WrongSeal));
        assert_eq!(describe_unverified(text.as_bytes()), Some(("move_note".to_owned(), 7, "here".to_owned())));
    }

    #[test]
    fn an_unsealed_or_foreign_journal_is_refused() {
        let plain = serde_json::to_string(&journal()).unwrap_or_default();
        assert_eq!(open(&KEY, plain.as_bytes()), Err(Refusal::NotSealed));
        assert_eq!(open(&KEY, b""), Err(Refusal::NotSealed));
        assert_eq!(open(&KEY, b"{\"seal\":\"zz\",\"journal\":{}}"), Err(Refusal::NotSealed));
        let upper = seal(&KEY, &journal()).to_ascii_uppercase();
        assert!(open(&KEY, upper.as_bytes()).is_err());
    }

    #[test]
    fn a_sealed_journal_with_a_path_out_of_the_vault_is_refused() {
        type Change = fn(&mut Journal);
        let cases: [(&str, Change); 7] = [
            ("../outside.md", |journal| journal.writes[0].path = "../outside.md".to_owned()),
            ("/etc/passwd", |journal| journal.moves[0].to = "/etc/passwd".to_owned()),
            (".ssh/id_rsa", |journal| journal.moves[0].from = ".ssh/id_rsa".to_owned()),
            ("../../x", |journal| journal.writes[0].temporary = "../../x".to_owned()),
            ("a/../../x", |journal| journal.made_folders[0] = "a/../../x".to_owned()),
            (".vaultlink/journal.json", |journal| journal.moves[0].to = ".vaultlink/journal.json".to_owned()),
            ("x/.Old.md.vaultlink-1.case", |journal| journal.moves[0].via = Some("x/.Old.md.vaultlink-1.case".to_owned())),
        ];
        for (path, change) in cases {
            let mut crafted = journal();
            change(&mut crafted);
            match open(&KEY, seal(&KEY, &crafted).as_bytes()) {
                Err(Refusal::UnsafePath { path: named, .. }) => assert_eq!(named, path),
                other => panic!("{path}: {other:?}"),
            }
        }
    }

    #[test]
    fn another_version_is_refused_by_number() {
        let mut old = journal();
        old.version = 1;
        assert_eq!(open(&KEY, seal(&KEY, &old).as_bytes()), Err(Refusal::Version(1)));
    }
}
