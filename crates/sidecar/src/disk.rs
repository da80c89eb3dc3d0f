//! The filesystem operations that change a vault, behind one trait, so that the code applying
//! a plan (`apply`) and the code undoing one (`journal`) can be driven by tests through a disk
//! that fails, or stops, at any chosen step. The shipped binary only ever uses [`RealDisk`];
//! nothing a user sets can make it fail on purpose.
//!
//! Reads are not here: a read that fails happens before anything is changed, and is refused
//! like any other surprise (`concurrent_modification`).

use std::io::{self, Write};
use std::path::Path;

/// Every change the sidecar makes to a vault folder goes through one of these.
pub trait Disk {
    /// Creates `path`, which must not exist, writes `bytes` into it and syncs it to storage.
    fn write_new(&self, path: &Path, bytes: &[u8]) -> io::Result<()>;
    /// Renames `from` to `to`, replacing a file at `to`.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Renames `from` to `to`, failing with `AlreadyExists` when anything is at `to`, even a
    /// file that appeared a moment ago: a move never replaces what it did not plan to.
    fn rename_new(&self, from: &Path, to: &Path) -> io::Result<()>;
    fn remove_file(&self, path: &Path) -> io::Result<()>;
    fn create_dir(&self, path: &Path) -> io::Result<()>;
    /// Removes an empty folder; fails on one that holds anything.
    fn remove_dir(&self, path: &Path) -> io::Result<()>;
    /// Gives `to` what `from` has besides its bytes: its permissions, and where the system allows
    /// (Linux), its owner and group (as far as this user may give them) and its extended
    /// attributes. A note's new text is a new file renamed into place, so it must take them.
    fn copy_attributes(&self, from: &Path, to: &Path) -> io::Result<()>;
    /// Makes the folder's entries (files created, renamed or removed in it) durable.
    fn sync_dir(&self, path: &Path) -> io::Result<()>;
}

/// The real filesystem.
#[derive(Debug, Clone, Copy)]
pub struct RealDisk;

impl Disk for RealDisk {
    fn write_new(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        // Private until it takes the note's own permissions: the journal and temporary files
        // hold notes' texts.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(path)?;
        file.write_all(bytes)?;
        file.sync_all()
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }

    #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
    fn rename_new(&self, from: &Path, to: &Path) -> io::Result<()> {
        use rustix::fs::{renameat_with, RenameFlags, CWD};
        match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => Ok(()),
            // A filesystem that cannot (some network and FUSE ones): checked, then renamed.
            Err(error) if error == rustix::io::Errno::INVAL || error == rustix::io::Errno::NOSYS || error == rustix::io::Errno::NOTSUP => {
                rename_if_free(from, to)
            }
            Err(error) => Err(io::Error::from_raw_os_error(error.raw_os_error())),
        }
    }

    #[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
    fn rename_new(&self, from: &Path, to: &Path) -> io::Result<()> {
        rename_if_free(from, to)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }

    fn create_dir(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir(path)
    }

    fn remove_dir(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_dir(path)
    }

    fn copy_attributes(&self, from: &Path, to: &Path) -> io::Result<()> {
        let meta = std::fs::metadata(from)?;
        // Owner and group first: giving a file away clears its set-user-id and set-group-id
        // bits, which the mode, set last, puts back.
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            let now = std::fs::metadata(to)?;
            if (now.uid(), now.gid()) != (meta.uid(), meta.gid()) {
                match std::os::unix::fs::chown(to, Some(meta.uid()), Some(meta.gid())) {
                    Ok(()) => {}
                    // Only root may give a file to another user: the group is kept where this
                    // user is in it, and the owner is this user's, as any editor's save leaves it.
                    Err(error) if error.kind() == io::ErrorKind::PermissionDenied => {
                        let _ = std::os::unix::fs::chown(to, None, Some(meta.gid()));
                    }
                    Err(error) => return Err(error),
                }
            }
        }
        copy_extended_attributes(from, to);
        std::fs::set_permissions(to, meta.permissions())
    }

    #[cfg(unix)]
    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        std::fs::File::open(path)?.sync_all()
    }

    #[cfg(not(unix))]
    fn sync_dir(&self, _path: &Path) -> io::Result<()> {
        // Windows cannot open a folder as a file to sync it; NTFS journals its metadata.
        Ok(())
    }
}

