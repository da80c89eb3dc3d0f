//! Nothing panics on any input, and every span lies on character boundaries inside the text.
//! The inputs are the hostile shapes that break link parsers: unbalanced brackets, huge lines,
//! deep nesting, many links, multi-byte characters at every boundary, and generated mixes of
//! link and YAML syntax.

use vaultlink_core::parse::{parse_note, ParseConfig, ParsedNote, MAX_LINKS_PER_NOTE};

fn check(text: &str) -> ParsedNote {
    let note = parse_note("Note.md", text, &ParseConfig::OBSIDIAN);
    for link in &note.links {
        for span in [link.span, link.target_span] {
            assert!(span.start <= span.end && span.end <= text.len(), "span {span:?} outside a text of {} bytes", text.len());
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end), "span {span:?} splits a character");
        }
        assert!(link.span.start <= link.target_span.start && link.target_span.end <= link.span.end);
    }
    for span in note.headings.iter().map(|heading| heading.span).chain(note.block_ids.iter().map(|block| block.span)) {
        assert!(span.end <= text.len() && text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
    }
    note
}

#[test]
fn unbalanced_brackets() {
    for text in [
        "[[",
        "]]",
        "[[[[[[",
        "]]]]]]",
        "![[",
        "![",
        "[](",
        "[a](",
        "[a](<b",
        "[[a|",
        "[[a]",
        "[a]]]",
        "[[]]",
        "[[|]]",
        "![[]]",
        "[]()",
        "![]()",
        "[[#]]",
        "[[#^]]",
        "[a](<>)",
        "[a](b \"t)",
        "%%",
        "%%%",
        "$$",
        "$",
        "\\",
        "\\[[a]]",
        "---",
        "---\n",
        "---\n---",
        "---\n:\n---",
        "---\n- [[\n---",
        "---\na: \"[[\n---",
        "---\na: '\n---",
        "---\n{{{{\n---",
        "---\na: [[[[[[\n---",
        "---\n? [[a]]\n: b\n---",
        "---\na: |\n---",
        "---\na: \"\\\n---",
        "---\na: \"\\u12\"\n---",
    ] {
        check(text);
    }
}

#[test]
fn a_one_megabyte_line() {
    let line = "[[a]] [b](c.md) ".repeat(1 << 16);
    assert!(line.len() >= 1 << 20);
    let note = check(&line);
    // 131,072 links: past the limit, the rest are dropped and the note says so.
    assert_eq!(note.links.len(), MAX_LINKS_PER_NOTE);
    assert!(note.truncated);
    check(&"[".repeat(1 << 20));
    check(&"[[".repeat(1 << 19));
    check(&"![a](".repeat(1 << 18));
}

#[test]
fn deep_nesting() {
    check(&format!("{}[[deep]]", "> ".repeat(5_000)));
    let list: String = (0..2_000).map(|depth| format!("{}- [[item {depth}]]\n", "  ".repeat(depth))).collect();
    check(&list);
    let yaml = format!("---\na: {}\"[[x]]\"{}\n---\n", "[".repeat(10_000), "]".repeat(10_000));
    check(&yaml);
    let yaml: String = (0..1_000).map(|depth| format!("{}k{depth}:\n", "  ".repeat(depth))).collect();
    check(&format!("---\n{yaml}{}v: \"[[x]]\"\n---\n", "  ".repeat(1_000)));
}

#[test]
fn ten_thousand_links() {
    let text: String = (0..10_000).map(|index| format!("[[Note {index}|n]] ")).collect();
    assert_eq!(check(&text).links.len(), 10_000);
    let yaml: String = (0..10_000).map(|index| format!("  - \"[[P {index}]]\"\n")).collect();
    assert_eq!(check(&format!("---\nrelated:\n{yaml}---\n")).links.len(), 10_000);
}

#[test]
fn multi_byte_characters_at_every_boundary() {
    let text = "---\nup: \"[[é😀|ü]]\"\nx: 'ß [[ñ]]'\n---\n# Tïtle 😀\n[[Ünï|çødé]] ![[😀.png]] [ä](ö%20ü.md#ß) `[[ĉ]]` %%[[ŝ]]%% ^bløck\n";
    for (at, _) in text.char_indices() {
        check(&text[..at]);
        check(&text[at..]);
        for (length, _) in text[at..].char_indices().take(12) {
            check(&text[at..at + length]);
        }
    }
}

