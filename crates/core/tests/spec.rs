//! Runs the examples of `tests/spec/links.md`: each is a note, then the links (and, for
//! `example note`, the rest of what the parser reads) one per line, as [`render`] writes them.
//! Adding a supported case means adding an example there.

use std::fmt::Write;

use vaultlink_core::frontmatter::KeySegment;
use vaultlink_core::line_index::LineIndex;
use vaultlink_core::parse::{parse_note, LinkSource, ParseConfig, ParsedNote};

const FENCE: &str = "````````````````````````````````";

struct Example {
    line: usize,
    section: String,
    input: String,
    expected: String,
    whole_note: bool,
    /// `example fields`: the fields Obsidian's `LinkCache` has, one line per link.
    fields: bool,
}

/// The input of an example may spell invisible characters: `→` a tab, `␍` a carriage
/// return, `⟪BOM⟫` a byte-order mark.
fn unescape(input: &str) -> String {
    input.replace('→', "\t").replace('␍', "\r").replace("⟪BOM⟫", "\u{feff}")
}

fn examples(spec: &str) -> Vec<Example> {
    let mut examples = Vec::new();
    let mut section = String::new();
    let mut lines = spec.lines().enumerate();
    while let Some((number, line)) = lines.next() {
        if let Some(heading) = line.strip_prefix("## ") {
            section = heading.to_owned();
        }
        let Some(kind) = line.strip_prefix(FENCE).map(str::trim) else { continue };
        if !kind.starts_with("example") {
            continue;
        }
        let mut input = String::new();
        let mut expected = String::new();
        let mut in_expected = false;
        for (_, line) in lines.by_ref() {
            if line == FENCE {
                break;
            }
            if line == "." && !in_expected {
                in_expected = true;
                continue;
            }
            let target = if in_expected { &mut expected } else { &mut input };
            target.push_str(line);
            target.push('\n');
        }
        examples.push(Example {
            line: number + 1,
            section: section.clone(),
            input: unescape(&input),
            expected,
            whole_note: kind == "example note",
            fields: kind == "example fields",
        });
    }
    examples
}

fn key_path(path: &[KeySegment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            KeySegment::Key(key) if out.is_empty() => out.push_str(key),
            KeySegment::Key(key) => write!(out, ".{key}").expect("writing to a String"),
            KeySegment::Index(index) => write!(out, "[{index}]").expect("writing to a String"),
        }
    }
    out
}

/// One line per link (and diagnostic; with `whole_note`, per heading, block id, alias, tag,
/// key and the H1).
fn render(text: &str, note: &ParsedNote, whole_note: bool) -> String {
    let lines = LineIndex::new(text);
    let mut out = String::new();
    for link in &note.links {
        let kind = serde_json::to_value(link.kind).expect("a kind serializes");
        let source = match &link.source {
            LinkSource::Body => "body".to_owned(),
            LinkSource::Property { key_path: path, .. } => format!("property:{}", key_path(path)),
            other => other.describe().0.to_owned(),
        };
        write!(out, "{} {source} {:?}", kind.as_str().expect("a string"), link.target).expect("writing to a String");
        let written_path = link.target.split('#').next().unwrap_or("").trim();
        if link.path != written_path {
            write!(out, " path={:?}", link.path).expect("writing to a String");
        }
        if let Some(subpath) = &link.subpath {
            write!(out, " subpath={subpath:?}").expect("writing to a String");
        }
        if let Some(display) = &link.display {
            write!(out, " display={display:?}").expect("writing to a String");
        }
        if let Some(destination) = link.destination {
            let form = if destination.angle { "angle" } else { "plain" };
            let encoded = if destination.encoded { ",encoded" } else { "" };
            write!(out, " dest={form}{encoded}").expect("writing to a String");
        }
        let raw_target = &text[link.target_span.range()];
        if raw_target != link.target {
            write!(out, " raw_target={raw_target:?}").expect("writing to a String");
        }
        writeln!(out, " @{}:{} {:?}", link.line, link.column, &text[link.span.range()]).expect("writing to a String");
    }
    for diagnostic in &note.diagnostics {
        match diagnostic.span {
            Some(span) => {
                let position = lines.position(span.start);
                let shown: String = text[span.range()].chars().take(40).collect();
                writeln!(out, "diagnostic {} @{}:{} {shown:?}", diagnostic.code, position.line, position.column)
            }
            None => writeln!(out, "diagnostic {}", diagnostic.code),
        }
        .expect("writing to a String");
    }
    if whole_note {
        for heading in &note.headings {
            writeln!(out, "heading {} {:?}", heading.level, heading.text).expect("writing to a String");
        }
        for block in &note.block_ids {
            writeln!(out, "block {}", block.id).expect("writing to a String");
        }
        for key in &note.frontmatter_keys {
            writeln!(out, "key {key:?}").expect("writing to a String");
        }
        for alias in &note.aliases {
            writeln!(out, "alias {alias:?}").expect("writing to a String");
        }
        for tag in &note.tags {
            writeln!(out, "tag {tag:?}").expect("writing to a String");
        }
        if let Some(h1) = &note.h1 {
            writeln!(out, "h1 {h1:?}").expect("writing to a String");
        }
    }
    out
}

