//! `near-duplicate`: pairs of notes whose bodies are lexically close, with the estimated
//! similarity, as evidence for a reader to weigh; never a verdict.
//!
//! Notes whose bodies are identical are found first, whatever their length or vocabulary: the
//! sketch keeps a hash of each body (the text after the frontmatter) with its white space
//! evened out ([`crate::sketch::Sketch::body_hash`]), so bodies that differ only in spacing or
//! line breaks are identical too, while frontmatter does not count. Each set of identical
//! bodies is reported as pairs of its first note (in path order) with each other one, at
//! similarity 1.0 with the method `identical_bodies`, and the similarity pass below does not
//! report those pairs again. Empty bodies (nothing, or only white space, after the
//! frontmatter) are not duplicates of each other: an empty note repeats nothing, and a vault's
//! placeholders would otherwise all pair up.
//!
//! Each note's body is sketched the first time this rule runs ([`crate::sketch`]: bottom-k
//! MinHash over three-word shingles), from the texts the edge reads for it, and the index keeps
//! the sketches for later runs (`index::sketches`). A note whose text could not be read has no
//! sketch and is not compared; `skipped` says how many. Candidate pairs come from an inverted index of the sketches' hashes,
//! so the work grows with the pairs that share something rather than with the square of the
//! vault. A hash that more than [`MAX_SHARED_BY`] notes hold is template or boilerplate text
//! (a daily-note template, a licence footer) and is not counted: it would pair every note that
//! uses the template and say nothing about their content. Bodies under
//! [`crate::sketch::MIN_WORDS`] words are not compared by similarity (only for being
//! identical).

use std::collections::HashMap;

use serde_json::json;

use super::{Context, Example, Findings, Proposal, Rule, Skipped};
use crate::sketch::{Sketch, MIN_WORDS, SHINGLE_WORDS, SKETCH_SIZE};

/// A note with its body's sketch.
#[derive(Clone, Copy)]
struct Sketched<'a> {
    path: &'a str,
    sketch: &'a Sketch,
}

/// The least estimated similarity reported.
pub const MIN_SIMILARITY: f64 = 0.5;
/// A sketch hash held by more notes than this is template text, not counted.
pub const MAX_SHARED_BY: usize = 100;

pub const RULE: Rule = Rule {
    kind: crate::rule_names::NEAR_DUPLICATE.kind,
    code: crate::rule_names::NEAR_DUPLICATE.code,
    summary: "Pairs of notes whose bodies share most of their wording (estimated similarity, for review).",
    examples: &[
        Example {
            name: "a copied note with a changed ending, and an unrelated one",
            vault: concat!(
                "//- Ideas/Spaced repetition.md\n",
                "Spaced repetition schedules each review just before you would forget the card, so the interval between reviews grows every time you recall it correctly and shrinks when you fail. The method works because retrieval strengthens memory more than rereading does, and because spacing the practice gives the memory time to consolidate between sessions. Tools such as flashcard programs compute the intervals for you.\n",
                "//- Inbox/Spaced repetition copy.md\n",
                "Spaced repetition schedules each review just before you would forget the card, so the interval between reviews grows every time you recall it correctly and shrinks when you fail. The method works because retrieval strengthens memory more than rereading does, and because spacing the practice gives the memory time to consolidate between sessions. Paper cards in boxes did the same long before software.\n",
                "//- Cooking.md\n",
                "Bread needs flour, water, salt and time. Mix the dough, let it rest for an hour, fold it a few times, shape it and leave it overnight in the refrigerator so the flavour develops. Bake it in a very hot oven with steam for the first twenty minutes, then lower the heat and bake until the crust is deep brown and the loaf sounds hollow when tapped.\n",
            ),
            expected: &["near_duplicate Ideas/Spaced repetition.md -> Inbox/Spaced repetition copy.md"],
        },
        Example {
            name: "short notes are compared only for being identical",
            vault: "//- A.md\nsame few words here\n//- B.md\nsame few words here\n//- C.md\nsame few words there\n",
            expected: &["near_duplicate A.md -> B.md"],
        },
        Example {
            name: "two identical notes of one sentence repeated, too few distinct phrases to sketch",
            vault: concat!(
                "//- Log/Monday.md\n",
                "The build passed on the first try and nothing else happened. The build passed on the first try and nothing else happened. \
The build passed on the first try and nothing else happened. The build passed on the first try and nothing else happened. \
The build passed on the first try and nothing else happened. The build passed on the first try and nothing else happened.\n",
                "//- Log/Tuesday.md\n",
                "---\ndate: 2024-05-07\n---\n",
                "The build passed on the first try and nothing else happened. The build passed on the first try and nothing else happened. \
The build passed on the first try and nothing else happened. The build passed on the first try and nothing else happened. \
The build passed on the first try and nothing else happened. The build passed on the first try and nothing else happened.\n",
            ),
            expected: &["near_duplicate Log/Monday.md -> Log/Tuesday.md"],
        },
        Example {
            name: "bodies that differ only in white space and line breaks, three of them",
            vault: concat!(
                "//- A.md\n# Plan\n\nShip the parser first,  then the index.\n",
                "//- B.md\n\n# Plan\nShip the parser first,\nthen the index.\n\n\n",
                "//- C.md\n  # Plan Ship the parser\tfirst, then the index.\n",
            ),
            expected: &["near_duplicate A.md -> B.md", "near_duplicate A.md -> C.md"],
        },
        Example {
            name: "empty notes are not duplicates of each other",
            vault: "//- A.md\n//- B.md\n\n   \n//- C.md\n---\ntags: [stub]\n---\n\n",
            expected: &[],
        },
    ],
    check,
};

