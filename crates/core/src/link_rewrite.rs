//! Plans `rewrite_link`: repoints every link whose target is written as `from_target` to
//! `to_target`, changing only the path part of each target, and proves that every rewritten
//! note reads back with the same links, the rewritten ones with the new target.

use std::collections::{BTreeMap, HashSet};

use crate::canvas::{is_canvas_path, parse_file};
use crate::index::{is_note_path, Vault};
use crate::link_form::encode_destination;
use crate::move_error::MoveError;
use crate::names::{MAX_NAME_BYTES, MAX_TARGET_BYTES};
use crate::parse::{parse_note, Link, LinkSource, ParseConfig};
use crate::plan::MAX_PLAN_TEXT_BYTES;
use crate::plan::{apply_edits, assemble, link_with_target, ChangeReason, LinkChange, MovePlan, TextEdit};
use crate::resolve::{self, fold, Resolution};
use crate::retarget::{prove_links, target_with_path};

/// The path a canvas's file card in `canvas` names when it is repointed to `to_target`: a card
/// names its file by its exact vault path, so the file a link `[[to_target]]` from the canvas
/// finds, or, when it finds none, `to_target` as a note's path (the card then finds nothing,
/// as such a link does).
fn card_path(vault: &Vault, canvas: &str, to_target: &str) -> String {
    let probe = parse_note(canvas, &format!("[[{to_target}]]"), &vault.config().parse).links;
    let found = probe
        .first()
        .filter(|link| link.path == to_target)
        .and_then(|link| resolve::resolve(vault, canvas, link).path().map(str::to_owned));
    found.unwrap_or_else(|| if is_note_path(to_target) { to_target.to_owned() } else { format!("{to_target}.md") })
}

/// Whether a link's written target is `target`: the path part, compared as names are, with a
/// `.md` on either side ignored.
pub fn targets_match(link: &Link, target: &str) -> bool {
    let strip = |text: &str| {
        let folded = fold(text.trim().trim_start_matches('/'));
        match folded.strip_suffix(".md") {
            Some(stem) => stem.to_owned(),
            None => folded,
        }
    };
    !link.path.trim().is_empty() && strip(&link.path) == strip(target)
}

/// The one note `from_target` names, as a wikilink of it at the vault's root resolves; none when
/// it names no note, or several (then only links written as it are rewritten).
fn named_note(vault: &Vault, from_target: &str) -> Option<String> {
    let parsed = parse_note("", &format!("[[{}]]", from_target.trim()), &ParseConfig::OBSIDIAN);
    let [link] = parsed.links.as_slice() else { return None };
    match resolve::resolve(vault, "", link) {
        Resolution::Resolved { path } => Some(path),
        _ => None,
    }
}

/// Whether `rewrite_link` repoints `link`, which resolves to `resolved`: its target as written is
/// `from_target`, or it is a relative link (`[x](../Old.md)`, `[[./Old]]`) that Obsidian resolves
/// to `named`, the note `from_target` names.
fn rewrites(link: &Link, resolved: Option<&str>, from_target: &str, named: Option<&str>) -> bool {
    targets_match(link, from_target) || (named.is_some() && resolve::is_relative(&link.path) && resolved == named)
}

/// Step one of `rewrite_link`: the notes holding a link whose target is `from_target`, or a
/// relative link to the note it names.
pub fn notes_to_read_for_rewrite(vault: &Vault, from_target: &str) -> Vec<String> {
    let named = named_note(vault, from_target);
    // Canvases too: their text cards' links and file cards are rewritten as a move rewrites them.
    vault
        .paths()
        .filter(|path| vault.is_note(path) || is_canvas_path(path))
        .filter(|path| {
            vault.outgoing_links(path).is_some_and(|links| {
                links.iter().any(|found| rewrites(&found.link, found.resolution.path(), from_target, named.as_deref()))
            })
        })
        .map(str::to_owned)
        .collect()
}