/// Copies each extended attribute of `from` to `to` (Linux: user tags, SELinux labels, ACLs),
/// each as far as the filesystem and this user's rights allow: one that cannot be copied is
/// left out (and logged), and the note is written all the same. Elsewhere nothing is copied.
fn copy_extended_attributes(from: &Path, to: &Path) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let Ok(names) = xattr::list(from) else { return };
        for name in names {
            let copied = xattr::get(from, &name).and_then(|value| value.map_or(Ok(()), |value| xattr::set(to, &name, &value)));
            if let Err(error) = copied {
                tracing::debug!("the extended attribute {name:?} of {} could not be kept: {error}", from.display());
            }
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = (from, to);
}

/// The rename where the system has no rename that refuses to replace (another system, or a
/// filesystem that refuses `RENAME_NOREPLACE`: some network and FUSE ones): a hard link from
/// `from` to `to`, which the system refuses whenever anything is at `to`, even a file that
/// appeared a moment ago, then `from` removed. It never replaces. Stopped between the two, both
/// names hold the one file, and recovery removes the new one (`journal::undo`).
///
/// Only where the filesystem has no hard links either (FAT, some network shares) is it weaker:
/// `to` is looked at, then renamed onto, and a file that appears in that window (microseconds)
/// is replaced. The journal's lock keeps vaultlink's own batches out of it; another program's
/// save landing exactly there is what remains.
fn rename_if_free(from: &Path, to: &Path) -> io::Result<()> {
    rename_if_free_meanwhile(from, to, &|| {})
}

/// [`rename_if_free`], with `meanwhile` run just before the file is put at `to`: a test plays
/// another program saving a file there at that moment.
fn rename_if_free_meanwhile(from: &Path, to: &Path, meanwhile: &dyn Fn()) -> io::Result<()> {
    let checked_free = |to: &Path| -> io::Result<()> {
        if std::fs::symlink_metadata(to).is_ok() && !one_file_spelt_twice(from, to) {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists", to.display())));
        }
        Ok(())
    };
    if !std::fs::symlink_metadata(from)?.is_file() {
        // Not a file (never asked of a batch): a folder cannot be hard linked.
        checked_free(to)?;
        meanwhile();
        return std::fs::rename(from, to);
    }
    meanwhile();
    match std::fs::hard_link(from, to) {
        Ok(()) => match std::fs::remove_file(from) {
            Ok(()) => Ok(()),
            Err(error) => {
                // Both names hold the file: the new one is taken back, and nothing moved.
                let _ = std::fs::remove_file(to);
                Err(error)
            }
        },
        // On a filesystem that ignores case, `a.md` and `A.md` are one file: renaming one to the
        // other replaces nothing.
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists && one_file_spelt_twice(from, to) => std::fs::rename(from, to),
        Err(error) if hard_links_unsupported(&error) => {
            checked_free(to)?;
            std::fs::rename(from, to)
        }
        Err(error) => Err(error),
    }
}

/// Whether a hard link failed because the filesystem (or the system) has none.
fn hard_links_unsupported(error: &io::Error) -> bool {
    #[cfg(unix)]
    {
        error.raw_os_error().is_some_and(|code| [libc::EPERM, libc::EOPNOTSUPP, libc::ENOTSUP, libc::ENOSYS, libc::EMLINK].contains(&code))
    }
    #[cfg(not(unix))]
    {
        error.kind() == io::ErrorKind::Unsupported || error.kind() == io::ErrorKind::PermissionDenied
    }
}

/// Whether `from` and `to` are spelt alike but for case and are one file (a filesystem that
/// ignores case), so a rename between them replaces nothing.
fn one_file_spelt_twice(from: &Path, to: &Path) -> bool {
    same_file_but_for_case(from, to) && one_file(from, to)
}

