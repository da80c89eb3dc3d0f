//! The local re-read (`reread::reread_locally`) against a parse of the whole new text: whenever
//! it reads a note's rewritten links alone, the whole parse must give exactly the old links,
//! shifted, with the rewritten ones (and the frontmatter's) as read again. Checked on randomized
//! notes built from every construct that reads the characters around a link, and on every note
//! of the real corpora when they are present (`$VAULTLINK_CORPORA`, else `../shared/corpora`
//! beside the checkout; the test says plainly when they are absent).

use vaultlink_core::parse::{parse_note, Link, ParseConfig, Span};
use vaultlink_core::plan::{apply_edits, link_with_target, TextEdit};
use vaultlink_core::reread::{reread_locally, Reread};

mod common;

/// One of `items`, drawn by the test's seeded generator.
fn pick<'a>(random: &mut fastrand::Rng, items: &[&'a str]) -> &'a str {
    items[random.usize(..items.len())]
}

/// Names a link is written with, and names a rewrite writes: inert ones and every kind of
/// character that is not.
const NAMES: [&str; 22] = [
    "N",
    "Note",
    "a b",
    "Rinami",
    "moved/Rinami (renamed)",
    "../up/Other",
    "\u{dc}n\u{ef} c\u{f6}d\u{e9}",
    "x(y)",
    "pa(ren",
    "pa)ren",
    "a_b",
    "c*d",
    "e`f",
    "g$h",
    "i<j",
    "k%l",
    "m%%n",
    "o'p",
    "q:r",
    "s{t}",
    "u~v",
    "w&x",
];

/// Lines around links, with `{}` for a link's target: every construct that reads the
/// characters around or inside a link.
const LINES: [&str; 66] = [
    "text [[{}]] more",
    "[[{}|alias]] and [[{}#Heading]]",
    "![[{}]]",
    "[[{}#^b1|shown]]",
    "[t]({}.md)",
    "![t]({}.md#H)",
    "[t](<{}.md>)",
    "[t]({}.md \"title\")",
    "[x]([[{}]])",
    "[see [[{}]]](url.md)",
    "[[{}]](url.md)",
    "[[{}]][ref]",
    "[ref]: /url",
    "[n]: <[[{}]]>",
    "`code [[{}]]` and [[{}]]",
    "$math [[{}]]$ [[{}]]",
    "$[[{}]]$",
    "<span title=\"[[{}]]\">[[{}]]</span>",
    "<a x=[[{}]]>",
    "<!-- [[{}]] -->",
    "<div>",
    "</div>",
    "| [[{}\\|alias]] | cell |",
    "| --- | --- |",
    "|---\t|---\t|",
    "%%[[{}]]%%",
    "%[[{}]]%",
    "%%",
    "**[[{}]]** _[[{}]]_ ~~[[{}]]~~",
    "[a](b.md) [[{}]]",
    "[[{}]] [a](b.md)",
    "[a](b c) [[{}]]",
    "[x](y [[{}]]",
    "    [[{}]]",
    "```",
    "> [[{}]]",
    "- [[{}]]",
    "# [[{}]]",
    "===",
    "",
    "",
    "  ",
    "\\[[{}]]",
    "[[[{}]]]",
    "[[a [[{}]]",
    "{ [[{}]] }",
    "*[[{}]]*",
    "&amp;[[{}]]&",
    "[x](`[[{}]]`)",
    "[a `]` b](c.md) [[{}]]",
    "[a [b](c.md) [[{}]]](d.md)",
    "<http://x.y/[[{}]]>",
    "[n]: [[{}]]",
    "[n]: x \"[[{}]]\"",
    "[n]: x ([[{}]])",
    "[t]({}.md)",
    "[t]({}.md)",
    "[t]({}.md) and [[{}]]",
    "[n]: [[{}]]\n| [[{}\\|alias]] | cell |\n| --- | --- |",
    "[n]: x ([[{}]])\n| [[{}\\|alias]] | cell |\n| --- | --- |",
    "| [[{}\\|alias]] | cell |\n| --- | --- |\n| [[{}\\|b]] | c |",
    "[n]: [[{}]] \"t`\n[[{}]]` x\"",
    "[n]: <{}.md> \"t`\n[[{}]]` x\"",
    "<a\nx=[[{}]] y=\"`\">\n[[{}]]`",
    "[x `[` y](c.md) [[{}]] `[[{}]]`",
    "<a x=[[{}]] y=\"`\">\n[[{}]]`",
];

