//! Whether the holder of a journal found in a vault is alive, judged once for both edges.
//!
//! A journal (`journal::JOURNAL_FILE`), and the sidecar's lock while it plans (the same file,
//! with no steps), names its holder by a random id ([`HOLDER_HEX`] hex digits) and proves the
//! holder alive by a **lease**: the holder sets the file's modification time to its clock every
//! [`RENEW_MS`] while it works. Anyone sharing the vault folder, in any process-id namespace,
//! container, home or machine, can then tell a change being made from one a crash left: the
//! file's age (the observer's clock minus the file's modification time) says it, and no process
//! id enters into it. A pid and a host name are still recorded, for the messages people read.
//!
//! A holder that finds its own lease lapsed (it could not renew it for [`HOLDER_STOP_MS`]: it was
//! suspended, or starved) stops before its next step and undoes, and a holder checks before each
//! step that the journal is still its own; an observer takes a journal for interrupted only once
//! its lease is older than [`EXPIRE_MS`], well past the point where its holder stops by itself.
//! Where the operating system offers a lock the kernel drops when its holder dies, the sidecar
//! holds one as well, and a lock held by another process counts as live whatever the lease says.
//!
//! [`judge`] is the one place where a found journal is given its meaning: the edges observe (open
//! the file, stat it, try the kernel lock) and carry out the [`Verdict`].

use serde::{Deserialize, Serialize};

use crate::journal::{Journal, ABANDONED};
use crate::step::StepError;

/// How often a holder renews its lease. The renewal is one `utimes` (or `futimens`) of the
/// journal, which costs nothing measurable.
pub const RENEW_MS: u64 = 1_000;

/// How long after its last renewal a holder still counts its own lease as held. A holder that
/// has not renewed for this long (by its own monotonic clock) stops before its next step and
/// undoes. RELIABILITY.md has the measurement this rests on: on a loaded 2-core machine a 1 s
/// timer fired at most about a tenth of a second late in Obsidian's host and in the sidecar, so
/// this allows four renewals in a row to be missed before a working holder gives up.
pub const HOLDER_STOP_MS: u64 = 5_000;

/// How long after its last renewal an observer takes a lease for run out, and the journal for
/// interrupted: three times the holder's own limit, so that a holder that stopped itself has
/// long stopped, and a clock that differs by seconds between the holder and the observer (a
/// container, a network folder) does not take a live change for a dead one.
pub const EXPIRE_MS: u64 = 15_000;

/// The number of hex digits of a holder's id: 128 random bits.
pub const HOLDER_HEX: usize = 32;

/// Whether `holder` is a holder's id as the edges make it: [`HOLDER_HEX`] lowercase hex digits.
pub fn is_holder(holder: &str) -> bool {
    holder.len() == HOLDER_HEX && holder.bytes().all(|byte| byte.is_ascii_digit() || (b'a'..=b'f').contains(&byte))
}

/// What an edge found in the journal's file: a journal it may act on (sealed for this vault, by
/// its rules), told by what decides its liveness, or why it may not act on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Opened {
    Journal {
        /// The holder's id (empty in a journal of a vaultlink before leases).
        holder: String,
        tool: String,
        /// For the messages only.
        pid: u32,
        machine: String,
        /// Whether the journal has any step (a lock taken for planning has none).
        steps: bool,
        /// Marked by its holder as a batch it could not wholly undo: nobody applies it any more.
        abandoned: bool,
    },
    Refused {
        /// Why, as a sentence naming the file.
        reason: String,
        /// Whether the bytes were a whole JSON value: a file that is not may be being written
        /// this moment (the plugin's fallback on a filesystem without hard links creates the file
        /// first and fills it after).
        whole: bool,
    },
}

impl Opened {
    /// What decides the liveness of an opened journal.
    pub fn of(journal: &Journal) -> Opened {
        Opened::Journal {
            holder: journal.holder.clone(),
            tool: journal.tool.clone(),
            pid: journal.pid,
            machine: journal.machine.clone(),
            steps: !(journal.writes.is_empty() && journal.moves.is_empty() && journal.made_folders.is_empty()),
            abandoned: journal.pid == ABANDONED,
        }
    }
}

/// What an edge observed of a journal file found in the vault.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Observed {
    pub opened: Opened,
    /// The observer's clock minus the file's modification time, in milliseconds; negative when
    /// the file's time is ahead of the clock.
    pub age_ms: i64,
    /// Whether the file, and the `.vaultlink` folder it is in, are a plain file and a plain folder.
    pub plain_file: bool,
    /// The observer's own holder id (of the change it is making, or its lock), if it holds one.
    #[serde(default)]
    pub holder: String,
    /// Whether a kernel lock on the vault is held by another process (the sidecar's; the plugin
    /// cannot tell, and says `false`).
    #[serde(default)]
    pub locked_elsewhere: bool,
}