/// Whether two paths name one file (the same inode; on systems where that cannot be told, the
/// same name but for case).
pub fn one_file(one: &Path, other: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (std::fs::symlink_metadata(one), std::fs::symlink_metadata(other)) {
            (Ok(one), Ok(other)) => one.dev() == other.dev() && one.ino() == other.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        same_file_but_for_case(one, other) && one.exists() && other.exists()
    }
}

/// On a filesystem that ignores case, `a.md` and `A.md` are one file: renaming one to the other
/// replaces nothing.
fn same_file_but_for_case(from: &Path, to: &Path) -> bool {
    from.to_string_lossy().to_lowercase() == to.to_string_lossy().to_lowercase()
}

/// The first segment of `path` under `root` that is a symbolic link, if any.
pub fn symbolic_link_on_the_way(root: &Path, path: &str) -> Option<String> {
    let mut current = root.to_owned();
    let mut shown = String::new();
    for segment in path.split('/') {
        current.push(segment);
        shown = if shown.is_empty() { segment.to_owned() } else { format!("{shown}/{segment}") };
        if std::fs::symlink_metadata(&current).is_ok_and(|meta| meta.file_type().is_symlink()) {
            return Some(shown);
        }
    }
    None
}

/// Whether `path` exists with exactly this spelling of its last name. On a case-insensitive
/// filesystem `a.md` "exists" when only `A.md` does; reading the folder tells them apart.
pub fn exists_exactly(path: &Path) -> bool {
    let (Some(parent), Some(name)) = (path.parent(), path.file_name()) else {
        return path.exists();
    };
    match std::fs::read_dir(parent) {
        Ok(entries) => entries.flatten().any(|entry| entry.file_name() == name),
        Err(_) => false,
    }
}

/// Refuses a destination reached through a symbolic link: a folder in the vault that is a
/// link may lead out of it, and a move must not carry a note out.
pub fn refuse_links_on_the_way(root: &Path, path: &str) -> Result<(), crate::error::ToolError> {
    match symbolic_link_on_the_way(root, path) {
        Some(link) => Err(vaultlink_core::step::StepError::ThroughLink { path: path.to_owned(), link }.error().into()),
        None => Ok(()),
    }
}

#[cfg(test)]
pub mod testing {
    //! Disks for tests: one that fails a chosen step, one that stops at a chosen step so the
    //! process can be killed there, and one that behaves like a case-insensitive filesystem.

    use std::cell::{Cell, RefCell};
    use std::io::{self, Write as _};
    use std::path::{Path, PathBuf};

    use super::{Disk, RealDisk};

