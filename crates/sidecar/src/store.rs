//! The persistent index: what the last index of a vault kept of each file, in the user's cache
//! folder, so that the next start reads and parses only the files changed since.
//!
//! One file per vault, `<cache>/vaultlink/index/<vault key>.index`, where `<cache>` is the
//! platform's cache folder (`~/.cache` on Linux, `~/Library/Caches` on macOS, `%LOCALAPPDATA%`
//! on Windows) or `VAULTLINK_CACHE_DIR` when set. Never inside the vault, so never synced with
//! it. The vault key hashes the vault folder's canonical path and, where there is one, its
//! device and inode: a vault moved to another folder, or another vault put where one was, is
//! another key, and finds no file (and the path is checked again inside the file).
//!
//! The file is untrusted input, as anything on disk another program may have written. It is
//! read whole (never past [`MAX_STORE_BYTES`]), through no symbolic link, and taken only when
//! its magic, format, engine version, vault path, parse settings and checksum all match and
//! every length in it fits what is left: anything else is a doubt, and the index is built from
//! the notes as if there were no file. So a damaged or foreign file costs time, never a wrong
//! answer. It is written entry by entry, each encoded as it goes, to a temporary file beside it
//! and renamed over the old one.
//!
//! Layout, little-endian, flat: a header (magic, format, engine version, vault path, parse
//! settings, when the walk it records began, the number of entries), then per file its path,
//! size, modification time, inode, `xxh3_128` of its bytes, whether its stamp proves it unchanged
//! core's flat encoding of what the index keeps of it (`vaultlink_core::index::kept`) and of what
//! its links resolved to (each target as its file's place among the entries, which only a start
//! that finds exactly the same paths takes: `kept::targets_of`), then
//! the changes kept pending for the detected moves ([`Pending`]: the number of vanished notes and
//! per note its path, size, `xxh3_128` and when it was first missed; the number of appeared
//! paths and per path the path and when it was first seen), and last `xxh3_128` of everything
//! before it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};
use vaultlink_core::SeenNote;

/// The first bytes of every index file.
const MAGIC: &[u8; 8] = b"VLINDEX\0";
/// The layout's version: a file of another is rebuilt. 4: a link's target among several files
/// of its name is kept with its candidates.
const FORMAT: u32 = 4;
/// The engine's version: what core keeps of a note may change with it, so a file another
/// version wrote is rebuilt.
const ENGINE: &str = env!("CARGO_PKG_VERSION");
/// The largest index file read: 1 GiB, about forty times what a vault of 100,000 notes needs.
pub const MAX_STORE_BYTES: u64 = 1 << 30;
/// The most entries a file may claim (each takes at least [`MIN_ENTRY_BYTES`]).
const MAX_ENTRIES: u64 = 50_000_000;
/// The bytes of an entry with an empty path and nothing kept.
const MIN_ENTRY_BYTES: u64 = 4 + 8 + 8 + 4 + 8 + 16 + 1 + 4 + 4;
/// How coarse a file system's modification times may be: a note whose time is this close to
/// when the walk that read it began may have been written again in the same tick without its
/// time changing, so its stamp proves nothing and the next start reads it again.
pub const COARSE_TICK: Duration = Duration::from_secs(2);

/// One file as the index last saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub path: String,
    pub size: u64,
    pub mtime: Option<SystemTime>,
    /// The file's inode (0 where the platform has none).
    pub inode: u64,
    /// `xxh3_128` of the file's bytes as read.
    pub hash: u128,
    /// Whether the stamp proves the file unchanged while it stays the same: false when its
    /// modification time fell within one [`COARSE_TICK`] of the walk that read it.
    pub sure: bool,
    /// Core's flat encoding of what the index keeps of the file; empty when it kept nothing it
    /// could encode (the file is parsed again).
    pub kept: Vec<u8>,
    /// Core's flat encoding of what the file's links resolved to, against the entries' paths in
    /// order; empty when not kept (they are resolved again).
    pub targets: Vec<u8>,
}

/// An index file's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// `ParseConfig::max_links` of the index that wrote it.
    pub max_links: u64,
    pub entries: Vec<Entry>,
    /// The changes made outside vaultlink not yet healed, carried from save to save.
    pub pending: Pending,
}

/// The most notes each side of [`Pending`] keeps: the newest, so a vault replaced whole keeps
/// what it can heal and the file stays small.
pub const MAX_PENDING: usize = 10_000;
/// How long a change stays pending: a move not healed in 30 days is taken as settled (its links
/// were repointed by hand, or no one needs them).
pub const PENDING_FOR: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// A note gone from its path, kept until it is healed or matters no more.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vanished {
    pub note: SeenNote,
    /// When a save first missed it, in seconds since the epoch.
    pub since: i64,
}

/// A note at a path the index did not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Appeared {
    pub path: String,
    /// When a save first saw it, in seconds since the epoch.
    pub since: i64,
}

/// The changes made outside vaultlink since the index saw the vault whole, which a save carries
/// forward so that a move stays detected across starts until `heal_moves` heals it: a start that
/// compared only with the file the last process wrote would lose every move that process saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pending {
    pub vanished: Vec<Vanished>,
    pub appeared: Vec<Appeared>,
}

