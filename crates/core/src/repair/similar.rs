//! The names that read alike a broken link's, found without scoring every name of the vault.
//!
//! A name is a candidate when its Jaro-Winkler similarity to the link's reaches [`FLOOR`]. Scoring
//! every name for every broken target is quadratic and too slow on a large vault, so the index
//! keeps, once per call, each distinct name with its length and a count of its characters, and
//! scores only the names whose bound reaches the floor. The bound loses no candidate:
//!
//! - Jaro is `(m/a + m/b + (m - t)/m) / 3` for lengths `a` and `b`, `m` matching characters and
//!   `t` transpositions. Each match pairs two equal characters, each used once, so `m` is at most
//!   `c`, the characters the two names have in common counted with their multiplicity; and
//!   `(m - t)/m` is at most 1. So Jaro is at most `J = (c/a + c/b + 1) / 3` (0 when `c` is 0).
//! - Winkler adds `p/10 × (1 - jaro)` for a common prefix of `p` (at most 4) characters, and only
//!   when Jaro is above 0.7; below it the similarity is Jaro itself, under the floor. The boost
//!   grows with Jaro, so the similarity is at most `J + p/10 × (1 - J)` with the exact prefix.
//! - The characters are counted in buckets (each ASCII letter and digit its own, the others
//!   shared by their code point's remainder): sharing a bucket only adds to the common count, so
//!   the count taken from the buckets is at least `c`, and the bound stays above the similarity.
//!
//! A name with a character more often than the counts hold is always scored.

use std::collections::HashMap;

/// The similarity a name must reach to be a candidate at all, below any floor a repair takes.
pub(super) const FLOOR: f64 = 0.8;

/// Rounding slack: the bound is computed as the similarity is, but a bound within it of the floor
/// is scored, never pruned.
const SLACK: f64 = 1e-9;

const BUCKETS: usize = 64;

fn bucket(c: char) -> usize {
    match c {
        'a'..='z' => c as usize - 'a' as usize,
        '0'..='9' => 26 + (c as usize - '0' as usize),
        _ => 36 + (c as usize % (BUCKETS - 36)),
    }
}

/// A name's length in characters and its characters counted by bucket; `None` when a count
/// would overflow.
fn profile(name: &str) -> (usize, Option<[u8; BUCKETS]>) {
    let mut counts = [0u8; BUCKETS];
    let mut length = 0;
    let mut whole = true;
    for c in name.chars() {
        length += 1;
        let count = &mut counts[bucket(c)];
        match count.checked_add(1) {
            Some(next) => *count = next,
            None => whole = false,
        }
    }
    (length, whole.then_some(counts))
}

/// The characters two names have in common by bucket, at least as many as they share.
fn in_common(a: &[u8; BUCKETS], b: &[u8; BUCKETS]) -> usize {
    a.iter().zip(b).map(|(a, b)| u32::from(*a.min(b))).sum::<u32>() as usize
}

/// The most the Jaro-Winkler similarity of two names can be, from what they have in common.
fn bound(common: usize, a: usize, b: usize, prefix: usize) -> f64 {
    if common == 0 || a == 0 || b == 0 {
        return 0.0;
    }
    let jaro = (common as f64 / a as f64 + common as f64 / b as f64 + 1.0) / 3.0;
    if jaro > 0.7 {
        jaro + 0.1 * prefix as f64 * (1.0 - jaro)
    } else {
        jaro
    }
}

fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().take(4).zip(b.chars()).take_while(|(a, b)| a == b).count()
}

/// Every distinct name of the vault (identity key) with the notes that have it, the lengths and
/// counts kept apart from the names so that the pass over them stays in the cache.
#[derive(Default)]
pub(super) struct Index<'v> {
    names: Vec<String>,
    paths: Vec<Vec<&'v str>>,
    lengths: Vec<usize>,
    /// Each name's counts; a name whose counts overflow has none here and is always scored.
    counts: Vec<[u8; BUCKETS]>,
    countable: Vec<bool>,
}