/// What a journal file found in the vault means, for the edge that found it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub enum Verdict {
    /// The observer's own journal (or lock).
    Ours,
    /// Another change is starting: a lock with no steps yet (a call planning), or a file being
    /// written, within its lease. Wait for it.
    Starting { tool: Option<String>, pid: Option<u32> },
    /// Another change is being made: its lease is live (or its holder's kernel lock is held, or
    /// its time is ahead of this clock, so its age cannot be told). Wait for it; never undo it.
    InProgress { tool: String, pid: u32, machine: String, age_ms: i64 },
    /// Its lease ran out: the change was interrupted (its holder was killed, or lost power), and
    /// is undone from the journal.
    Interrupted { tool: String, pid: u32, age_ms: i64 },
    /// Its holder marked it as a batch it could not wholly undo: recovered now.
    Abandoned { tool: String, pid: u32 },
    /// Not acted on: the reason, as a sentence naming the file.
    Untrusted { reason: String },
}

impl Verdict {
    /// Whether another change holds the vault now: readers wait, writers are refused.
    pub fn live(&self) -> bool {
        matches!(self, Verdict::Starting { .. } | Verdict::InProgress { .. })
    }

    /// Whether the journal is to be undone now (by the next call, or `vaultlink recover`).
    pub fn recoverable(&self) -> bool {
        matches!(self, Verdict::Interrupted { .. } | Verdict::Abandoned { .. })
    }

    /// Why a change cannot start while this journal is there, in `step`'s words; `vault` is the
    /// vault folder as the user would type it, `journal` the journal's file as shown.
    pub fn refusal(&self, vault: &str, journal: &str) -> StepError {
        match self {
            Verdict::Ours | Verdict::Starting { .. } => StepError::Starting,
            Verdict::InProgress { tool, pid, .. } => StepError::InProgress { tool: tool.clone(), pid: *pid },
            Verdict::Interrupted { tool, pid, .. } | Verdict::Abandoned { tool, pid } => {
                StepError::Interrupted { tool: tool.clone(), pid: *pid, vault: vault.to_owned() }
            }
            Verdict::Untrusted { reason } => StepError::Untrusted { reason: reason.clone(), journal: journal.to_owned() },
        }
    }
}

/// What a found journal means, given what the edge observed of it.
///
/// A file that is not plain is never acted on; a refused one is left for the user, unless it is
/// being written within its lease. A journal of the observer's own holder id is its own. Then
/// liveness, which never rests on a process id: a journal its holder marked abandoned is
/// recovered at once; a kernel lock held elsewhere, a lease renewed within [`EXPIRE_MS`], or a
/// time ahead of the observer's clock (which cannot be told from a live lease) is a change being
/// made; a lease older than that is an interrupted change.
pub fn judge(observed: &Observed) -> Verdict {
    if !observed.plain_file {
        let reason = match &observed.opened {
            Opened::Refused { reason, .. } => reason.clone(),
            Opened::Journal { .. } => {
                format!("{} is not a plain file in a plain folder, which vaultlink never writes", crate::journal::JOURNAL_FILE)
            }
        };
        return Verdict::Untrusted { reason };
    }
    let live = observed.locked_elsewhere || observed.age_ms <= EXPIRE_MS as i64;
    match &observed.opened {
        Opened::Refused { whole: false, .. } if live => Verdict::Starting { tool: None, pid: None },
        Opened::Refused { reason, .. } => Verdict::Untrusted { reason: reason.clone() },
        Opened::Journal { holder, .. } if !observed.holder.is_empty() && *holder == observed.holder => Verdict::Ours,
        Opened::Journal { tool, pid, abandoned: true, .. } if !observed.locked_elsewhere => {
            Verdict::Abandoned { tool: tool.clone(), pid: *pid }
        }
        Opened::Journal { tool, pid, steps: false, .. } if live => Verdict::Starting { tool: Some(tool.clone()), pid: Some(*pid) },
        Opened::Journal { tool, pid, machine, .. } if live => {
            Verdict::InProgress { tool: tool.clone(), pid: *pid, machine: machine.clone(), age_ms: observed.age_ms }
        }
        Opened::Journal { tool, pid, .. } => Verdict::Interrupted { tool: tool.clone(), pid: *pid, age_ms: observed.age_ms },
    }
}

/// Whether a holder that last renewed its lease `since_renewal_ms` ago (by its own monotonic
/// clock) still holds it, and may make its next step.
pub fn still_held(since_renewal_ms: u64) -> bool {
    since_renewal_ms < HOLDER_STOP_MS
}