impl Pending {
    /// The pending changes after a save that sees the vault's notes as `now`: `self` and what
    /// changed from `before` (the notes the file held) to `now`, less a vanished note a note is at
    /// the path of again, an appeared one that is gone again, those older than [`PENDING_FOR`],
    /// and past [`MAX_PENDING`] the oldest of each side.
    pub fn carried(&self, before: &[SeenNote], now: &[SeenNote], at: SystemTime) -> Pending {
        let at = time_parts(Some(at)).0;
        let now_paths: std::collections::HashSet<&str> = now.iter().map(|note| note.path.as_str()).collect();
        let before_paths: std::collections::HashSet<&str> = before.iter().map(|note| note.path.as_str()).collect();
        let mut vanished: Vec<Vanished> = self.vanished.clone();
        let mut known: std::collections::HashSet<String> = vanished.iter().map(|gone| gone.note.path.clone()).collect();
        for note in before {
            if note.hash != 0 && !now_paths.contains(note.path.as_str()) && known.insert(note.path.clone()) {
                vanished.push(Vanished { note: note.clone(), since: at });
            }
        }
        let mut appeared: Vec<Appeared> = self.appeared.clone();
        let mut known: std::collections::HashSet<String> = appeared.iter().map(|new| new.path.clone()).collect();
        if !before.is_empty() {
            for note in now {
                if !before_paths.contains(note.path.as_str()) && known.insert(note.path.clone()) {
                    appeared.push(Appeared { path: note.path.clone(), since: at });
                }
            }
        }
        let oldest = at.saturating_sub(PENDING_FOR.as_secs() as i64);
        vanished.retain(|gone| !now_paths.contains(gone.note.path.as_str()) && gone.since >= oldest);
        appeared.retain(|new| now_paths.contains(new.path.as_str()) && new.since >= oldest);
        vanished.sort_by(|one, other| other.since.cmp(&one.since).then_with(|| one.note.path.cmp(&other.note.path)));
        vanished.truncate(MAX_PENDING);
        appeared.sort_by(|one, other| other.since.cmp(&one.since).then_with(|| one.path.cmp(&other.path)));
        appeared.truncate(MAX_PENDING);
        Pending { vanished, appeared }
    }

    /// Without the moves `pairs` (from, to), which `heal_moves` healed.
    fn without(&mut self, pairs: &[(String, String)]) {
        let from: std::collections::HashSet<&str> = pairs.iter().map(|(from, _)| from.as_str()).collect();
        let to: std::collections::HashSet<&str> = pairs.iter().map(|(_, to)| to.as_str()).collect();
        self.vanished.retain(|gone| !from.contains(gone.note.path.as_str()));
        self.appeared.retain(|new| !to.contains(new.path.as_str()));
    }
}

/// The folder that holds the index files: `VAULTLINK_CACHE_DIR` when set, else the platform's
/// cache folder for vaultlink.
pub fn cache_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("VAULTLINK_CACHE_DIR").filter(|dir| !dir.is_empty()) {
        return Some(PathBuf::from(dir).join("index"));
    }
    directories::ProjectDirs::from("", "", "vaultlink").map(|dirs| dirs.cache_dir().join("index"))
}

/// The vault's key: its canonical path and, where there is one, its folder's device and inode.
pub fn vault_key(vault_root: &Path) -> String {
    let mut hasher = Sha256::new();
    hasher.update(b"vaultlink persistent index\0");
    hasher.update(vault_root.as_os_str().as_encoded_bytes());
    hasher.update(b"\0");
    #[cfg(unix)]
    if let Ok(meta) = std::fs::metadata(vault_root) {
        use std::os::unix::fs::MetadataExt;
        hasher.update(meta.dev().to_le_bytes());
        hasher.update(meta.ino().to_le_bytes());
    }
    vaultlink_core::hex::hex(&hasher.finalize()[..16])
}

/// The index file of the vault at `vault_root` (canonical), when there is a cache folder.
pub fn file_of(vault_root: &Path) -> Option<PathBuf> {
    cache_dir().map(|dir| dir.join(format!("{}.index", vault_key(vault_root))))
}

/// The notes as the persistent index last saw them (path relative to the vault, size and
/// `xxh3_128` of their bytes), as the file was before this start refreshed it; `None` when there
/// was no file for the vault or it could not be trusted. The detected moves compare the vault
/// with it.
#[cfg_attr(not(test), allow(dead_code))]
pub fn previous_notes(vault_root: &Path) -> Option<Vec<SeenNote>> {
    previous(vault_root).map(|(notes, _)| notes)
}

/// The notes the file held before this start refreshed it, and the changes it kept pending.
pub fn previous(vault_root: &Path) -> Option<(Vec<SeenNote>, Pending)> {
    if let Some(remembered) = remembered().lock().ok().and_then(|seen| seen.get(vault_root).cloned()) {
        return remembered;
    }
    load(vault_root).map(|stored| (seen_notes(&stored), stored.pending))
}

