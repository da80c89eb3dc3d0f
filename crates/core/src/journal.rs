//! The journal of a batch being applied, as data: its format, its seal, and the checks that
//! decide whether a journal found in a vault may be acted on.
//!
//! Both edges write the journal (`<vault>/.vaultlink/journal.json`) before a batch's first
//! change, so that a batch a crash interrupts can be undone from it, and keep an applied batch's
//! journal for `undo_change` (`history`). A journal found in a vault is untrusted input: it may
//! have arrived with the vault (git, a sync service, a zip) and name any path. So a journal is
//! *sealed*: the file is
//!
//! ```text
//! {"seal":"<64 hex digits>","purpose":"journal","key":"<the key's id>","journal":<the journal as JSON>}
//! ```
//!
//! where the seal is the HMAC-SHA256, under the vault's sealing key of that id (`seal_key`: a
//! secret kept in the vault, bound to its key file's identity, so a copy of the vault never
//! carries a usable one), of the purpose, the key's id and the journal's exact bytes
//! ([`Binding`]). The purpose tells a journal of a change being made (`journal`) from an applied
//! change kept for undo (`kept`), so that neither can ever be taken for the other; the key's id
//! ties the file to the key file it was sealed with, which is this vault's alone. [`open`] acts
//! on a file only when its seal verifies under that key, it is of the purpose asked for, of this
//! version, no larger than [`MAX_FILE_BYTES`], and every path it names passes the path rules;
//! anything else is a [`Refusal`], and the file is left for the user. A journal sealed with a key
//! this copy of the vault does not hold (another copy, another machine, another user, or
//! nobody's) is never acted on, whatever it says.

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::hex::{hex, parse_hex};
use crate::paths::{engine_path_problem, is_temporary_beside};

/// The version of the journal this engine writes and reads: 4 since the seal binds a purpose and
/// the id of a key kept in the vault ([`Binding`]); 3 bound the vault's path under a key kept in
/// the user's home folder, which two sandboxes of one user did not share.
pub const VERSION: u32 = 4;

/// The most bytes a journal or kept change file may have, sealed. An edge checks a file's size
/// before it reads it (and reads no more than this), so a huge file planted in a vault costs a
/// call nothing; a batch whose journal would be larger is refused before its first change, so
/// every journal written can be read back. 64 MiB holds the pre-images of the largest move
/// measured (the most-linked note of the 100,000-note vault: 35,410 notes, about 43 MB) and
/// four notes of the largest size the sidecar indexes (16 MiB).
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// Where a batch's journal is, in the vault: the vault's lock while it is there.
pub const JOURNAL_FILE: &str = concat!(crate::own_files::own_folder!(), "/journal.json");

/// The `pid` of a journal whose batch failed and could not be wholly undone: no process is
/// applying it any more, so recovery may run at once.
pub const ABANDONED: u32 = 0;

pub use crate::seal_key::KEY_BYTES;

const PREFIX: &str = "{\"seal\":\"";
const PURPOSE: &str = "\",\"purpose\":\"";
const KEY: &str = "\",\"key\":\"";
/// What version 3 wrote where [`KEY`] is now.
const VAULT: &str = "\",\"vault\":\"";
const MIDDLE: &str = "\",\"journal\":";
const SUFFIX: &str = "}";
const SEAL_HEX: usize = 64;
/// The most bytes of a key's id (or version 3's vault key) in a sealed file.
const MAX_KEY_ID_BYTES: usize = 64;

/// What a sealed file is for. The seal covers it, so a file of one purpose never opens as the
/// other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Purpose {
    /// `.vaultlink/journal.json`: a batch being applied, or one that was interrupted, which
    /// recovery undoes.
    Journal,
    /// A file of `history::CHANGES_FOLDER`: an applied batch kept for `undo_change`.
    Kept,
}

impl Purpose {
    fn as_str(self) -> &'static str {
        match self {
            Purpose::Journal => "journal",
            Purpose::Kept => "kept",
        }
    }

    fn parse(text: &[u8]) -> Option<Purpose> {
        match text {
            b"journal" => Some(Purpose::Journal),
            b"kept" => Some(Purpose::Kept),
            _ => None,
        }
    }
}

