//! The vault folder watched for changes, so that a call of the MCP server on the folder applies
//! what changed since the last call instead of walking the whole folder
//! (`standalone::FolderIndex`, which decides what to read).
//!
//! Linux's inotify, through `notify`: one watch on each folder the walk enters (so never a hidden
//! folder, nor one reached through a symbolic link), added by the walk just before it reads the
//! folder, so a change in a folder is either seen by that walk or reported after it. The event
//! thread only records which paths changed; the call re-reads them.
//!
//! **Freshness.** Before a call uses what was reported, a barrier proves that every change made
//! before the call began was reported: it creates an entry of a new name in a private folder
//! outside the vault, watched by the same inotify instance, and waits for that entry's event.
//! inotify queues the events of one instance in the order the changes were made, and a change's
//! event is queued before the system call that made it returns, so once the barrier's event has
//! arrived so has every earlier change's. (notify's debouncer would only delay events; it proves
//! nothing.) The barrier touches nothing in the vault and needs no right to write it.
//!
//! Anything that breaks that argument is reported as lost, and the caller walks the whole folder:
//! a queue overflow, an error from the watcher, a barrier that does not arrive in time, the vault
//! folder removed or replaced, a filesystem whose changes inotify may never hear of (network,
//! FUSE, or any type not known to be local), and every system but Linux.

#[cfg(any(target_os = "linux", target_os = "android"))]
pub use linux::Watch;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
pub use other::Watch;

#[cfg(any(target_os = "linux", target_os = "android"))]
mod linux {
    use std::collections::BTreeSet;
    use std::os::unix::fs::MetadataExt;
    use std::path::{Path, PathBuf};
    use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
    use std::time::{Duration, Instant};

    use notify::event::{AccessKind, AccessMode};
    use notify::{EventKind, RecursiveMode, Watcher};

    /// How long a barrier may take before the watcher is no longer trusted. It takes tens of
    /// microseconds; a thousand times that is a watcher that has stopped.
    const BARRIER_TIMEOUT: Duration = Duration::from_secs(1);

    /// Filesystems on which inotify hears of every change to the vault: those whose files change
    /// only through this machine's kernel. Any other type (NFS, SMB, FUSE, 9p as WSL mounts
    /// Windows drives, and types not listed) may change under the watcher without a word.
    const LOCAL_FILESYSTEMS: [u32; 16] = [
        0xEF53,      // ext2, ext3, ext4
        0x5846_5342, // xfs
        0x9123_683E, // btrfs
        0x0102_1994, // tmpfs
        0x8584_58F6, // ramfs
        0xF2F5_2010, // f2fs
        0x2FC1_2FC1, // zfs
        0xCA45_1A4E, // bcachefs
        0x3153_464A, // jfs
        0x5265_4973, // reiserfs
        0x3434,      // nilfs2
        0x794C_7630, // overlayfs
        0x4D44,      // vfat, msdos
        0x2011_BAB0, // exfat
        0x7366_746E, // ntfs3
        0x482B,      // hfsplus
    ];

    /// Names for the filesystems a vault is most often on when it is not local, for the reason
    /// `server_health` gives.
    const KNOWN_REMOTE: [(u32, &str); 8] = [
        (0x6969, "NFS"),
        (0xFF53_4D42, "CIFS"),
        (0xFE53_4D42, "SMB2"),
        (0x517B, "SMB"),
        (0x6573_5546, "FUSE"),
        (0x0102_1997, "9p (as WSL mounts Windows drives)"),
        (0x00C3_6400, "Ceph"),
        (0x5346_414F, "AFS"),
    ];

    /// The vault folder, watched.
    #[derive(Debug)]
    pub struct Watch {
        // Declared before `barriers`, so it stops before the barrier folder is removed.
        watcher: notify::RecommendedWatcher,
        shared: Arc<Shared>,
        root: PathBuf,
        /// The vault folder's device and inode when the watch began: another folder put at its
        /// path is not the one watched.
        root_identity: (u64, u64),
        barriers: BarrierFolder,
        last_barrier: u64,
    }