fn check(context: &Context<'_>, findings: &mut Findings) {
    let mut unsketched = 0;
    let mut notes = Vec::new();
    for (note, kept) in context.vault.notes_with_sketches().filter(|(note, _)| !super::is_schema_file(note.path)) {
        match kept.or_else(|| context.sketches_read?.get(note.path)) {
            Some(sketch) => notes.push(Sketched { path: note.path, sketch }),
            None => unsketched += 1,
        }
    }
    if unsketched > 0 {
        findings.skipped.push(Skipped {
            kind: RULE.kind,
            reason: format!(
                "{unsketched} notes were not compared: their text could not be read to sketch it; call again once they can be read"
            ),
        });
    }
    identical(context, &notes, findings);
    similar(context, &notes, findings);
}

/// Whether two notes' bodies are identical once their white space is evened out: the same body
/// hash and, to make a collision of hashes rarer still, the same count of words.
fn same_body(left: &Sketched<'_>, right: &Sketched<'_>) -> bool {
    left.sketch.body_hash().is_some() && left.sketch.body_hash() == right.sketch.body_hash() && left.sketch.words() == right.sketch.words()
}

/// Notes with identical bodies, any length but empty: each set as pairs of its first note with
/// each other one.
fn identical(context: &Context<'_>, notes: &[Sketched<'_>], findings: &mut Findings) {
    let mut sets: HashMap<(u64, u32), Vec<Sketched<'_>>> = HashMap::new();
    for note in notes {
        if let Some(hash) = note.sketch.body_hash() {
            sets.entry((hash.get(), note.sketch.words())).or_default().push(*note);
        }
    }
    let mut pairs: Vec<(&Sketched<'_>, &Sketched<'_>, usize)> = Vec::new();
    for set in sets.values().filter(|set| set.len() > 1) {
        // Notes come in path order, so the first is the smallest path.
        let first = &set[0];
        for other in &set[1..] {
            if context.is_subject(first.path) || context.is_subject(other.path) {
                pairs.push((first, other, set.len()));
            }
        }
    }
    pairs.sort_by(|a, b| a.0.path.cmp(b.0.path).then_with(|| a.1.path.cmp(b.1.path)));
    for (first, other, notes) in pairs {
        let (subject, other) = if context.is_subject(first.path) { (first, other) } else { (other, first) };
        findings.proposals.push(identical_proposal(subject, other, notes));
    }
}