/// What a seal binds a journal to besides its bytes: its purpose and the id of the vault's key it
/// was sealed with (`seal_key`), which the file names so that an edge knows which key file to
/// open it with. A journal copied into another vault names a key that vault does not hold, or
/// holds only as a copy, which derives another key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Binding<'a> {
    pub purpose: Purpose,
    pub key: &'a str,
}

/// What a batch is about to change, written before its first change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Journal {
    pub version: u32,
    /// The process applying the batch, for the messages: liveness is the lease's (`lease`).
    pub pid: u32,
    /// The random id of the holder applying the batch (`lease::HOLDER_HEX` hex digits), which
    /// renews the journal's lease while it works; empty in a journal of a vaultlink before leases.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub holder: String,
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
    /// For an undo: the kept change it consumes (`history::CHANGES_FOLDER/<name>`), set aside
    /// (`history::set_aside_name`) as part of the undo's commit, so recovery, undoing the undo,
    /// puts it back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forget: Option<String>,
}

/// A note the batch rewrites. Paths are relative to the vault, with `/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
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
    /// Not a sealed journal at all (not written by vaultlink, or a version before seals).
    NotSealed,
    /// Sealed by a vaultlink before seals named a key kept in the vault (versions 2 and 3).
    OldFormat,
    /// Larger than [`MAX_FILE_BYTES`]: not read at all.
    TooLarge {
        bytes: u64,
    },
    /// Sealed for the other purpose: a kept change where a journal is looked for, or the reverse.
    Purpose {
        found: Purpose,
    },
    /// Sealed with another key than the one it was opened with (an edge's mistake: an edge opens
    /// a file with the key it names).
    OtherKey,
    /// Sealed with a key this vault does not hold, or holds in a file that may not be used.
    NoKey {
        id: String,
        why: crate::seal_key::Unusable,
    },
    /// A journal of a change that was made and kept for undo since (a later change is kept
    /// after it): not an interrupted change, but a copy put back.
    AlreadyKept {
        change_id: String,
    },
    /// Sealed, but not with the key its key file derives here (the key file is a copy), or changed
    /// since it was sealed.
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
            Refusal::OldFormat => {
                "it was sealed by an older vaultlink (before a seal named a key kept in the vault), and is never acted on; if that version's change was interrupted, run that version's `vaultlink recover`, or remove the file".to_owned()
            }
            Refusal::TooLarge { bytes } => {
                format!("it is {bytes} bytes, over the {MAX_FILE_BYTES} a journal or a kept change may have, so it was not read")
            }
            Refusal::Purpose { found: Purpose::Kept } => {
                "it is a change kept for undo_change (a file of .vaultlink/changes), not the journal of a change being made, so there is nothing to recover".to_owned()
            }
            Refusal::Purpose { found: Purpose::Journal } => {
                "it is the journal of a change being made, not a change kept for undo_change".to_owned()
            }
            Refusal::OtherKey => "it was sealed with another key than the one it was opened with".to_owned(),
            Refusal::NoKey { id, why } => format!(
                "it was sealed with the key `{id}`, whose file {}/{} {}: it came with a copy of the vault (a sync, a clone, a backup) or from another machine, and only the copy that sealed it can act on it. If its change was interrupted there, run `vaultlink recover` there; otherwise remove the file",
                crate::seal_key::KEYS_FOLDER,
                crate::seal_key::file_name(id),
                why.message()
            ),
            Refusal::AlreadyKept { change_id } => format!(
                "it is the journal of the change `{change_id}`, which was made and kept for undo_change, and later changes were made since: it is a copy put back, not an interrupted change"
            ),
            Refusal::WrongSeal => {
                "its seal does not verify: it was sealed in another copy of this vault (a copy, a sync, a clone or a restored backup carries its key file but never a usable key), or changed since. If its change was interrupted in that copy, run `vaultlink recover` there; otherwise remove the file".to_owned()
            }
            Refusal::Unreadable(reason) => crate::own_files::cannot_be_read(reason),
            Refusal::Version(version) => format!("it is a version {version} journal; this vaultlink reads version {VERSION}"),
            Refusal::UnsafePath { path, problem } => format!("it names {path:?}, which is not a path the engine writes: {problem}"),
        }
    }
}

