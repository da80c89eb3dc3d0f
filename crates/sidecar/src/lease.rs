//! The lease by which the sidecar proves, to any process sharing the vault folder, that the
//! journal (or the lock) it holds belongs to a change being made.
//!
//! While it holds the vault, a thread of the sidecar sets the journal file's modification time to
//! now every `lease::RENEW_MS`, and the sidecar holds an exclusive `flock` on the file, which the
//! kernel drops when the process dies, however it dies. An observer anywhere (another pid
//! namespace, container, home) judges a found journal by its age and by that lock, through core's
//! `lease::judge`; no process id enters into it. Before each change it makes, the holder checks
//! that the file at the journal's place is still the one it holds (nobody recovered it meanwhile)
//! and that its lease never lapsed (it renewed within `lease::HOLDER_STOP_MS`, by the monotonic
//! clock, which runs on while the process is suspended); otherwise it stops.
//!
//! Windows has `LockFileEx`, but a lock there keeps other processes from reading the locked
//! range, which every observer must do; the sidecar relies on the lease alone there, as the
//! plugin does everywhere.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use vaultlink_core::lease::RENEW_MS;

/// Why a holder may not make its next step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lost {
    /// It could not renew its lease in time (it was suspended, or starved): another process may
    /// take its journal for interrupted at any moment.
    Lapsed,
    /// The file at the journal's place is not the one it holds: another process recovered it.
    Taken,
}

struct State {
    /// The journal file held, opened; `None` once released.
    file: Option<File>,
    renewed: Instant,
    lapsed: bool,
    stop: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
}

/// A lease held on the journal file at `path`, renewed by a thread until dropped.
pub struct Lease {
    path: PathBuf,
    shared: Arc<Shared>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease").field("path", &self.path).finish_non_exhaustive()
    }
}

/// A random holder id: `lease::HOLDER_HEX` hex digits (128 bits).
pub fn new_holder() -> String {
    let mut bytes = [0u8; 16];
    if getrandom::fill(&mut bytes).is_err() {
        // No randomness from the system: the time and an address, unique enough for one machine's
        // processes, since the id only tells holders apart and guards nothing secret.
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_nanos());
        let here = &bytes as *const _ as usize as u128;
        bytes = (nanos ^ (here << 64) ^ u128::from(std::process::id())).to_le_bytes();
    }
    vaultlink_core::hex::hex(&bytes)
}

/// Opens the file at `path` (a journal this process wrote, not yet in place) and takes its kernel
/// lock, so that it holds the lock from the moment it is renamed into the journal's place.
pub fn open_locked(path: &Path) -> std::io::Result<File> {
    let file = File::options().write(true).open(path)?;
    lock_exclusive(&file);
    Ok(file)
}

fn lock_exclusive(file: &File) {
    #[cfg(unix)]
    if let Err(error) = rustix::fs::flock(file, rustix::fs::FlockOperation::LockExclusive) {
        tracing::warn!("the journal's kernel lock could not be taken ({error}); its lease alone proves the change live");
    }
    #[cfg(not(unix))]
    let _ = file;
}

impl Lease {
    /// Holds the journal file at `path`, `file` (opened and locked by [`open_locked`] before it was
    /// put in place, so that it is never there unlocked): renews it now, and on a thread from here
    /// on.
    pub fn hold(path: &Path, file: File) -> std::io::Result<Lease> {
        let _ = file.set_modified(std::time::SystemTime::now());
        let shared = Arc::new(Shared {
            state: Mutex::new(State { file: Some(file), renewed: Instant::now(), lapsed: false, stop: false }),
            wake: Condvar::new(),
        });
        let renewing = Arc::clone(&shared);
        let thread = std::thread::Builder::new().name("vaultlink-lease".to_owned()).spawn(move || renew(&renewing))?;
        Ok(Lease { path: path.to_owned(), shared, thread: Some(thread) })
    }