/// Pairs of notes whose sketches estimate them similar, identical bodies left out (reported by
/// [`identical`]).
fn similar(context: &Context<'_>, notes: &[Sketched<'_>], findings: &mut Findings) {
    let notes: Vec<Sketched<'_>> = notes.iter().filter(|note| note.sketch.is_comparable()).copied().collect();
    let mut holders: HashMap<u32, Vec<u32>> = HashMap::new();
    for (index, note) in notes.iter().enumerate() {
        for hash in note.sketch.hashes() {
            holders.entry(*hash).or_default().push(index as u32);
        }
    }
    // Pairs sharing enough hashes to possibly reach MIN_SIMILARITY: a pair at similarity `s`
    // shares about `s * k` of the union's k smallest hashes, all of which are in both sketches.
    let least_shared = ((MIN_SIMILARITY * SKETCH_SIZE as f64) / 2.0).floor().max(1.0) as u16;
    let mut shared: HashMap<(u32, u32), u16> = HashMap::new();
    for notes_with_hash in holders.values().filter(|notes| notes.len() > 1 && notes.len() <= MAX_SHARED_BY) {
        for (position, left) in notes_with_hash.iter().enumerate() {
            for right in &notes_with_hash[position + 1..] {
                *shared.entry((*left, *right)).or_default() += 1;
            }
        }
    }
    let mut pairs: Vec<(f64, &Sketched<'_>, &Sketched<'_>)> = shared
        .into_iter()
        .filter(|(_, count)| *count >= least_shared)
        .filter_map(|((left, right), _)| {
            let (left, right) = (&notes[left as usize], &notes[right as usize]);
            if (!context.is_subject(left.path) && !context.is_subject(right.path)) || same_body(left, right) {
                return None;
            }
            let similarity = left.sketch.similarity(right.sketch);
            (similarity >= MIN_SIMILARITY).then_some((similarity, left, right))
        })
        .collect();
    pairs.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.1.path.cmp(b.1.path)).then_with(|| a.2.path.cmp(b.2.path)));
    for (similarity, left, right) in pairs {
        // The subject is a note the lint is about; the other is related.
        let (subject, other) = if context.is_subject(left.path) { (left, right) } else { (right, left) };
        findings.proposals.push(proposal(similarity, subject, other));
    }
}

const MERGE: &str = "Read both. If they cover one topic, merge them into one note and point the other's links at it (rewrite_link), \
then delete the leftover (delete_note); if not, make each say what sets it apart.";

fn identical_proposal(subject: &Sketched<'_>, other: &Sketched<'_>, notes: usize) -> Proposal {
    let others = if notes > 2 {
        format!("; {notes} notes in all have this body, each paired with the first of them in path order")
    } else {
        String::new()
    };
    let mut proposal = Proposal::new(
        RULE.kind,
        subject.path,
        format!(
            "`{}` and `{}` have identical bodies (the same text after the frontmatter once runs of white space are read as one \
space){others}",
            subject.path, other.path
        ),
        MERGE.to_owned(),
    );
    proposal.related = vec![other.path.to_owned()];
    proposal.evidence = Some(json!({
        "similarity": 1.0,
        "method": "identical_bodies",
        "words": [subject.sketch.words(), other.sketch.words()],
        "notes_with_this_body": notes,
    }));
    proposal
}

fn proposal(similarity: f64, subject: &Sketched<'_>, other: &Sketched<'_>) -> Proposal {
    let percent = (similarity * 100.0).round();
    let mut proposal = Proposal::new(
        RULE.kind,
        subject.path,
        format!(
            "`{}` and `{}` share about {percent}% of their {SHINGLE_WORDS}-word phrases (estimated from {SKETCH_SIZE}-hash MinHash sketches of their bodies); \
this is evidence for review, not a verdict",
            subject.path, other.path
        ),
        MERGE.to_owned(),
    );
    proposal.related = vec![other.path.to_owned()];
    proposal.evidence = Some(json!({
        "similarity": (similarity * 100.0).round() / 100.0,
        "method": "minhash_bottom_k",
        "shingle_words": SHINGLE_WORDS,
        "sketch_size": SKETCH_SIZE,
        "words": [subject.sketch.words(), other.sketch.words()],
        "min_words": MIN_WORDS,
    }));
    proposal
}