/// The seal of a journal's bytes under `key`, bound to `binding`, as 64 hex digits.
fn seal_of(key: &[u8], binding: Binding<'_>, body: &[u8]) -> String {
    hex(&mac(key, binding.purpose, binding.key.as_bytes(), body).finalize().into_bytes())
}

/// The HMAC of the purpose, the key's id and the body, each but the last ended by a NUL byte
/// (which neither holds), so no two bindings share an input.
fn mac(key: &[u8], purpose: Purpose, id: &[u8], body: &[u8]) -> Hmac<Sha256> {
    // HMAC takes a key of any length; `new_from_slice` cannot fail for it.
    let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(key).unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
    mac.update(purpose.as_str().as_bytes());
    mac.update(b"\0");
    mac.update(id);
    mac.update(b"\0");
    mac.update(body);
    mac
}

/// A short, public name for a key, so a message can say whether two journals share one.
pub fn key_id(key: &[u8]) -> String {
    hex(&Sha256::digest(key)[..8])
}

/// A journal too large to be written: its file would be larger than [`MAX_FILE_BYTES`], so no
/// edge could read it back to undo the batch. The batch is refused before its first change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLarge {
    pub bytes: u64,
}

/// The file's text: the journal sealed under `key` (derived from the key file of `binding.key`,
/// `seal_key::derive`) for `binding`, or [`TooLarge`] when it would be larger than
/// [`MAX_FILE_BYTES`].
pub fn seal(key: &[u8], binding: Binding<'_>, journal: &Journal) -> Result<String, TooLarge> {
    // Serialising plain strings, numbers and lists cannot fail.
    let body = serde_json::to_string(journal).unwrap_or_else(|_| unreachable!("a journal always serialises"));
    let text = format!(
        "{PREFIX}{}{PURPOSE}{}{KEY}{}{MIDDLE}{body}{SUFFIX}",
        seal_of(key, binding, body.as_bytes()),
        binding.purpose.as_str(),
        binding.key
    );
    if text.len() as u64 > MAX_FILE_BYTES {
        return Err(TooLarge { bytes: text.len() as u64 });
    }
    Ok(text)
}

/// The id of the key a file says it was sealed with (not yet verified): the key file an edge
/// opens it with. A file that names none is refused as [`open`] would refuse it.
pub fn key_named(bytes: &[u8]) -> Result<String, Refusal> {
    Ok(String::from_utf8_lossy(sealed_parts(bytes)?.key).into_owned())
}

fn sealed_parts(bytes: &[u8]) -> Result<Sealed<'_>, Refusal> {
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(Refusal::TooLarge { bytes: bytes.len() as u64 });
    }
    match split(bytes, KEY) {
        Some(sealed) if crate::seal_key::is_key_id(&String::from_utf8_lossy(sealed.key)) => Ok(sealed),
        Some(_) => Err(Refusal::NotSealed),
        None if split(bytes, VAULT).is_some() || split_old(bytes).is_some() => Err(Refusal::OldFormat),
        None => Err(Refusal::NotSealed),
    }
}

/// The journal in a file's bytes, when it may be acted on: no larger than [`MAX_FILE_BYTES`],
/// sealed under `key` (the key the edge derived from the key file the file names,
/// [`key_named`]), for the purpose and key `expected` names, of this version, and naming only
/// paths the engine could have written. Anything else is refused.
pub fn open(key: &[u8], expected: Binding<'_>, bytes: &[u8]) -> Result<Journal, Refusal> {
    let sealed = sealed_parts(bytes)?;
    let seal = parse_hex(sealed.seal).ok_or(Refusal::NotSealed)?;
    // Verified under the binding the file states, so that a refusal can say which of the two
    // differs; the seal covers both, so neither can be changed without breaking it.
    if sealed.key != expected.key.as_bytes() {
        return Err(Refusal::OtherKey);
    }
    mac(key, sealed.purpose, sealed.key, sealed.body).verify_slice(&seal).map_err(|_| Refusal::WrongSeal)?;
    if sealed.purpose != expected.purpose {
        return Err(Refusal::Purpose { found: sealed.purpose });
    }
    let journal: Journal = serde_json::from_slice(sealed.body).map_err(|error| Refusal::Unreadable(error.to_string()))?;
    if journal.version != VERSION {
        return Err(Refusal::Version(journal.version));
    }
    check_paths(&journal)?;
    Ok(journal)
}