    /// What the event thread hands the caller.
    #[derive(Debug, Default)]
    struct Shared {
        reported: Mutex<Reported>,
        arrived: Condvar,
    }

    #[derive(Debug, Default)]
    struct Reported {
        /// Vault paths (`""` for the vault folder itself) named by an event since the last call.
        changed: BTreeSet<String>,
        /// Why some change may have gone unreported, once that happened.
        lost: Option<String>,
        /// The last barrier whose event arrived.
        barrier: u64,
    }

    impl Shared {
        fn reported(&self) -> MutexGuard<'_, Reported> {
            // The event thread never panics holding the lock; if anything did, what it recorded
            // is still a set of paths to look at again.
            self.reported.lock().unwrap_or_else(PoisonError::into_inner)
        }

        /// The event thread's whole work: note the paths, nothing else.
        fn record(&self, root: &Path, barriers: &Path, event: notify::Result<notify::Event>) {
            let event = match event {
                Ok(event) if event.need_rescan() => {
                    Err("inotify's queue overflowed (more changes at once than fs.inotify.max_queued_events holds)".to_owned())
                }
                // Opening or reading a file changes nothing (the sidecar's own reads are such
                // events); anything else may.
                Ok(event) if matches!(event.kind, EventKind::Access(kind) if kind != AccessKind::Close(AccessMode::Write)) => return,
                Ok(event) => Ok(event),
                Err(error) => Err(format!("the watcher reported an error ({})", describe(&error))),
            };
            let mut reported = self.reported();
            match event {
                Err(reason) => {
                    reported.lost.get_or_insert(reason);
                }
                Ok(event) => {
                    for path in event.paths {
                        if let Ok(name) = path.strip_prefix(barriers) {
                            let number = name.to_str().and_then(|name| name.strip_prefix('b')).and_then(|number| number.parse().ok());
                            reported.barrier = reported.barrier.max(number.unwrap_or(0));
                        } else if let Some(relative) = path.strip_prefix(root).ok().and_then(Path::to_str) {
                            // A name that is not UTF-8 is one the walk skips, with all below it.
                            reported.changed.insert(relative.to_owned());
                        }
                    }
                }
            }
            drop(reported);
            self.arrived.notify_all();
        }
    }

    impl Watch {
        /// Starts watching `root` (canonical), or says why it cannot be watched. Nothing is watched
        /// in it yet: the walk adds each folder with [`Watch::folder`].
        pub fn start(root: &Path) -> Result<Watch, String> {
            local_filesystem(root, "the vault")?;
            let root_identity = identity(root).map_err(|error| format!("the vault folder could not be read ({error})"))?;
            let barriers = BarrierFolder::make(root)?;
            let shared = Arc::new(Shared::default());
            let handler = {
                let (shared, root, barriers) = (Arc::clone(&shared), root.to_owned(), barriers.path.clone());
                move |event| shared.record(&root, &barriers, event)
            };
            // Symbolic links are never followed: the walk does not follow them either.
            let config = notify::Config::default().with_follow_symlinks(false);
            let mut watcher = notify::RecommendedWatcher::new(handler, config)
                .map_err(|error| format!("the watcher could not start ({})", describe(&error)))?;
            watcher
                .watch(&barriers.path, RecursiveMode::NonRecursive)
                .map_err(|error| format!("the watcher could not start ({})", describe(&error)))?;
            Ok(Watch { watcher, shared, root: root.to_owned(), root_identity, barriers, last_barrier: 0 })
        }

        /// Watches the folder `dir` of the vault (not its subfolders), before the walk reads it;
        /// false when there is no folder there any more. Watching a folder again is harmless. A
        /// folder on another filesystem than the vault's must be local too.
        pub fn folder(&mut self, dir: &Path) -> Result<bool, String> {
            let Ok(meta) = std::fs::symlink_metadata(dir) else { return Ok(false) };
            if meta.dev() != self.root_identity.0 {
                local_filesystem(dir, &format!("the folder {}", dir.display()))?;
            }
            match self.watcher.watch(dir, RecursiveMode::NonRecursive) {
                Ok(()) => Ok(true),
                Err(error) if matches!(error.kind, notify::ErrorKind::PathNotFound) => Ok(false),
                Err(error) => Err(describe(&error)),
            }
        }

        /// The vault paths (relative, `""` for the vault folder) that changed since the last
        /// call, once the barrier has proved that every change made before now is among them; or
        /// why that cannot be told, when the caller must walk the whole folder.
        pub fn changes(&mut self) -> Result<BTreeSet<String>, String> {
            if identity(&self.root).ok() != Some(self.root_identity) {
                return Err("the vault folder was removed or replaced".to_owned());
            }
            self.last_barrier += 1;
            let barrier = self.last_barrier;
            let entry = self.barriers.path.join(format!("b{barrier}"));
            // A symbolic link: one event (its creation), no file to open or write.
            std::os::unix::fs::symlink(".", &entry).map_err(|error| format!("the watcher's barrier could not be set ({error})"))?;
            let _ = std::fs::remove_file(&entry);
            let deadline = Instant::now() + BARRIER_TIMEOUT;
            let mut reported = self.shared.reported();
            while reported.barrier < barrier && reported.lost.is_none() {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    return Err(format!("the watcher did not report its barrier within {} ms", BARRIER_TIMEOUT.as_millis()));
                }
                reported = self.shared.arrived.wait_timeout(reported, left).unwrap_or_else(PoisonError::into_inner).0;
            }
            if let Some(reason) = reported.lost.take() {
                return Err(reason);
            }
            Ok(std::mem::take(&mut reported.changed))
        }

        /// Hands the event thread's handler an event, as the watcher would.
        #[cfg(test)]
        pub fn simulate(&self, event: notify::Event) {
            self.shared.record(&self.root, &self.barriers.path, Ok(event));
        }

        /// The private folder the barriers are made in.
        #[cfg(test)]
        pub fn barrier_folder(&self) -> &Path {
            &self.barriers.path
        }
    }

    /// The private folder, outside the vault, where barriers are made; removed with the watch.
    #[derive(Debug)]
    struct BarrierFolder {
        path: PathBuf,
    }

    /// How the barrier folders are named, followed by the process id and a random part.
    const BARRIER_FOLDER_PREFIX: &str = "vaultlink-watch-";

    impl BarrierFolder {
        fn make(root: &Path) -> Result<BarrierFolder, String> {
            let mut random = [0u8; 8];
            getrandom::fill(&mut random).map_err(|error| format!("the watcher's barrier folder could not be named ({error})"))?;
            let temporary = std::env::temp_dir();
            let temporary = std::fs::canonicalize(&temporary).unwrap_or(temporary);
            if temporary.starts_with(root) {
                return Err(format!("the temporary folder {} is inside the vault", temporary.display()));
            }
            remove_left_behind(&temporary);
            let path = temporary.join(format!("{BARRIER_FOLDER_PREFIX}{}-{}", std::process::id(), vaultlink_core::hex::hex(&random)));
            std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), 0o700)
                .create(&path)
                .map_err(|error| format!("the watcher's barrier folder {} could not be made ({error})", path.display()))?;
            Ok(BarrierFolder { path })
        }
    }

    impl Drop for BarrierFolder {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }

    /// Removes the barrier folders of this user's sidecars that were killed before they could.
    fn remove_left_behind(temporary: &Path) {
        let Ok(entries) = std::fs::read_dir(temporary) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let pid = name.to_str().and_then(|name| name.strip_prefix(BARRIER_FOLDER_PREFIX)).and_then(|rest| rest.split('-').next());
            let Some(pid) = pid.and_then(|pid| pid.parse().ok()) else { continue };
            let ours = std::fs::symlink_metadata(entry.path()).is_ok_and(|meta| meta.is_dir() && meta.uid() == crate::state::user_id());
            if ours && !crate::journal::process_alive(pid) {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }

    fn identity(path: &Path) -> std::io::Result<(u64, u64)> {
        std::fs::metadata(path).map(|meta| (meta.dev(), meta.ino()))
    }

    /// Refuses a filesystem on which a change may happen without inotify hearing of it.
    pub(super) fn local_filesystem(path: &Path, what: &str) -> Result<(), String> {
        let stat = rustix::fs::statfs(path).map_err(|error| format!("the filesystem of {what} could not be told ({error})"))?;
        // Every magic number is 32 bits; `f_type` is wider on some systems and signed on others.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let kind = stat.f_type as u32;
        if LOCAL_FILESYSTEMS.contains(&kind) {
            return Ok(());
        }
        let name = KNOWN_REMOTE
            .iter()
            .find(|(magic, _)| *magic == kind)
            .map_or_else(|| format!("type 0x{kind:x}"), |(_, name)| (*name).to_owned());
        Err(format!(
            "{what} is on a filesystem ({name}) that is not known to be local: a change made on another machine or by the filesystem itself would not be reported"
        ))
    }

    /// A notify error in words, with the setting to raise when it is inotify's limit.
    fn describe(error: &notify::Error) -> String {
        match error.kind {
            notify::ErrorKind::MaxFilesWatch => {
                "inotify's limit on watched folders is reached: raise fs.inotify.max_user_watches, or fs.inotify.max_user_instances"
                    .to_owned()
            }
            _ => error.to_string(),
        }
    }
}

