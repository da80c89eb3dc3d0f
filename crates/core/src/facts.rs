//! What lint and `find_existing_page` need of each note, read when the index reads it: the H1,
//! the top-level properties as YAML reads them, the frontmatter's problems, and for a
//! `SCHEMA.md` its schema. Short texts only, never the note's text.

use serde::{Deserialize, Serialize};

use crate::parse::ParsedNote;
use crate::resolve::{self, fold};
use crate::schema_file::{read_schema_file, SchemaFile};
use crate::yaml_text::{cut_chars, yaml_scalar_text, MAX_VALUE_CHARS};

/// The most top-level properties kept per note for lint checks; the rest are dropped with
/// [`NoteFacts::properties_cut`] set. Real notes have a handful.
pub const MAX_PROPERTIES_KEPT: usize = 64;
/// The most values kept per property (list items); the rest are dropped with
/// [`Property::cut`] set.
pub const MAX_VALUES_KEPT: usize = 64;
/// The most frontmatter problems kept per note.
pub const MAX_FRONTMATTER_PROBLEMS: usize = 20;

/// What the index keeps of a note's identity and properties, for lint and
/// `find_existing_page`: short texts only, never the note's text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NoteFacts {
    /// The text of the first level-1 heading.
    pub h1: Option<String>,
    /// Top-level properties as YAML reads them, in order; empty when the YAML cannot be read
    /// (Obsidian then reads no properties either).
    pub properties: Vec<Property>,
    /// True when the note had more than [`MAX_PROPERTIES_KEPT`] properties.
    pub properties_cut: bool,
    /// Problems of the frontmatter block: `malformed_frontmatter`,
    /// `frontmatter_not_a_mapping`, `unquoted_property_link`.
    pub frontmatter_problems: Vec<FrontmatterProblem>,
    /// For a note named `SCHEMA.md`: what was read from its frontmatter.
    pub schema: Option<Box<SchemaFile>>,
    /// [`text_fingerprint`] of the text the note was read from: a move's plan checks the text
    /// it is given against it, to use the links the index holds instead of parsing the text
    /// again (`rename`).
    pub text_fingerprint: u64,
}

impl NoteFacts {
    /// The property `key` (compared without regard to case).
    pub fn property(&self, key: &str) -> Option<&Property> {
        self.properties.iter().find(|property| property.key.eq_ignore_ascii_case(key))
    }

    /// The first value of the property `key`, when it has one.
    pub fn property_text(&self, key: &str) -> Option<&str> {
        self.property(key).and_then(|property| property.values.first()).map(String::as_str)
    }
}

/// One top-level property of a note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    pub key: String,
    /// The scalar, or the scalar items of a list, as text (numbers and booleans as written by
    /// YAML); nested mappings give none.
    pub values: Vec<String>,
    pub shape: ValueShape,
    /// True when a value or the list was cut at a limit.
    pub cut: bool,
}

/// What a property holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ValueShape {
    /// `key:` with nothing, or `null`.
    Empty,
    Scalar,
    List,
    Mapping,
}

impl Property {
    /// True when the property holds nothing: no value, an empty string or an empty list.
    pub fn is_empty(&self) -> bool {
        match self.shape {
            ValueShape::Empty => true,
            ValueShape::Scalar | ValueShape::List => self.values.iter().all(|value| value.trim().is_empty()),
            ValueShape::Mapping => false,
        }
    }
}

/// A problem of a note's frontmatter, kept from its parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontmatterProblem {
    /// `malformed_frontmatter`, `frontmatter_not_a_mapping`, `frontmatter_too_deep`,
    /// `frontmatter_too_large` or `unquoted_property_link`.
    pub code: String,
    pub message: String,
    /// 1-based line of the problem in the note.
    pub line: u32,
}

/// The codes of parse diagnostics that lint reports as frontmatter problems.
const FRONTMATTER_CODES: [&str; 5] =
    ["malformed_frontmatter", "frontmatter_not_a_mapping", "unquoted_property_link", "frontmatter_too_deep", "frontmatter_too_large"];

/// Reads what lint needs from a parsed note and its text: the H1, the top-level properties,
/// the frontmatter's problems, and for `SCHEMA.md` its schema.
pub fn note_facts(path: &str, text: &str, parsed: &ParsedNote) -> NoteFacts {
    note_facts_from(path, text, parsed, None)
}