    /// How an injected failure looks to the caller.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum Fault {
        /// EIO: the device failed.
        Io,
        /// EACCES: a read-only file or folder.
        ReadOnly,
        /// ENOSPC: the disk is full. A write fails after writing half its bytes.
        Full,
    }

    impl Fault {
        pub const ALL: [Fault; 3] = [Fault::Io, Fault::ReadOnly, Fault::Full];

        fn error(self) -> io::Error {
            io::Error::from_raw_os_error(match self {
                Fault::Io => 5,
                Fault::ReadOnly => 13,
                Fault::Full => 28,
            })
        }
    }

    /// The real disk, except that step number `fail_at` (counting every change from 0) fails
    /// with `fault`, and every later `also_fail` step too.
    #[derive(Debug)]
    pub struct FaultyDisk {
        pub fault: Fault,
        pub fail_at: usize,
        /// Steps after `fail_at` that fail as well (the undo failing too).
        pub also_fail: Vec<usize>,
        pub steps: Cell<usize>,
        pub failed: Cell<bool>,
    }

    impl FaultyDisk {
        pub fn new(fault: Fault, fail_at: usize) -> FaultyDisk {
            FaultyDisk { fault, fail_at, also_fail: Vec::new(), steps: Cell::new(0), failed: Cell::new(false) }
        }

        fn step(&self) -> Option<io::Error> {
            let step = self.steps.get();
            self.steps.set(step + 1);
            if step == self.fail_at || self.also_fail.contains(&step) {
                self.failed.set(true);
                return Some(self.fault.error());
            }
            None
        }
    }

    impl Disk for FaultyDisk {
        fn write_new(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            if let Some(error) = self.step() {
                if self.fault == Fault::Full {
                    // A full disk takes part of the write before it refuses the rest.
                    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
                    file.write_all(&bytes[..bytes.len() / 2])?;
                }
                return Err(error);
            }
            RealDisk.write_new(path, bytes)
        }
        fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.rename(from, to), Err)
        }
        fn rename_new(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.rename_new(from, to), Err)
        }
        fn remove_file(&self, path: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.remove_file(path), Err)
        }
        fn create_dir(&self, path: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.create_dir(path), Err)
        }
        fn remove_dir(&self, path: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.remove_dir(path), Err)
        }
        fn copy_attributes(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.copy_attributes(from, to), Err)
        }
        fn sync_dir(&self, path: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.sync_dir(path), Err)
        }
    }

    /// The real disk, except that before step `hold_at` it prints `HOLD <step>` on stdout and
    /// waits forever, for the test that started this process to kill it there.
    #[derive(Debug)]
    pub struct HoldingDisk {
        pub hold_at: usize,
        pub steps: Cell<usize>,
    }

    impl HoldingDisk {
        fn step(&self) {
            let step = self.steps.get();
            self.steps.set(step + 1);
            if step == self.hold_at {
                let mut out = io::stdout().lock();
                let _ = writeln!(out, "HOLD {step}");
                let _ = out.flush();
                loop {
                    std::thread::sleep(std::time::Duration::from_secs(60));
                }
            }
        }
    }

    impl Disk for HoldingDisk {
        fn write_new(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            self.step();
            RealDisk.write_new(path, bytes)
        }
        fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.step();
            RealDisk.rename(from, to)
        }
        fn rename_new(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.step();
            RealDisk.rename_new(from, to)
        }
        fn remove_file(&self, path: &Path) -> io::Result<()> {
            self.step();
            RealDisk.remove_file(path)
        }
        fn create_dir(&self, path: &Path) -> io::Result<()> {
            self.step();
            RealDisk.create_dir(path)
        }
        fn remove_dir(&self, path: &Path) -> io::Result<()> {
            self.step();
            RealDisk.remove_dir(path)
        }
        fn copy_attributes(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.step();
            RealDisk.copy_attributes(from, to)
        }
        fn sync_dir(&self, path: &Path) -> io::Result<()> {
            self.step();
            RealDisk.sync_dir(path)
        }
    }

    /// A disk that renames as some case-insensitive filesystems do (FAT, some network shares):
    /// a rename between two spellings of one name does nothing, and a rename onto a name that
    /// differs only in case from an existing file replaces that file. It records every rename.
    #[derive(Debug, Default)]
    pub struct CaseInsensitiveDisk {
        pub renames: RefCell<Vec<(PathBuf, PathBuf)>>,
    }

    impl Disk for CaseInsensitiveDisk {
        fn write_new(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            RealDisk.write_new(path, bytes)
        }
        fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.renames.borrow_mut().push((from.to_owned(), to.to_owned()));
            let folded = |path: &Path| path.to_string_lossy().to_lowercase();
            if folded(from) == folded(to) {
                return Ok(());
            }
            RealDisk.rename(from, to)
        }
        fn rename_new(&self, from: &Path, to: &Path) -> io::Result<()> {
            // As this filesystem sees it: a name spelt like `to` but for case is `to`.
            let folded = |path: &Path| path.to_string_lossy().to_lowercase();
            let taken = to.parent().and_then(|parent| std::fs::read_dir(parent).ok()).is_some_and(|entries| {
                entries.flatten().any(|entry| folded(&entry.path()) == folded(to) && folded(&entry.path()) != folded(from))
            });
            if taken {
                return Err(io::Error::new(io::ErrorKind::AlreadyExists, "taken"));
            }
            self.rename(from, to)
        }
        fn remove_file(&self, path: &Path) -> io::Result<()> {
            RealDisk.remove_file(path)
        }
        fn create_dir(&self, path: &Path) -> io::Result<()> {
            RealDisk.create_dir(path)
        }
        fn remove_dir(&self, path: &Path) -> io::Result<()> {
            RealDisk.remove_dir(path)
        }
        fn copy_attributes(&self, from: &Path, to: &Path) -> io::Result<()> {
            RealDisk.copy_attributes(from, to)
        }
        fn sync_dir(&self, path: &Path) -> io::Result<()> {
            RealDisk.sync_dir(path)
        }
    }

    /// The real disk, recording each operation and the paths it names, in order.
    #[derive(Debug, Default)]
    pub struct Recording {
        pub operations: RefCell<Vec<(&'static str, Vec<PathBuf>)>>,
    }

    impl Recording {
        fn record(&self, operation: &'static str, paths: &[&Path]) {
            self.operations.borrow_mut().push((operation, paths.iter().map(|path| path.to_path_buf()).collect()));
        }
    }

    impl Disk for Recording {
        fn write_new(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            self.record("write_new", &[path]);
            RealDisk.write_new(path, bytes)
        }
        fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.record("rename", &[from, to]);
            RealDisk.rename(from, to)
        }
        fn rename_new(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.record("rename_new", &[from, to]);
            RealDisk.rename_new(from, to)
        }
        fn remove_file(&self, path: &Path) -> io::Result<()> {
            self.record("remove_file", &[path]);
            RealDisk.remove_file(path)
        }
        fn create_dir(&self, path: &Path) -> io::Result<()> {
            self.record("create_dir", &[path]);
            RealDisk.create_dir(path)
        }
        fn remove_dir(&self, path: &Path) -> io::Result<()> {
            self.record("remove_dir", &[path]);
            RealDisk.remove_dir(path)
        }
        fn copy_attributes(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.record("copy_attributes", &[to]);
            RealDisk.copy_attributes(from, to)
        }
        fn sync_dir(&self, path: &Path) -> io::Result<()> {
            self.record("sync_dir", &[path]);
            RealDisk.sync_dir(path)
        }
    }

    /// The real disk, calling `hook(operation, path)` before each operation: a test plays
    /// another program acting at that moment (an editor's save, a file appearing).
    pub struct Hooked<F: Fn(&str, &Path)>(pub F);

    impl<F: Fn(&str, &Path)> std::fmt::Debug for Hooked<F> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("Hooked")
        }
    }

    impl<F: Fn(&str, &Path)> Disk for Hooked<F> {
        fn write_new(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            (self.0)("write_new", path);
            RealDisk.write_new(path, bytes)
        }
        fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("rename", to);
            RealDisk.rename(from, to)
        }
        fn rename_new(&self, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("rename_new", to);
            RealDisk.rename_new(from, to)
        }
        fn remove_file(&self, path: &Path) -> io::Result<()> {
            (self.0)("remove_file", path);
            RealDisk.remove_file(path)
        }
        fn create_dir(&self, path: &Path) -> io::Result<()> {
            (self.0)("create_dir", path);
            RealDisk.create_dir(path)
        }
        fn remove_dir(&self, path: &Path) -> io::Result<()> {
            (self.0)("remove_dir", path);
            RealDisk.remove_dir(path)
        }
        fn copy_attributes(&self, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("copy_attributes", to);
            RealDisk.copy_attributes(from, to)
        }
        fn sync_dir(&self, path: &Path) -> io::Result<()> {
            (self.0)("sync_dir", path);
            RealDisk.sync_dir(path)
        }
    }

    /// The real disk, except that `intercept(operation, path)` runs before each operation and,
    /// when it answers an error, the operation fails with it without doing anything: a test
    /// plays another program acting at that moment, then a failure.
    pub struct Intercepted<F: Fn(&str, &Path) -> Option<io::Error>>(pub F);

    impl<F: Fn(&str, &Path) -> Option<io::Error>> std::fmt::Debug for Intercepted<F> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("Intercepted")
        }
    }

    impl<F: Fn(&str, &Path) -> Option<io::Error>> Disk for Intercepted<F> {
        fn write_new(&self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            (self.0)("write_new", path).map_or_else(|| RealDisk.write_new(path, bytes), Err)
        }
        fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("rename", to).map_or_else(|| RealDisk.rename(from, to), Err)
        }
        fn rename_new(&self, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("rename_new", to).map_or_else(|| RealDisk.rename_new(from, to), Err)
        }
        fn remove_file(&self, path: &Path) -> io::Result<()> {
            (self.0)("remove_file", path).map_or_else(|| RealDisk.remove_file(path), Err)
        }
        fn create_dir(&self, path: &Path) -> io::Result<()> {
            (self.0)("create_dir", path).map_or_else(|| RealDisk.create_dir(path), Err)
        }
        fn remove_dir(&self, path: &Path) -> io::Result<()> {
            (self.0)("remove_dir", path).map_or_else(|| RealDisk.remove_dir(path), Err)
        }
        fn copy_attributes(&self, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("copy_attributes", to).map_or_else(|| RealDisk.copy_attributes(from, to), Err)
        }
        fn sync_dir(&self, path: &Path) -> io::Result<()> {
            (self.0)("sync_dir", path).map_or_else(|| RealDisk.sync_dir(path), Err)
        }
    }

    /// Every file under `root` with its bytes, sorted; a symbolic link as where it points.
    #[allow(clippy::unwrap_used)]
    pub fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files = Vec::new();
        let mut stack = vec![root.to_owned()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let meta = std::fs::symlink_metadata(&path).unwrap();
                let shown = path.strip_prefix(root).unwrap().display().to_string();
                if meta.file_type().is_symlink() {
                    files.push((shown, std::fs::read_link(&path).unwrap().display().to_string().into_bytes()));
                } else if meta.is_dir() {
                    stack.push(path);
                } else {
                    files.push((shown, std::fs::read(&path).unwrap()));
                }
            }
        }
        files.sort();
        files
    }
}

