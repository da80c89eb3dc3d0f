//! What a `rewrite_link` plan does to the links that work today. A rewrite repoints every link
//! written to `from_target`, whether it finds a note or not; repointed to a `to_target` that
//! finds none from where a link is, a link that worked stops working. That is refused unless the
//! call says so (`allow_unresolved`), as `commit_wiki_page` refuses a link that finds no note,
//! and the preview of an allowed one says how many it breaks.

use std::collections::{BTreeMap, HashSet};

use crate::canvas::parse_file;
use crate::error::{ErrorCode, Failure};
use crate::plan::{apply_edits, MovePlan};
use crate::resolve::resolve;
use crate::Vault;

/// The links a rewrite plan would break: each rewritten link that finds a file today and would
/// find none once rewritten, with the first of them (its note, line and text) to name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Broken {
    pub count: usize,
    pub first: Option<(String, usize, String)>,
}

/// The links `plan` (a rewrite of the notes in `texts`) breaks, resolved in `vault` as it is:
/// a rewrite moves no file.
pub fn links_broken(vault: &Vault, plan: &MovePlan, texts: &BTreeMap<String, String>) -> Broken {
    let config = vault.config().parse;
    let mut broken = Broken::default();
    for file in &plan.edits {
        let Some(text) = texts.get(&file.path) else { continue };
        let rewritten: HashSet<usize> = file.edits.iter().map(|edit| edit.span.start).collect();
        let before = parse_file(&file.path, text, &config).links;
        let now = parse_file(&file.path, &apply_edits(text, &file.edits), &config).links;
        // The plan's proof holds each note to as many links, in the same order.
        for (old, new) in before.iter().zip(&now).filter(|(old, _)| rewritten.contains(&old.target_span.start)) {
            let works = resolve(vault, &file.path, old).path().is_some();
            if works && resolve(vault, &file.path, new).path().is_none() {
                broken.count += 1;
                if broken.first.is_none() {
                    broken.first = Some((file.path.clone(), old.line as usize, text[old.span.range()].to_owned()));
                }
            }
        }
    }
    broken
}

/// A rewrite refused because it would break links that work, and the call did not allow it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BreaksLinks {
    pub to_target: String,
    pub broken: Broken,
}

impl Failure for BreaksLinks {
    fn code(&self) -> ErrorCode {
        ErrorCode::BreaksLinks
    }

    fn message(&self) -> String {
        let count = self.broken.count;
        let links = if count == 1 { "link that finds a note today" } else { "links that find a note today" };
        let example =
            self.broken.first.as_ref().map_or(String::new(), |(note, line, link)| format!(" (such as `{link}` in `{note}` line {line})"));
        format!("repointing to `{}` would leave {count} {links} finding none{example}; nothing was changed", self.to_target)
    }

    fn hint(&self) -> &'static str {
        "Check that `to_target` names the note meant (resolve_link finds what a link would reach); to repoint the links anyway, call again with `allow_unresolved: true`."
    }
}

#[cfg(test)]
mod tests {
    use crate::approval::PlanHistory;
    use crate::edge::ReadBefore;
    use crate::error::ErrorCode;
    use crate::index::IndexConfig;
    use crate::ops::{call, Response};
    use crate::Vault;
    use serde_json::json;

    fn vault(files: &[(&str, &str)]) -> (Vault, ReadBefore) {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        let mut edge = ReadBefore::default();
        for (path, text) in files {
            vault.upsert(path, text);
            edge.texts.insert((*path).to_owned(), (*text).to_owned());
        }
        (vault, edge)
    }

    const FILES: [(&str, &str); 4] =
        [("Old.md", "# Old"), ("New.md", "# New"), ("A.md", "[[Old]] and [[Old#Part|part]]\n"), ("sub/B.md", "![[Old]] and [[Gone]]\n")];