/// [`note_facts`], given the frontmatter block as the parser's YAML library read it when it
/// read it (`parse::parse_note_keeping_yaml`), so each block is read by the YAML library once.
pub(crate) fn note_facts_from(path: &str, text: &str, parsed: &ParsedNote, yaml: Option<&serde_yaml::Value>) -> NoteFacts {
    let mut facts = NoteFacts { h1: parsed.h1.as_deref().map(cut_chars), text_fingerprint: text_fingerprint(text), ..NoteFacts::default() };
    for diagnostic in parsed.diagnostics.iter().filter(|diagnostic| FRONTMATTER_CODES.contains(&diagnostic.code.as_str())) {
        push_problem(&mut facts, text, &diagnostic.code, diagnostic.message.clone(), diagnostic.span.map_or(0, |span| span.start));
    }
    if let Some(block) = crate::frontmatter::find_block(text) {
        // A block the parser found unreadable, or would not read (over the bytes a block may
        // hold, or nested past the bound, where the YAML library's time grows with the square of
        // the depth), is not read again here.
        let already_unreadable = parsed.diagnostics.iter().any(|diagnostic| {
            matches!(
                diagnostic.code.as_str(),
                "malformed_frontmatter" | "frontmatter_not_a_mapping" | "frontmatter_too_deep" | "frontmatter_too_large"
            )
        });
        let content = &text[block.content.range()];
        // The parser runs the YAML library only on blocks that may hold a link, for speed;
        // lint needs every block read, as Obsidian reads it, for its properties and to find
        // malformed YAML anywhere.
        if !already_unreadable && !content.trim().is_empty() {
            let read = match yaml {
                Some(yaml) => Ok(std::borrow::Cow::Borrowed(yaml)),
                None => crate::frontmatter::read_yaml(content).map(std::borrow::Cow::Owned),
            };
            match read.as_deref() {
                Ok(serde_yaml::Value::Mapping(map)) => read_properties(map, &mut facts),
                Ok(_) => {}
                Err(error) => push_problem(
                    &mut facts,
                    text,
                    "malformed_frontmatter",
                    format!("the frontmatter is not valid YAML ({error}), so Obsidian reads no properties from it"),
                    block.span.start,
                ),
            }
        }
    }
    if is_schema_file(path) {
        facts.schema = Some(Box::new(read_schema_file(text)));
    }
    facts
}

/// A 64-bit fingerprint of a note's text, to tell whether a text is the one the index read: two
/// lanes of 8 bytes each, every word mixed in with a multiply and a shift (each step a bijection
/// of the lane, so texts of one length that differ in one word always differ), seeded with the
/// length and finished with MurmurHash3's 64-bit mix. Two different texts share a fingerprint
/// with a chance of about one in 2^64; no defence against a text made to collide, which no note
/// is. 64-bit multiplies only (wasm has no wider one), several gigabytes a second: indexing a
/// vault spends a few milliseconds on it.
pub fn text_fingerprint(text: &str) -> u64 {
    const K1: u64 = 0x9e37_79b9_7f4a_7c15;
    const K2: u64 = 0xc2b2_ae3d_27d4_eb4f;
    fn step(lane: u64, word: u64, factor: u64) -> u64 {
        let mixed = (lane ^ word).wrapping_mul(factor);
        mixed ^ (mixed >> 29)
    }
    /// Up to 8 bytes, little-endian.
    fn word(bytes: &[u8]) -> u64 {
        match <[u8; 8]>::try_from(bytes) {
            Ok(eight) => u64::from_le_bytes(eight),
            Err(_) => bytes.iter().rev().fold(0, |word, byte| (word << 8) | u64::from(*byte)),
        }
    }
    let bytes = text.as_bytes();
    let length = bytes.len() as u64;
    let (mut first, mut second) = (length ^ K2, K1);
    let mut blocks = bytes.chunks_exact(16);
    for block in &mut blocks {
        first = step(first, word(&block[..8]), K1);
        second = step(second, word(&block[8..]), K2);
    }
    let rest = blocks.remainder();
    if !rest.is_empty() {
        let (low, high) = rest.split_at(rest.len().min(8));
        first = step(first, word(low), K1);
        second = step(second, word(high), K2);
    }
    let mut hash = first ^ second.rotate_left(32) ^ length;
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    hash ^ (hash >> 33)
}

fn push_problem(facts: &mut NoteFacts, text: &str, code: &str, message: String, offset: usize) {
    if facts.frontmatter_problems.len() >= MAX_FRONTMATTER_PROBLEMS {
        return;
    }
    let line = crate::line_index::line_of(text, offset);
    facts.frontmatter_problems.push(FrontmatterProblem { code: code.to_owned(), message, line });
}