impl<'v> Index<'v> {
    pub(super) fn new(names: Vec<(String, &'v str)>) -> Index<'v> {
        let mut at: HashMap<String, usize> = HashMap::new();
        let mut index = Index::default();
        for (name, path) in names {
            match at.get(&name) {
                Some(&found) => index.paths[found].push(path),
                None => {
                    let (length, counts) = profile(&name);
                    at.insert(name.clone(), index.names.len());
                    index.names.push(name);
                    index.paths.push(vec![path]);
                    index.lengths.push(length);
                    index.countable.push(counts.is_some());
                    index.counts.push(counts.unwrap_or([0; BUCKETS]));
                }
            }
        }
        index
    }

    /// The names whose similarity to `wanted` reaches [`FLOOR`], with it and their notes.
    pub(super) fn alike<'a>(&'a self, wanted: &str) -> Vec<(f64, &'a str, &'a [&'v str])> {
        let (length, counts) = profile(wanted);
        let mut found = Vec::new();
        for at in 0..self.names.len() {
            if let (Some(wanted_counts), true) = (&counts, self.countable[at]) {
                let common = in_common(wanted_counts, &self.counts[at]);
                // The longest prefix first, the name's own only for those it does not prune.
                if bound(common, length, self.lengths[at], 4) < FLOOR - SLACK
                    || bound(common, length, self.lengths[at], common_prefix(wanted, &self.names[at])) < FLOOR - SLACK
                {
                    continue;
                }
            }
            let similarity = strsim::jaro_winkler(wanted, &self.names[at]);
            if similarity >= FLOOR {
                found.push((similarity, self.names[at].as_str(), self.paths[at].as_slice()));
            }
        }
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small generator, the same names on every run.
    struct Seeded(u64);

    impl Seeded {
        fn next(&mut self, below: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % below as u64) as usize
        }
    }

    const SYLLABLES: [&str; 16] = ["ka", "ro", "mi", "sen", "ta", "lu", "ve", "dor", "an", "is", "qu", "é", "ß", "ön", "7", " "];

    fn generated(seed: u64, count: usize) -> Vec<String> {
        let mut random = Seeded(seed);
        (0..count)
            .map(|_| {
                let parts = 1 + random.next(7);
                (0..parts).map(|_| SYLLABLES[random.next(SYLLABLES.len())]).collect::<String>()
            })
            .collect()
    }

    /// A name as a typo leaves it: a character dropped, doubled, swapped or changed.
    fn typo(name: &str, random: &mut Seeded) -> String {
        let mut chars: Vec<char> = name.chars().collect();
        if chars.is_empty() {
            return "x".to_owned();
        }
        let at = random.next(chars.len());
        match random.next(4) {
            0 => {
                chars.remove(at);
            }
            1 => chars.insert(at, chars[at]),
            2 if at + 1 < chars.len() => chars.swap(at, at + 1),
            _ => chars[at] = 'x',
        }
        chars.into_iter().collect()
    }

    #[test]
    fn the_bound_is_never_below_the_similarity() {
        let names = generated(7, 400);
        for a in &names {
            for b in &names {
                let (length_a, counts_a) = profile(a);
                let (length_b, counts_b) = profile(b);
                let common = in_common(&counts_a.unwrap(), &counts_b.unwrap());
                let similarity = strsim::jaro_winkler(a, b);
                let most = bound(common, length_a, length_b, common_prefix(a, b));
                assert!(similarity <= most + SLACK, "{a:?} {b:?}: {similarity} above {most}");
            }
        }
    }

    #[test]
    fn the_pruned_search_finds_what_scoring_every_name_finds() {
        let names = generated(42, 3000);
        let index = Index::new(names.iter().map(|name| (name.clone(), "note.md")).collect());
        let mut random = Seeded(9);
        let mut found_any = 0;
        for round in 0..300 {
            let wanted = match round % 3 {
                0 => typo(&names[random.next(names.len())], &mut random),
                1 => typo(&typo(&names[random.next(names.len())], &mut random), &mut random),
                _ => generated(1000 + round, 1).remove(0),
            };
            let mut pruned: Vec<(String, u64)> =
                index.alike(&wanted).into_iter().map(|(similarity, name, _)| (name.to_owned(), similarity.to_bits())).collect();
            let mut every: Vec<(String, u64)> = index
                .names
                .iter()
                .map(|name| (name.clone(), strsim::jaro_winkler(&wanted, name)))
                .filter(|(_, similarity)| *similarity >= FLOOR)
                .map(|(name, similarity)| (name, similarity.to_bits()))
                .collect();
            pruned.sort();
            every.sort();
            assert_eq!(pruned, every, "{wanted:?}");
            found_any += usize::from(!every.is_empty());
        }
        assert!(found_any > 100, "the generated typos find their names: {found_any}");
    }

    #[test]
    fn a_name_too_long_to_count_is_still_scored() {
        let long = format!("{}b", "a".repeat(usize::from(u8::MAX) + 1));
        // No counts, so `alike` scores it whatever the bound would say.
        assert_eq!(profile(&long), (usize::from(u8::MAX) + 2, None));
        let index = Index::new(vec![(long.clone(), "long.md")]);
        assert_eq!(index.alike(&long[1..]).len(), 1, "a name that reads alike is found");
    }
}