/// Drops the moves `pairs` (from, to), which `heal_moves` healed, from what this process
/// remembers and from the file, so that neither this start nor the next lists them again.
pub fn forget_healed(vault_root: &Path, pairs: &[(String, String)]) {
    if pairs.is_empty() {
        return;
    }
    let from: std::collections::HashSet<&str> = pairs.iter().map(|(from, _)| from.as_str()).collect();
    if let Ok(mut seen) = remembered().lock() {
        if let Some(Some((notes, pending))) = seen.get_mut(vault_root) {
            notes.retain(|note| !from.contains(note.path.as_str()));
            pending.without(pairs);
        }
    }
    let Some(path) = file_of(vault_root) else { return };
    let Ok(Some(bytes)) = read_no_follow(&path) else { return };
    let Ok((mut stored, walked_at)) = decode(&bytes, vault_root) else { return };
    let before = stored.entries.len();
    stored.entries.retain(|entry| !from.contains(entry.path.as_str()));
    if stored.entries.len() != before {
        // The kept resolutions name files by their place among the entries, which has moved.
        stored.entries.iter_mut().for_each(|entry| entry.targets.clear());
    }
    stored.pending.without(pairs);
    save(vault_root, &stored, walked_at);
}

fn seen_notes(stored: &Stored) -> Vec<SeenNote> {
    stored
        .entries
        .iter()
        .filter(|entry| vaultlink_core::index::is_note_path(&entry.path))
        .map(|entry| SeenNote { path: entry.path.clone(), size: entry.size, hash: entry.hash })
        .collect()
}

/// The notes each vault's file held when this process first read it, before it was written
/// again: what [`previous_notes`] answers for the rest of the process.
type Remembered = std::sync::Mutex<std::collections::HashMap<PathBuf, Option<(Vec<SeenNote>, Pending)>>>;

fn remembered() -> &'static Remembered {
    static SEEN: std::sync::OnceLock<Remembered> = std::sync::OnceLock::new();
    SEEN.get_or_init(Default::default)
}

/// The vault's index file, read and checked; `None`, with the reason logged, when there is none
/// or any doubt. The first read in a process is remembered for [`previous_notes`].
pub fn load(vault_root: &Path) -> Option<Stored> {
    let stored = load_unremembered(vault_root);
    if let Ok(mut seen) = remembered().lock() {
        seen.entry(vault_root.to_owned()).or_insert_with(|| stored.as_ref().map(|stored| (seen_notes(stored), stored.pending.clone())));
    }
    stored
}

fn load_unremembered(vault_root: &Path) -> Option<Stored> {
    let path = file_of(vault_root)?;
    let bytes = match read_no_follow(&path) {
        Ok(Some(bytes)) => bytes,
        Ok(None) => return None,
        Err(reason) => {
            tracing::info!("the persistent index {} is not used ({reason}); the vault is indexed from its notes", path.display());
            return None;
        }
    };
    match decode(&bytes, vault_root) {
        Ok((stored, _walked_at)) => Some(stored),
        Err(reason) => {
            tracing::info!("the persistent index {} is not used ({reason}); the vault is indexed from its notes", path.display());
            None
        }
    }
}

/// Reads `path` whole, through no symbolic link and never past [`MAX_STORE_BYTES`]; `None` when
/// there is no file.
fn read_no_follow(path: &Path) -> Result<Option<Vec<u8>>, String> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = match options.open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(format!("it cannot be opened: {error}")),
    };
    let meta = file.metadata().map_err(|error| error.to_string())?;
    if !meta.is_file() {
        return Err("it is not a plain file".to_owned());
    }
    if meta.len() > MAX_STORE_BYTES {
        return Err(format!("it is {} bytes, over the {MAX_STORE_BYTES}-byte limit", meta.len()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_STORE_BYTES + 1).read_to_end(&mut bytes).map_err(|error| error.to_string())?;
    if bytes.len() as u64 > MAX_STORE_BYTES {
        return Err(format!("it grew over the {MAX_STORE_BYTES}-byte limit while read"));
    }
    Ok(Some(bytes))
}

/// Writes the vault's index file: to a new temporary file beside it, then renamed over it, so a
/// reader finds the old file or the new one whole. A failure is logged and costs only the next
/// start's time.
pub fn save(vault_root: &Path, stored: &Stored, walked_at: SystemTime) {
    save_each(vault_root, stored.max_links, stored.entries.len(), stored.entries.iter().cloned(), &stored.pending, walked_at);
}

/// Writes the vault's index file as [`save`] does, from `count` entries made one at a time as
/// they are written: the file is streamed, its checksum taken on the way, so neither the whole
/// encoding nor every entry's kept bytes are ever held at once (at 100,000 notes they were
/// hundreds of megabytes at the peak of a first index). `entries` must give exactly `count`.
pub fn save_each(
    vault_root: &Path,
    max_links: u64,
    count: usize,
    entries: impl Iterator<Item = Entry>,
    pending: &Pending,
    walked_at: SystemTime,
) {
    let Some(path) = file_of(vault_root) else {
        tracing::info!("there is no cache folder; the index is not kept for the next start");
        return;
    };
    let written = write_atomically(&path, |file| {
        let file = std::io::BufWriter::with_capacity(1 << 16, file);
        let head = Head { engine: ENGINE, max_links, vault_root, walked_at, count };
        write_file(file, &head, entries, pending)?.into_inner().map_err(std::io::IntoInnerError::into_error)?;
        Ok(())
    });
    if let Err(error) = written {
        tracing::warn!("the persistent index {} could not be written ({error}); the next start indexes the vault again", path.display());
    }
}

fn write_atomically(path: &Path, write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        builder.mode(0o700);
    }
    builder.create(dir)?;
    let name = path.file_name().and_then(|name| name.to_str()).unwrap_or("index");
    let temporary = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    // `create_new` makes a file of its own and never follows a link put at the temporary name.
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let _ = std::fs::remove_file(&temporary);
    let written = options.open(&temporary).and_then(|mut file| write(&mut file));
    // `rename` replaces whatever is at the name, a link included, without following it.
    match written.and_then(|()| std::fs::rename(&temporary, path)) {
        Ok(()) => Ok(()),
        Err(error) => {
            let _ = std::fs::remove_file(&temporary);
            Err(error)
        }
    }
}