    #[test]
    fn a_rewrite_that_breaks_working_links_is_refused_unless_allowed_and_says_how_many() {
        let (vault, mut edge) = vault(&FILES);
        let mut plans = PlanHistory::default();
        let refused = call(&vault, "rewrite_link", &json!({"from_target": "Old", "to_target": "Nowhere"}), &mut edge, &mut plans)
            .expect_err("three working links would break");
        assert_eq!(refused.code, ErrorCode::BreaksLinks);
        assert!(refused.message.contains("leave 3 links") && refused.message.contains("`[[Old]]` in `A.md` line 1"), "{refused:?}");
        assert!(refused.hint.contains("allow_unresolved: true"), "{refused:?}");
        assert!(plans.issued.is_empty(), "a refused rewrite issues no plan");
        let applied = json!({"from_target": "Old", "to_target": "Nowhere", "dry_run": false});
        assert_eq!(call(&vault, "rewrite_link", &applied, &mut edge, &mut plans).map(|_| ()).unwrap_err().code, ErrorCode::BreaksLinks);

        let allowed = json!({"from_target": "Old", "to_target": "Nowhere", "allow_unresolved": true});
        let preview = call(&vault, "rewrite_link", &allowed, &mut edge, &mut plans).expect("allowed");
        let Response::Moved(answer) = &preview.answer else { panic!("a rewrite's answer") };
        assert_eq!((answer.links_changed, answer.links_broken), (3, 3));
        assert_eq!(serde_json::to_value(answer).expect("JSON")["links_broken"], json!(3));
    }

    #[test]
    fn a_rewrite_to_a_note_or_of_links_that_find_none_breaks_nothing() {
        let (vault, mut edge) = vault(&FILES);
        let mut plans = PlanHistory::default();
        for (from, to) in [("Old", "New"), ("Gone", "Still gone")] {
            let preview = call(&vault, "rewrite_link", &json!({"from_target": from, "to_target": to}), &mut edge, &mut plans)
                .unwrap_or_else(|error| panic!("{from} to {to}: {error:?}"));
            let Response::Moved(answer) = &preview.answer else { panic!("a rewrite's answer") };
            assert_eq!(answer.links_broken, 0, "{from} to {to}");
            assert!(serde_json::to_value(answer).expect("JSON").get("links_broken").is_none());
        }
    }
}

#[cfg(test)]
mod canvas_tests {
    use crate::approval::PlanHistory;
    use crate::edge::ReadBefore;
    use crate::index::IndexConfig;
    use crate::ops::{call, Response};
    use crate::Vault;
    use serde_json::json;

    /// A canvas as Obsidian writes it: a file card showing a heading of `Old.md`, and a text
    /// card whose Markdown (JSON-escaped) links it twice.
    const CANVAS: &str = "{\n\t\"nodes\":[\n\t\t{\"id\":\"f\",\"type\":\"file\",\"file\":\"Old.md\",\"subpath\":\"#Part\",\"x\":0,\"y\":0,\"width\":4,\"height\":4},\n\t\t{\"id\":\"t\",\"type\":\"text\",\"text\":\"## Who\\n[[Old]] and [[Old#Part|\\\"the part\\\"]]\",\"x\":5,\"y\":0,\"width\":2,\"height\":1}\n\t],\n\t\"edges\":[]\n}\n";

    #[test]
    fn a_rewrite_repoints_a_canvas_file_card_and_text_card_links() {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        let mut edge = ReadBefore::default();
        for (path, text) in [("Old.md", "# Old"), ("dir/New.md", "# New"), ("A.md", "[[Old]]\n"), ("Board.canvas", CANVAS)] {
            vault.upsert(path, text);
            edge.texts.insert(path.to_owned(), text.to_owned());
        }
        let mut plans = PlanHistory::default();
        let preview = call(&vault, "rewrite_link", &json!({"from_target": "Old", "to_target": "New"}), &mut edge, &mut plans)
            .expect("a rewrite to a note");
        let Response::Moved(answer) = &preview.answer else { panic!("a rewrite's answer") };
        assert_eq!((answer.links_changed, answer.notes_edited, answer.links_broken), (4, 2, 0));
        let applied =
            call(&vault, "rewrite_link", &json!({"from_target": "Old", "to_target": "New", "dry_run": false}), &mut edge, &mut plans)
                .expect("applied");
        let Some(crate::edge::Change::Batch { batch, .. }) = applied.change else { panic!("a batch") };
        let canvas = batch.writes.iter().find(|write| write.path == "Board.canvas").expect("the canvas is rewritten");
        let expected =
            CANVAS.replace("\"file\":\"Old.md\"", "\"file\":\"dir/New.md\"").replace("[[Old]] and [[Old#Part", "[[New]] and [[New#Part");
        assert_eq!(canvas.text, expected);
        serde_json::from_str::<serde_json::Value>(&canvas.text).expect("the canvas is JSON still");
    }
}
