//! What each link of the index resolves to, as it is kept: four bytes a link, the target's id
//! with a flag, rather than an enum of sixteen. At 100,000 notes the links' resolutions were
//! 14 MB, three quarters of it the room an enum leaves for the rare ambiguous link; the
//! resolution of an ambiguous link, with its candidates, is kept apart (`Vault::ambiguous`), by
//! the link.

use super::FileId;

/// One link's target: a file's id, the same id flagged when the link is ambiguous, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stored(u32);

/// The flag of an ambiguous link's target; file ids stay below it.
const AMBIGUOUS: u32 = 1 << 31;
/// An unresolved link: no file's id, flagged or not, is all ones.
const UNRESOLVED: u32 = u32::MAX;

/// The most files the index holds: a file's id must leave the flag free.
pub(super) const MAX_FILES: usize = (AMBIGUOUS - 1) as usize;

impl Stored {
    pub(super) const UNRESOLVED: Stored = Stored(UNRESOLVED);

    pub(super) fn resolved(id: FileId) -> Stored {
        debug_assert!(id < AMBIGUOUS);
        Stored(id)
    }

    pub(super) fn ambiguous(id: FileId) -> Stored {
        debug_assert!(id < AMBIGUOUS);
        Stored(id | AMBIGUOUS)
    }

    pub(super) fn is_unresolved(self) -> bool {
        self.0 == UNRESOLVED
    }

    pub(super) fn is_ambiguous(self) -> bool {
        !self.is_unresolved() && self.0 & AMBIGUOUS != 0
    }

    /// The id of the file the link resolves to, ambiguous or not.
    pub(super) fn id(self) -> Option<FileId> {
        (!self.is_unresolved()).then_some(self.0 & !AMBIGUOUS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_reads_back_with_its_kind() {
        for id in [0, 1, 7, MAX_FILES as u32 - 1] {
            assert_eq!(Stored::resolved(id).id(), Some(id));
            assert_eq!(Stored::ambiguous(id).id(), Some(id));
            assert!(Stored::ambiguous(id).is_ambiguous() && !Stored::resolved(id).is_ambiguous());
            assert!(!Stored::ambiguous(id).is_unresolved() && !Stored::resolved(id).is_unresolved());
            assert_ne!(Stored::ambiguous(id), Stored::UNRESOLVED);
        }
        assert!(Stored::UNRESOLVED.is_unresolved() && !Stored::UNRESOLVED.is_ambiguous());
        assert_eq!(Stored::UNRESOLVED.id(), None);
    }
}