/// Seconds and nanoseconds since the epoch; `None` for a time before it or none.
fn time_parts(time: Option<SystemTime>) -> (i64, u32) {
    match time.and_then(|time| time.duration_since(UNIX_EPOCH).ok()) {
        Some(since) => (i64::try_from(since.as_secs()).unwrap_or(i64::MAX), since.subsec_nanos()),
        None => (0, u32::MAX),
    }
}

fn time_from(secs: i64, nanos: u32) -> Option<Option<SystemTime>> {
    if nanos == u32::MAX {
        return Some(None);
    }
    if nanos >= 1_000_000_000 || secs < 0 {
        return None;
    }
    UNIX_EPOCH.checked_add(Duration::new(secs as u64, nanos)).map(Some)
}

/// The file's bytes.
#[cfg(test)]
pub fn encode(stored: &Stored, vault_root: &Path, walked_at: SystemTime) -> Vec<u8> {
    encode_as(ENGINE, stored, vault_root, walked_at)
}

/// The file's bytes as the engine of version `engine` writes them.
#[cfg(test)]
fn encode_as(engine: &str, stored: &Stored, vault_root: &Path, walked_at: SystemTime) -> Vec<u8> {
    let out = Vec::with_capacity(64 + stored.entries.iter().map(|entry| entry.path.len() + entry.kept.len() + 64).sum::<usize>());
    let head = Head { engine, max_links: stored.max_links, vault_root, walked_at, count: stored.entries.len() };
    // Writing to memory cannot fail.
    write_file(out, &head, stored.entries.iter().cloned(), &stored.pending).unwrap_or_default()
}

/// What the file says before its entries.
struct Head<'a> {
    engine: &'a str,
    max_links: u64,
    vault_root: &'a Path,
    walked_at: SystemTime,
    /// How many entries follow.
    count: usize,
}

/// A writer that takes `xxh3_128` of every byte it passes on.
struct Summed<W: Write> {
    inner: W,
    sum: xxhash_rust::xxh3::Xxh3,
}

