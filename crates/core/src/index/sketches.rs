//! The near-duplicate sketches the index keeps: computed only when `near_duplicate` asks for
//! them, since no other check reads a sketch and sketching every note cost a tenth of a whole
//! index build.
//!
//! Before a `lint_wiki` call that runs `near_duplicate` (`ops::sketches_needed` decides, for
//! both edges), an edge asks which notes lack one ([`Vault::sketches_wanted`]), reads their texts, sketches
//! each ([`Sketch::of_note`], a pure function it may run on several threads) and hands the
//! sketches back ([`Vault::keep_sketch`]); the index keeps them for later calls. A note asked for
//! is marked so; a change to its text (or its removal) takes its entry away, so a sketch of a
//! text read before the change, handed back after it, is not kept. Only the notes of one slice
//! of texts need be held at once, however large the vault. A note still unsketched when the call
//! runs is read through the call's edge and sketched for that call alone
//! ([`Vault::sketches_read`]).

use super::{NoteView, Vault};
use crate::sketch::Sketch;

impl Vault {
    /// The notes `near_duplicate` compares that have no sketch yet, in path order, each marked as
    /// asked for: a [`Vault::keep_sketch`] of it is kept until its text changes.
    pub fn sketches_wanted(&mut self) -> Vec<String> {
        let mut wanted = Vec::new();
        for (path, id) in &self.ids {
            let Some(Some(slot)) = self.slots.get(*id as usize) else { continue };
            if slot.note.is_none() || crate::facts::is_schema_file(path) || matches!(self.sketches.get(id), Some(Some(_))) {
                continue;
            }
            wanted.push((path.to_string(), *id));
        }
        for (_, id) in &wanted {
            self.sketches.insert(*id, None);
        }
        wanted.into_iter().map(|(path, _)| path).collect()
    }

    /// Keeps `sketch` as the sketch of the note at `path`, when [`Vault::sketches_wanted`] asked
    /// for it and its text has not changed since; returns whether it was kept.
    pub fn keep_sketch(&mut self, path: &str, sketch: Sketch) -> bool {
        let Some(id) = self.id(path) else { return false };
        match self.sketches.get_mut(&id) {
            Some(slot @ None) => {
                *slot = Some(sketch);
                true
            }
            _ => false,
        }
    }

    /// Sketches every note `near_duplicate` lacks a sketch of, from the texts `read` gives (a note
    /// it cannot read stays unsketched), one note at a time; returns how many were kept. For an
    /// edge that reads one text at a time, and for tests.
    pub fn sketch_notes(&mut self, read: &mut dyn FnMut(&str) -> Option<String>) -> usize {
        let mut kept = 0;
        for path in self.sketches_wanted() {
            if let Some(text) = read(&path) {
                kept += usize::from(self.keep_sketch(&path, Sketch::of_note(&text)));
            }
        }
        kept
    }

    /// The sketches, for one call alone, of the notes `near_duplicate` compares that the index
    /// holds none of, from the texts `read` gives (a note it cannot read is left out, and the
    /// rule says so): a lint's answer is then the one a fully sketched index gives, whether or
    /// not its edge sketched the notes before the call.
    pub fn sketches_read(&self, read: &mut dyn FnMut(&str) -> Option<String>) -> std::collections::HashMap<String, Sketch> {
        let unsketched: Vec<&str> = self
            .notes_with_sketches()
            .filter(|(note, sketch)| sketch.is_none() && !crate::facts::is_schema_file(note.path))
            .map(|(note, _)| note.path)
            .collect();
        unsketched.into_iter().filter_map(|path| Some((path.to_owned(), Sketch::of_note(&read(path)?)))).collect()
    }

    /// The sketch kept of the note at `path`, if any.
    pub fn sketch(&self, path: &str) -> Option<&Sketch> {
        self.sketches.get(&self.id(path)?)?.as_ref()
    }

    /// Every note with its kept sketch (`None` when it has none), in path order.
    pub fn notes_with_sketches(&self) -> impl Iterator<Item = (NoteView<'_>, Option<&Sketch>)> {
        self.ids.values().filter_map(|id| {
            let view = Vault::note_view(self.slots.get(*id as usize)?.as_ref()?)?;
            Some((view, self.sketches.get(id).and_then(Option::as_ref)))
        })
    }

    /// A marked note's entry, for the persistent index: the sketch when it has one.
    pub(crate) fn kept_sketch_of(&self, id: super::FileId) -> Option<&Sketch> {
        self.sketches.get(&id)?.as_ref()
    }

    /// Keeps a sketch the persistent index held for the note at `path`, entered with it.
    pub(super) fn keep_kept_sketch(&mut self, path: &str, sketch: Option<Sketch>) {
        if let (Some(sketch), Some(id)) = (sketch, self.id(path)) {
            if self.slot(id).note.is_some() {
                self.sketches.insert(id, Some(sketch));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::index::{IndexConfig, Vault};
    use crate::sketch::Sketch;

    const BODY: &str = "Spaced repetition schedules each review just before you would forget the card, so the interval grows.";

    #[test]
    fn a_sketch_is_kept_until_its_note_changes_and_follows_a_rename() {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        vault.upsert("A.md", BODY);
        vault.upsert("B.md", BODY);
        vault.upsert("pic.png", "");
        vault.upsert("SCHEMA.md", BODY);
        assert_eq!(vault.sketches_wanted(), ["A.md", "B.md"]);
        assert!(vault.keep_sketch("A.md", Sketch::of_note(BODY)));
        assert!(!vault.keep_sketch("pic.png", Sketch::of_note(BODY)), "not asked for");
        assert_eq!(vault.sketch("A.md"), Some(&Sketch::of_note(BODY)));
        assert_eq!(vault.sketches_wanted(), ["B.md"]);

        // A sketch of a text read before the note changed, handed back after: not kept.
        vault.upsert("B.md", "another text");
        assert!(!vault.keep_sketch("B.md", Sketch::of_note(BODY)));
        assert_eq!(vault.sketch("B.md"), None);

        assert!(vault.rename("A.md", "Moved/A.md"));
        assert_eq!(vault.sketch("Moved/A.md"), Some(&Sketch::of_note(BODY)));
        vault.upsert("Moved/A.md", "changed");
        assert_eq!(vault.sketch("Moved/A.md"), None, "dropped when its text changed");
        assert!(vault.sketches_wanted().contains(&"Moved/A.md".to_owned()));
        vault.remove("Moved/A.md");
        assert!(!vault.keep_sketch("Moved/A.md", Sketch::of_note(BODY)));
    }

    #[test]
    fn sketching_by_the_note_is_sketching_its_body() {
        let text = format!("---\ntags: [a]\n---\n{BODY}");
        assert_eq!(Sketch::of_note(&text), Sketch::of_body(BODY));
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        vault.upsert("A.md", &text);
        assert_eq!(vault.sketch_notes(&mut |_| Some(text.clone())), 1);
        assert_eq!(vault.sketch_notes(&mut |_| panic!("nothing left to read")), 0);
    }
}
