//! Lexical sketches of note bodies, for finding near duplicates without keeping note text.
//!
//! A body is read as words (runs of letters and digits, lower-cased), and each run of
//! [`SHINGLE_WORDS`] consecutive words (a shingle) is hashed. The sketch keeps the
//! [`SKETCH_SIZE`] smallest distinct hashes (a bottom-k MinHash). Two sketches estimate the
//! Jaccard similarity of the two bodies' shingle sets: of the `k` smallest hashes of their
//! union, the share found in both. With `k = 64` the estimate's standard error is about
//! `sqrt(J(1-J)/64)`, 0.06 at `J = 0.5`: good enough to put a pair in front of a reader, which
//! is all `near_duplicate` does.
//!
//! Beside the MinHash, a sketch keeps one 64-bit hash of the whole body with its white space
//! evened out ([`Sketch::body_hash`]): runs of white space read as one space, the ends trimmed.
//! Two bodies with the same text are then known to be identical whatever their length or
//! vocabulary, which the MinHash cannot tell for a short body or one that repeats a few phrases.
//!
//! A sketch is a few hundred bytes a note, computed from its text only when `near_duplicate`
//! asks for it and then kept by the index (`index::sketches`), so a later lint needs no note text
//! and runs in memory. Sketching one text needs nothing else ([`Sketch::of_note`]), so an edge
//! may sketch many on several threads.

use std::num::NonZeroU64;

/// How many hashes a sketch keeps.
pub const SKETCH_SIZE: usize = 64;
/// Words per shingle.
pub const SHINGLE_WORDS: usize = 3;
/// Bodies with fewer words are not compared: a stub of a few words says too little for a
/// similarity to mean anything.
pub const MIN_WORDS: u32 = 40;

/// The bottom-k MinHash sketch of a note body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sketch {
    /// The smallest distinct shingle hashes, ascending; at most [`SKETCH_SIZE`].
    hashes: Box<[u32]>,
    /// Words in the body.
    words: u32,
    /// The hash of the body with its white space evened out; `None` for a body that is empty or
    /// all white space.
    body_hash: Option<NonZeroU64>,
}

impl Sketch {
    /// The sketch of a note's whole `text`: of its body, after the frontmatter.
    pub fn of_note(text: &str) -> Sketch {
        let body_start = crate::frontmatter::find_block(text).map_or(0, |block| block.span.end);
        Sketch::of_body(&text[body_start..])
    }

    /// The sketch of `body` (a note's text after its frontmatter).
    pub fn of_body(body: &str) -> Sketch {
        let mut smallest = Smallest::default();
        let mut window = [0u64; SHINGLE_WORDS];
        let mut words = 0u32;
        for_each_word(body, |word| {
            window.rotate_left(1);
            window[SHINGLE_WORDS - 1] = word;
            words = words.saturating_add(1);
            if words as usize >= SHINGLE_WORDS {
                smallest.offer(shingle_hash(&window));
            }
        });
        Sketch { hashes: smallest.finish().into_boxed_slice(), words, body_hash: body_hash(body) }
    }

    /// The hash of the body with runs of white space read as one space and the ends trimmed:
    /// equal for two bodies whose text is the same once their white space is evened out (case
    /// and punctuation count). `None` when the body is empty or all white space.
    pub fn body_hash(&self) -> Option<NonZeroU64> {
        self.body_hash
    }

    /// The bytes the sketch holds on the heap (its hashes), for the index's memory count.
    pub fn heap_bytes(&self) -> usize {
        size_of_val(&*self.hashes)
    }

    /// Words in the body.
    pub fn words(&self) -> u32 {
        self.words
    }

    /// True when the body is long enough to compare ([`MIN_WORDS`]).
    pub fn is_comparable(&self) -> bool {
        self.words >= MIN_WORDS && !self.hashes.is_empty()
    }

    /// A sketch from its parts as [`Sketch::hashes`], [`Sketch::words`] and [`Sketch::body_hash`]
    /// gave them (the persistent index's, `index::kept`); `None` when the hashes are not
    /// ascending and distinct or too many, which no sketch has.
    pub(crate) fn from_parts(hashes: Vec<u32>, words: u32, body_hash: Option<NonZeroU64>) -> Option<Sketch> {
        let ordered = hashes.windows(2).all(|pair| pair[0] < pair[1]);
        (ordered && hashes.len() <= SKETCH_SIZE).then(|| Sketch { hashes: hashes.into_boxed_slice(), words, body_hash })
    }

    /// The kept hashes, ascending.
    pub fn hashes(&self) -> &[u32] {
        &self.hashes
    }