#[cfg(all(test, any(target_os = "linux", target_os = "android")))]
mod tests {
    use super::linux::*;
    use std::path::Path;

    /// A filesystem not known to be local is not watched, and the reason names it; the
    /// temporary folder the tests' vaults are made in is local.
    #[test]
    fn only_a_local_filesystem_is_watched() {
        let refusal = local_filesystem(Path::new("/proc"), "the vault").unwrap_err();
        assert!(refusal.starts_with("the vault is on a filesystem (type 0x9fa0) that is not known to be local"), "{refusal}");
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(local_filesystem(dir.path(), "the vault"), Ok(()));
    }

    /// A barrier folder left by a sidecar that was killed goes when the next watch starts; a
    /// live process's stays.
    #[test]
    fn a_barrier_folder_left_by_a_killed_sidecar_is_removed() {
        let temporary = std::fs::canonicalize(std::env::temp_dir()).unwrap();
        // Above the largest process id Linux gives (2^22).
        let dead = temporary.join("vaultlink-watch-4194305-left");
        let alive = temporary.join(format!("vaultlink-watch-{}-kept", std::process::id()));
        for folder in [&dead, &alive] {
            std::fs::create_dir_all(folder.join("b1")).unwrap();
        }
        let vault = tempfile::tempdir().unwrap();
        let watch = Watch::start(&std::fs::canonicalize(vault.path()).unwrap()).unwrap();
        assert!(!dead.exists(), "the killed sidecar's folder is gone");
        assert!(alive.exists(), "this process's own folder stays");
        std::fs::remove_dir_all(&alive).unwrap();
        drop(watch);
    }
}

/// On every other system the live index is not in force (see the module's comment).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
mod other {
    use std::collections::BTreeSet;
    use std::path::Path;

    #[derive(Debug)]
    pub struct Watch(std::convert::Infallible);

    impl Watch {
        pub fn start(_root: &Path) -> Result<Watch, String> {
            Err("the live index needs Linux's inotify, whose one ordered queue proves that every change made before a call was reported; on this system every call walks the folder".to_owned())
        }

        pub fn folder(&mut self, _dir: &Path) -> Result<bool, String> {
            match self.0 {}
        }

        pub fn changes(&mut self) -> Result<BTreeSet<String>, String> {
            match self.0 {}
        }
    }
}