/// One line per link: its kind, then `link`, `subpath`, `display_text` and `original` as
/// Obsidian's `LinkCache` names them, and for a property link the `key` as
/// `FrontmatterLinkCache` writes it (`related.0`).
fn render_fields(note: &ParsedNote) -> String {
    let mut out = String::new();
    for link in &note.links {
        let kind = serde_json::to_value(link.kind).expect("a kind serializes");
        write!(out, "{} link={:?}", kind.as_str().expect("a string"), link.link_text()).expect("writing to a String");
        if let Some(subpath) = &link.subpath {
            write!(out, " subpath={subpath:?}").expect("writing to a String");
        }
        write!(out, " display_text={:?} original={:?}", link.display_text(), link.original()).expect("writing to a String");
        if let Some(key) = link.frontmatter_key() {
            write!(out, " key={key:?}").expect("writing to a String");
        }
        out.push('\n');
    }
    out
}

/// Spans must hold what they claim, whatever the example expects.
fn check_spans(text: &str, note: &ParsedNote) -> Result<(), String> {
    for link in &note.links {
        let span = &text[link.span.range()];
        let opener_ok = match link.kind {
            vaultlink_core::LinkKind::Wikilink => span.starts_with("[[") && span.ends_with("]]"),
            vaultlink_core::LinkKind::Embed => span.starts_with("![[") && span.ends_with("]]"),
            vaultlink_core::LinkKind::Markdown => span.starts_with('[') && span.ends_with(')'),
            vaultlink_core::LinkKind::MarkdownEmbed => span.starts_with("![") && span.ends_with(')'),
        };
        let inside = link.span.start <= link.target_span.start && link.target_span.end <= link.span.end;
        if !opener_ok || !inside {
            return Err(format!("link {:?} has span {span:?} and target span {:?}", link.target, link.target_span));
        }
    }
    Ok(())
}

#[test]
fn spec_examples() {
    let spec = include_str!("spec/links.md");
    let examples = examples(spec);
    let mut failures = Vec::new();
    for example in &examples {
        let note = parse_note("Example.md", &example.input, &ParseConfig::OBSIDIAN);
        let actual = if example.fields { render_fields(&note) } else { render(&example.input, &note, example.whole_note) };
        if let Err(problem) = check_spans(&example.input, &note) {
            failures.push(format!("example at line {} ({}): {problem}", example.line, example.section));
        }
        if actual != example.expected {
            failures.push(format!(
                "example at line {} ({}):\n--- input\n{}--- expected\n{}--- actual\n{}",
                example.line, example.section, example.input, example.expected, actual
            ));
        }
    }
    assert!(failures.is_empty(), "{} of {} examples failed:\n\n{}", failures.len(), examples.len(), failures.join("\n"));
    assert!(examples.len() >= 120, "the spec has {} examples; it should have at least 120", examples.len());
}
