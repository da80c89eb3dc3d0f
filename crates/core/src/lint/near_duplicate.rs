//! `near-duplicate`: pairs of notes whose bodies are lexically close, with the estimated
//! similarity, as evidence for a reader to weigh; never a verdict.
//!
//! Each note's body is sketched when it is indexed ([`crate::sketch`]: bottom-k MinHash over
//! three-word shingles). Candidate pairs come from an inverted index of the sketches' hashes,
//! so the work grows with the pairs that share something rather than with the square of the
//! vault. A hash that more than [`MAX_SHARED_BY`] notes hold is template or boilerplate text
//! (a daily-note template, a licence footer) and is not counted: it would pair every note that
//! uses the template and say nothing about their content. Bodies under
//! [`crate::sketch::MIN_WORDS`] words are not compared.

use std::collections::HashMap;

use serde_json::json;

use super::{Context, Example, Findings, Proposal, Rule};
use crate::index::NoteView;
use crate::sketch::{MIN_WORDS, SHINGLE_WORDS, SKETCH_SIZE};

/// The least estimated similarity reported.
pub const MIN_SIMILARITY: f64 = 0.5;
/// A sketch hash held by more notes than this is template text, not counted.
pub const MAX_SHARED_BY: usize = 100;

pub const RULE: Rule = Rule {
    kind: "near_duplicate",
    code: "near-duplicate",
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
            name: "short notes are not compared",
            vault: "//- A.md\nsame few words here\n//- B.md\nsame few words here\n",
            expected: &[],
        },
    ],
    check,
};

fn check(context: &Context<'_>, findings: &mut Findings) {
    let notes: Vec<NoteView<'_>> =
        context.vault.notes().filter(|note| note.sketch.is_comparable() && !super::is_schema_file(note.path)).collect();
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
    let mut pairs: Vec<(f64, &NoteView<'_>, &NoteView<'_>)> = shared
        .into_iter()
        .filter(|(_, count)| *count >= least_shared)
        .filter_map(|((left, right), _)| {
            let (left, right) = (&notes[left as usize], &notes[right as usize]);
            if !context.is_subject(left.path) && !context.is_subject(right.path) {
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

fn proposal(similarity: f64, subject: &NoteView<'_>, other: &NoteView<'_>) -> Proposal {
    let percent = (similarity * 100.0).round();
    let mut proposal = Proposal::new(
        RULE.kind,
        subject.path,
        format!(
            "`{}` and `{}` share about {percent}% of their {SHINGLE_WORDS}-word phrases (estimated from {SKETCH_SIZE}-hash MinHash sketches of their bodies); \
this is evidence for review, not a verdict",
            subject.path, other.path
        ),
        "Read both. If they cover one topic, merge them into one note and point the other's links at it (rewrite_link), \
then delete the leftover (delete_note); if not, make each say what sets it apart."
            .to_owned(),
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
