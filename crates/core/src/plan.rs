//! The plan every writing tool makes: the files it moves, creates and edits, the edits as byte
//! ranges over the text that was read (with that text's hash, so an edge refuses a note that
//! changed since), the link changes it shows, and the plan's hash, which an agent passes back as
//! `approved_plan_hash` to apply exactly the plan it previewed.
//!
//! A move, a rewrite, a repair, a property change, a wiki page, an undo and a delete all plan
//! into this one shape, so the edges carry out one thing, and one function applies the edits.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::canvas::json_string_content;
use crate::hex::hex;
use crate::parse::{Link, LinkSource, Span};

/// The most bytes of new link text one `rewrite_link` or move plan holds (each link's new
/// target, and the link as the answer shows it): a plan grows with links × the target's length
/// (20,000 links to a 4 KiB target would be 160 MiB before the proof and the answer copy it
/// again), so past this it is refused as it is made, before it grows further.
pub const MAX_PLAN_TEXT_BYTES: usize = 32 << 20;

/// One replacement in one note's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct TextEdit {
    /// UTF-8 byte range of the text that was read.
    pub span: Span,
    pub replacement: String,
}

/// The edits to one note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileEdit {
    /// The note's path when the plan was made (before the moves).
    pub path: String,
    /// SHA-256 of the text the edits apply to, as lowercase hex. An edge refuses to apply the
    /// plan when the note's text no longer has this hash.
    pub content_hash: String,
    /// Sorted and disjoint.
    pub edits: Vec<TextEdit>,
}

/// One file moving.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct FileMove {
    pub from: String,
    pub to: String,
}

/// Why a link is rewritten.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum ChangeReason {
    /// It points to a file that moves.
    TargetMoved,
    /// It is in a note that moves, and is written relative to that note's folder.
    SourceMoved,
    /// The move would make it point elsewhere (a name collision), so it is written to keep
    /// pointing at its own target.
    SecondOrder,
    /// `rewrite_link` repoints it to a new target.
    Repointed,
    /// `link_mentions` makes it of a note's name written in plain text.
    Linked,
}

/// One link the plan rewrites.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct LinkChange {
    /// The note holding the link, at its path before the move.
    pub note: String,
    pub line: u32,
    pub before: String,
    pub after: String,
    pub reason: ChangeReason,
}

/// A link that was unresolved and will find the moved file under its new name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct NewlyResolved {
    pub note: String,
    pub line: u32,
    pub link: String,
    pub resolves_to: String,
}

/// A file a plan creates, with its whole text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileCreate {
    pub path: String,
    pub text: String,
}

/// A move, planned and proven.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovePlan {
    pub moves: Vec<FileMove>,
    pub edits: Vec<FileEdit>,
    /// New files the plan makes (`commit_wiki_page`'s page).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub creates: Vec<FileCreate>,
    pub changes: Vec<LinkChange>,
    pub newly_resolved: Vec<NewlyResolved>,
    /// SHA-256 over the moves and edits: the same plan always has the same hash.
    pub plan_hash: String,
}

/// SHA-256 of a text as lowercase hex: the hash a plan's edits assume.
pub fn content_hash(text: &str) -> String {
    hex(&Sha256::digest(text.as_bytes()))
}

/// The plan: the moves, each edited note's edits (sorted by where they start, disjoint) over the
/// text they apply to, with that text's hash, the changes, and the plan's hash. `sizes`: how
/// many notes and changes there are, so that no list of the plan is copied as it grows.
pub(crate) fn assemble<'t>(
    moves: &[(String, String)],
    sizes: (usize, usize),
    files: impl IntoIterator<Item = (String, &'t str, Vec<TextEdit>, Vec<LinkChange>)>,
    newly_resolved: Vec<NewlyResolved>,
) -> MovePlan {
    let mut file_edits = Vec::with_capacity(sizes.0);
    let mut changes = Vec::with_capacity(sizes.1);
    for (path, text, edits, file_changes) in files {
        assert!(edits.windows(2).all(|pair| pair[0].span.end <= pair[1].span.start), "edits in one note are sorted and disjoint");
        changes.extend(file_changes);
        file_edits.push(FileEdit { path, content_hash: content_hash(text), edits });
    }
    let moves: Vec<FileMove> = moves.iter().map(|(from, to)| FileMove { from: from.clone(), to: to.clone() }).collect();
    let mut hash = PlanHash::new();
    for file_move in &moves {
        hash.record(&[b"move", file_move.from.as_bytes(), file_move.to.as_bytes()]);
    }
    hash.files(&file_edits, b"edit");
    MovePlan { moves, edits: file_edits, creates: Vec::new(), changes, newly_resolved, plan_hash: hash.finish() }
}

/// The one hash of every plan, whichever tool makes it: SHA-256 over records, each its fields
/// joined by a NUL and ended by a line break, the first naming what the plan does (`move`,
/// `update_properties`, `commit_wiki_page`, `delete`, `undo_change`, `heal_moves`) and the rest
/// what it does it to, so two plans hash alike only when they make the same change. A field holds
/// no NUL or line break of its own that could shift a record into the next (paths hold none; an
/// edit's replacement, the one free text, is its record's last field, after its span, which fixes
/// where it starts). The records are gathered in a buffer handed to the hasher a few kilobytes at
/// a time, without a string made for each.
#[derive(Debug)]
pub struct PlanHash {
    hasher: Sha256,
    buffer: Vec<u8>,
}

impl Default for PlanHash {
    fn default() -> Self {
        PlanHash::new()
    }
}