/// The journal's own account of itself, read without the key, for a message about a journal
/// that [`open`] refused: `(tool, pid, machine)` when its body can be read at all.
pub fn describe_unverified(bytes: &[u8]) -> Option<(String, u32, String)> {
    let body = split(bytes, KEY).or_else(|| split(bytes, VAULT)).map(|sealed| sealed.body).or_else(|| split_old(bytes))?;
    let value: serde_json::Value = serde_json::from_slice(body).ok()?;
    Some((
        value.get("tool")?.as_str()?.to_owned(),
        u32::try_from(value.get("pid")?.as_u64()?).ok()?,
        value.get("machine").and_then(serde_json::Value::as_str).unwrap_or("").to_owned(),
    ))
}

/// A sealed file's parts, as it states them (not yet verified).
struct Sealed<'a> {
    seal: &'a [u8],
    purpose: Purpose,
    /// The key's id (or, in a version 3 file, the vault's key).
    key: &'a [u8],
    body: &'a [u8],
}

/// The parts of a sealed file whose binding starts with `label` ([`KEY`], or version 3's
/// [`VAULT`]).
fn split<'a>(bytes: &'a [u8], label: &str) -> Option<Sealed<'a>> {
    let rest = bytes.strip_prefix(PREFIX.as_bytes())?;
    let (seal, rest) = (rest.get(..SEAL_HEX)?, rest.get(SEAL_HEX..)?);
    let rest = rest.strip_prefix(PURPOSE.as_bytes())?;
    let end = rest.iter().take(16).position(|&byte| byte == b'"')?;
    let purpose = Purpose::parse(&rest[..end])?;
    let rest = rest[end..].strip_prefix(label.as_bytes())?;
    let end = rest.iter().take(MAX_KEY_ID_BYTES + 1).position(|&byte| byte == b'"')?;
    let key = &rest[..end];
    if !key.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let body = rest[end..].strip_prefix(MIDDLE.as_bytes())?.strip_suffix(SUFFIX.as_bytes())?;
    Some(Sealed { seal, purpose, key, body })
}