fn random_note(random: &mut fastrand::Rng) -> String {
    let mut text = String::new();
    let newline = if random.u64(..).is_multiple_of(5) { "\r\n" } else { "\n" };
    if random.u64(..).is_multiple_of(2) {
        let name = pick(random, &NAMES);
        let quoted = match random.u64(..) % 4 {
            0 => format!("\"[[{name}]]\""),
            1 => format!("'[[{}]]'", name.replace('\'', "''")),
            2 => format!("[[{name}]]"),
            _ => format!("|{newline}  [[{name}]]"),
        };
        text.push_str(&format!(
            "---{newline}up: {quoted}{newline}tags: [a]{newline}other: \"[[{}]]\"{newline}---{newline}",
            pick(random, &NAMES)
        ));
    }
    for _ in 0..random.u64(..) % 9 {
        let line = pick(random, &LINES);
        let mut filled = String::new();
        for (at, part) in line.split("{}").enumerate() {
            if at > 0 {
                filled.push_str(pick(random, &NAMES));
            }
            filled.push_str(part);
        }
        text.push_str(&filled);
        text.push_str(newline);
    }
    text
}

/// Rewrites the path of each link of `text` (read as `old`) that `new_path` gives one for (from
/// the link and its target as written), keeping what follows the `#` as written; when
/// `reread_locally` reads the note again locally, checks that against a whole parse. `None` when
/// no link was rewritten, else whether the note was read again locally.
fn rewrite_and_check(text: &str, old: &[Link], mut new_path: impl FnMut(&Link, &str) -> Option<String>, case: &str) -> Option<bool> {
    let mut edits: Vec<(TextEdit, String, usize)> = Vec::new();
    for (index, link) in old.iter().enumerate() {
        let written = &text[link.target_span.range()];
        let Some(path) = new_path(link, written) else { continue };
        let subpath = written.find('#').map_or("", |hash| &written[hash..]);
        let replacement = format!("{path}{subpath}");
        let after = link_with_target(text, link, &replacement);
        edits.push((TextEdit { span: link.target_span, replacement }, after, index));
    }
    if edits.is_empty() {
        return None;
    }
    let refs: Vec<(&TextEdit, &str, usize)> = edits.iter().map(|(edit, after, index)| (edit, after.as_str(), *index)).collect();
    let reread = reread_locally(text, |index| &old[index], old.len(), &refs);
    if let Some(reread) = &reread {
        check_reread(text, old, &edits, reread, case);
    }
    Some(reread.is_some())
}

