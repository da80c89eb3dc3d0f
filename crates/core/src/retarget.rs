//! What every link rewrite shares, a move's (`rename`) and `rewrite_link`'s (`link_rewrite`):
//! writing a new path into a link's target, and the proof that the rewritten note reads back
//! with each link the same but for its target, which lands where it must. The two planners
//! decide differently what the new path is (the move the form that finds the moved file, the
//! rewrite the target it was asked for) and where a link must land; how the path is written into
//! the link and what the note must read back as are decided here, once.

use std::borrow::Cow;

use crate::canvas::json_string_content;
use crate::parse::{Link, LinkSource};
use crate::plan::escape_in_property;

/// The new target text of `link` in `text` with `new_path` as its path part: the path as the
/// link writes it (a markdown destination already percent-encoded, or in angle brackets), then
/// the heading or block as written, both escaped as the link's place needs (a property's YAML
/// string, a canvas's JSON string). A canvas's file card names its file alone: its heading is a
/// key of its own, which stays. `Err` says why the link cannot hold the path.
pub(crate) fn target_with_path(text: &str, link: &Link, new_path: &str) -> Result<String, String> {
    let card = matches!(link.source, LinkSource::CanvasFile { .. });
    let forbidden: &[char] = if card {
        &['\n', '\r']
    } else if link.kind.is_markdown() {
        if link.destination.is_some_and(|destination| destination.angle) {
            &['<', '>', '\n', '\r']
        } else {
            &['<', '>', ' ', '\n', '\r']
        }
    } else {
        &['|', '[', ']', '#', '^', '\n', '\r']
    };
    // `%%` opens a comment in a note's text; a card's path is a JSON string, where it is text.
    if new_path.contains(forbidden) || (!card && new_path.contains("%%")) {
        return Err(format!("`{new_path}` cannot be written in this kind of link"));
    }
    let path = escape_in_property(link, new_path).ok_or_else(|| format!("`{new_path}` cannot be written inside this property's string"))?;
    // In a canvas's text card the target as written is the decoded JSON string's: the raw bytes
    // may hold escapes, so the heading is taken decoded and written back as JSON again.
    let written = if link.source.is_canvas() { link.target.as_str() } else { &text[link.target_span.range()] };
    let subpath = if card { "" } else { written.find('#').map_or("", |hash| &written[hash..]) };
    let subpath = if link.source.is_canvas() { Cow::Owned(json_string_content(subpath)) } else { Cow::Borrowed(subpath) };
    let mut target = String::with_capacity(path.len() + subpath.len());
    target.push_str(&path);
    target.push_str(&subpath);
    Ok(target)
}

/// Whether `new`, a link read from a rewritten note, is `old` but for its target: the same kind,
/// heading or block, place (body, property, canvas card), and the display text `display` it
/// must show after the rewrite.
pub(crate) fn same_but_target(old: &Link, new: &Link, display: Option<&str>) -> bool {
    old.kind == new.kind && old.subpath == new.subpath && display == new.display.as_deref() && old.source == new.source
}

/// Why a rewritten note fails [`prove_links`], at the link of the position given with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Unproven {
    /// The new text reads to another number of links.
    Count,
    /// The link reads differently: kind, heading or block, display text or place.
    Shape,
    /// The link does not land where it must.
    Target,
}

/// The proof of a rewritten note: its new text reads to as many links (`now`) as the old one
/// (`count`, each read by `old`), and each link at a position of `checked` is the old link but
/// for its target ([`same_but_target`], with the display text `display` gives), and lands where
/// it must, as `lands` judges from its position and the link as read now. The first failure is
/// given with its position.
pub(crate) fn prove_links<'o>(
    count: usize,
    old: impl Fn(usize) -> &'o Link,
    now: &[Link],
    checked: impl IntoIterator<Item = usize>,
    display: impl Fn(usize, &'o Link) -> Option<&'o str>,
    mut lands: impl FnMut(usize, &Link) -> bool,
) -> Result<(), (usize, Unproven)> {
    let mut checked = checked.into_iter().peekable();
    if now.len() != count {
        return Err((checked.peek().copied().unwrap_or(0), Unproven::Count));
    }
    for index in checked {
        let (old, new) = (old(index), &now[index]);
        if !same_but_target(old, new, display(index, old)) {
            return Err((index, Unproven::Shape));
        }
        if !lands(index, new) {
            return Err((index, Unproven::Target));
        }
    }
    Ok(())
}
