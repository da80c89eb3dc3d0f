//! The words of a name, as `find_existing_page` and `find_evidence` compare names: folded,
//! split on anything that is not a letter or digit, with a few stop words left out.

use crate::resolve::fold;

/// Topic words that say nothing about a topic.
const STOP_WORDS: [&str; 12] = ["the", "and", "for", "with", "from", "into", "a", "an", "of", "in", "on", "to"];

/// The words of a name, folded, without stop words.
pub fn topic_words(name: &str) -> Vec<String> {
    let mut words: Vec<String> = fold(name)
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty() && !STOP_WORDS.contains(word))
        .map(str::to_owned)
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// How many of `words` (a [`topic_words`] list) are words of `name`. Allocation-free for an
/// ASCII name, since it runs on every name of the vault.
pub fn shared_words(words: &[String], name: &str) -> usize {
    if !name.is_ascii() || words.len() > 64 {
        let theirs = topic_words(name);
        return words.iter().filter(|word| theirs.binary_search(word).is_ok()).count();
    }
    let mut found = 0u64;
    for token in name.split(|c: char| !c.is_ascii_alphanumeric()).filter(|token| !token.is_empty()) {
        if let Some(index) = words.iter().position(|word| word.eq_ignore_ascii_case(token)) {
            found |= 1 << index;
        }
    }
    found.count_ones() as usize
}