/// Checks a `Reread` of `text` with `edits` against a parse of the whole new text.
fn check_reread(text: &str, old: &[Link], edits: &[(TextEdit, String, usize)], reread: &Reread, case: &str) {
    let plain: Vec<TextEdit> = edits.iter().map(|(edit, _, _)| edit.clone()).collect();
    let new_text = apply_edits(text, &plain);
    let now = parse_note("n.md", &new_text, &ParseConfig::OBSIDIAN).links;
    // Where an offset of the old text is in the new one.
    let shift = |at: usize| {
        let moved: isize = edits
            .iter()
            .filter(|(edit, _, _)| edit.span.end <= at)
            .map(|(edit, _, _)| edit.replacement.len() as isize - edit.span.range().len() as isize)
            .sum();
        (at as isize + moved) as usize
    };
    let mut expected: Vec<Link> = Vec::new();
    for (index, link) in old.iter().enumerate() {
        if index < reread.properties.len() {
            expected.push(reread.properties[index].clone());
        } else if let Some((_, alone)) = reread.body.iter().find(|(edited, _)| *edited == index) {
            let start = shift(link.span.start);
            let at = |span: Span| Span { start: span.start + start, end: span.end + start };
            expected.push(Link { span: at(alone.span), target_span: at(alone.target_span), ..alone.clone() });
        } else {
            let at = |span: Span| Span { start: shift(span.start), end: shift(span.end) };
            expected.push(Link { span: at(link.span), target_span: at(link.target_span), ..link.clone() });
        }
    }
    let shape = |links: &[Link]| {
        links
            .iter()
            .map(|link| {
                format!(
                    "{:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
                    link.kind,
                    link.source,
                    link.target,
                    link.path,
                    link.subpath,
                    link.display,
                    link.span,
                    link.target_span,
                    link.destination
                )
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(shape(&expected), shape(&now), "{case}\n--- old text\n{text}\n--- new text\n{new_text}");
}

/// The same check on every note of the corpora and the generated vault (when present, as
/// `$VAULTLINK_CORPORA` or `../shared/corpora` beside the checkout, and `$VAULTLINK_GENERATED`),
/// with every link of each note renamed at once. Without them it says so plainly and checks
/// nothing more than the randomized test below.
#[test]
fn a_local_reread_of_every_real_note_is_what_a_whole_parse_reads() {
    let corpora = common::corpora_dir();
    let mut folders: Vec<std::path::PathBuf> =
        std::fs::read_dir(&corpora).into_iter().flatten().flatten().map(|entry| entry.path()).collect();
    folders.extend(std::env::var_os("VAULTLINK_GENERATED").map(std::path::PathBuf::from));
    folders.retain(|folder| folder.is_dir());
    if folders.is_empty() {
        common::say(&format!(
            "reread corpora: NOT RUN: no corpora at {} (set VAULTLINK_CORPORA, or VAULTLINK_GENERATED to a generated vault): \
the local re-read was checked on generated notes only",
            corpora.display()
        ));
    }
    for folder in folders {
        let (mut notes, mut edited, mut local) = (0, 0, 0);
        for (path, text) in common::read_corpus(&folder, false) {
            notes += 1;
            let old = parse_note("n.md", &text, &ParseConfig::OBSIDIAN).links;
            let renamed = |link: &Link, written: &str| {
                let path = if link.kind.is_markdown() { "moved/Rinami%20%28renamed%29.md" } else { "moved/Rinami (renamed)" };
                (!written.split('#').next().unwrap_or("").is_empty()).then(|| path.to_owned())
            };
            let Some(read_locally) = rewrite_and_check(&text, &old, renamed, &format!("{}/{path}", folder.display())) else { continue };
            edited += 1;
            local += usize::from(read_locally);
        }
        common::say(&format!("reread corpora: {}: {notes} notes, {edited} with links, {local} read again locally", folder.display()));
    }
}

/// The claim the move's proof (`rename::proven_locally`) rests on: whenever `reread_locally` reads a note's edited
/// links alone, a parse of the whole new text gives exactly the old links, shifted, with the
/// edited ones (and the frontmatter's) as read again.
#[test]
fn a_local_reread_is_what_a_whole_parse_reads() {
    let config = ParseConfig::OBSIDIAN;
    let (mut local, mut tried) = (0, 0);
    for seed in 1..=20_000u64 {
        let mut random = fastrand::Rng::with_seed(seed);
        let text = random_note(&mut random);
        let old = parse_note("n.md", &text, &config).links;
        if old.is_empty() {
            continue;
        }
        // Rewrite some links' paths.
        let some = |link: &Link, _: &str| {
            if !random.u64(..).is_multiple_of(2) {
                return None;
            }
            let mut path = pick(&mut random, &NAMES).to_owned();
            if link.kind.is_markdown() && !random.u64(..).is_multiple_of(4) {
                path = path.replace(' ', "%20").replace('(', "%28").replace(')', "%29") + ".md";
            }
            Some(path)
        };
        let Some(read_locally) = rewrite_and_check(&text, &old, some, &format!("seed {seed}")) else { continue };
        tried += 1;
        local += usize::from(read_locally);
    }
    assert!(local > 2_000, "only {local} of {tried} edited notes were read again locally");
}