/// Whether two journals are of one batch: the same holder (when both name one), start, machine,
/// tool, change id and steps. The pid may differ (an abandoned journal's is `ABANDONED`), and so
/// may the writes (a batch that stops itself undoes only those it made). Both edges compare a
/// journal found with their own through this.
pub fn same_batch(found: &Journal, ours: &Journal) -> bool {
    (found.holder.is_empty() || ours.holder.is_empty() || found.holder == ours.holder)
        && found.started_unix_ms == ours.started_unix_ms
        && found.machine == ours.machine
        && found.tool == ours.tool
        && found.change_id == ours.change_id
        && found.moves == ours.moves
        && found.made_folders == ours.made_folders
        && (found.pid == ours.pid || found.pid == ABANDONED || ours.pid == ABANDONED)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn journal(holder: &str, steps: bool, pid: u32) -> Opened {
        Opened::Journal {
            holder: holder.to_owned(),
            tool: "move_note".to_owned(),
            pid,
            machine: "m".to_owned(),
            steps,
            abandoned: pid == ABANDONED,
        }
    }

    fn observed(opened: Opened, age_ms: i64) -> Observed {
        Observed { opened, age_ms, plain_file: true, holder: "b".repeat(HOLDER_HEX), locked_elsewhere: false }
    }

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

    /// Issue 35: a journal naming pid 1 (a plugin killed inside its own pid namespace) is judged
    /// by its lease alone, and a live one naming a pid that is not alive here is left alone.
    #[test]
    fn liveness_is_the_lease_and_never_the_pid() {
        for pid in [1, 7, u32::MAX] {
            assert!(matches!(judge(&observed(journal(A, true, pid), 500)), Verdict::InProgress { .. }));
            assert!(matches!(judge(&observed(journal(A, true, pid), EXPIRE_MS as i64 + 1)), Verdict::Interrupted { .. }));
        }
    }

    #[test]
    fn each_verdict_from_what_was_observed() {
        let fresh = 100;
        let old = EXPIRE_MS as i64 * 2;
        assert_eq!(judge(&observed(journal(A, false, 3), fresh)), Verdict::Starting { tool: Some("move_note".to_owned()), pid: Some(3) });
        assert!(matches!(judge(&observed(journal(A, false, 3), old)), Verdict::Interrupted { .. }));
        assert_eq!(judge(&observed(journal(A, true, ABANDONED), fresh)), Verdict::Abandoned { tool: "move_note".to_owned(), pid: 0 });
        assert!(
            matches!(judge(&observed(journal(A, true, 3), -60_000)), Verdict::InProgress { .. }),
            "a time ahead cannot be told from a live lease"
        );
        let ours = Observed { holder: A.to_owned(), ..observed(journal(A, true, 3), old) };
        assert_eq!(judge(&ours), Verdict::Ours);
        let locked = Observed { locked_elsewhere: true, ..observed(journal(A, true, 3), old) };
        assert!(matches!(judge(&locked), Verdict::InProgress { .. }), "a kernel lock held elsewhere is live whatever the lease says");
        let locked_abandoned = Observed { locked_elsewhere: true, ..observed(journal(A, true, ABANDONED), old) };
        assert!(locked_abandoned.locked_elsewhere && judge(&locked_abandoned).live());
        let writing = observed(Opened::Refused { reason: "r".to_owned(), whole: false }, fresh);
        assert_eq!(judge(&writing), Verdict::Starting { tool: None, pid: None });
        let left = observed(Opened::Refused { reason: "r".to_owned(), whole: false }, old);
        assert_eq!(judge(&left), Verdict::Untrusted { reason: "r".to_owned() });
        let refused = observed(Opened::Refused { reason: "r".to_owned(), whole: true }, fresh);
        assert_eq!(judge(&refused), Verdict::Untrusted { reason: "r".to_owned() });
        let linked = Observed { plain_file: false, ..observed(journal(A, true, 3), fresh) };
        assert!(matches!(judge(&linked), Verdict::Untrusted { .. }));
        // Nobody's empty id is anybody's own.
        let anonymous = Observed { holder: String::new(), ..observed(journal("", true, 3), old) };
        assert!(matches!(judge(&anonymous), Verdict::Interrupted { .. }));
    }

    #[test]
    fn the_holder_stops_well_before_an_observer_recovers() {
        const { assert!(RENEW_MS * 5 <= HOLDER_STOP_MS && HOLDER_STOP_MS * 2 <= EXPIRE_MS) };
        assert!(still_held(RENEW_MS) && !still_held(HOLDER_STOP_MS));
        assert!(is_holder(A) && !is_holder("A") && !is_holder(&"g".repeat(HOLDER_HEX)));
    }

    /// The vectors in `tests/vectors/liveness.json`, which the plugin's tests run through the
    /// wasm build of the same function.
    #[test]
    fn the_shared_vectors_hold() {
        let text = include_str!("../../../tests/vectors/liveness.json");
        let vectors: Vec<serde_json::Value> = serde_json::from_str(text).unwrap_or_default();
        assert!(vectors.len() >= 8);
        for vector in vectors {
            let observed: Observed = serde_json::from_value(vector["observed"].clone()).unwrap_or_else(|error| panic!("{vector}: {error}"));
            let verdict = serde_json::to_value(judge(&observed)).unwrap_or_default();
            assert_eq!(verdict, vector["verdict"], "{}", vector["name"]);
        }
    }
}