    /// The estimated Jaccard similarity of the two bodies' shingle sets, from 0 to 1.
    pub fn similarity(&self, other: &Sketch) -> f64 {
        let (left, right) = (&self.hashes, &other.hashes);
        let (mut i, mut j, mut seen, mut shared) = (0, 0, 0usize, 0usize);
        while seen < SKETCH_SIZE && (i < left.len() || j < right.len()) {
            match (left.get(i), right.get(j)) {
                (Some(a), Some(b)) if a == b => {
                    shared += 1;
                    i += 1;
                    j += 1;
                }
                (Some(a), Some(b)) if a < b => i += 1,
                (Some(_), Some(_)) => j += 1,
                // One sketch ran out: it holds all of its body's shingles, so the union's
                // remaining smallest hashes are the other's and none is shared.
                (Some(_), None) => i += 1,
                (None, _) => j += 1,
            }
            seen += 1;
        }
        if seen == 0 {
            0.0
        } else {
            shared as f64 / seen as f64
        }
    }
}

/// Calls `visit` with the hash of each word of `text`: maximal runs of alphanumeric
/// characters, compared without case.
fn for_each_word(text: &str, mut visit: impl FnMut(u64)) {
    let mut hash = FNV_OFFSET;
    let mut in_word = false;
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let byte = bytes[at];
        if byte < 0x80 {
            at += 1;
            let lower = ASCII_WORD[byte as usize];
            if lower != 0 {
                hash = fnv(hash, lower as u32);
                in_word = true;
                continue;
            }
        } else {
            let Some(c) = text[at..].chars().next() else { break };
            at += c.len_utf8();
            if c.is_alphanumeric() {
                for lower in c.to_lowercase() {
                    hash = fnv(hash, lower as u32);
                }
                in_word = true;
                continue;
            }
        }
        if in_word {
            visit(hash);
            hash = FNV_OFFSET;
            in_word = false;
        }
    }
    if in_word {
        visit(hash);
    }
}

/// The hash of `body`'s pieces between runs of white space, in order: the hash of the text
/// with each run read as one space and the ends trimmed, since joining the pieces with single
/// spaces gives that text and nothing else does. `None` when there is no piece.
fn body_hash(body: &str) -> Option<NonZeroU64> {
    let mut hash = FNV_OFFSET;
    let mut pieces = 0u64;
    for piece in body.split_whitespace() {
        pieces += 1;
        // Eight bytes a step, the last step padded; the length tells a piece from its padding.
        let bytes = piece.as_bytes();
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            hash = mix(hash ^ u64::from_le_bytes(chunk.try_into().unwrap_or_default()));
        }
        let mut last = [0u8; 8];
        last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        hash = mix(hash ^ u64::from_le_bytes(last));
        hash = mix(hash ^ bytes.len() as u64);
    }
    if pieces == 0 {
        return None;
    }
    NonZeroU64::new(mix(hash ^ pieces)).or(NonZeroU64::new(1))
}

/// Each ASCII byte's lower-case form when it is a letter or digit, else 0.
const ASCII_WORD: [u8; 128] = {
    let mut table = [0u8; 128];
    let mut byte = 0;
    while byte < 128 {
        let c = byte as u8;
        if c.is_ascii_alphanumeric() {
            table[byte] = c.to_ascii_lowercase();
        }
        byte += 1;
    }
    table
};

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

fn fnv(hash: u64, unit: u32) -> u64 {
    (hash ^ unit as u64).wrapping_mul(0x0000_0100_0000_01b3)
}

/// The hash of a run of word hashes, mixed so that its order matters: each word rotated by its
/// place, then one finalising mix.
fn shingle_hash(words: &[u64; SHINGLE_WORDS]) -> u32 {
    let mut hash = 0u64;
    for (place, word) in words.iter().enumerate() {
        hash ^= word.rotate_left(21 * place as u32);
    }
    (mix(hash) >> 32) as u32
}