#[cfg(test)]
mod tests {
    use std::io;

    /// Issue 21: where the system refuses `RENAME_NOREPLACE`, the rename looked at the
    /// destination and then renamed onto it, so a file saved there in between was replaced.
    #[test]
    fn the_fallback_rename_never_replaces_a_file_that_appears_just_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("a.md"), dir.path().join("b.md"));
        std::fs::write(&from, "moved").unwrap();
        let refused = super::rename_if_free_meanwhile(&from, &to, &|| std::fs::write(&to, "saved meanwhile").unwrap()).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&to).unwrap(), "saved meanwhile", "the file saved there is kept");
        assert_eq!(std::fs::read_to_string(&from).unwrap(), "moved", "nothing moved");

        // Free: moved, one name left.
        std::fs::remove_file(&to).unwrap();
        super::rename_if_free(&from, &to).unwrap();
        assert!(!from.exists());
        assert_eq!(std::fs::read_to_string(&to).unwrap(), "moved");
        use std::os::unix::fs::MetadataExt;
        assert_eq!(std::fs::metadata(&to).unwrap().nlink(), 1);
    }

    /// On a filesystem that keeps case, `a.md` and `A.md` are two files: the fallback never
    /// takes one for the other (it once skipped its look for a name spelt alike but for case).
    #[test]
    fn the_fallback_rename_never_replaces_a_file_spelt_alike_but_for_case() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("a.md"), dir.path().join("A.md"));
        std::fs::write(&from, "lower").unwrap();
        std::fs::write(&to, "upper").unwrap();
        if std::fs::read_to_string(&from).unwrap() == "upper" {
            return; // This filesystem ignores case: one file, nothing to test here.
        }
        assert_eq!(super::rename_if_free(&from, &to).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert_eq!((std::fs::read_to_string(&from).unwrap(), std::fs::read_to_string(&to).unwrap()), ("lower".into(), "upper".into()));
    }
}