/// The body of a file sealed as version 2 sealed it (`{"seal":"…","journal":…}`, no purpose or
/// vault), to tell it apart with a reason that says what to do.
fn split_old(bytes: &[u8]) -> Option<&[u8]> {
    let rest = bytes.strip_prefix(PREFIX.as_bytes())?;
    let (seal, rest) = (rest.get(..SEAL_HEX)?, rest.get(SEAL_HEX..)?);
    parse_hex(seal)?;
    rest.strip_prefix(MIDDLE.as_bytes())?.strip_suffix(SUFFIX.as_bytes())
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
    if let Some(forget) = &journal.forget {
        let in_changes = forget.strip_prefix(crate::kept_names::CHANGES_FOLDER).is_some_and(|name| name.starts_with('/'));
        if !in_changes || !crate::kept_names::is_record_name(forget) {
            return Err(unsafe_path(forget, "it is not the name of a kept change"));
        }
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
            holder: String::new(),
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
            forget: None,
        }
    }

    const KEY: [u8; KEY_BYTES] = [3; KEY_BYTES];
    const HERE: Binding<'static> = Binding { purpose: Purpose::Journal, key: "0123456789abcdef" };

    fn sealed(key: &[u8], journal: &Journal) -> String {
        seal(key, HERE, journal).unwrap_or_default()
    }

    #[test]
    fn a_sealed_journal_opens_under_its_key_and_no_other() {
        let text = sealed(&KEY, &journal());
        assert!(serde_json::from_str::<serde_json::Value>(&text).is_ok(), "the file is JSON: {text}");
        assert_eq!(open(&KEY, HERE, text.as_bytes()), Ok(journal()));
        assert_eq!(open(&[4; KEY_BYTES], HERE, text.as_bytes()), Err(Refusal::WrongSeal));
        let tampered = text.replace("Old.md", "Olc.md");
        assert_eq!(open(&KEY, HERE, tampered.as_bytes()), Err(Refusal::WrongSeal));
        assert_eq!(describe_unverified(text.as_bytes()), Some(("move_note".to_owned(), 7, "here".to_owned())));
    }

    #[test]
    fn an_unsealed_or_foreign_journal_is_refused() {
        let plain = serde_json::to_string(&journal()).unwrap_or_default();
        assert_eq!(open(&KEY, HERE, plain.as_bytes()), Err(Refusal::NotSealed));
        assert_eq!(open(&KEY, HERE, b""), Err(Refusal::NotSealed));
        assert_eq!(open(&KEY, HERE, b"{\"seal\":\"zz\",\"journal\":{}}"), Err(Refusal::NotSealed));
        let upper = sealed(&KEY, &journal()).to_ascii_uppercase();
        assert!(open(&KEY, HERE, upper.as_bytes()).is_err());
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
            match open(&KEY, HERE, sealed(&KEY, &crafted).as_bytes()) {
                Err(Refusal::UnsafePath { path: named, .. }) => assert_eq!(named, path),
                other => panic!("{path}: {other:?}"),
            }
        }
    }

    #[test]
    fn another_version_is_refused_by_number() {
        let mut old = journal();
        old.version = 1;
        assert_eq!(open(&KEY, HERE, sealed(&KEY, &old).as_bytes()), Err(Refusal::Version(1)));
    }

    /// Issue 34 (red team): a kept change was sealed as a journal is, so copied to the journal's
    /// place it opened as one. The seal binds the purpose and the vault.
    #[test]
    fn a_kept_change_never_opens_as_a_journal_nor_a_file_of_another_vault() {
        let kept = Binding { purpose: Purpose::Kept, ..HERE };
        let record = seal(&KEY, kept, &journal()).unwrap_or_default();
        assert_eq!(open(&KEY, kept, record.as_bytes()), Ok(journal()));
        assert_eq!(open(&KEY, HERE, record.as_bytes()), Err(Refusal::Purpose { found: Purpose::Kept }));
        assert!(Refusal::Purpose { found: Purpose::Kept }.message().contains("kept for undo_change"));
        assert_eq!(open(&KEY, kept, sealed(&KEY, &journal()).as_bytes()), Err(Refusal::Purpose { found: Purpose::Journal }));
        let elsewhere = Binding { key: "fedcba9876543210", ..HERE };
        assert_eq!(open(&KEY, elsewhere, sealed(&KEY, &journal()).as_bytes()), Err(Refusal::OtherKey));
        // The purpose or the key's id changed in the file breaks the seal.
        let relabelled = record.replacen("\"purpose\":\"kept\"", "\"purpose\":\"journal\"", 1);
        assert_eq!(open(&KEY, HERE, relabelled.as_bytes()), Err(Refusal::WrongSeal));
        let moved = sealed(&KEY, &journal()).replacen("0123456789abcdef", "fedcba9876543210", 1);
        assert_eq!(open(&KEY, elsewhere, moved.as_bytes()), Err(Refusal::WrongSeal));
    }

    /// A file sealed as version 3 sealed it (the vault's path, under a key of the home folder) is
    /// never acted on, and the refusal says what to do.
    #[test]
    fn a_version_3_file_is_refused_saying_what_to_do() {
        let body = serde_json::to_string(&Journal { version: 3, ..journal() }).unwrap_or_default();
        let seal = hex(&mac(&KEY, Purpose::Journal, b"27d33c883a0ee639", body.as_bytes()).finalize().into_bytes());
        let old = format!("{PREFIX}{seal}{PURPOSE}journal{VAULT}27d33c883a0ee639{MIDDLE}{body}{SUFFIX}");
        assert_eq!(open(&KEY, HERE, old.as_bytes()), Err(Refusal::OldFormat));
        assert_eq!(key_named(old.as_bytes()), Err(Refusal::OldFormat));
        assert!(Refusal::OldFormat.message().contains("never acted on"));
        assert_eq!(describe_unverified(old.as_bytes()), Some(("move_note".to_owned(), 7, "here".to_owned())));
    }

    #[test]
    fn a_file_names_the_key_it_was_sealed_with() {
        assert_eq!(key_named(sealed(&KEY, &journal()).as_bytes()), Ok("0123456789abcdef".to_owned()));
        // An id that is not one (it would name another file than a key file) is not a seal.
        let crafted = sealed(&KEY, &journal()).replacen("0123456789abcdef", "0123456789ABCDEF", 1);
        assert_eq!(key_named(crafted.as_bytes()), Err(Refusal::NotSealed));
        let message = Refusal::NoKey { id: "0123456789abcdef".to_owned(), why: crate::seal_key::Unusable::Missing }.message();
        assert!(message.contains(".vaultlink/keys/0123456789abcdef.key is not in this vault"), "{message}");
        assert!(message.contains("`vaultlink recover`"), "{message}");
    }

    /// A file sealed as version 2 sealed it (no purpose, no vault) is refused with what to do.
    #[test]
    fn a_file_of_the_format_before_is_refused_saying_what_to_do() {
        let body = serde_json::to_string(&Journal { version: 2, ..journal() }).unwrap_or_default();
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&KEY).unwrap_or_else(|_| unreachable!());
        mac.update(body.as_bytes());
        let old = format!("{PREFIX}{}{MIDDLE}{body}{SUFFIX}", hex(&mac.finalize().into_bytes()));
        assert_eq!(open(&KEY, HERE, old.as_bytes()), Err(Refusal::OldFormat));
        assert!(Refusal::OldFormat.message().contains("`vaultlink recover`"));
        assert_eq!(describe_unverified(old.as_bytes()), Some(("move_note".to_owned(), 7, "here".to_owned())));
    }

    /// Issue 34: a journal of 1 GiB was read whole by every call. Past the bound a file is refused
    /// without being looked at, and a journal that would pass it is never written.
    #[test]
    fn a_file_past_the_bound_is_refused_and_never_written() {
        let big = vec![b' '; MAX_FILE_BYTES as usize + 1];
        assert_eq!(open(&KEY, HERE, &big), Err(Refusal::TooLarge { bytes: MAX_FILE_BYTES + 1 }));
        let mut large = journal();
        large.writes[0].before = "x".repeat(MAX_FILE_BYTES as usize);
        assert!(seal(&KEY, HERE, &large).is_err_and(|too_large| too_large.bytes > MAX_FILE_BYTES));
    }

    /// The cases both edges check (`tests/vectors/seals.json`), computed apart from this code.
    #[test]
    fn the_shared_vectors_hold() {
        let vectors: serde_json::Value = serde_json::from_str(include_str!("../../../tests/vectors/seals.json")).unwrap_or_default();
        let cases = vectors["cases"].as_array().cloned().unwrap_or_default();
        assert!(cases.len() >= 4);
        for case in cases {
            let text = |name: &str| case[name].as_str().unwrap_or_default().to_owned();
            let secret = parse_hex(text("secret").as_bytes()).unwrap_or_default();
            let identity: u64 = text("identity").parse().unwrap_or_default();
            let derived = crate::seal_key::derive(&secret, identity);
            assert_eq!(hex(&derived), text("derived"));
            let purpose = Purpose::parse(text("purpose").as_bytes()).unwrap_or(Purpose::Journal);
            let id = text("key");
            let binding = Binding { purpose, key: &id };
            let file = text("file");
            let journal = open(&derived, binding, file.as_bytes());
            assert!(journal.is_ok(), "{journal:?}");
            assert_eq!(journal.ok().and_then(|journal| seal(&derived, binding, &journal).ok()), Some(file.clone()));
            assert_eq!(key_named(file.as_bytes()), Ok(id.clone()));
            // The same file under the key of another identity does not verify.
            assert_eq!(open(&crate::seal_key::derive(&secret, identity ^ 1), binding, file.as_bytes()), Err(Refusal::WrongSeal));
        }
    }
}