/// The splitmix64 finaliser: every input bit reaches every output bit.
fn mix(mut value: u64) -> u64 {
    value = value.wrapping_add(0x9e37_79b9_7f4a_7c15);
    value = (value ^ (value >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    value = (value ^ (value >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    value ^ (value >> 31)
}

/// The [`SKETCH_SIZE`] smallest distinct values offered, kept without storing every value: once
/// `SKETCH_SIZE` distinct values are known, a value above the largest of them cannot be among
/// the smallest, and is dropped as it comes.
#[derive(Debug, Default)]
struct Smallest {
    values: Vec<u32>,
    /// Values at or above this cannot be among the smallest.
    limit: Option<u32>,
}

impl Smallest {
    fn offer(&mut self, value: u32) {
        if self.limit.is_some_and(|limit| value >= limit) {
            return;
        }
        self.values.push(value);
        if self.values.len() >= 8 * SKETCH_SIZE {
            self.values = smallest_distinct(std::mem::take(&mut self.values), SKETCH_SIZE);
            if self.values.len() == SKETCH_SIZE {
                // The largest kept is itself kept; only smaller values may still enter.
                self.limit = self.values.last().copied();
            }
        }
    }

    fn finish(self) -> Vec<u32> {
        smallest_distinct(self.values, SKETCH_SIZE)
    }
}

/// The `k` smallest distinct values of `values`, ascending.
fn smallest_distinct(mut values: Vec<u32>, k: usize) -> Vec<u32> {
    values.sort_unstable();
    values.dedup();
    values.truncate(k);
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(count: usize, seed: u64) -> String {
        (0..count).map(|index| format!("w{}", mix(seed * 1_000_003 + index as u64) % 5_000)).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn identical_bodies_are_one_whatever_the_case_and_punctuation() {
        let text = words(300, 1);
        let shouted = text.to_uppercase().replace(' ', ", ");
        assert_eq!(Sketch::of_body(&text).similarity(&Sketch::of_body(&shouted)), 1.0);
    }

    #[test]
    fn unrelated_bodies_are_near_zero() {
        let similarity = Sketch::of_body(&words(400, 1)).similarity(&Sketch::of_body(&words(400, 2)));
        assert!(similarity < 0.1, "{similarity}");
    }

    #[test]
    fn the_estimate_tracks_the_true_overlap() {
        // Two bodies sharing the first 600 of 800 words: their shingle sets overlap in about
        // 598 of 1,000 shingles, a Jaccard similarity near 0.6.
        let shared = words(600, 7);
        let left = format!("{shared} {}", words(200, 8));
        let right = format!("{shared} {}", words(200, 9));
        let similarity = Sketch::of_body(&left).similarity(&Sketch::of_body(&right));
        assert!((0.4..=0.8).contains(&similarity), "{similarity}");
    }

    #[test]
    fn short_bodies_are_not_comparable_and_words_count_unicode() {
        assert!(!Sketch::of_body("a few words").is_comparable());
        let sketch = Sketch::of_body("Ça va, n'est-ce pas? 東京 straße");
        assert_eq!(sketch.words(), 8); // ça va n est ce pas 東京 straße
        assert!(Sketch::of_body(&words(40, 3)).is_comparable());
    }

    #[test]
    fn a_sketch_keeps_the_smallest_distinct_hashes() {
        let repeated = "alpha beta gamma ".repeat(500);
        let sketch = Sketch::of_body(&repeated);
        // Three distinct shingles, whatever the repeats.
        assert_eq!(sketch.hashes().len(), 3);
        let long = Sketch::of_body(&words(2_000, 4));
        assert_eq!(long.hashes().len(), SKETCH_SIZE);
        assert!(long.hashes().windows(2).all(|pair| pair[0] < pair[1]));
        assert_eq!(smallest_distinct(vec![5, 1, 5, 3, 1, 9, 0], 3), vec![0, 1, 3]);
    }

    #[test]
    fn the_body_hash_is_the_text_with_its_white_space_evened_out() {
        let hash = |body: &str| Sketch::of_body(body).body_hash();
        let text = "Spaced repetition works. ".repeat(20);
        assert!(hash(&text).is_some());
        assert_eq!(hash(&text), hash(&format!("\n\n  {}\n", text.replace(". ", ".\n\t  "))));
        // Case, punctuation and where a word breaks count.
        assert_ne!(hash("Alpha beta"), hash("alpha beta"));
        assert_ne!(hash("Alpha beta"), hash("Alpha, beta"));
        assert_ne!(hash("Alpha beta"), hash("Alphabeta"));
        assert_ne!(hash("ab cd"), hash("a bcd"));
        // A piece of eight bytes and the same piece padded are told apart by its length.
        assert_ne!(hash("abcdefgh"), hash("abcdefgh\0"));
        assert_eq!((hash(""), hash(" \n\t \n")), (None, None));
        // One 11-word sentence six times: long enough to compare, but its 11 distinct shingles
        // are fewer than a pair must share for the MinHash to put it forward; only the body
        // hash tells two copies of it apart from two different notes.
        let repeated = Sketch::of_body(&"The build passed on the first try and nothing else happened. ".repeat(6));
        assert!(repeated.is_comparable() && repeated.words() == 66 && repeated.hashes().len() == 11);
    }

    #[test]
    fn keeping_as_values_come_equals_sorting_them_all() {
        for seed in 1..50u64 {
            // Many repeats (values below 3,000) among many values, in a random order.
            let values: Vec<u32> = (0..5_000u64).map(|index| (mix(seed * 100_003 + index) % 3_000) as u32).collect();
            let mut smallest = Smallest::default();
            values.iter().for_each(|value| smallest.offer(*value));
            assert_eq!(smallest.finish(), smallest_distinct(values, SKETCH_SIZE), "seed {seed}");
        }
    }
}
