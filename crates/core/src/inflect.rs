//! How a name is found in prose: whole words, compared folded (`resolve::fold`), its last word
//! bare or with an English ending. `find_evidence` (and through it the wiki drafts) finds a
//! concept's first mention in a paragraph with [`find_inflected`]; `link_mentions` tries every
//! name that may start at a word with [`inflected_at`], so both read a mention alike.

/// The English endings a name's last word may take in prose: the plural (`-s`, `-es`), the
/// possessive (`'s`, `s'`, with a straight or a curly apostrophe). A last word in `y` after a
/// consonant takes `ies`, and a plural name (`attacks`, `abilities`) is found in the singular
/// too. Only English is inflected; a name whose last word is not ASCII letters is matched as
/// written.
pub(crate) const ENDINGS: [&str; 8] = ["s", "es", "'s", "\u{2019}s", "s'", "s\u{2019}", "es'", "es\u{2019}"];

/// The stems a name is found by: itself, and for a plural English last word its singular.
pub(crate) fn stems(key: &str) -> Vec<String> {
    let mut stems = vec![key.to_owned()];
    let last = key.rsplit(' ').next().unwrap_or(key);
    if last.len() < 4 || !last.bytes().all(|byte| byte.is_ascii_lowercase()) {
        return stems;
    }
    let head = &key[..key.len() - last.len()];
    if let Some(stem) = last.strip_suffix("ies") {
        stems.push(format!("{head}{stem}y"));
    } else if let Some(stem) = last.strip_suffix('s').filter(|stem| !stem.ends_with('s') && !stem.ends_with('u')) {
        stems.push(format!("{head}{stem}"));
    }
    stems
}

/// Whether the `length` bytes of `folded` at `at` stand as whole words.
fn whole(folded: &str, at: usize, length: usize) -> bool {
    let before = folded[..at].chars().next_back();
    let after = folded[at + length..].chars().next();
    !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
}

/// Whether the stem's last word takes English endings, and for a last word in `y` after a
/// consonant the head its `ies` plural is written with.
fn inflection(stem: &str) -> (bool, Option<&str>) {
    let last = stem.rsplit(' ').next().unwrap_or(stem);
    let inflects = !last.is_empty() && last.bytes().all(|byte| byte.is_ascii_alphabetic());
    // `y` after a consonant: `ability` is `abilities` in the plural.
    let y_stem = stem.strip_suffix('y').filter(|head| inflects && head.ends_with(|c: char| !"aeiou".contains(c)));
    (inflects, y_stem)
}

/// How a stem is inflected, read once from it ([`inflection`]) by a caller that tries the same
/// stem at many places.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Inflection {
    inflects: bool,
    /// The length of the head an `ies` plural is written with.
    y_head: Option<usize>,
}

impl Inflection {
    pub(crate) fn of(stem: &str) -> Inflection {
        let (inflects, y_stem) = inflection(stem);
        Inflection { inflects, y_head: y_stem.map(str::len) }
    }

    /// How many bytes of `stem` (this its inflection) every mention of it starts with: all of
    /// them, but for the `y` an `ies` plural drops.
    pub(crate) fn kept_bytes(&self, stem: &str) -> usize {
        self.y_head.unwrap_or(stem.len())
    }
}

/// The length of `stem` (one of [`stems`]) written at byte `at` of `folded` as whole words, its
/// last word bare or with an English ending; `None` when it is not there.
pub(crate) fn inflected_at(folded: &str, at: usize, stem: &str) -> Option<usize> {
    inflected_as(folded, at, stem, Inflection::of(stem))
}

/// [`inflected_at`] with the stem's inflection read already.
pub(crate) fn inflected_as(folded: &str, at: usize, stem: &str, inflection: Inflection) -> Option<usize> {
    let rest = folded.get(at..)?;
    let Inflection { inflects, y_head } = inflection;
    let y_stem = y_head.map(|length| &stem[..length]);
    if let Some(after) = rest.strip_prefix(stem) {
        let found = std::iter::once("")
            .chain(ENDINGS.iter().copied().filter(|_| inflects))
            .filter(|ending| after.starts_with(ending))
            .map(|ending| stem.len() + ending.len())
            .find(|&length| whole(folded, at, length));
        if found.is_some() {
            return found;
        }
    }
    let head = y_stem?;
    let plural_length = head.len() + 3;
    (rest.starts_with(head) && rest[head.len()..].starts_with("ies") && whole(folded, at, plural_length)).then_some(plural_length)
}

/// The first occurrence of `key` in `folded` standing as whole words, its last word bare or
/// with an English ending: its byte offset and length.
pub(crate) fn find_inflected(folded: &str, key: &str) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for stem in stems(key) {
        let (_, y_stem) = inflection(&stem);
        let mut candidates: Vec<(usize, usize)> = Vec::new();
        if let Some(found) =
            folded.match_indices(stem.as_str()).find_map(|(at, _)| inflected_at(folded, at, &stem).map(|length| (at, length)))
        {
            candidates.push(found);
        }
        if let Some(head) = y_stem {
            let plural = format!("{head}ies");
            if let Some(found) =
                folded.match_indices(plural.as_str()).map(|(at, _)| (at, plural.len())).find(|&(at, length)| whole(folded, at, length))
            {
                candidates.push(found);
            }
        }
        for found in candidates {
            if best.is_none_or(|(at, _)| found.0 < at) {
                best = Some(found);
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_found_at_a_word_with_its_endings_and_not_inside_a_word() {
        assert_eq!(inflected_at("two attacks.", 4, "attack"), Some(7));
        // The bare word stands whole before an apostrophe, and is taken first, as drafts do.
        assert_eq!(inflected_at("the attack's edge", 4, "attack"), Some(6));
        assert_eq!(inflected_at("abilities", 0, "ability"), Some(9));
        assert_eq!(inflected_at("attacker", 0, "attack"), None);
        assert_eq!(inflected_at("counterattack", 7, "attack"), None);
        assert_eq!(find_inflected("a counterattack, then attacks", "attack"), Some((22, 7)));
    }
}