impl<W: Write> Write for Summed<W> {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let written = self.inner.write(bytes)?;
        self.sum.update(&bytes[..written]);
        Ok(written)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// Writes the file's layout to `out`, entry by entry, its checksum last; gives `out` back.
fn write_file<W: Write>(out: W, head: &Head, entries: impl Iterator<Item = Entry>, pending: &Pending) -> std::io::Result<W> {
    let mut out = Summed { inner: out, sum: xxhash_rust::xxh3::Xxh3::new() };
    out.write_all(MAGIC)?;
    out.write_all(&FORMAT.to_le_bytes())?;
    put_bytes(&mut out, head.engine.as_bytes())?;
    put_bytes(&mut out, head.vault_root.as_os_str().as_encoded_bytes())?;
    out.write_all(&head.max_links.to_le_bytes())?;
    let (secs, nanos) = time_parts(Some(head.walked_at));
    out.write_all(&secs.to_le_bytes())?;
    out.write_all(&nanos.to_le_bytes())?;
    out.write_all(&(head.count as u64).to_le_bytes())?;
    let mut written = 0;
    for entry in entries {
        written += 1;
        put_bytes(&mut out, entry.path.as_bytes())?;
        out.write_all(&entry.size.to_le_bytes())?;
        let (secs, nanos) = time_parts(entry.mtime);
        out.write_all(&secs.to_le_bytes())?;
        out.write_all(&nanos.to_le_bytes())?;
        out.write_all(&entry.inode.to_le_bytes())?;
        out.write_all(&entry.hash.to_le_bytes())?;
        out.write_all(&[u8::from(entry.sure)])?;
        put_bytes(&mut out, &entry.kept)?;
        put_bytes(&mut out, &entry.targets)?;
    }
    if written != head.count {
        return Err(std::io::Error::other(format!("{written} entries were given for {} announced", head.count)));
    }
    out.write_all(&(pending.vanished.len() as u64).to_le_bytes())?;
    for gone in &pending.vanished {
        put_bytes(&mut out, gone.note.path.as_bytes())?;
        out.write_all(&gone.note.size.to_le_bytes())?;
        out.write_all(&gone.note.hash.to_le_bytes())?;
        out.write_all(&gone.since.to_le_bytes())?;
    }
    out.write_all(&(pending.appeared.len() as u64).to_le_bytes())?;
    for new in &pending.appeared {
        put_bytes(&mut out, new.path.as_bytes())?;
        out.write_all(&new.since.to_le_bytes())?;
    }
    let checksum = out.sum.digest128();
    let mut out = out.inner;
    out.write_all(&checksum.to_le_bytes())?;
    Ok(out)
}

fn put_bytes(out: &mut impl Write, bytes: &[u8]) -> std::io::Result<()> {
    out.write_all(&(bytes.len() as u32).to_le_bytes())?;
    out.write_all(bytes)
}

/// Reads a file's bytes back, checking everything; the error says what was in doubt.
pub fn decode(bytes: &[u8], vault_root: &Path) -> Result<(Stored, SystemTime), String> {
    if bytes.len() < MAGIC.len() + 16 || &bytes[..MAGIC.len()] != MAGIC {
        return Err("it is not a vaultlink index file".to_owned());
    }
    let (body, checksum) = bytes.split_at(bytes.len() - 16);
    let checksum = u128::from_le_bytes(checksum.try_into().map_err(|_| "it is cut short")?);
    if xxhash_rust::xxh3::xxh3_128(body) != checksum {
        return Err("its checksum does not match: it is damaged".to_owned());
    }
    let mut reader = Reader { bytes: &body[MAGIC.len()..] };
    let format = reader.u32()?;
    if format != FORMAT {
        return Err(format!("it has layout {format}, this version reads {FORMAT}"));
    }
    if reader.bytes()? != ENGINE.as_bytes() {
        return Err(format!("another version of vaultlink wrote it; this is {ENGINE}"));
    }
    if reader.bytes()? != vault_root.as_os_str().as_encoded_bytes() {
        return Err("it is another vault's".to_owned());
    }
    let max_links = reader.u64()?;
    let walked_at = time_from(reader.i64()?, reader.u32()?).flatten().ok_or("its time is not a time")?;
    let count = reader.u64()?;
    if count > MAX_ENTRIES || count.saturating_mul(MIN_ENTRY_BYTES) > reader.bytes.len() as u64 {
        return Err(format!("it claims {count} files, more than it can hold"));
    }
    let mut entries = Vec::with_capacity(count as usize);
    let tick_before_walk = walked_at.checked_sub(COARSE_TICK).unwrap_or(UNIX_EPOCH);
    for _ in 0..count {
        let path = std::str::from_utf8(reader.bytes()?).map_err(|_| "a path is not UTF-8")?.to_owned();
        let size = reader.u64()?;
        let mtime = time_from(reader.i64()?, reader.u32()?).ok_or("a modification time is not a time")?;
        let inode = reader.u64()?;
        let hash = reader.u128()?;
        let sure = match reader.u8()? {
            0 => false,
            1 => true,
            _ => return Err("a flag is neither 0 nor 1".to_owned()),
        };
        let kept = reader.bytes()?.to_vec();
        let targets = reader.bytes()?.to_vec();
        // Whatever the file says, a time within a tick of the walk proves nothing.
        let sure = sure && mtime.is_some_and(|mtime| mtime < tick_before_walk);
        entries.push(Entry { path, size, mtime, inode, hash, sure, kept, targets });
    }
    let pending = read_pending(&mut reader)?;
    if !reader.bytes.is_empty() {
        return Err("it has bytes after its last entry".to_owned());
    }
    Ok((Stored { max_links, entries, pending }, walked_at))
}

/// The pending changes, each side within [`MAX_PENDING`] and every time one.
fn read_pending(reader: &mut Reader) -> Result<Pending, String> {
    let path = |reader: &mut Reader| -> Result<String, String> {
        Ok(std::str::from_utf8(reader.bytes()?).map_err(|_| "a pending path is not UTF-8")?.to_owned())
    };
    let since = |reader: &mut Reader| -> Result<i64, String> {
        let since = reader.i64()?;
        if since < 0 {
            return Err("a pending change's time is not a time".to_owned());
        }
        Ok(since)
    };
    let count = |reader: &mut Reader, least: u64| -> Result<u64, String> {
        let count = reader.u64()?;
        if count > MAX_PENDING as u64 || count.saturating_mul(least) > reader.bytes.len() as u64 {
            return Err(format!("it claims {count} pending changes, more than it may hold"));
        }
        Ok(count)
    };
    let mut pending = Pending::default();
    for _ in 0..count(reader, 4 + 8 + 16 + 8)? {
        let path = path(reader)?;
        let (size, hash) = (reader.u64()?, reader.u128()?);
        pending.vanished.push(Vanished { note: SeenNote { path, size, hash }, since: since(reader)? });
    }
    for _ in 0..count(reader, 4 + 8)? {
        let path = path(reader)?;
        pending.appeared.push(Appeared { path, since: since(reader)? });
    }
    Ok(pending)
}

/// Reads a file's fields in order, each checked against what is left.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> Result<&'a [u8], String> {
        if count > self.bytes.len() {
            return Err("it is cut short".to_owned());
        }
        let (taken, rest) = self.bytes.split_at(count);
        self.bytes = rest;
        Ok(taken)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], String> {
        self.take(N)?.try_into().map_err(|_| "it is cut short".to_owned())
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    fn i64(&mut self) -> Result<i64, String> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    fn u128(&mut self) -> Result<u128, String> {
        Ok(u128::from_le_bytes(self.array()?))
    }

    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let len = self.u32()? as usize;
        self.take(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Stored {
        Stored {
            max_links: 50_000,
            entries: vec![
                Entry {
                    path: "a.md".into(),
                    size: 3,
                    mtime: Some(UNIX_EPOCH + Duration::new(1_000, 5)),
                    inode: 7,
                    hash: xxhash_rust::xxh3::xxh3_128(b"abc"),
                    sure: true,
                    kept: vec![1, 2, 3],
                    targets: vec![1, 2],
                },
                Entry { path: "b.png".into(), size: 0, mtime: None, inode: 0, hash: 0, sure: false, kept: Vec::new(), targets: Vec::new() },
            ],
            pending: Pending {
                vanished: vec![Vanished { note: SeenNote { path: "old.md".into(), size: 4, hash: 9 }, since: 4_000 }],
                appeared: vec![Appeared { path: "new.md".into(), since: 4_500 }],
            },
        }
    }

    fn note(path: &str, text: &str) -> SeenNote {
        SeenNote { path: path.into(), size: text.len() as u64, hash: xxhash_rust::xxh3::xxh3_128(text.as_bytes()) }
    }

    /// The cache folder of every test of this process that writes an index file: one, since the
    /// variable is the process's and each vault has its own file in it.
    fn test_cache() -> &'static Path {
        static CACHE: std::sync::OnceLock<tempfile::TempDir> = std::sync::OnceLock::new();
        let dir = CACHE.get_or_init(|| tempfile::tempdir().unwrap()).path();
        std::env::set_var("VAULTLINK_CACHE_DIR", dir);
        dir
    }

    /// Sets every file of the vault an hour back, so that its stamp proves it unchanged.
    fn age(root: &Path) {
        walk_files(root).iter().for_each(|file| age_file(file));
    }

    /// Sets a file's modification time an hour back, and a second more on each call, so that its
    /// stamp changes and proves it unchanged from then on.
    fn age_file(path: &Path) {
        static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let back = 3_600 + CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(SystemTime::now() - Duration::from_secs(back)).unwrap();
    }

    fn walk_files(dir: &Path) -> Vec<PathBuf> {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                files.extend(walk_files(&path));
            } else {
                files.push(path);
            }
        }
        files
    }

    /// Everything an index answers about links, for comparing a warm start with a cold one.
    fn answers(index: &crate::standalone::FolderIndex) -> (Vec<String>, vaultlink_core::index::Summary, Vec<String>) {
        let vault = index.vault();
        (vault.snapshot(), vault.summary(), vault.missing_target_keys().into_iter().map(str::to_owned).collect())
    }

    /// A vault whose links resolve every way, indexed once with its files aged, so that the next
    /// start takes every note from the index file.
    fn seen_vault() -> (tempfile::TempDir, PathBuf) {
        test_cache();
        let vault = tempfile::tempdir().unwrap();
        let root = crate::standalone::canonical_vault(vault.path()).unwrap();
        let files = [
            ("a.md", "[[b]] [[missing]] ![[pic.png]] [[sub/c|c]] [[twin]] [md](b.md) [[Bee alias]]"),
            ("b.md", "---\naliases: [Bee alias]\n---\n[[a]] [[#Heading]]\n# Heading"),
            ("sub/c.md", "[[../a]] [[b#nowhere]] [[later]]"),
            ("one/twin.md", "x"),
            ("two/twin.md", "y"),
            ("pic.png", ""),
            ("board.canvas", r#"{"nodes":[{"id":"n1","type":"file","file":"a.md"}],"edges":[]}"#),
        ];
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        age(&root);
        let mut first = crate::standalone::FolderIndex::new(root.clone()).persistent();
        first.refresh().unwrap();
        (vault, root)
    }

    /// A warm start's index and a cold one's on the vault as it is now: the same answers; and how
    /// many files the warm start filed with kept resolutions.
    fn warm_equals_cold(root: &Path) -> usize {
        let mut warm = crate::standalone::FolderIndex::new(root.to_owned()).persistent();
        warm.refresh().unwrap();
        let mut cold = crate::standalone::FolderIndex::new(root.to_owned());
        cold.refresh().unwrap();
        assert_eq!(answers(&warm), answers(&cold));
        warm.kept_resolutions()
    }

    #[test]
    fn kept_resolutions_are_taken_when_the_paths_are_the_same() {
        let (_vault, root) = seen_vault();
        // Unchanged: every file's links are taken as resolved (the note with a link of two
        // candidates, `a.md`, with them).
        assert_eq!(warm_equals_cold(&root), 7);
        // Edited, touched, or its aliases changed: that note is read and resolved again, the
        // others taken; and the start after, which finds it as that one kept it, takes it too.
        std::fs::write(root.join("sub/c.md"), "[[a]] [[nowhere]] [[pic.png]]").unwrap();
        age_file(&root.join("sub/c.md"));
        assert_eq!(warm_equals_cold(&root), 6);
        assert_eq!(warm_equals_cold(&root), 7);
        age_file(&root.join("b.md"));
        assert_eq!(warm_equals_cold(&root), 6);
        assert_eq!(warm_equals_cold(&root), 7);
        std::fs::write(root.join("b.md"), "---\naliases: [Other]\n---\n[[a]]").unwrap();
        age_file(&root.join("b.md"));
        assert_eq!(warm_equals_cold(&root), 6);
        assert_eq!(warm_equals_cold(&root), 7);
        // The settings changed: resolution reads none of them, and the answers stay a cold start's.
        std::fs::create_dir_all(root.join(".obsidian")).unwrap();
        std::fs::write(root.join(".obsidian/app.json"), r#"{"userIgnoreFilters": ["sub/"], "newLinkFormat": "absolute"}"#).unwrap();
        assert_eq!(warm_equals_cold(&root), 7);
    }

    #[test]
    fn any_change_of_paths_resolves_every_link_again() {
        type Change = fn(&Path);
        let changes: [(&str, Change); 4] = [
            ("renamed", |root| std::fs::rename(root.join("b.md"), root.join("bee.md")).unwrap()),
            ("deleted", |root| std::fs::remove_file(root.join("one/twin.md")).unwrap()),
            // A note whose name a link elsewhere was missing: it now resolves there.
            ("added, capturing links", |root| std::fs::write(root.join("later.md"), "new").unwrap()),
            ("added in another folder", |root| std::fs::write(root.join("sub/b.md"), "closer b").unwrap()),
        ];
        for (what, change) in changes {
            let (_vault, root) = seen_vault();
            change(&root);
            assert_eq!(warm_equals_cold(&root), 0, "{what}: resolutions were taken");
            // The next start, with the paths as this one saw them, takes them again.
            assert!(warm_equals_cold(&root) > 0, "{what}: resolutions were not kept again");
        }
    }

    #[test]
    fn a_kept_resolution_out_of_range_is_resolved_again() {
        let (_vault, root) = seen_vault();
        let path = file_of(&root).unwrap();
        let bytes = read_no_follow(&path).unwrap().unwrap();
        let (mut stored, walked_at) = decode(&bytes, &root).unwrap();
        let mut damaged = 0;
        for entry in stored.entries.iter_mut().filter(|entry| entry.targets.len() > 1) {
            // Every target names the 127th file of a vault of seven: a well-formed file with a
            // checksum of its own, and a table that cannot be right.
            let count = entry.targets[0];
            entry.targets = std::iter::once(count).chain(std::iter::repeat_n(0x7f, count as usize)).collect();
            damaged += 1;
        }
        assert!(damaged >= 3, "{stored:?}");
        save(&root, &stored, walked_at);
        let taken = warm_equals_cold(&root);
        assert!(taken < 7, "{taken} files took a damaged table");
    }

    #[test]
    fn pending_changes_are_carried_forward_until_they_no_longer_matter() {
        let day = 24 * 60 * 60;
        let start = UNIX_EPOCH + Duration::from_secs(100 * day);
        // A start sees a.md moved to b.md.
        let before = [note("a.md", "alpha"), note("c.md", "gamma")];
        let now = [note("b.md", "alpha"), note("c.md", "gamma")];
        let first = Pending::default().carried(&before, &now, start);
        assert_eq!(first.vanished, [Vanished { note: note("a.md", "alpha"), since: 100 * day as i64 }]);
        assert_eq!(first.appeared, [Appeared { path: "b.md".into(), since: 100 * day as i64 }]);
        // The next start compares with the file that start wrote: nothing new, the move still
        // pending, with the time it was first seen.
        let second = first.carried(&now, &now, start + Duration::from_secs(day));
        assert_eq!(second, first);
        // A note back at its path drops out, and so does one that appeared and is gone again.
        let back = [note("a.md", "other bytes"), note("b.md", "alpha"), note("c.md", "gamma")];
        let third = second.carried(&back, &back, start + Duration::from_secs(2 * day));
        assert!(third.vanished.is_empty(), "{third:?}");
        assert_eq!(third.appeared, first.appeared);
        let gone = [note("c.md", "gamma")];
        let fourth = second.carried(&gone, &gone, start + Duration::from_secs(2 * day));
        assert_eq!(fourth.vanished, first.vanished);
        assert!(fourth.appeared.is_empty(), "{fourth:?}");
        // Past 30 days a change is settled.
        let late = second.carried(&now, &now, start + PENDING_FOR + Duration::from_secs(2));
        assert!(late.vanished.is_empty() && late.appeared.is_empty(), "{late:?}");
        // Past the count, the newest are kept.
        let many: Vec<SeenNote> = (0..MAX_PENDING + 5).map(|at| note(&format!("n{at}.md"), &format!("{at}"))).collect();
        let mut old = Pending::default();
        old.vanished.push(Vanished { note: note("oldest.md", "x"), since: 10 });
        let bounded = old.carried(&many, &[], start);
        assert_eq!(bounded.vanished.len(), MAX_PENDING);
        assert!(bounded.vanished.iter().all(|gone| gone.note.path != "oldest.md"));
    }

    #[test]
    fn a_file_of_an_earlier_layout_is_rebuilt() {
        // Layout 3 kept no target of a name several files share, and wrote each other target as
        // its rank plus one, which this layout reads as another file: such a file is refused.
        for format in 1..FORMAT {
            let root = Path::new("/vaults/one");
            let mut bytes = encode(&sample(), root, UNIX_EPOCH + Duration::from_secs(5_000));
            bytes[MAGIC.len()..MAGIC.len() + 4].copy_from_slice(&format.to_le_bytes());
            let body = bytes.len() - 16;
            let checksum = xxhash_rust::xxh3::xxh3_128(&bytes[..body]);
            bytes[body..].copy_from_slice(&checksum.to_le_bytes());
            assert_eq!(decode(&bytes, root).unwrap_err(), format!("it has layout {format}, this version reads {FORMAT}"));
        }
    }

    #[test]
    fn previous_notes_are_the_file_as_it_was_before_this_start_wrote_it() {
        let vault = tempfile::tempdir().unwrap();
        let root = crate::standalone::canonical_vault(vault.path()).unwrap();
        test_cache();
        std::fs::write(root.join("a.md"), "first [[b]]").unwrap();
        std::fs::write(root.join("b.md"), "bee").unwrap();
        let mut first = crate::standalone::FolderIndex::new(root.clone()).persistent();
        first.refresh().unwrap();
        // The next process: it remembers nothing yet.
        remembered().lock().unwrap().clear();
        std::fs::write(root.join("a.md"), "second, longer [[b]]").unwrap();
        std::fs::remove_file(root.join("b.md")).unwrap();
        let mut next = crate::standalone::FolderIndex::new(root.clone()).persistent();
        next.refresh().unwrap();
        let mut previous = previous_notes(&root).unwrap();
        previous.sort_by(|one, other| one.path.cmp(&other.path));
        assert_eq!(
            previous,
            vec![
                SeenNote { path: "a.md".into(), size: 11, hash: xxhash_rust::xxh3::xxh3_128(b"first [[b]]") },
                SeenNote { path: "b.md".into(), size: 3, hash: xxhash_rust::xxh3::xxh3_128(b"bee") },
            ]
        );
        // The file itself now holds this start's view.
        let now = load_unremembered(&root).unwrap();
        assert_eq!(now.entries.iter().map(|entry| entry.path.as_str()).collect::<Vec<_>>(), ["a.md"]);
        assert_eq!(now.entries[0].hash, xxhash_rust::xxh3::xxh3_128(b"second, longer [[b]]"));
    }

    #[test]
    fn a_file_reads_back_as_written() {
        let root = Path::new("/vaults/one");
        let bytes = encode(&sample(), root, UNIX_EPOCH + Duration::from_secs(5_000));
        let (stored, walked_at) = decode(&bytes, root).unwrap();
        assert_eq!(stored, sample());
        assert_eq!(walked_at, UNIX_EPOCH + Duration::from_secs(5_000));
    }

    #[test]
    fn a_note_written_within_a_tick_of_the_walk_is_not_sure() {
        let root = Path::new("/vaults/one");
        let bytes = encode(&sample(), root, UNIX_EPOCH + Duration::new(1_001, 0));
        let (stored, _) = decode(&bytes, root).unwrap();
        assert!(!stored.entries[0].sure);
    }

    #[test]
    fn every_damage_is_refused_never_misread() {
        let root = Path::new("/vaults/one");
        let bytes = encode(&sample(), root, UNIX_EPOCH + Duration::from_secs(5_000));
        // Every byte flipped and every cut is caught (by the checksum or a check before it).
        for at in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x40;
            assert!(decode(&damaged, root).is_err(), "a flip at {at} was read");
            assert!(decode(&bytes[..at], root).is_err(), "a cut at {at} was read");
        }
        assert!(decode(&bytes, Path::new("/vaults/two")).is_err(), "another vault's file was read");
    }

    #[test]
    fn a_file_another_version_wrote_is_refused_whole() {
        let root = Path::new("/vaults/one");
        let bytes = encode_as("0.0.1-other", &sample(), root, UNIX_EPOCH + Duration::from_secs(5_000));
        assert_eq!(decode(&bytes, root).unwrap_err(), format!("another version of vaultlink wrote it; this is {ENGINE}"));
    }

    /// The sketches a lint made are kept in the index file: the next start reads no note to
    /// sketch it, and its lint answers as an index that sketched every note itself.
    #[test]
    fn sketches_a_lint_made_are_kept_for_the_next_start() {
        test_cache();
        let vault = tempfile::tempdir().unwrap();
        let root = crate::standalone::canonical_vault(vault.path()).unwrap();
        let body = "Spaced repetition schedules each review just before you would forget the card, so the interval between \
reviews grows every time you recall it correctly and shrinks when you fail, because retrieval strengthens memory more than \
rereading does and spacing gives memory time to consolidate.";
        for (path, text) in
            [("a.md", format!("{body} Flashcards.")), ("b.md", format!("---\ntags: [x]\n---\n{body} Paper.")), ("c.md", "short".to_owned())]
        {
            std::fs::write(root.join(path), text).unwrap();
        }
        age(&root);
        let lint = |index: &mut crate::standalone::FolderIndex| {
            let progress = crate::progress::Progress::none();
            crate::tools::run_on_folder_with(
                &crate::disk::RealDisk,
                index,
                "lint_wiki",
                &serde_json::json!({"kinds": ["near_duplicate"]}),
                &progress,
            )
            .unwrap()
        };
        let mut first = crate::standalone::FolderIndex::new(root.clone()).persistent();
        first.refresh().unwrap();
        assert!(first.vault().sketch("a.md").is_none(), "indexing sketches nothing");
        let answer = lint(&mut first);
        assert_eq!(answer["proposals"][0]["related"], serde_json::json!(["b.md"]), "{answer}");
        let mut next = crate::standalone::FolderIndex::new(root.clone()).persistent();
        next.refresh().unwrap();
        assert!(["a.md", "b.md", "c.md"].iter().all(|path| next.vault().sketch(path).is_some()), "kept in the index file");
        assert_eq!(lint(&mut next), answer);
        // A note edited since is sketched again from its new text.
        std::fs::write(root.join("b.md"), "nothing alike").unwrap();
        age_file(&root.join("b.md"));
        let mut after = crate::standalone::FolderIndex::new(root.clone()).persistent();
        after.refresh().unwrap();
        assert!(after.vault().sketch("b.md").is_none() && after.vault().sketch("a.md").is_some());
        assert_eq!(lint(&mut after)["proposals"], serde_json::json!([]));
    }
}