/// Plans repointing every link whose target is `from_target` (as written, compared as names
/// are) to `to_target`, free text. Only the path part of each target changes; the heading,
/// block, alias and the rest stay. The plan is proven as a move is: every rewritten link must
/// parse back to exactly one link with the new target and everything else as it was.
pub fn plan_rewrite_link(
    vault: &Vault,
    from_target: &str,
    to_target: &str,
    texts: &BTreeMap<String, String>,
) -> Result<MovePlan, MoveError> {
    let to_target = to_target.trim();
    let invalid = |detail: String| Err(MoveError::InvalidRewrite { detail });
    if from_target.trim().is_empty() {
        return invalid("`from_target` is empty, and no link has an empty target".to_owned());
    }
    if to_target.is_empty() {
        return invalid("`to_target` is empty: a link needs a target".to_owned());
    }
    if from_target.trim() == to_target {
        return invalid(format!("`from_target` and `to_target` are both {to_target:?}: there is nothing to rewrite"));
    }
    if to_target.len() > MAX_TARGET_BYTES {
        return invalid(format!("`to_target` is {} bytes, over the {MAX_TARGET_BYTES} a link's target may have", to_target.len()));
    }
    if to_target.split('/').any(|segment| segment.len() > MAX_NAME_BYTES) {
        return invalid(format!("`to_target` has a name of more than {MAX_NAME_BYTES} bytes, more than filesystems take"));
    }
    let config = vault.config().parse;
    let mut edits: BTreeMap<String, Vec<(TextEdit, LinkChange)>> = BTreeMap::new();
    // The bytes of new link text planned so far, held to MAX_PLAN_TEXT_BYTES.
    let mut planned_bytes = 0;
    let named = named_note(vault, from_target);
    for source in notes_to_read_for_rewrite(vault, from_target) {
        let text = texts.get(&source).ok_or_else(|| MoveError::MissingText { path: source.clone() })?;
        let links = parse_file(&source, text, &config).links;
        let repointed = |link: &&Link| {
            let resolved = named.is_some().then(|| resolve::resolve(vault, &source, link));
            rewrites(link, resolved.as_ref().and_then(Resolution::path), from_target, named.as_deref())
        };
        for link in links.iter().filter(repointed) {
            let unrepresentable = |reason: String| MoveError::UnrepresentableLink {
                note: source.clone(),
                line: link.line,
                link: text[link.span.range()].to_owned(),
                reason,
            };
            // A file card names its file by its exact vault path.
            let card = matches!(link.source, LinkSource::CanvasFile { .. });
            // A `.md` the author wrote stays written in a markdown link: `[x](Old.md)` becomes
            // `[x](New.md)`. A wikilink written as Obsidian writes one leaves it out
            // (`link_form`); kept as written when the link's form is kept.
            let keeps_form = vault.config().link_form == crate::link_form::RewriteForm::Keep;
            let wrote_extension = link.path.trim().to_lowercase().ends_with(".md") && (link.kind.is_markdown() || keeps_form);
            let target = if card {
                card_path(vault, &source, to_target)
            } else if wrote_extension && !to_target.to_lowercase().ends_with(".md") {
                format!("{to_target}.md")
            } else {
                to_target.to_owned()
            };
            let path = if link.kind.is_markdown() && !link.destination.is_some_and(|destination| destination.angle) {
                encode_destination(&target, link.destination.is_some_and(|destination| destination.encoded))
            } else {
                target
            };
            // The target is free text: a control character a markdown destination does not
            // encode has no place in a link.
            if path.chars().any(char::is_control) {
                return Err(unrepresentable(format!("{to_target:?} cannot be written as the target of this link")));
            }
            let replacement = target_with_path(text, link, &path).map_err(unrepresentable)?;
            let after = link_with_target(text, link, &replacement);
            planned_bytes += replacement.len() + after.len();
            if planned_bytes > MAX_PLAN_TEXT_BYTES {
                let links: usize = edits.values().map(Vec::len).sum::<usize>() + 1;
                return Err(MoveError::PlanTooLarge {
                    detail: format!(
                        "rewriting these links to a target of {} bytes would hold more than {} MiB of new link text (past it at link {links})",
                        to_target.len(),
                        MAX_PLAN_TEXT_BYTES >> 20
                    ),
                });
            }
            edits.entry(source.clone()).or_default().push((
                TextEdit { span: link.target_span, replacement },
                LinkChange {
                    note: source.clone(),
                    line: link.line,
                    before: text[link.span.range()].to_owned(),
                    after,
                    reason: ChangeReason::Repointed,
                },
            ));
        }
    }
    let sizes = (edits.len(), edits.values().map(Vec::len).sum());
    let files = edits.into_iter().map(|(path, mut list)| {
        list.sort_by_key(|(edit, _)| edit.span.start);
        let text = texts[&path].as_str();
        let (edits, changes): (Vec<TextEdit>, Vec<LinkChange>) = list.into_iter().unzip();
        (path, text, edits, changes)
    });
    let plan = assemble(&[], sizes, files, Vec::new());
    // The proof, a move's: each note parses to as many links, each the same link but for its
    // target, the rewritten ones with the new target, the others exactly as before.
    for file in &plan.edits {
        let text = &texts[&file.path];
        let before = parse_file(&file.path, text, &config).links;
        let now = parse_file(&file.path, &apply_edits(text, &file.edits), &config).links;
        let rewritten: HashSet<usize> = file.edits.iter().map(|edit| edit.span.start).collect();
        let lands = |index: usize, new: &Link| {
            let old = &before[index];
            if !rewritten.contains(&old.target_span.start) {
                return new.target == old.target;
            }
            let written = fold(new.path.trim());
            let wanted = fold(to_target);
            let card = matches!(new.source, LinkSource::CanvasFile { .. }) && written == fold(&card_path(vault, &file.path, to_target));
            card || written == wanted || written.strip_suffix(".md") == Some(wanted.as_str())
        };
        let proof = prove_links(before.len(), |index| &before[index], &now, 0..before.len(), |_, old| old.display.as_deref(), lands);
        if proof.is_err() {
            return Err(MoveError::UnrepresentableLink {
                note: file.path.clone(),
                line: 0,
                link: from_target.to_owned(),
                reason: format!("the note would not read back with {to_target:?} as the new target"),
            });
        }
    }
    Ok(plan)
}