/// Pieces of link, Markdown and YAML syntax, glued together in a deterministic pseudo-random
/// order, so the parser meets the combinations no one writes by hand.
#[test]
fn generated_syntax_soup() {
    const PIECES: [&str; 40] = [
        "[[",
        "]]",
        "![[",
        "|",
        "\\|",
        "#",
        "^",
        "[",
        "](",
        ")",
        "<",
        ">",
        "%%",
        "`",
        "```\n",
        "    ",
        "\n",
        "\r\n",
        "$",
        "---\n",
        ": ",
        "- ",
        "\"",
        "'",
        "\\",
        "{",
        "}",
        ",",
        "é",
        "😀",
        "a",
        "Note",
        ".md",
        "%20",
        "%F0%9F",
        "| ",
        "> ",
        "key: \"[[x]]\"\n",
        "* ",
        "\t",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut notes = Vec::new();
    for round in 0..20_000 {
        let length = (next() % 40) as usize;
        let text: String = (0..length).map(|_| PIECES[(next() % PIECES.len() as u64) as usize]).collect();
        check(&text);
        if round % 50 == 0 {
            notes.push(text);
        }
    }
    whole_vault_operations(&notes);
}

/// Lint and find_evidence over a vault of generated notes: no panic, and every excerpt within
/// its limit.
fn whole_vault_operations(notes: &[String]) {
    use vaultlink_core::evidence::{find_evidence, EvidenceArguments, MAX_EXCERPT_CHARS};
    use vaultlink_core::index::IndexConfig;
    use vaultlink_core::lint::{lint, LintOptions, RULES};
    use vaultlink_core::ops::ResponseFormat;
    let mut vault = vaultlink_core::Vault::new(IndexConfig::obsidian_defaults());
    let paths: Vec<String> = (0..notes.len()).map(|index| format!("{}/Note {index}.md", ["a", "é", "Note"][index % 3])).collect();
    for (path, text) in paths.iter().zip(notes) {
        vault.upsert(path, text);
    }
    // The sketches near_duplicate asks for, made as an edge makes them.
    let texts: std::collections::HashMap<&str, &String> = paths.iter().map(String::as_str).zip(notes).collect();
    vault.sketch_notes(&mut |path| texts.get(path).map(|text| (*text).clone()));
    let outcome = lint(&vault, &LintOptions { folder: None, excluded_folders: Vec::new(), rules: RULES.to_vec() });
    // Every check ran, except schema: no note is a SCHEMA.md.
    assert!(outcome.skipped.iter().all(|skipped| skipped.kind == "schema"), "{:?}", outcome.skipped);
    for title in ["Note", "a", "é", "😀 a", "[[x]]", "Note 7", "%20"] {
        let arguments = EvidenceArguments {
            title: title.to_owned(),
            limit: Some(1000),
            cursor: None,
            nodes_only: false,
            response_format: ResponseFormat::Detailed,
        };
        let mut read = |path: &str| paths.iter().position(|known| known == path).map(|index| notes[index].clone());
        let evidence = find_evidence(&vault, &arguments, &mut read).expect("a valid title");
        for found in &evidence.matches {
            assert!(found.excerpt.as_ref().is_none_or(|excerpt| excerpt.chars().count() <= MAX_EXCERPT_CHARS), "{found:?}");
        }
    }
}

/// Past `MAX_FRONTMATTER_BYTES` the properties are not read, the note says so, and the body's
/// links are found as usual; just under it, they are read.
#[test]
fn a_frontmatter_over_its_limit_is_skipped_with_a_diagnostic() {
    use vaultlink_core::parse::MAX_FRONTMATTER_BYTES;
    let properties = |bytes: usize| {
        let line = "k: \"[[Property]]\"\n";
        let mut yaml = String::new();
        let mut number = 0;
        while yaml.len() + line.len() + 10 < bytes {
            yaml.push_str(&format!("k{number}: \"[[Property]]\"\n"));
            number += 1;
        }
        format!("---\n{yaml}---\n[[Body]]\n")
    };
    let over = check(&properties(MAX_FRONTMATTER_BYTES + 1024));
    assert!(over.diagnostics.iter().any(|diagnostic| diagnostic.code == "frontmatter_too_large"));
    assert_eq!(over.links.iter().map(|link| link.target.as_str()).collect::<Vec<_>>(), ["Body"]);
    let under = check(&properties(16 * 1024));
    assert!(under.diagnostics.iter().all(|diagnostic| diagnostic.code != "frontmatter_too_large"));
    assert!(under.links.len() > 100 && under.links.last().is_some_and(|link| link.target == "Body"));
}

/// Frontmatter nested past the bound is not read (the YAML library's scanner is quadratic in
/// the depth: a 200 KB note of nested flow collections took over a minute), so every note
/// indexes in time linear in its length; shallower nesting is read as before.
#[test]
fn deeply_nested_frontmatter_is_skipped_with_a_diagnostic_and_the_body_is_read() {
    use vaultlink_core::frontmatter::MAX_NESTING;
    for (open, close) in [("[", "]"), ("{a: ", "}"), ("[[", "]]")] {
        let deep = format!("---\nkey: {}x{}\n---\n[[Body]]\n", open.repeat(50_000), close.repeat(50_000));
        let parsed = check(&deep);
        assert!(parsed.diagnostics.iter().any(|diagnostic| diagnostic.code == "frontmatter_too_deep"), "{open}");
        assert_eq!(parsed.links.iter().map(|link| link.target.as_str()).collect::<Vec<_>>(), ["Body"], "{open}");
    }
    let indented: String = (0..300).map(|level| format!("{}k{level}:\n", " ".repeat(level * 2))).collect();
    assert!(check(&format!("---\n{indented}---\n")).diagnostics.iter().any(|diagnostic| diagnostic.code == "frontmatter_too_deep"));
    let shallow = format!("---\nkey: {}\"[[Deep]]\"{}\n---\n", "[".repeat(MAX_NESTING - 1), "]".repeat(MAX_NESTING - 1));
    let parsed = check(&shallow);
    assert!(parsed.diagnostics.iter().all(|diagnostic| diagnostic.code != "frontmatter_too_deep"));
    // Brackets inside quotes do not nest.
    let quoted = format!("---\nkey: \"{}\"\n---\n", "[".repeat(1_000));
    assert!(check(&quoted).diagnostics.iter().all(|diagnostic| diagnostic.code != "frontmatter_too_deep"));
}

/// A canvas read from hostile text: every span inside the text on character boundaries, and
/// each text card's link spans over the raw JSON string the link was decoded from.
fn check_canvas(text: &str) {
    let canvas = vaultlink_core::canvas::parse_canvas("Board.canvas", text, &ParseConfig::OBSIDIAN);
    for link in &canvas.links {
        for span in [link.span, link.target_span] {
            assert!(span.start <= span.end && span.end <= text.len(), "span {span:?} outside a text of {} bytes", text.len());
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end), "span {span:?} splits a character");
        }
        assert!(link.span.start <= link.target_span.start && link.target_span.end <= link.span.end);
    }
}

