//! The filesystem operations that change a vault, behind one trait, so that the code applying
//! a plan (`apply`) and the code undoing one (`journal`) can be driven by tests through a disk
//! that fails, or stops, at any chosen step. The shipped binary only ever uses [`RealDisk`];
//! nothing a user sets can make it fail on purpose.
//!
//! Every change is made beneath the vault's root, which each operation is given: the folders
//! between the root and the file are opened one by one without following a symbolic link (on
//! Linux in one `openat2` with `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`, elsewhere, or on a kernel
//! without it, component by component with `O_NOFOLLOW | O_DIRECTORY`), and the change is made
//! relative to the folder so opened. A folder swapped for a link after the checks is met on the
//! way and refused ([`LinkOnTheWay`]), so nothing is ever written through it. After each step the
//! folder it changed is opened again from the root, the same way, and must be the same folder
//! (device and inode): one moved away or replaced in the instant between the two is caught, the
//! step taken back through the handles it was made with, and the batch undone. On Windows the
//! change is made by path and the path checked for links after the step.
//!
//! Reads are not here: a read that fails happens before anything is changed, and is refused
//! like any other surprise (`concurrent_modification`). [`read_beneath`] reads a file the way
//! the changes reach it, for the last look of a batch.

use std::io::{self, Write};
use std::path::{Component, Path};

