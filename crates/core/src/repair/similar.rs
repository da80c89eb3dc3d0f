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
//!
//! The names the bound lets through are scored by [`Wanted::similarity`], which gives what
//! `strsim::jaro_winkler` gives, bit for bit, without its allocation and its pass over the
//! name's characters for each of the wanted name's: for ASCII names of at most 64 bytes (nearly
//! every note's), the positions of each of the wanted name's characters in the name are one
//! 64-bit mask, and the first free match in the window is the lowest bit left. Other names are
//! scored by `strsim` itself.
//!
//! No index of shared character n-grams stands in for the bound: Jaro counts characters matched
//! anywhere within half the longer name, and forgives transpositions, so two names can be 0.83
//! alike and share no bigram (`abcdef` and `badcfe`); such an index would miss candidates.

use std::collections::{HashMap, HashSet};

use super::Confidence;

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
#[cfg(test)]
fn in_common(a: &[u8; BUCKETS], b: &[u8; BUCKETS]) -> usize {
    a.iter().zip(b).map(|(a, b)| u32::from(*a.min(b))).sum::<u32>() as usize
}

/// A wanted name's counts as the buckets it has characters in, with how many: a name of a dozen
/// characters fills a few of the 64, and only those can be in common, so the pass over every
/// name reads those few of each name's counts, not all of them.
struct Held(Vec<(u8, u8)>);

impl Held {
    fn of(counts: &[u8; BUCKETS]) -> Held {
        Held(counts.iter().enumerate().filter(|(_, count)| **count > 0).map(|(bucket, count)| (bucket as u8, *count)).collect())
    }

    /// `in_common` of the wanted name's counts and `other`.
    fn in_common(&self, other: &[u8; BUCKETS]) -> usize {
        self.0.iter().map(|&(bucket, count)| usize::from(count.min(other[usize::from(bucket)]))).sum()
    }
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

#[cfg(test)]
fn common_prefix(a: &str, b: &str) -> usize {
    a.chars().take(4).zip(b.chars()).take_while(|(a, b)| a == b).count()
}

/// A name's first four characters (fewer when it is shorter) and how many there are: all that
/// Winkler's prefix reads of it, kept beside the counts so that the pass over every name never
/// follows a pointer to the name itself.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Head([char; 4], u8);

impl Head {
    fn of(name: &str) -> Head {
        let mut head = Head(['\0'; 4], 0);
        for (at, c) in name.chars().take(4).enumerate() {
            head.0[at] = c;
            head.1 = at as u8 + 1;
        }
        head
    }

