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
    /// Gives `to` the permissions of `from`.
    fn copy_permissions(&self, from: &Path, to: &Path) -> io::Result<()>;
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

    fn copy_permissions(&self, from: &Path, to: &Path) -> io::Result<()> {
        let permissions = std::fs::metadata(from)?.permissions();
        std::fs::set_permissions(to, permissions)
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

/// The rename where the system has no rename that refuses to replace: refused when something is
/// at `to` now (a small window remains between the check and the rename).
fn rename_if_free(from: &Path, to: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(to).is_ok() && !same_file_but_for_case(from, to) {
        return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists", to.display())));
    }
    std::fs::rename(from, to)
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
        fn copy_permissions(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.copy_permissions(from, to), Err)
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
        fn copy_permissions(&self, from: &Path, to: &Path) -> io::Result<()> {
            self.step();
            RealDisk.copy_permissions(from, to)
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
        fn copy_permissions(&self, from: &Path, to: &Path) -> io::Result<()> {
            RealDisk.copy_permissions(from, to)
        }
        fn sync_dir(&self, path: &Path) -> io::Result<()> {
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
        fn copy_permissions(&self, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("copy_permissions", to);
            RealDisk.copy_permissions(from, to)
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
        fn copy_permissions(&self, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("copy_permissions", to).map_or_else(|| RealDisk.copy_permissions(from, to), Err)
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