#[test]
fn hostile_canvases() {
    let card = |text: &str| format!("{{\"nodes\":[{{\"id\":\"t\",\"type\":\"text\",\"text\":\"{text}\"}}]}}");
    let mut inputs: Vec<String> = [
        "",
        "{",
        "}",
        "[",
        "{\"nodes\":",
        "{\"nodes\":[",
        "{\"nodes\":[{",
        "{\"nodes\":[{\"type\":\"text\",\"text\":\"",
        "{\"nodes\":[{\"type\":\"text\",\"text\":\"\\",
        "{\"nodes\":[{\"type\":\"text\",\"text\":\"\\u",
        "{\"nodes\":[{\"type\":\"text\",\"text\":\"\\ud83d",
        "\u{feff}{}",
        "{\"a\":-}",
        "{\"a\":1e}",
        "{\"a\":\"\u{0}\"}",
        "nul",
        "{\"nodes\":[{\"type\":\"file\",\"file\":\"\\ud800\\udc00\"}]}",
    ]
    .iter()
    .map(|text| (*text).to_owned())
    .collect();
    for text in [
        "[[",
        "[[a]]\\n[[b",
        "\\u005b\\u005ba]]",
        "[[\\ud83d\\ude00]]",
        "é[[é]]é",
        "\\\"[[a|\\\"b\\\"]]\\\"",
        "[x](\\u0061.md)",
        "[[a\\/b#c^d|e]]",
        "\\ud800[[a]]\\udc00",
        "---\\na: [[b]]\\n---\\n[[c]]",
        "%%[[a]]%%",
        "`[[a]]`",
        "[[a]](b.md)",
    ] {
        inputs.push(card(text));
    }
    inputs.push(format!("{{\"a\":{}}}", "[".repeat(1_000_000)));
    inputs.push(format!("{{\"a\":{}", "{\"a\":".repeat(200_000)));
    inputs.push(card(&"[[a]]".repeat(60_000)));
    inputs.push(card(&"\\u00e9[[".repeat(50_000)));
    for text in &inputs {
        check_canvas(text);
    }
}

/// CommonMark's escapes and character references in a destination, every broken shape of them,
/// beside multi-byte characters; and tabs after fences that open and close nothing.
#[test]
fn escapes_references_and_fences_in_every_broken_shape() {
    let references = [
        "&",
        "&;",
        "&#;",
        "&#x;",
        "&#X;",
        "&#12345678;",
        "&#x1234567;",
        "&#xD800;",
        "&#0;",
        "&amp",
        "&amp;",
        "&AMP;",
        "&nosuchname;",
        "&ΩΩ;",
        "&aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa;",
        "\\",
        "\\\\",
        "\\é",
        "\\(",
        "é\\",
        "&é;",
    ];
    for reference in references {
        for text in [
            format!("[a](T{reference}.md)"),
            format!("[a](<T {reference}>)"),
            format!("[{reference}](x.md)"),
            format!("[a](x.md#{reference})"),
            format!("---\nup: \"[a]({reference}.md)\"\n---\n"),
        ] {
            let note = check(&text);
            for link in &note.links {
                let _ = (link.link_text(), link.display_text(), link.original());
            }
        }
    }
    for text in ["```\t", "```\t\n", "\t```\t\n[[A]]\n```\t", "> ```\t\n> [[A]]\n>```\t\t\n[[B]]", "~~~é\t\n~~~\t", "|---\t|\n```\t"] {
        check(text);
    }
}