    /// Holds `file` instead, which this process just put in the journal's place (opened and
    /// locked by [`open_locked`] before that): renewed as the one before was.
    pub fn repoint(&self, file: File) {
        let _ = file.set_modified(std::time::SystemTime::now());
        let mut state = self.state();
        state.file = Some(file);
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether the holder may make its next step: the journal's place still holds its file, and
    /// its lease never lapsed.
    pub fn check(&self) -> Result<(), Lost> {
        let state = self.state();
        if !same_file(state.file.as_ref(), &self.path) {
            return Err(Lost::Taken);
        }
        if state.lapsed || !vaultlink_core::lease::still_held(state.renewed.elapsed().as_millis() as u64) {
            return Err(Lost::Lapsed);
        }
        Ok(())
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        {
            let mut state = self.state();
            state.stop = true;
            state.file = None;
        }
        self.shared.wake.notify_all();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn renew(shared: &Shared) {
    let mut state = shared.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    loop {
        state = shared.wake.wait_timeout(state, Duration::from_millis(RENEW_MS)).unwrap_or_else(std::sync::PoisonError::into_inner).0;
        if state.stop {
            return;
        }
        // A lease that lapsed is never renewed again: its holder stops, whatever it finds.
        if state.lapsed || !vaultlink_core::lease::still_held(state.renewed.elapsed().as_millis() as u64) {
            state.lapsed = true;
            continue;
        }
        if let Some(file) = &state.file {
            match file.set_modified(std::time::SystemTime::now()) {
                Ok(()) => state.renewed = Instant::now(),
                Err(error) => tracing::warn!("renewing the journal's lease failed: {error}"),
            }
        }
    }
}

/// Whether `file` is the file at `path` now.
fn same_file(file: Option<&File>, path: &Path) -> bool {
    let Some(file) = file else { return false };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::symlink_metadata(path)) {
            (Ok(held), Ok(there)) => held.dev() == there.dev() && held.ino() == there.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        // Without inode numbers in the standard library, the file's size and time stand in.
        match (file.metadata(), std::fs::symlink_metadata(path)) {
            (Ok(held), Ok(there)) => held.len() == there.len() && there.is_file(),
            _ => false,
        }
    }
}

/// Whether another process holds the kernel lock on the file at `path` (the sidecar's journal
/// while its holder lives). `false` when it cannot be told: the lease decides then.
pub fn locked_elsewhere(path: &Path) -> bool {
    #[cfg(unix)]
    {
        let Ok(file) = File::open(path) else { return false };
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockShared) {
            Ok(()) => false,
            Err(error) => error == rustix::io::Errno::WOULDBLOCK,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        false
    }
}

/// How old the file at `path` is by this machine's clock (now minus its modification time), in
/// milliseconds; negative when its time is ahead.
pub fn age_ms(meta: &std::fs::Metadata) -> i64 {
    let Ok(modified) = meta.modified() else { return 0 };
    match std::time::SystemTime::now().duration_since(modified) {
        Ok(age) => age.as_millis().min(i64::MAX as u128) as i64,
        Err(ahead) => -(ahead.duration().as_millis().min(i64::MAX as u128) as i64),
    }
}

/// The folder, inside the vault, that holds the journal. Its name starts with a dot, so
/// Obsidian and the sidecar's own walk leave it out of the vault's files.
pub const JOURNAL_FOLDER: &str = vaultlink_core::own_files::FOLDER;

/// Now, by this machine's clock, in milliseconds since the Unix epoch: when a journal or a
/// kept change says it was begun.
pub fn now_unix_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_millis() as u64)
}

/// The holder ids of the leases this process holds now.
static HELD_HERE: Mutex<Vec<String>> = Mutex::new(Vec::new());

pub(crate) fn held_here(holder: &str) -> bool {
    !holder.is_empty() && HELD_HERE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).iter().any(|held| held == holder)
}

/// A lease this process holds on the vault's journal, with the holder id it names.
#[derive(Debug)]
pub struct Held {
    pub holder: String,
    pub(crate) lease: Lease,
}

impl Held {
    /// Holds the lease of `file`, which is the journal at `journal` now, for `holder`.
    pub(crate) fn hold(journal: &Path, holder: &str, file: File) -> std::io::Result<Held> {
        let lease = Lease::hold(journal, file)?;
        HELD_HERE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).push(holder.to_owned());
        Ok(Held { holder: holder.to_owned(), lease })
    }

    /// Whether the holder may make its next step (see `lease::Lease::check`).
    pub fn check(&self) -> Result<(), Lost> {
        self.lease.check()
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        HELD_HERE.lock().unwrap_or_else(std::sync::PoisonError::into_inner).retain(|held| *held != self.holder);
    }
}

/// `replace::write_atomically`, the new file opened and kernel-locked before it is renamed into place,
/// so that it is never the journal unlocked; answers it, open.
pub(crate) fn put_locked(disk: &dyn crate::disk::Disk, root: &Path, path: &Path, temporary: &Path, bytes: &[u8]) -> std::io::Result<File> {
    if temporary.exists() {
        disk.remove_file(root, temporary)?;
    }
    let result = (|| {
        disk.write_new(root, temporary, bytes)?;
        let file = open_locked(temporary)?;
        disk.rename(root, temporary, path)?;
        Ok(file)
    })();
    if result.is_err() && temporary.exists() {
        let _ = disk.remove_file(root, temporary);
    }
    result
}

/// A number new to each attempt at the lock in this process, so two threads never share a name.
pub(crate) fn next_attempt() -> u64 {
    static ATTEMPTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    ATTEMPTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use vaultlink_core::lease::HOLDER_STOP_MS;

    /// A holder stopped (as SIGSTOP stops it) for longer than it may go without renewing finds its
    /// lease lapsed, and the thread no longer renews it; a file put in its place is not its own.
    #[test]
    fn a_lease_lapses_when_not_renewed_and_is_lost_when_its_file_is_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal.json");
        std::fs::write(&path, "x").unwrap();
        let lease = Lease::hold(&path, open_locked(&path).unwrap()).unwrap();
        assert_eq!(lease.check(), Ok(()));
        #[cfg(unix)]
        assert!(locked_elsewhere(&path), "the kernel lock is seen from another open file");
        lease.state().renewed = Instant::now() - Duration::from_millis(HOLDER_STOP_MS + 1);
        assert_eq!(lease.check(), Err(Lost::Lapsed));
        std::fs::write(dir.path().join("other"), "y").unwrap();
        std::fs::rename(dir.path().join("other"), &path).unwrap();
        assert_eq!(lease.check(), Err(Lost::Taken));
        drop(lease);
        assert!(!locked_elsewhere(&path));
    }
}