    /// How many leading characters two names share, up to four: `common_prefix` of the names.
    fn shared(self, other: Head) -> usize {
        self.0[..usize::from(self.1)].iter().zip(&other.0[..usize::from(other.1)]).take_while(|(a, b)| a == b).count()
    }
}

/// Where the names a search finds go, and how alike a name must be to matter to them now.
pub(super) trait Sink<'v> {
    /// The least similarity a name must be able to reach to be scored, at least [`FLOOR`]; it may
    /// rise as the search goes (once the best few are held, a name below them cannot matter).
    fn floor(&self) -> f64;
    /// A name whose similarity reaches [`FLOOR`], with its notes.
    fn offer(&mut self, similarity: f64, name: &str, paths: &[&'v str]);
}

/// Every name whose similarity reaches [`FLOOR`].
#[cfg(test)]
struct Every<'a, 'v>(Vec<(f64, &'a str, &'a [&'v str])>, &'a Index<'v>);

#[cfg(test)]
impl<'a, 'v> Sink<'v> for Every<'a, 'v> {
    fn floor(&self) -> f64 {
        FLOOR
    }

    fn offer(&mut self, similarity: f64, name: &str, _: &[&'v str]) {
        let at = self.1.at[name];
        self.0.push((similarity, self.1.names[at].as_str(), self.1.paths[at].as_slice()));
    }
}

/// Every distinct name of the vault (identity key) with the notes that have it, the lengths and
/// counts kept apart from the names so that the pass over them stays in the cache. The names are
/// kept in order of length, so that a search skips at once every length too far from the
/// wanted name's to reach its floor, and grouped by their first four characters, so that a search
/// scores first the names that share the wanted name's (a typo seldom touches them, and Winkler
/// rewards them), which raises the floor of a search for the best few early.
#[derive(Default)]
pub(super) struct Index<'v> {
    names: Vec<String>,
    at: HashMap<String, usize>,
    paths: Vec<Vec<&'v str>>,
    lengths: Vec<usize>,
    heads: Vec<Head>,
    /// Each name's counts; a name whose counts overflow has none here and is always scored.
    counts: Vec<[u8; BUCKETS]>,
    countable: Vec<bool>,
    /// Each length the names have, with where its names are.
    by_length: Vec<(usize, std::ops::Range<usize>)>,
    by_head: HashMap<Head, Vec<usize>>,
}

impl<'v> Index<'v> {
    pub(super) fn new(names: Vec<(String, &'v str)>) -> Index<'v> {
        let mut distinct: HashMap<String, Vec<&'v str>> = HashMap::new();
        for (name, path) in names {
            distinct.entry(name).or_default().push(path);
        }
        let mut distinct: Vec<(usize, String, Vec<&'v str>)> =
            distinct.into_iter().map(|(name, paths)| (name.chars().count(), name, paths)).collect();
        distinct.sort_unstable_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let mut index = Index::default();
        for (length, name, paths) in distinct {
            let (_, counts) = profile(&name);
            let at = index.names.len();
            match index.by_length.last_mut() {
                Some((held, range)) if *held == length => range.end = at + 1,
                _ => index.by_length.push((length, at..at + 1)),
            }
            let head = Head::of(&name);
            index.by_head.entry(head).or_default().push(at);
            index.heads.push(head);
            index.at.insert(name.clone(), at);
            index.names.push(name);
            index.paths.push(paths);
            index.lengths.push(length);
            index.countable.push(counts.is_some());
            index.counts.push(counts.unwrap_or([0; BUCKETS]));
        }
        index
    }

    /// The names whose similarity to `wanted` reaches [`FLOOR`], with it and their notes.
    #[cfg(test)]
    pub(super) fn alike<'a>(&'a self, wanted: &str) -> Vec<(f64, &'a str, &'a [&'v str])> {
        let mut every = Every(Vec::new(), self);
        self.search(wanted, &mut every);
        every.0
    }

    /// Offers `sink` every name whose similarity to `wanted` reaches both [`FLOOR`] and the
    /// sink's floor when it is scored; a name whose bound is below the sink's floor is not.
    pub(super) fn search(&self, wanted: &str, sink: &mut dyn Sink<'v>) {
        let (length, counts) = profile(wanted);
        let counts = counts.as_ref().map(Held::of);
        let scorer = Wanted::new(wanted);
        let head = Head::of(wanted);
        // Scores one name the bound does not rule out; true when the sink's floor may have moved.
        let score = |at: usize, sink: &mut dyn Sink<'v>| -> bool {
            let similarity = scorer.similarity(&self.names[at]);
            let offered = similarity >= FLOOR;
            if offered {
                sink.offer(similarity, &self.names[at], &self.paths[at]);
            }
            offered
        };
        let first = self.by_head.get(&head);
        for &at in first.into_iter().flatten() {
            let need = Need::new(sink.floor(), length, self.lengths[at]);
            if need.passes(head.shared(self.heads[at]), counts.as_ref(), self, at) {
                score(at, sink);
            }
        }
        for (other, range) in &self.by_length {
            let mut floor = sink.floor();
            let mut need = Need::new(floor, length, *other);
            // A length where no name reaches the floor without a common prefix: only the names
            // that start with the wanted name's first character can, and they are together (the
            // names of a length are in order), so the others are passed over without a look.
            let range = if need.by_prefix[0] > need.most && head.1 > 0 {
                let names = &self.heads[range.clone()];
                let first = head.0[0];
                range.start + names.partition_point(|other| other.0[0] < first)
                    ..range.start + names.partition_point(|other| other.0[0] <= first)
            } else {
                range.clone()
            };
            for at in range {
                if need.none() {
                    break;
                }
                if first.is_some() && self.heads[at] == head {
                    continue;
                }
                if need.passes(head.shared(self.heads[at]), counts.as_ref(), self, at) && score(at, sink) && sink.floor() != floor {
                    floor = sink.floor();
                    need = Need::new(floor, length, *other);
                }
            }
        }
    }
}

/// For a wanted name of one length and the names of another, the fewest characters in common a
/// name needs for its bound to reach the floor, for each common prefix (0 to 4): the bound grows
/// with the characters in common, so comparing counts with these is comparing the bound with the
/// floor, without a division per name.
struct Need {
    /// No two names match more characters than the shorter has; a need above it is never met.
    most: usize,
    by_prefix: [usize; 5],
}

impl Need {
    fn new(floor: f64, a: usize, b: usize) -> Need {
        let most = a.min(b);
        let by_prefix =
            std::array::from_fn(|prefix| (0..=most).find(|&common| bound(common, a, b, prefix) >= floor - SLACK).unwrap_or(most + 1));
        Need { most, by_prefix }
    }

    /// Whether no name of this length can pass: the longest prefix needs the fewest characters.
    fn none(&self) -> bool {
        self.by_prefix[4] > self.most
    }

    /// Whether the name at `at`, sharing `prefix` leading characters with the wanted name, may
    /// reach the floor; by its length alone when either's characters could not be counted.
    fn passes(&self, prefix: usize, counts: Option<&Held>, index: &Index<'_>, at: usize) -> bool {
        let need = self.by_prefix[prefix];
        if need > self.most {
            return false;
        }
        match (counts, index.countable[at]) {
            (Some(counts), true) => counts.in_common(&index.counts[at]) >= need,
            _ => true,
        }
    }
}

/// The few best notes a broken link's name reads alike, as the candidates list them: each note
/// once, at the best confidence of its names (lowered where the digits differ, [`super::digits`]),
/// best first and then by path, no note found by stronger evidence. Once it holds as many as it
/// keeps, a name whose confidence could not reach the last one held cannot change it, so the
/// search need not score it: what it holds at the end is the head of the exhaustive list.
pub(super) struct Best<'s, 'v> {
    keep: usize,
    /// The least similarity a name must reach to be held, at least [`FLOOR`].
    least: f64,
    digits: String,
    stronger: &'s HashSet<String>,
    held: Vec<(Confidence, &'v str)>,
}

impl<'s, 'v> Best<'s, 'v> {
    /// The best `keep` notes whose names' similarity reaches `least` (or [`FLOOR`], the higher).
    pub(super) fn new(keep: usize, wanted: &str, stronger: &'s HashSet<String>, least: f64) -> Best<'s, 'v> {
        Best { keep, least: least.max(FLOOR), digits: super::digits(wanted), stronger, held: Vec::with_capacity(keep + 1) }
    }

    /// The notes held, best first, with their confidence.
    pub(super) fn into_held(self) -> Vec<(Confidence, &'v str)> {
        self.held
    }
}

impl<'v> Sink<'v> for Best<'_, 'v> {
    fn floor(&self) -> f64 {
        if self.keep == 0 {
            return f64::INFINITY;
        }
        match self.held.get(self.keep - 1) {
            // A similarity rounds to the last one's confidence from half a thousandth below it.
            Some((last, _)) => self.least.max((f64::from(last.0) - 0.5) / 1000.0),
            None => self.least,
        }
    }

    fn offer(&mut self, mut similarity: f64, name: &str, paths: &[&'v str]) {
        if similarity < self.least {
            return;
        }
        if super::digits(name) != self.digits {
            similarity *= 0.85;
        }
        let confidence = super::confidence(similarity);
        for &path in paths.iter().filter(|path| !self.stronger.contains(**path)) {
            match self.held.iter_mut().find(|(_, held)| *held == path) {
                Some(held) => held.0 = held.0.max(confidence),
                None => self.held.push((confidence, path)),
            }
            self.held.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
            self.held.truncate(self.keep);
        }
    }
}

/// The longest name, in bytes, [`Wanted::similarity`] scores with masks.
const MASKED: usize = 64;

/// A name whose similarity to others is asked for, with what scoring it against each needs.
struct Wanted<'w> {
    text: &'w str,
    /// For each ASCII byte, its place among the name's distinct bytes (at most [`MASKED`]), or
    /// `NONE`; `None` when the name is not ASCII or longer than [`MASKED`].
    slots: Option<[u8; 128]>,
}

const NONE: u8 = u8::MAX;

impl<'w> Wanted<'w> {
    fn new(text: &'w str) -> Wanted<'w> {
        let mut slots = [NONE; 128];
        let mut distinct = 0;
        if !text.is_ascii() || text.len() > MASKED {
            return Wanted { text, slots: None };
        }
        for byte in text.bytes() {
            if slots[usize::from(byte)] == NONE {
                slots[usize::from(byte)] = distinct as u8;
                distinct += 1;
            }
        }
        Wanted { text, slots: Some(slots) }
    }

    /// `strsim::jaro_winkler(self, name)`, the same bits.
    fn similarity(&self, name: &str) -> f64 {
        match self.slots {
            Some(slots) if name.is_ascii() && name.len() <= MASKED => self.masked(&slots, name.as_bytes()),
            _ => strsim::jaro_winkler(self.text, name),
        }
    }

    /// Jaro-Winkler as `strsim` computes it (each of the wanted name's characters in turn takes
    /// the first equal character of the name, not yet taken, within the window; transpositions
    /// are the taken characters that differ in order, halved), on ASCII of at most 64 bytes.
    fn masked(&self, slots: &[u8; 128], name: &[u8]) -> f64 {
        let wanted = self.text.as_bytes();
        let (a_len, b_len) = (wanted.len(), name.len());
        if a_len == 0 && b_len == 0 {
            return 1.0;
        }
        if a_len == 0 || b_len == 0 {
            return 0.0;
        }
        // Where each of the wanted name's bytes is in the name.
        let mut masks = [0u64; MASKED];
        for (at, &byte) in name.iter().enumerate() {
            let slot = slots[usize::from(byte)];
            if slot != NONE {
                masks[usize::from(slot)] |= 1 << at;
            }
        }
        let range = (a_len.max(b_len) / 2).saturating_sub(1);
        let (mut a_taken, mut b_taken, mut matches) = (0u64, 0u64, 0usize);
        for (at, &byte) in wanted.iter().enumerate() {
            let low = at.saturating_sub(range);
            let high = b_len.min(at + range + 1);
            if low >= high {
                continue;
            }
            let below_high = if high == MASKED { u64::MAX } else { (1 << high) - 1 };
            let window = below_high & !((1u64 << low) - 1);
            let free = masks[usize::from(slots[usize::from(byte)])] & !b_taken & window;
            if free != 0 {
                b_taken |= 1 << free.trailing_zeros();
                a_taken |= 1 << at;
                matches += 1;
            }
        }
        let mut transpositions = 0usize;
        while a_taken != 0 {
            let (i, j) = (a_taken.trailing_zeros() as usize, b_taken.trailing_zeros() as usize);
            transpositions += usize::from(wanted[i] != name[j]);
            a_taken &= a_taken - 1;
            b_taken &= b_taken - 1;
        }
        transpositions /= 2;
        let jaro = if matches == 0 {
            0.0
        } else {
            ((matches as f64 / a_len as f64) + (matches as f64 / b_len as f64) + ((matches - transpositions) as f64 / matches as f64)) / 3.0
        };
        if jaro > 0.7 {
            let prefix = wanted.iter().take(4).zip(name).take_while(|(a, b)| a == b).count();
            jaro + 0.1 * prefix as f64 * (1.0 - jaro)
        } else {
            jaro
        }
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
                assert_eq!(Held::of(&counts_a.unwrap()).in_common(&counts_b.unwrap()), common, "{a:?} {b:?}");
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
    fn the_best_few_are_the_head_of_the_exhaustive_list() {
        let mut names = generated(21, 3000);
        // Names that differ only in digits, and notes with several names.
        names.extend(["kamiro 7", "kamiro 77", "kamira 7", "lusen", "luseen"].map(str::to_owned));
        let paths: Vec<String> = (0..names.len()).map(|at| format!("n{}.md", at % 2500)).collect();
        let index = Index::new(names.iter().zip(&paths).map(|(name, path)| (name.clone(), path.as_str())).collect());
        let mut random = Seeded(17);
        let stronger: HashSet<String> = ["n3.md", "n40.md"].map(str::to_owned).into_iter().collect();
        let mut compared = 0;
        for round in 0..300u64 {
            let wanted = match round % 3 {
                0 => typo(&names[random.next(names.len())], &mut random),
                1 => typo(&typo(&names[random.next(names.len())], &mut random), &mut random),
                _ => generated(2000 + round, 1).remove(0),
            };
            for least in [FLOOR, 0.85, 0.9] {
                // Every name scored, each note at its best, best first and then by path.
                let mut every: Vec<(Confidence, &str)> = Vec::new();
                for (name, path) in names.iter().zip(&paths) {
                    let mut similarity = strsim::jaro_winkler(&wanted, name);
                    if similarity < least || stronger.contains(path) {
                        continue;
                    }
                    if super::super::digits(name) != super::super::digits(&wanted) {
                        similarity *= 0.85;
                    }
                    let confidence = super::super::confidence(similarity);
                    match every.iter_mut().find(|(_, held)| *held == path.as_str()) {
                        Some(held) => held.0 = held.0.max(confidence),
                        None => every.push((confidence, path.as_str())),
                    }
                }
                every.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
                for keep in [1, 3] {
                    let mut best = Best::new(keep, &wanted, &stronger, least);
                    index.search(&wanted, &mut best);
                    let expected: Vec<(Confidence, &str)> = every.iter().take(keep).copied().collect();
                    assert_eq!(best.into_held(), expected, "{wanted:?}, {keep}, {least}");
                    compared += usize::from(expected.len() == keep);
                }
            }
        }
        assert!(compared > 600, "most searches fill their list: {compared}");
    }

    #[test]
    fn the_kept_heads_give_the_names_common_prefix() {
        let names = generated(11, 300);
        for a in &names {
            for b in &names {
                assert_eq!(Head::of(a).shared(Head::of(b)), common_prefix(a, b), "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn the_masked_score_is_strsims_bit_for_bit() {
        let mut names = generated(3, 600);
        let mut random = Seeded(5);
        for at in 0..200 {
            let typo = typo(&names[at], &mut random);
            names.push(typo);
        }
        names.extend(["abcdef", "badcfe", "", "a", "aaaaaaaa", "ab", "ba"].map(str::to_owned));
        names.push("x".repeat(MASKED));
        names.push("y".repeat(MASKED + 1));
        let mut masked = 0;
        for a in &names {
            let wanted = Wanted::new(a);
            for b in &names {
                masked += usize::from(wanted.slots.is_some() && b.is_ascii() && b.len() <= MASKED);
                assert_eq!(wanted.similarity(b).to_bits(), strsim::jaro_winkler(a, b).to_bits(), "{a:?} {b:?}");
            }
        }
        assert!(masked > names.len() * names.len() / 10, "most pairs took the masked path: {masked}");
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