impl PlanHash {
    pub fn new() -> PlanHash {
        PlanHash { hasher: Sha256::new(), buffer: Vec::with_capacity(8192) }
    }

    /// One record: `fields` joined by NULs, then a line break.
    pub fn record(&mut self, fields: &[&[u8]]) {
        for (at, field) in fields.iter().enumerate() {
            if at > 0 {
                self.buffer.push(0);
            }
            self.buffer.extend_from_slice(field);
        }
        self.buffer.push(b'\n');
        if self.buffer.len() >= 4096 {
            self.hasher.update(&self.buffer);
            self.buffer.clear();
        }
    }

    /// One edit: its span's start and end in decimal, then its replacement.
    pub fn edit(&mut self, edit: &TextEdit) {
        let (mut start, mut end) = ([0; 20], [0; 20]);
        self.record(&[decimal(edit.span.start, &mut start), decimal(edit.span.end, &mut end), edit.replacement.as_bytes()]);
    }

    /// Each edited file (`tag`, when not empty, before its path and the hash of the text its edits
    /// apply to), then each of its edits.
    pub fn files(&mut self, files: &[FileEdit], tag: &[u8]) {
        for file in files {
            if tag.is_empty() {
                self.record(&[file.path.as_bytes(), file.content_hash.as_bytes()]);
            } else {
                self.record(&[tag, file.path.as_bytes(), file.content_hash.as_bytes()]);
            }
            for edit in &file.edits {
                self.edit(edit);
            }
        }
    }

    /// The hash, as lowercase hex.
    pub fn finish(mut self) -> String {
        self.hasher.update(&self.buffer);
        hex(&self.hasher.finalize())
    }
}

/// `value` in decimal digits, written at the end of `digits`.
fn decimal(mut value: usize, digits: &mut [u8; 20]) -> &[u8] {
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            return &digits[at..];
        }
    }
}

/// Applies a file's edits to its text. The edits must be sorted and disjoint.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> String {
    apply_edits_of(text, edits.iter())
}

pub(crate) fn apply_edits_of<'e>(text: &str, edits: impl Iterator<Item = &'e TextEdit>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in edits {
        assert!(at <= edit.span.start && edit.span.end <= text.len(), "edits are sorted, disjoint and inside the text");
        out.push_str(&text[at..edit.span.start]);
        out.push_str(&edit.replacement);
        at = edit.span.end;
    }
    out.push_str(&text[at..]);
    out
}

/// `path` as it is written in the link's place: escaped as its property's YAML string needs
/// (`It's` is `'It''s'` in single quotes), as a JSON string needs in a canvas, as is in the body. `None` when the string cannot
/// hold it.
pub(crate) fn escape_in_property<'p>(link: &Link, path: &'p str) -> Option<std::borrow::Cow<'p, str>> {
    match &link.source {
        LinkSource::Property { quote, .. } => quote.escape(path).map(std::borrow::Cow::Owned),
        LinkSource::Body => Some(std::borrow::Cow::Borrowed(path)),
        LinkSource::CanvasFile { .. } | LinkSource::CanvasText { .. } => Some(std::borrow::Cow::Owned(json_string_content(path))),
    }
}

/// The whole written link `link` of `text` with `edit` (its target, and maybe its display text)
/// applied: what a change shows as the link after it.
pub(crate) fn link_with_edit(text: &str, link: &Link, edit: &TextEdit) -> String {
    let mut after = String::with_capacity(link.span.end - link.span.start + edit.replacement.len());
    after.push_str(&text[link.span.start..edit.span.start]);
    after.push_str(&edit.replacement);
    after.push_str(&text[edit.span.end..link.span.end]);
    after
}

/// The whole written link `link` of `text` with its target (`target_span`) replaced by
/// `replacement`: what a change shows as the link after it.
pub fn link_with_target(text: &str, link: &Link, replacement: &str) -> String {
    let mut after = String::with_capacity(link.span.end - link.span.start + replacement.len());
    after.push_str(&text[link.span.start..link.target_span.start]);
    after.push_str(replacement);
    after.push_str(&text[link.target_span.end..link.span.end]);
    after
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_hash_is_the_hash_of_its_records_each_field_apart() {
        let mut hash = PlanHash::new();
        hash.record(&[b"delete", b"A.md", b"h"]);
        hash.edit(&TextEdit { span: Span { start: 3, end: 12 }, replacement: "New".to_owned() });
        assert_eq!(hash.finish(), content_hash("delete\0A.md\0h\n3\x0012\0New\n"));
        let of = |fields: &[&[u8]]| {
            let mut hash = PlanHash::new();
            hash.record(fields);
            hash.finish()
        };
        assert_ne!(of(&[b"a", b"bc"]), of(&[b"ab", b"c"]), "the fields stay apart");
    }

    #[test]
    fn a_long_plan_hashes_as_one_written_whole() {
        let files: Vec<FileEdit> = (0..500)
            .map(|at| FileEdit {
                path: format!("notes/{at}.md"),
                content_hash: content_hash(&at.to_string()),
                edits: vec![TextEdit { span: Span { start: at, end: at + 2 }, replacement: format!("[[{at}]]") }],
            })
            .collect();
        let mut hash = PlanHash::new();
        hash.files(&files, b"edit");
        let whole: String = files
            .iter()
            .map(|file| {
                format!(
                    "edit\0{}\0{}\n{}\0{}\0{}\n",
                    file.path, file.content_hash, file.edits[0].span.start, file.edits[0].span.end, file.edits[0].replacement
                )
            })
            .collect();
        assert_eq!(hash.finish(), content_hash(&whole));
    }
}