/// Every change the sidecar makes to a vault folder goes through one of these. Each path is
/// under `root`, the vault's folder: what lies between them is never reached through a link.
pub trait Disk {
    /// Creates `path`, which must not exist, writes `bytes` into it and syncs it to storage.
    fn write_new(&self, root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()>;
    /// Renames `from` to `to`, replacing a file at `to`.
    fn rename(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()>;
    /// Renames `from` to `to`, failing with `AlreadyExists` when anything is at `to`, even a
    /// file that appeared a moment ago: a move never replaces what it did not plan to.
    fn rename_new(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()>;
    fn remove_file(&self, root: &Path, path: &Path) -> io::Result<()>;
    fn create_dir(&self, root: &Path, path: &Path) -> io::Result<()>;
    /// Removes an empty folder; fails on one that holds anything.
    fn remove_dir(&self, root: &Path, path: &Path) -> io::Result<()>;
    /// Gives `to` what `from` has besides its bytes: its permissions, and where the system allows
    /// (Linux), its owner and group (as far as this user may give them) and its extended
    /// attributes. A note's new text is a new file renamed into place, so it must take them.
    fn copy_attributes(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()>;
    /// Makes the folder's entries (files created, renamed or removed in it) durable.
    fn sync_dir(&self, root: &Path, path: &Path) -> io::Result<()>;
}

/// Why a change was refused: `link`, a folder on its way under the vault's root (a vault path),
/// is a symbolic link, which may lead out of the vault. It travels inside the `io::Error` a
/// [`Disk`] answers, so the batch can say so ([`link_on_the_way`]).
#[derive(Debug)]
pub struct LinkOnTheWay {
    pub link: String,
}

impl std::fmt::Display for LinkOnTheWay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` is a symbolic link, which may lead out of the vault; nothing is changed through it", self.link)
    }
}

impl std::error::Error for LinkOnTheWay {}

fn through_link(link: String) -> io::Error {
    io::Error::other(LinkOnTheWay { link })
}

/// The link a change was refused for, when `error` is such a refusal.
pub fn link_on_the_way(error: &io::Error) -> Option<&str> {
    error.get_ref()?.downcast_ref::<LinkOnTheWay>().map(|refusal| refusal.link.as_str())
}

/// A step made in a folder that was no longer at its place in the vault just after (moved away
/// or replaced by another): what the step made there was taken back.
#[cfg(unix)]
fn moved_meanwhile(root: &Path, folder: &[&std::ffi::OsStr]) -> io::Error {
    io::Error::other(format!(
        "the folder `{}` was moved or replaced while it was being changed, so the change was taken back",
        if folder.is_empty() { root.display().to_string() } else { shown(folder) }
    ))
}

/// The names between `root` and `path`, each a plain name: a path that is not under the root,
/// or that climbs (`..`), is refused.
fn names_under<'a>(root: &Path, path: &'a Path) -> io::Result<Vec<&'a std::ffi::OsStr>> {
    let outside = || io::Error::new(io::ErrorKind::InvalidInput, format!("{} is not inside the vault {}", path.display(), root.display()));
    let rest = path.strip_prefix(root).map_err(|_| outside())?;
    rest.components()
        .map(|component| match component {
            Component::Normal(name) => Ok(name),
            _ => Err(outside()),
        })
        .collect()
}

/// The folder of `path` under `root` as names, and `path`'s own name.
#[cfg(unix)]
fn split_under<'a>(root: &Path, path: &'a Path) -> io::Result<(Vec<&'a std::ffi::OsStr>, &'a std::ffi::OsStr)> {
    let mut names = names_under(root, path)?;
    let name = names.pop().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "the vault's root itself cannot be changed"))?;
    Ok((names, name))
}

/// A vault path as the user reads it, from its names.
fn shown(names: &[&std::ffi::OsStr]) -> String {
    names.iter().map(|name| name.to_string_lossy()).collect::<Vec<_>>().join("/")
}

#[cfg(unix)]
mod beneath {
    //! Folders of the vault opened from its root without following a link, and the changes made
    //! relative to them.

    use std::ffi::OsStr;
    use std::io;
    use std::path::Path;

    use rustix::fd::{AsFd, OwnedFd};
    use rustix::fs::{self as sys, AtFlags, FileType, Mode, OFlags};

    use super::{moved_meanwhile, shown, through_link};

    /// How every folder on the way is opened: as a folder, never through a link.
    const FOLDER: OFlags = OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

    /// The folder `names` under `root`, no step of it a symbolic link.
    pub fn folder(root: &Path, names: &[&OsStr]) -> io::Result<OwnedFd> {
        // The root is the vault the user chose, wherever a link of theirs leads to it.
        let top = sys::open(root, OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())?;
        if names.is_empty() {
            return Ok(top);
        }
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            use rustix::fs::ResolveFlags;
            use rustix::io::Errno;
            let joined: std::path::PathBuf = names.iter().collect();
            let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
            match sys::openat2(&top, &joined, FOLDER, Mode::empty(), resolve) {
                Ok(folder) => return Ok(folder),
                // A link on the way (ELOOP; ENOTDIR for the last name, which `O_NOFOLLOW` leaves
                // unfollowed), or no `openat2` here (before Linux 5.6, or refused by a sandbox):
                // the walk below finds the link and names it, or opens the folder.
                Err(error)
                    if [Errno::LOOP, Errno::NOTDIR, Errno::XDEV, Errno::NOSYS, Errno::PERM, Errno::INVAL, Errno::AGAIN]
                        .contains(&error) => {}
                Err(error) => return Err(error.into()),
            }
        }
        walk(top, names)
    }

    /// [`folder`], one name at a time from the folder `current`.
    pub(super) fn walk(mut current: OwnedFd, names: &[&OsStr]) -> io::Result<OwnedFd> {
        for (at, name) in names.iter().enumerate() {
            match sys::openat(&current, *name, FOLDER, Mode::empty()) {
                Ok(next) => current = next,
                Err(error) => {
                    if is_link(&current, name) {
                        return Err(through_link(shown(&names[..=at])));
                    }
                    return Err(error.into());
                }
            }
        }
        Ok(current)
    }

    fn is_link(folder: &impl AsFd, name: &OsStr) -> bool {
        sys::statat(folder, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Symlink)
    }

    /// Whether `folder` is still the folder `names` under `root`, reached without a link: the
    /// check after each step.
    pub fn still_in_place(root: &Path, names: &[&OsStr], folder: &impl AsFd) -> io::Result<()> {
        let now = folder_again(root, names)?;
        let (held, found) = (sys::fstat(folder)?, sys::fstat(&now)?);
        if (held.st_dev, held.st_ino) != (found.st_dev, found.st_ino) {
            return Err(moved_meanwhile(root, names));
        }
        Ok(())
    }

    /// The folder opened again for the check after a step. A test may act at this moment
    /// (`testing::at_next_check`, in test builds only); the shipped binary has no such seam.
    fn folder_again(root: &Path, names: &[&OsStr]) -> io::Result<OwnedFd> {
        #[cfg(test)]
        super::testing::before_the_check();
        folder(root, names)
    }

    /// The identity (device, inode) of `name` in `folder`, not following a link.
    pub fn identity(folder: &impl AsFd, name: &OsStr) -> io::Result<(u64, u64)> {
        let stat = sys::statat(folder, name, AtFlags::SYMLINK_NOFOLLOW)?;
        #[allow(clippy::useless_conversion, clippy::unnecessary_cast)]
        Ok((stat.st_dev as u64, stat.st_ino as u64))
    }

    pub fn is_file(folder: &impl AsFd, name: &OsStr) -> io::Result<bool> {
        Ok(FileType::from_raw_mode(sys::statat(folder, name, AtFlags::SYMLINK_NOFOLLOW)?.st_mode) == FileType::RegularFile)
    }

    /// Opens `name` in `folder` as a file (never a link), with `flags` and, when it is created,
    /// `mode`.
    pub fn open(folder: &impl AsFd, name: &OsStr, flags: OFlags, mode: u32) -> io::Result<std::fs::File> {
        let fd = sys::openat(folder, name, flags | OFlags::NOFOLLOW | OFlags::CLOEXEC, Mode::from_raw_mode(mode as _))?;
        Ok(std::fs::File::from(fd))
    }

    pub fn rename(from_folder: &impl AsFd, from: &OsStr, to_folder: &impl AsFd, to: &OsStr) -> io::Result<()> {
        Ok(sys::renameat(from_folder, from, to_folder, to)?)
    }

    /// A rename that never replaces: `Err(None)` where the system or the filesystem cannot.
    pub fn rename_noreplace(from_folder: &impl AsFd, from: &OsStr, to_folder: &impl AsFd, to: &OsStr) -> Result<(), Option<io::Error>> {
        #[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
        {
            use rustix::io::Errno;
            match sys::renameat_with(from_folder, from, to_folder, to, sys::RenameFlags::NOREPLACE) {
                Ok(()) => Ok(()),
                // A filesystem that cannot (some network and FUSE ones).
                Err(error) if error == Errno::INVAL || error == Errno::NOSYS || error == Errno::NOTSUP => Err(None),
                Err(error) => Err(Some(error.into())),
            }
        }
        #[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
        {
            let _ = (from_folder, from, to_folder, to);
            Err(None)
        }
    }

    pub fn hard_link(from_folder: &impl AsFd, from: &OsStr, to_folder: &impl AsFd, to: &OsStr) -> io::Result<()> {
        Ok(sys::linkat(from_folder, from, to_folder, to, AtFlags::empty())?)
    }

    pub fn remove_file(folder: &impl AsFd, name: &OsStr) -> io::Result<()> {
        Ok(sys::unlinkat(folder, name, AtFlags::empty())?)
    }

    pub fn create_dir(folder: &impl AsFd, name: &OsStr) -> io::Result<()> {
        Ok(sys::mkdirat(folder, name, Mode::from_raw_mode(0o777))?)
    }

    pub fn remove_dir(folder: &impl AsFd, name: &OsStr) -> io::Result<()> {
        Ok(sys::unlinkat(folder, name, AtFlags::REMOVEDIR)?)
    }

    pub fn exists(folder: &impl AsFd, name: &OsStr) -> bool {
        sys::statat(folder, name, AtFlags::SYMLINK_NOFOLLOW).is_ok()
    }

    pub fn sync(folder: &impl AsFd) -> io::Result<()> {
        Ok(sys::fsync(folder)?)
    }
}

/// The real filesystem.
#[derive(Debug, Clone, Copy)]
pub struct RealDisk;

#[cfg(unix)]
impl Disk for RealDisk {
    fn write_new(&self, root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
        let (names, name) = split_under(root, path)?;
        let folder = beneath::folder(root, &names)?;
        // Private until it takes the note's own permissions: the journal and temporary files
        // hold notes' texts.
        let flags = rustix::fs::OFlags::WRONLY | rustix::fs::OFlags::CREATE | rustix::fs::OFlags::EXCL;
        let mut file = beneath::open(&folder, name, flags, 0o600)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        beneath::still_in_place(root, &names, &folder).inspect_err(|_| {
            let _ = beneath::remove_file(&folder, name);
        })
    }

    fn rename(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
        let ((from_names, from_name), (to_names, to_name)) = (split_under(root, from)?, split_under(root, to)?);
        let (from_folder, to_folder) = (beneath::folder(root, &from_names)?, beneath::folder(root, &to_names)?);
        beneath::rename(&from_folder, from_name, &to_folder, to_name)?;
        beneath::still_in_place(root, &to_names, &to_folder).inspect_err(|_| {
            let _ = beneath::rename_noreplace(&to_folder, to_name, &from_folder, from_name);
        })
    }

    fn rename_new(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
        let ((from_names, from_name), (to_names, to_name)) = (split_under(root, from)?, split_under(root, to)?);
        let (from_folder, to_folder) = (beneath::folder(root, &from_names)?, beneath::folder(root, &to_names)?);
        match beneath::rename_noreplace(&from_folder, from_name, &to_folder, to_name) {
            Ok(()) => {}
            Err(Some(error)) => return Err(error),
            Err(None) => rename_if_free_at(&from_folder, from_name, &to_folder, to_name, &|| {})?,
        }
        beneath::still_in_place(root, &to_names, &to_folder).inspect_err(|_| {
            let _ = beneath::rename_noreplace(&to_folder, to_name, &from_folder, from_name);
        })
    }

    fn remove_file(&self, root: &Path, path: &Path) -> io::Result<()> {
        let (names, name) = split_under(root, path)?;
        beneath::remove_file(&beneath::folder(root, &names)?, name)
    }

    fn create_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
        let (names, name) = split_under(root, path)?;
        let folder = beneath::folder(root, &names)?;
        beneath::create_dir(&folder, name)?;
        beneath::still_in_place(root, &names, &folder).inspect_err(|_| {
            let _ = beneath::remove_dir(&folder, name);
        })
    }

    fn remove_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
        let (names, name) = split_under(root, path)?;
        beneath::remove_dir(&beneath::folder(root, &names)?, name)
    }

    fn copy_attributes(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
        use rustix::fs::OFlags;
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let ((from_names, from_name), (to_names, to_name)) = (split_under(root, from)?, split_under(root, to)?);
        let (from_folder, to_folder) = (beneath::folder(root, &from_names)?, beneath::folder(root, &to_names)?);
        let source = beneath::open(&from_folder, from_name, OFlags::RDONLY | OFlags::NONBLOCK, 0)?;
        let target = beneath::open(&to_folder, to_name, OFlags::RDONLY, 0)?;
        let meta = source.metadata()?;
        // Owner and group first: giving a file away clears its set-user-id and set-group-id
        // bits, which the mode, set last, puts back.
        let now = target.metadata()?;
        if (now.uid(), now.gid()) != (meta.uid(), meta.gid()) {
            let (owner, group) = (rustix::fs::Uid::from_raw(meta.uid()), rustix::fs::Gid::from_raw(meta.gid()));
            match rustix::fs::fchown(&target, Some(owner), Some(group)) {
                Ok(()) => {}
                // Only root may give a file to another user: the group is kept where this
                // user is in it, and the owner is this user's, as any editor's save leaves it.
                Err(error) if error == rustix::io::Errno::PERM => {
                    let _ = rustix::fs::fchown(&target, None, Some(group));
                }
                Err(error) => return Err(error.into()),
            }
        }
        copy_extended_attributes(&source, &target, from);
        target.set_permissions(std::fs::Permissions::from_mode(meta.mode() & 0o7777))?;
        beneath::still_in_place(root, &to_names, &to_folder)
    }

    fn sync_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
        beneath::sync(&beneath::folder(root, &names_under(root, path)?)?)
    }
}

/// Windows: the change is made by path, as the standard library offers, and the path is looked
/// at after the step: a folder on its way that is a link now fails the step, and the batch is
/// undone.
#[cfg(not(unix))]
impl Disk for RealDisk {
    fn write_new(&self, root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
        refuse_link_between(root, path)?;
        let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        refuse_link_between(root, path)
    }

    fn rename(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
        refuse_link_between(root, to)?;
        std::fs::rename(from, to)?;
        refuse_link_between(root, to)
    }

    fn rename_new(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
        refuse_link_between(root, to)?;
        rename_if_free(from, to)?;
        refuse_link_between(root, to)
    }

    fn remove_file(&self, root: &Path, path: &Path) -> io::Result<()> {
        refuse_link_between(root, path)?;
        std::fs::remove_file(path)
    }

    fn create_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
        refuse_link_between(root, path)?;
        std::fs::create_dir(path)?;
        refuse_link_between(root, path)
    }

    fn remove_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
        refuse_link_between(root, path)?;
        std::fs::remove_dir(path)
    }

    fn copy_attributes(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
        refuse_link_between(root, to)?;
        std::fs::set_permissions(to, std::fs::metadata(from)?.permissions())?;
        refuse_link_between(root, to)
    }

    fn sync_dir(&self, _root: &Path, _path: &Path) -> io::Result<()> {
        // Windows cannot open a folder as a file to sync it; NTFS journals its metadata.
        Ok(())
    }
}

/// Windows: a step of `path` under `root` that is a symbolic link, as an error.
#[cfg(not(unix))]
fn refuse_link_between(root: &Path, path: &Path) -> io::Result<()> {
    let names = names_under(root, path)?;
    let mut current = root.to_owned();
    for (at, name) in names.iter().enumerate() {
        current.push(name);
        if std::fs::symlink_metadata(&current).is_ok_and(|meta| meta.file_type().is_symlink()) {
            return Err(through_link(shown(&names[..=at])));
        }
    }
    Ok(())
}

/// Reads the file at `path` under `root` as the changes reach it: no folder on the way, nor the
/// file, a symbolic link ([`LinkOnTheWay`] otherwise). The last look of a batch reads this way,
/// so a folder swapped for a link since the step cannot show it what it wrote.
pub fn read_beneath(root: &Path, path: &Path) -> io::Result<Vec<u8>> {
    #[cfg(unix)]
    {
        use std::io::Read;
        let (names, name) = split_under(root, path)?;
        let folder = beneath::folder(root, &names)?;
        let mut file = beneath::open(&folder, name, rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK, 0)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(bytes)
    }
    #[cfg(not(unix))]
    {
        refuse_link_between(root, path)?;
        std::fs::read(path)
    }
}

/// Opens the file at `path` under `root` for reading as the changes reach it: no folder on the
/// way a symbolic link ([`LinkOnTheWay`]), nor the file (refused by the system), and without
/// waiting on a FIFO put in its place. The caller looks at what it opened (`File::metadata`), so
/// what it checks is what it reads.
pub fn open_beneath(root: &Path, path: &Path) -> io::Result<std::fs::File> {
    #[cfg(unix)]
    {
        let (names, name) = split_under(root, path)?;
        let folder = beneath::folder(root, &names)?;
        beneath::open(&folder, name, rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK, 0)
    }
    #[cfg(not(unix))]
    {
        refuse_link_between(root, path)?;
        std::fs::File::open(path)
    }
}

/// A folder of the vault opened once from its root without following a link, and held while
/// many of its files are read: each read rests on the folder that was opened, so a folder swapped
/// for a link after it was opened is not read through. On systems without such handles none is
/// held, and the caller reads each file as it reads one.
#[derive(Debug)]
pub struct HeldFolder {
    #[cfg(unix)]
    folder: rustix::fd::OwnedFd,
}

impl HeldFolder {
    /// The folder `folder` under `root`, no step of it a symbolic link; `None` otherwise.
    pub fn open(root: &Path, folder: &Path) -> Option<HeldFolder> {
        #[cfg(unix)]
        {
            let names = names_under(root, folder).ok()?;
            beneath::folder(root, &names).ok().map(|folder| HeldFolder { folder })
        }
        #[cfg(not(unix))]
        {
            let _ = (root, folder);
            None
        }
    }

    /// The bytes of the file `name` in the folder, when what opening it (never through a link,
    /// never waiting on a FIFO) gives is a plain file of at most `limit` bytes, read whole;
    /// `None` for anything else, which the caller reads as it reads one file, with its refusals.
    pub fn read_file(&self, name: &std::ffi::OsStr, limit: u64) -> Option<Vec<u8>> {
        #[cfg(unix)]
        {
            use std::io::Read;
            let mut file = beneath::open(&self.folder, name, rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK, 0).ok()?;
            let meta = file.metadata().ok().filter(|meta| meta.is_file() && meta.len() <= limit)?;
            let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
            file.read_to_end(&mut bytes).ok()?;
            (bytes.len() as u64 <= limit).then_some(bytes)
        }
        #[cfg(not(unix))]
        {
            let _ = (name, limit);
            None
        }
    }
}

/// Whether anything is at `path` under `root`, looked for as the changes reach it: an error only
/// when a folder on the way is a symbolic link ([`LinkOnTheWay`]), which is not looked through.
pub fn exists_beneath(root: &Path, path: &Path) -> io::Result<bool> {
    #[cfg(unix)]
    {
        let (names, name) = split_under(root, path)?;
        match beneath::folder(root, &names) {
            Ok(folder) => Ok(beneath::exists(&folder, name)),
            Err(error) if link_on_the_way(&error).is_some() => Err(error),
            Err(_) => Ok(false),
        }
    }
    #[cfg(not(unix))]
    {
        refuse_link_between(root, path.parent().unwrap_or(root))?;
        Ok(std::fs::symlink_metadata(path).is_ok())
    }
}

/// Gives the file at `path` under `root` (reached without a link) the permission bits `mode`.
pub fn set_mode(root: &Path, path: &Path, mode: u32) -> io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let (names, name) = split_under(root, path)?;
        let folder = beneath::folder(root, &names)?;
        beneath::open(&folder, name, rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NONBLOCK, 0)?
            .set_permissions(std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (root, path, mode);
        Ok(())
    }
}

/// Copies each extended attribute of `from` to `to` (Linux: user tags, SELinux labels, ACLs),
/// each as far as the filesystem and this user's rights allow: one that cannot be copied is
/// left out (and logged), and the note is written all the same. Elsewhere nothing is copied.
#[cfg(unix)]
fn copy_extended_attributes(from: &std::fs::File, to: &std::fs::File, shown: &Path) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        use xattr::FileExt;
        let Ok(names) = from.list_xattr() else { return };
        for name in names {
            let copied = from.get_xattr(&name).and_then(|value| value.map_or(Ok(()), |value| to.set_xattr(&name, &value)));
            if let Err(error) = copied {
                tracing::debug!("the extended attribute {name:?} of {} could not be kept: {error}", shown.display());
            }
        }
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = (from, to, shown);
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
#[cfg(not(unix))]
fn rename_if_free(from: &Path, to: &Path) -> io::Result<()> {
    let checked_free = |to: &Path| -> io::Result<()> {
        if std::fs::symlink_metadata(to).is_ok() && !(same_file_but_for_case(from, to) && one_file(from, to)) {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists", to.display())));
        }
        Ok(())
    };
    if !std::fs::symlink_metadata(from)?.is_file() {
        checked_free(to)?;
        return std::fs::rename(from, to);
    }
    match std::fs::hard_link(from, to) {
        Ok(()) => match std::fs::remove_file(from) {
            Ok(()) => Ok(()),
            Err(error) => {
                let _ = std::fs::remove_file(to);
                Err(error)
            }
        },
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists && same_file_but_for_case(from, to) && one_file(from, to) => {
            std::fs::rename(from, to)
        }
        Err(error) if error.kind() == io::ErrorKind::Unsupported || error.kind() == io::ErrorKind::PermissionDenied => {
            checked_free(to)?;
            std::fs::rename(from, to)
        }
        Err(error) => Err(error),
    }
}

/// The rename where the system has no rename that refuses to replace, between names of folders
/// opened beneath the vault's root (see the Windows [`rename_if_free`]'s reasons, which hold
/// here), with `meanwhile` run just before the file is put at `to`: a test plays another
/// program saving a file there at that moment.
#[cfg(unix)]
fn rename_if_free_at(
    from_folder: &impl rustix::fd::AsFd,
    from: &std::ffi::OsStr,
    to_folder: &impl rustix::fd::AsFd,
    to: &std::ffi::OsStr,
    meanwhile: &dyn Fn(),
) -> io::Result<()> {
    // On a filesystem that ignores case, `a.md` and `A.md` are one file: renaming one to the
    // other replaces nothing.
    let one_file_spelt_twice = || {
        from.to_string_lossy().to_lowercase() == to.to_string_lossy().to_lowercase()
            && beneath::identity(from_folder, from).ok().is_some_and(|one| beneath::identity(to_folder, to).ok() == Some(one))
    };
    let checked_free = || -> io::Result<()> {
        if beneath::exists(to_folder, to) && !one_file_spelt_twice() {
            return Err(io::Error::new(io::ErrorKind::AlreadyExists, format!("{} exists", to.to_string_lossy())));
        }
        Ok(())
    };
    if !beneath::is_file(from_folder, from)? {
        // Not a file (never asked of a batch): a folder cannot be hard linked.
        checked_free()?;
        meanwhile();
        return beneath::rename(from_folder, from, to_folder, to);
    }
    meanwhile();
    match beneath::hard_link(from_folder, from, to_folder, to) {
        Ok(()) => match beneath::remove_file(from_folder, from) {
            Ok(()) => Ok(()),
            Err(error) => {
                // Both names hold the file: the new one is taken back, and nothing moved.
                let _ = beneath::remove_file(to_folder, to);
                Err(error)
            }
        },
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists && one_file_spelt_twice() => {
            beneath::rename(from_folder, from, to_folder, to)
        }
        Err(error) if hard_links_unsupported(&error) => {
            checked_free()?;
            beneath::rename(from_folder, from, to_folder, to)
        }
        Err(error) => Err(error),
    }
}

/// Whether a hard link failed because the filesystem (or the system) has none.
#[cfg(unix)]
fn hard_links_unsupported(error: &io::Error) -> bool {
    error.raw_os_error().is_some_and(|code| [libc::EPERM, libc::EOPNOTSUPP, libc::ENOTSUP, libc::ENOSYS, libc::EMLINK].contains(&code))
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
#[cfg(not(unix))]
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

    /// The real disk, with `$disk`'s `step()` run before each change: for the test disks that
    /// act at a chosen step (hold there, swap a folder) and otherwise change what the real one does.
    macro_rules! real_disk_after_each_step {
        ($disk:ty) => {
            impl Disk for $disk {
                fn write_new(&self, root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
                    self.step();
                    RealDisk.write_new(root, path, bytes)
                }
                fn rename(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
                    self.step();
                    RealDisk.rename(root, from, to)
                }
                fn rename_new(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
                    self.step();
                    RealDisk.rename_new(root, from, to)
                }
                fn remove_file(&self, root: &Path, path: &Path) -> io::Result<()> {
                    self.step();
                    RealDisk.remove_file(root, path)
                }
                fn create_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
                    self.step();
                    RealDisk.create_dir(root, path)
                }
                fn remove_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
                    self.step();
                    RealDisk.remove_dir(root, path)
                }
                fn copy_attributes(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
                    self.step();
                    RealDisk.copy_attributes(root, from, to)
                }
                fn sync_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
                    self.step();
                    RealDisk.sync_dir(root, path)
                }
            }
        };
    }

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
        fn write_new(&self, root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
            if let Some(error) = self.step() {
                if self.fault == Fault::Full {
                    // A full disk takes part of the write before it refuses the rest.
                    let mut file = std::fs::OpenOptions::new().write(true).create_new(true).open(path)?;
                    file.write_all(&bytes[..bytes.len() / 2])?;
                }
                return Err(error);
            }
            RealDisk.write_new(root, path, bytes)
        }
        fn rename(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.rename(root, from, to), Err)
        }
        fn rename_new(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.rename_new(root, from, to), Err)
        }
        fn remove_file(&self, root: &Path, path: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.remove_file(root, path), Err)
        }
        fn create_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.create_dir(root, path), Err)
        }
        fn remove_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.remove_dir(root, path), Err)
        }
        fn copy_attributes(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.copy_attributes(root, from, to), Err)
        }
        fn sync_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            self.step().map_or_else(|| RealDisk.sync_dir(root, path), Err)
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

    real_disk_after_each_step!(HoldingDisk);

    /// A disk that renames as some case-insensitive filesystems do (FAT, some network shares):
    /// a rename between two spellings of one name does nothing, and a rename onto a name that
    /// differs only in case from an existing file replaces that file. It records every rename.
    #[derive(Debug, Default)]
    pub struct CaseInsensitiveDisk {
        pub renames: RefCell<Vec<(PathBuf, PathBuf)>>,
    }

    impl Disk for CaseInsensitiveDisk {
        fn write_new(&self, root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
            RealDisk.write_new(root, path, bytes)
        }
        fn rename(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            self.renames.borrow_mut().push((from.to_owned(), to.to_owned()));
            let folded = |path: &Path| path.to_string_lossy().to_lowercase();
            if folded(from) == folded(to) {
                return Ok(());
            }
            RealDisk.rename(root, from, to)
        }
        fn rename_new(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            // As this filesystem sees it: a name spelt like `to` but for case is `to`.
            let folded = |path: &Path| path.to_string_lossy().to_lowercase();
            let taken = to.parent().and_then(|parent| std::fs::read_dir(parent).ok()).is_some_and(|entries| {
                entries.flatten().any(|entry| folded(&entry.path()) == folded(to) && folded(&entry.path()) != folded(from))
            });
            if taken {
                return Err(io::Error::new(io::ErrorKind::AlreadyExists, "taken"));
            }
            self.rename(root, from, to)
        }
        fn remove_file(&self, root: &Path, path: &Path) -> io::Result<()> {
            RealDisk.remove_file(root, path)
        }
        fn create_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            RealDisk.create_dir(root, path)
        }
        fn remove_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            RealDisk.remove_dir(root, path)
        }
        fn copy_attributes(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            RealDisk.copy_attributes(root, from, to)
        }
        fn sync_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            RealDisk.sync_dir(root, path)
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
        fn write_new(&self, root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
            self.record("write_new", &[path]);
            RealDisk.write_new(root, path, bytes)
        }
        fn rename(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            self.record("rename", &[from, to]);
            RealDisk.rename(root, from, to)
        }
        fn rename_new(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            self.record("rename_new", &[from, to]);
            RealDisk.rename_new(root, from, to)
        }
        fn remove_file(&self, root: &Path, path: &Path) -> io::Result<()> {
            self.record("remove_file", &[path]);
            RealDisk.remove_file(root, path)
        }
        fn create_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            self.record("create_dir", &[path]);
            RealDisk.create_dir(root, path)
        }
        fn remove_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            self.record("remove_dir", &[path]);
            RealDisk.remove_dir(root, path)
        }
        fn copy_attributes(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            self.record("copy_attributes", &[to]);
            RealDisk.copy_attributes(root, from, to)
        }
        fn sync_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            self.record("sync_dir", &[path]);
            RealDisk.sync_dir(root, path)
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
        fn write_new(&self, root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
            (self.0)("write_new", path);
            RealDisk.write_new(root, path, bytes)
        }
        fn rename(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("rename", to);
            RealDisk.rename(root, from, to)
        }
        fn rename_new(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("rename_new", to);
            RealDisk.rename_new(root, from, to)
        }
        fn remove_file(&self, root: &Path, path: &Path) -> io::Result<()> {
            (self.0)("remove_file", path);
            RealDisk.remove_file(root, path)
        }
        fn create_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            (self.0)("create_dir", path);
            RealDisk.create_dir(root, path)
        }
        fn remove_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            (self.0)("remove_dir", path);
            RealDisk.remove_dir(root, path)
        }
        fn copy_attributes(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("copy_attributes", to);
            RealDisk.copy_attributes(root, from, to)
        }
        fn sync_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            (self.0)("sync_dir", path);
            RealDisk.sync_dir(root, path)
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
        fn write_new(&self, root: &Path, path: &Path, bytes: &[u8]) -> io::Result<()> {
            (self.0)("write_new", path).map_or_else(|| RealDisk.write_new(root, path, bytes), Err)
        }
        fn rename(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("rename", to).map_or_else(|| RealDisk.rename(root, from, to), Err)
        }
        fn rename_new(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("rename_new", to).map_or_else(|| RealDisk.rename_new(root, from, to), Err)
        }
        fn remove_file(&self, root: &Path, path: &Path) -> io::Result<()> {
            (self.0)("remove_file", path).map_or_else(|| RealDisk.remove_file(root, path), Err)
        }
        fn create_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            (self.0)("create_dir", path).map_or_else(|| RealDisk.create_dir(root, path), Err)
        }
        fn remove_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            (self.0)("remove_dir", path).map_or_else(|| RealDisk.remove_dir(root, path), Err)
        }
        fn copy_attributes(&self, root: &Path, from: &Path, to: &Path) -> io::Result<()> {
            (self.0)("copy_attributes", to).map_or_else(|| RealDisk.copy_attributes(root, from, to), Err)
        }
        fn sync_dir(&self, root: &Path, path: &Path) -> io::Result<()> {
            (self.0)("sync_dir", path).map_or_else(|| RealDisk.sync_dir(root, path), Err)
        }
    }

    thread_local! {
        static AT_NEXT_CHECK: RefCell<Option<Box<dyn FnOnce()>>> = RefCell::new(None);
    }

    /// Runs `act` once, on this thread, at the next check a [`RealDisk`] makes after a step (the
    /// folder it changed opened again from the root), in place of any act still waiting: another
    /// program acting in the instant between a step and its check.
    pub fn at_next_check(act: Option<Box<dyn FnOnce()>>) {
        AT_NEXT_CHECK.with(|slot| *slot.borrow_mut() = act);
    }

    #[cfg(unix)]
    pub(super) fn before_the_check() {
        if let Some(act) = AT_NEXT_CHECK.with(|slot| slot.borrow_mut().take()) {
            act();
        }
    }

    /// A folder of the vault swapped for a symbolic link to a folder outside it, as another
    /// program can do at any moment: the real folder (if it is there) renamed `away`, outside
    /// the vault on the same filesystem, and a link to `outside` put in its place.
    #[derive(Debug, Clone)]
    pub struct Swap {
        pub folder: PathBuf,
        pub away: PathBuf,
        pub outside: PathBuf,
    }

    #[allow(clippy::unwrap_used)]
    impl Swap {
        #[cfg(unix)]
        pub fn make(&self) {
            if std::fs::symlink_metadata(&self.folder).is_ok() {
                std::fs::rename(&self.folder, &self.away).unwrap();
            }
            std::os::unix::fs::symlink(&self.outside, &self.folder).unwrap();
        }

        pub fn made(&self) -> bool {
            std::fs::symlink_metadata(&self.folder).is_ok_and(|meta| meta.file_type().is_symlink())
        }

        /// The folder back in its place, as it is now (with whatever was made in it meanwhile).
        pub fn put_back(&self) {
            if self.made() {
                std::fs::remove_file(&self.folder).unwrap();
                if self.away.exists() {
                    std::fs::rename(&self.away, &self.folder).unwrap();
                }
            }
        }
    }

    /// When [`Swapping`] swaps the folder, relative to its step.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum SwapWhen {
        /// Just before the step: the checks said the folder was there, the step finds a link.
        BeforeStep,
        /// Just after the step, before the disk's check of it.
        AfterStep,
    }

    /// The real disk, except that at step `swap_at` (counting every change from 0) the folder
    /// `swap.folder` is swapped for a link to a folder outside the vault ([`Swap`]), before the
    /// step or after it.
    #[derive(Debug)]
    pub struct Swapping {
        pub swap: Swap,
        pub swap_at: usize,
        pub when: SwapWhen,
        pub steps: Cell<usize>,
    }

    impl Swapping {
        pub fn new(swap: Swap, swap_at: usize, when: SwapWhen) -> Swapping {
            Swapping { swap, swap_at, when, steps: Cell::new(0) }
        }

        fn step(&self) {
            let step = self.steps.get();
            self.steps.set(step + 1);
            // A step that makes no check (a removal, a sync) leaves no act waiting for a later one.
            at_next_check(None);
            if step != self.swap_at {
                return;
            }
            #[cfg(unix)]
            match self.when {
                SwapWhen::BeforeStep => self.swap.make(),
                SwapWhen::AfterStep => {
                    let swap = self.swap.clone();
                    at_next_check(Some(Box::new(move || swap.make())));
                }
            }
        }
    }

    real_disk_after_each_step!(Swapping);

    /// Every file under `root` with its bytes, sorted; a symbolic link as where it points. The
    /// vault's sealing keys and the line that keeps git out of `.vaultlink` are left out: the
    /// first seal makes them and they stay, the vault's own, not any change's.
    #[allow(clippy::unwrap_used)]
    pub fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files = snapshot_all(root);
        files.retain(|(path, _)| !path.starts_with(".vaultlink/keys/") && path != ".vaultlink/.gitignore");
        files
    }

    /// [`snapshot`], the vault's sealing keys included.
    #[allow(clippy::unwrap_used)]
    pub fn snapshot_all(root: &Path) -> Vec<(String, Vec<u8>)> {
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
    use std::path::Path;

    /// [`super::rename_if_free_at`] between two files of the folder `dir`.
    fn rename_if_free_meanwhile(dir: &Path, from: &str, to: &str, meanwhile: &dyn Fn()) -> io::Result<()> {
        let folder = super::beneath::folder(dir, &[]).unwrap();
        super::rename_if_free_at(&folder, from.as_ref(), &folder, to.as_ref(), meanwhile)
    }

    /// Issue 21: where the system refuses `RENAME_NOREPLACE`, the rename looked at the
    /// destination and then renamed onto it, so a file saved there in between was replaced.
    #[test]
    fn the_fallback_rename_never_replaces_a_file_that_appears_just_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("a.md"), dir.path().join("b.md"));
        std::fs::write(&from, "moved").unwrap();
        let refused =
            rename_if_free_meanwhile(dir.path(), "a.md", "b.md", &|| std::fs::write(&to, "saved meanwhile").unwrap()).unwrap_err();
        assert_eq!(refused.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&to).unwrap(), "saved meanwhile", "the file saved there is kept");
        assert_eq!(std::fs::read_to_string(&from).unwrap(), "moved", "nothing moved");

        // Free: moved, one name left.
        std::fs::remove_file(&to).unwrap();
        rename_if_free_meanwhile(dir.path(), "a.md", "b.md", &|| {}).unwrap();
        assert!(!from.exists());
        assert_eq!(std::fs::read_to_string(&to).unwrap(), "moved");
        use std::os::unix::fs::MetadataExt;
        assert_eq!(std::fs::metadata(&to).unwrap().nlink(), 1);
    }

    /// A folder held for many reads is read as it was opened: swapped for a link to a folder
    /// outside the vault after it was opened, its notes are still the vault's, never the
    /// outside's; a folder that is a link, a note that is a link, a FIFO and a file over the
    /// limit are not read through it (the caller reads those as one read does, with its refusals).
    #[test]
    fn a_held_folder_is_read_as_it_was_opened_never_through_a_link_put_in_its_place() {
        use std::ffi::OsStr;
        let (dir, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let root = dir.path();
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/note.md"), "the vault's").unwrap();
        std::fs::write(outside.path().join("note.md"), "outside").unwrap();
        std::fs::write(outside.path().join("secret.md"), "outside").unwrap();
        let held = super::HeldFolder::open(root, &root.join("sub")).expect("a real folder is held");
        std::fs::rename(root.join("sub"), root.join("sub-before")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("sub")).unwrap();
        assert_eq!(held.read_file(OsStr::new("note.md"), 1 << 20).as_deref(), Some(&b"the vault's"[..]));
        assert_eq!(held.read_file(OsStr::new("secret.md"), 1 << 20), None, "nothing of the outside folder is read");
        assert!(super::HeldFolder::open(root, &root.join("sub")).is_none(), "a folder that is a link is not held");

        let top = super::HeldFolder::open(root, root).expect("the root is held");
        std::os::unix::fs::symlink(outside.path().join("note.md"), root.join("linked.md")).unwrap();
        assert_eq!(top.read_file(OsStr::new("linked.md"), 1 << 20), None, "a note that is a link is not read through");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            root.join("fifo.md"),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR,
            0,
        )
        .unwrap();
        assert_eq!(top.read_file(OsStr::new("fifo.md"), 1 << 20), None, "a FIFO is neither waited on nor read");
        std::fs::write(root.join("big.md"), "0123456789").unwrap();
        assert_eq!(top.read_file(OsStr::new("big.md"), 9), None);
        assert_eq!(top.read_file(OsStr::new("big.md"), 10).as_deref(), Some(&b"0123456789"[..]));
    }

    /// Both ways of opening a folder of the vault (`openat2` where the kernel has it, the walk
    /// name by name elsewhere) open real folders, and refuse a symbolic link anywhere on the way,
    /// naming it; a link to a folder is never followed, even as the last name.
    #[test]
    fn a_folder_is_opened_beneath_the_root_and_never_through_a_link() {
        use std::ffi::OsStr;
        let (dir, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::create_dir_all(outside.path().join("x")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("a/l")).unwrap();
        let names = |path: &'static str| path.split('/').map(OsStr::new).collect::<Vec<_>>();
        let walk = |path: &'static str| {
            let root = rustix::fs::open(dir.path(), rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::DIRECTORY, rustix::fs::Mode::empty())
                .unwrap();
            super::beneath::walk(root, &names(path))
        };
        let by_open = |path: &'static str| super::beneath::folder(dir.path(), &names(path));
        for open in [&walk as &dyn Fn(&'static str) -> io::Result<rustix::fd::OwnedFd>, &by_open] {
            assert!(open("a/b").is_ok());
            for through in ["a/l", "a/l/x"] {
                let refused = open(through).unwrap_err();
                assert_eq!(super::link_on_the_way(&refused), Some("a/l"), "{through}: {refused}");
            }
            assert_eq!(open("a/missing").unwrap_err().kind(), io::ErrorKind::NotFound);
        }
    }

    /// Every change `RealDisk` makes under a folder that is a symbolic link to a folder outside
    /// the vault is refused, naming the link, and the folder outside is left as it was.
    #[test]
    fn every_change_through_a_link_under_the_root_is_refused() {
        use super::{Disk, RealDisk};
        let (dir, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let root = dir.path();
        std::fs::write(root.join("a.md"), "in the vault").unwrap();
        std::fs::create_dir(outside.path().join("empty")).unwrap();
        std::fs::write(outside.path().join("b.md"), "outside").unwrap();
        std::os::unix::fs::symlink(outside.path(), root.join("l")).unwrap();
        let before = super::testing::snapshot(outside.path());
        let (inside, through) = (root.join("a.md"), |name: &str| root.join("l").join(name));
        let refusals = [
            RealDisk.write_new(root, &through("new.md"), b"x"),
            RealDisk.rename_new(root, &inside, &through("a.md")),
            RealDisk.rename(root, &inside, &through("b.md")),
            RealDisk.rename_new(root, &through("b.md"), &root.join("b.md")),
            RealDisk.remove_file(root, &through("b.md")),
            RealDisk.create_dir(root, &through("new")),
            RealDisk.remove_dir(root, &through("empty")),
            RealDisk.copy_attributes(root, &inside, &through("b.md")),
            RealDisk.sync_dir(root, &through("empty")),
        ];
        for (at, refusal) in refusals.into_iter().enumerate() {
            let refusal = refusal.expect_err("refused");
            assert_eq!(super::link_on_the_way(&refusal), Some("l"), "operation {at}: {refusal}");
        }
        assert_eq!(super::testing::snapshot(outside.path()), before, "nothing outside changed");
        assert!(outside.path().join("empty").is_dir() && !outside.path().join("new").exists());
        assert_eq!(std::fs::read_to_string(&inside).unwrap(), "in the vault");
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
        assert_eq!(rename_if_free_meanwhile(dir.path(), "a.md", "A.md", &|| {}).unwrap_err().kind(), io::ErrorKind::AlreadyExists);
        assert_eq!((std::fs::read_to_string(&from).unwrap(), std::fs::read_to_string(&to).unwrap()), ("lower".into(), "upper".into()));
    }
}