/// Each vector is made as long as what it will hold, never grown: a vector grown one push at a
/// time keeps room for four items at least, and the facts of every note stay in the index.
fn read_properties(map: &serde_yaml::Mapping, facts: &mut NoteFacts) {
    facts.properties.reserve_exact(map.len().min(MAX_PROPERTIES_KEPT));
    for (key, value) in map {
        if facts.properties.len() >= MAX_PROPERTIES_KEPT {
            facts.properties_cut = true;
            return;
        }
        let Some(key) = yaml_scalar_text(key) else { continue };
        let mut property = Property { key: cut_chars(&key), values: Vec::new(), shape: ValueShape::Empty, cut: false };
        match untag(value) {
            serde_yaml::Value::Null => {}
            serde_yaml::Value::Sequence(items) => {
                property.shape = ValueShape::List;
                property.values.reserve_exact(items.iter().filter(|item| is_scalar(item)).count().min(MAX_VALUES_KEPT));
                for item in items {
                    if property.values.len() >= MAX_VALUES_KEPT {
                        property.cut = true;
                        break;
                    }
                    if let Some(text) = yaml_scalar_text(untag(item)) {
                        property.cut |= text.chars().count() > MAX_VALUE_CHARS;
                        property.values.push(cut_chars(&text));
                    }
                }
            }
            serde_yaml::Value::Mapping(_) => property.shape = ValueShape::Mapping,
            scalar => {
                property.shape = ValueShape::Scalar;
                if let Some(text) = yaml_scalar_text(scalar) {
                    property.cut = text.chars().count() > MAX_VALUE_CHARS;
                    property.values = vec![cut_chars(&text)];
                }
            }
        }
        facts.properties.push(property);
    }
}

/// Whether [`yaml_scalar_text`] gives `value` a text, without making it.
fn is_scalar(value: &serde_yaml::Value) -> bool {
    match value {
        serde_yaml::Value::String(_) | serde_yaml::Value::Number(_) | serde_yaml::Value::Bool(_) => true,
        serde_yaml::Value::Tagged(tagged) => is_scalar(&tagged.value),
        _ => false,
    }
}

fn untag(value: &serde_yaml::Value) -> &serde_yaml::Value {
    match value {
        serde_yaml::Value::Tagged(tagged) => &tagged.value,
        value => value,
    }
}

/// True for a note named `SCHEMA.md` (any case): the wiki's schema, never a lint subject of the
/// page kinds.
pub fn is_schema_file(path: &str) -> bool {
    fold(resolve::file_name(path)) == "schema.md"
}

#[cfg(test)]
mod tests {
    use super::{note_facts, text_fingerprint};
    use crate::parse::{parse_note, ParseConfig};

    /// A vault of 100,000 notes keeps hundreds of thousands of properties and values: the room a
    /// growing vector leaves past its last item (three of four places for a one-value list) was
    /// two thirds of the facts' memory.
    #[test]
    fn facts_hold_no_room_past_their_items() {
        let text = "---\ntags: [a, b]\naliases: [Other]\ncreated: 2026-01-02\nup:\nnested: {a: 1}\nlong: [1, 2, 3, 4, 5]\n---\n# Title\n";
        let facts = note_facts("n.md", text, &parse_note("n.md", text, &ParseConfig::OBSIDIAN));
        assert_eq!(facts.properties.len(), 6);
        assert_eq!(facts.properties.capacity(), facts.properties.len());
        for property in &facts.properties {
            assert_eq!(property.values.capacity(), property.values.len(), "{}", property.key);
        }
        assert_eq!(facts.property("long").map(|long| long.values.len()), Some(5));
    }

    #[test]
    fn a_fingerprint_tells_texts_apart() {
        let text = "---\nup: \"[[Note]]\"\n---\n# Title\n\nSome [[Link]] and more text, then the end.\n";
        assert_eq!(text_fingerprint(text), text_fingerprint(&text.chars().collect::<String>()), "the same text in another string");
        let mut seen = std::collections::HashSet::new();
        // Every one-byte change, every cut and the empty text: all different.
        for at in 0..text.len() {
            let mut changed = text.as_bytes().to_vec();
            changed[at] ^= 1;
            assert!(seen.insert(text_fingerprint(&String::from_utf8_lossy(&changed))), "a change at {at}");
            assert!(seen.insert(text_fingerprint(&text[..at])), "the first {at} bytes");
        }
        assert!(!seen.contains(&text_fingerprint(text)));
    }
}
