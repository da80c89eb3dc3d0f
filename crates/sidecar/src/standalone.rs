//! The vault as a folder on disk: found, read and kept current without Obsidian.
//!
//! The MCP server keeps its index live: the folder is watched (`watch`), and each call first
//! applies what changed since the last one, reading only those files (a folder that appeared or
//! changed itself is walked). Whenever the watcher cannot prove that it reported every change
//! (it could not start, it overflowed or failed, its barrier did not arrive) the call walks the
//! whole folder instead, reading only the files whose size or modification time changed; so does
//! every call of a command of the command line, which reads the folder once. Either way a call
//! sees every edit made by anyone before it began, and the index is the one a fresh walk gives.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};
use vaultlink_core::error::ErrorCode;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};
use vaultlink_core::canvas::is_canvas_path;
use vaultlink_core::index::is_note_path;
use vaultlink_core::index::{IndexConfig, Prepared};
use vaultlink_core::link_form::RewriteForm;
use vaultlink_core::step::StepError;
use vaultlink_core::Vault;

use crate::watch::Watch;

/// Files changed at once from which reading and parsing run on several threads.
const PARALLEL_FROM: usize = 64;
/// How many entries of the persistent index a warm start decodes before it frees their bytes.
const DECODE_SLICE: usize = 4_096;
/// The most threads that read and parse.
const MAX_THREADS: usize = 8;
/// How many notes are read and sketched at once for `near_duplicate`: their texts are freed
/// before the next slice is read.
const SKETCH_SLICE: usize = 4_096;

/// What a file looked like when it was read: modification time, size and inode (0 where the
/// platform has none).
type Stamp = (Option<SystemTime>, u64, u64);

/// The largest note read (core's, which also bounds a page `commit_wiki_page` writes); a larger
/// one is indexed without its links and a warning is logged. 16 MiB is 30 times the largest
/// note in the corpora we test on.
pub const MAX_NOTE_BYTES: u64 = vaultlink_core::parameters::MAX_NOTE_BYTES as u64;

/// While indexing, a progress notification every this many files read (and none when fewer
/// files changed, which is every refresh but the first of a big vault).
const PROGRESS_EVERY_FILES: usize = 500;

/// After the watcher failed twice in a row, or could not start, calls walk the folder for this
/// long before a new watcher is tried.
const WATCH_RETRY_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// The vault's Obsidian settings, which the index follows.
const APP_JSON: &str = ".obsidian/app.json";

/// Resolves the vault folder to its canonical absolute path, with a clear error when it is
/// not a folder.
pub fn canonical_vault(path: &Path) -> Result<PathBuf> {
    // `dunce` gives `C:\…` rather than `\\?\C:\…` on Windows where that names the same folder,
    // as the plugin's path does.
    let canonical = dunce::canonicalize(path).with_context(|| format!("the vault folder {} cannot be opened", path.display()))?;
    if !canonical.is_dir() {
        bail!("{} is not a folder; give the vault's folder", path.display());
    }
    Ok(canonical)
}

/// A file taken from the persistent index: its path, what the index keeps of it, and what its
/// links resolved to (core's flat encoding; empty when they are resolved again).
type Taken = (String, Prepared, Vec<u8>);

/// A vault folder and its index.
#[derive(Debug)]
pub struct FolderIndex {
    root: PathBuf,
    vault: Vault,
    /// What each indexed file looked like when it was read, by path (in order, so that the
    /// files below a folder are one range).
    seen: BTreeMap<String, Stamp>,
    /// What `.obsidian/app.json` looked like when it was read.
    config_stamp: Option<Stamp>,
    /// How a rewritten link is written (`--link-form`), added to what `app.json` asks.
    link_form: RewriteForm,
    /// How the index follows the folder.
    updates: Updates,
    /// Whole walks of the folder so far, the first index included.
    full_walks: u64,
    /// Why the live index was last left for a walk.
    last_fallback: Option<String>,
    /// Live refreshes that failed since the last that worked.
    failures_in_a_row: u32,
    /// The plan hashes this server's previews gave and those it applied, for core's approval.
    pub plans: vaultlink_core::approval::PlanHistory,
    /// Whether the index is kept between starts in the persistent index (`store`).
    persistent: bool,
    /// Of each file read: `xxh3_128` of its bytes, and whether its stamp proves it unchanged
    /// (its modification time was over one coarse tick before the walk that read it began).
    hashes: HashMap<String, (u128, bool)>,
    /// How many files the first index filed with the resolutions the persistent index kept,
    /// rather than resolving their links again.
    kept_resolutions: usize,
    /// When the walk that brought the index up to date last began, when the last refresh was a
    /// whole walk (not the watcher's changes): then the persistent index may be written again
    /// as of that walk, as after keeping new sketches.
    last_whole_walk: Option<SystemTime>,
}

/// How the index follows the folder.
#[derive(Debug)]
enum Updates {
    /// Each refresh walks the whole folder, for `reason`; from `retry_at` on, the next refresh
    /// tries to watch it instead.
    Walk { reason: String, retry_at: Option<Instant> },
    /// The folder is watched: each refresh applies the changes reported since the last.
    Live(Watch),
}

/// A walk failed because a folder could not be watched: walk again without watching.
#[derive(Debug)]
struct NotWatched(String);

impl std::fmt::Display for NotWatched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for NotWatched {}

/// What a changed path holds now, by the walk's rules.
enum Found {
    /// Nothing the walk would index: no file, or one below a hidden name, a symbolic link or
    /// something that is not a folder.
    Nothing,
    File(Stamp),
    Folder,
}

impl FolderIndex {
    /// The folder's index, configured as the vault's `.obsidian/app.json` asks (Obsidian's
    /// defaults when there is none), walked whole on every refresh: for one command, which reads
    /// the folder once.
    pub fn new(root: PathBuf) -> FolderIndex {
        FolderIndex::with_updates(root, Updates::Walk { reason: "one command reads the folder once".to_owned(), retry_at: None })
    }

    /// The folder's index, kept live by watching the folder from the first refresh on, for a
    /// server that answers while others edit the vault.
    pub fn live(root: PathBuf) -> FolderIndex {
        FolderIndex::with_updates(root, Updates::Walk { reason: "not indexed yet".to_owned(), retry_at: Some(Instant::now()) })
    }

    /// A server's index whose watcher is unavailable, as on a network drive: every refresh walks.
    #[cfg(test)]
    pub fn without_watcher(root: PathBuf) -> FolderIndex {
        FolderIndex::with_updates(root, Updates::Walk { reason: "the watcher is unavailable (a test)".to_owned(), retry_at: None })
    }

    fn with_updates(root: PathBuf, updates: Updates) -> FolderIndex {
        let link_form = crate::link_form::chosen();
        let (config, config_stamp) = read_config(&root, link_form);
        FolderIndex {
            root,
            vault: Vault::new(config),
            seen: BTreeMap::new(),
            config_stamp,
            link_form,
            updates,
            full_walks: 0,
            last_fallback: None,
            failures_in_a_row: 0,
            plans: Default::default(),
            persistent: false,
            hashes: HashMap::new(),
            kept_resolutions: 0,
            last_whole_walk: None,
        }
    }

    /// The same index, started from the persistent index of the vault and kept in it after each
    /// walk of the folder (`store`): for the command line and the server, never for tests that
    /// do not ask.
    pub fn persistent(mut self) -> FolderIndex {
        self.persistent = true;
        self
    }

    /// How many files the first index filed with the resolutions the persistent index kept.
    #[cfg(test)]
    pub fn kept_resolutions(&self) -> usize {
        self.kept_resolutions
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The watcher, while the index is live.
    #[cfg(all(test, any(target_os = "linux", target_os = "android")))]
    fn watch(&self) -> Option<&Watch> {
        match &self.updates {
            Updates::Live(watch) => Some(watch),
            Updates::Walk { .. } => None,
        }
    }

    pub fn vault(&self) -> &Vault {
        &self.vault
    }

    /// How the index follows the folder now, and why, for `server_health`.
    pub fn updates(&self) -> Value {
        let (mode, mut reason) = match &self.updates {
            Updates::Live(_) => {
                ("live", "the folder is watched (inotify): each call first reads the files changed since the last".to_owned())
            }
            Updates::Walk { reason, .. } => ("walk", format!("each call walks the whole folder: {reason}")),
        };
        if let Some(fallback) = self.last_fallback.as_ref().filter(|_| mode == "live") {
            reason.push_str(&format!("; the last time the watcher could not be trusted ({fallback}), the call walked the folder"));
        }
        json!({"mode": mode, "reason": reason})
    }

    /// Brings the index up to date with the folder, first undoing a change that a process
    /// which has since gone left half made (see `journal`).
    pub fn refresh(&mut self) -> Result<()> {
        self.refresh_with(&crate::progress::Progress::none())
    }

    /// Brings the index up to date with the folder, reporting progress while many files are
    /// read (the first index of a big vault). A change that a process which has since gone
    /// left half made is undone first (see `journal`).
    pub fn refresh_with(&mut self, progress: &crate::progress::Progress) -> Result<()> {
        crate::journal::recover_if_interrupted(&self.root).map_err(|error| anyhow::anyhow!("{} {}", error.message, error.hint))?;
        self.follow_config();
        let updates = std::mem::replace(&mut self.updates, Updates::Walk { reason: String::new(), retry_at: None });
        let watch_now = match updates {
            Updates::Live(mut watch) => {
                let applied = watch.changes().and_then(|changed| {
                    self.apply_changes(&mut watch, &changed, progress)
                        .map_err(|error| format!("reading the reported changes failed ({error:#})"))
                });
                match applied {
                    Ok(()) => {
                        self.last_whole_walk = None;
                        self.updates = Updates::Live(watch);
                        self.failures_in_a_row = 0;
                        return Ok(());
                    }
                    Err(reason) => {
                        tracing::warn!("the live index cannot be trusted ({reason}); walking the whole folder");
                        drop(watch);
                        self.last_fallback = Some(reason.clone());
                        self.failures_in_a_row += 1;
                        // A watcher that fails again at once is given a rest: walking is what
                        // the calls would do anyway.
                        if self.failures_in_a_row < 2 {
                            Ok(())
                        } else {
                            Err(format!("the live index failed twice in a row, last: {reason}"))
                        }
                    }
                }
            }
            Updates::Walk { reason, retry_at } if retry_at.is_none_or(|at| Instant::now() < at) => {
                self.updates = Updates::Walk { reason, retry_at };
                return self.walk_all(None, progress);
            }
            Updates::Walk { .. } => Ok(()),
        };
        let watch = watch_now.and_then(|()| Watch::start(&self.root));
        match watch {
            Ok(mut watch) => match self.walk_all(Some(&mut watch), progress) {
                Ok(()) => {
                    self.updates = Updates::Live(watch);
                    Ok(())
                }
                Err(error) => match error.downcast::<NotWatched>() {
                    Ok(NotWatched(reason)) => self.walk_without_watching(reason, progress),
                    // The folder could not be read: the next call tries again from the start.
                    Err(error) => {
                        self.updates =
                            Updates::Walk { reason: format!("the last walk failed ({error:#})"), retry_at: Some(Instant::now()) };
                        Err(error)
                    }
                },
            },
            Err(reason) => self.walk_without_watching(reason, progress),
        }
    }

    /// Walks the whole folder, and keeps doing so for a while, for `reason`.
    fn walk_without_watching(&mut self, reason: String, progress: &crate::progress::Progress) -> Result<()> {
        tracing::info!("the vault folder is not watched ({reason}); each call walks it");
        self.updates = Updates::Walk { reason, retry_at: Some(Instant::now() + WATCH_RETRY_AFTER) };
        self.walk_all(None, progress)
    }

    /// Writes rewritten links in `form` from now on, whatever the process was started with.
    #[cfg(test)]
    pub fn use_link_form(&mut self, form: RewriteForm) {
        self.link_form = form;
        self.vault.reconfigure(IndexConfig { link_form: form, ..self.vault.config().clone() });
    }

    /// Reads `.obsidian/app.json` again when it changed, and reconfigures the index.
    fn follow_config(&mut self) {
        if stamp_of(&self.root.join(APP_JSON)) == self.config_stamp {
            return;
        }
        let (config, stamp) = read_config(&self.root, self.link_form);
        self.config_stamp = stamp;
        if config != *self.vault.config() {
            self.vault.reconfigure(config);
        }
    }

    /// Walks the whole folder, reads the files whose stamp changed and forgets those gone; with
    /// `watch`, watches every folder it enters before reading it.
    fn walk_all(&mut self, watch: Option<&mut Watch>, progress: &crate::progress::Progress) -> Result<()> {
        let walked_at = SystemTime::now();
        let mut found = Vec::new();
        walk(&self.root, "", &mut found, watch)?;
        let mut present = HashSet::with_capacity(found.len());
        let mut changes = Vec::new();
        // Whether the persistent index, as it is, holds this walk's index: then it is not written.
        let mut stored_holds_it = false;
        // Files the persistent index holds unchanged but without what the index keeps of them
        // (a `SCHEMA.md`): read on every start, they are no reason to write the file again.
        let mut unchanged_unkept = 0;
        // The files taken from the persistent index, entered with those read.
        let mut taken = Vec::new();
        if self.persistent && self.full_walks == 0 && self.seen.is_empty() {
            // The files taken from the persistent index are present, and seen as they are.
            present.extend(found.iter().map(|(path, _)| path.clone()));
            let unread;
            (unread, taken, stored_holds_it, unchanged_unkept) = self.take_stored(found);
            found = unread;
        }
        for (path, stamp) in found {
            if self.seen.get(&path) != Some(&stamp) {
                changes.push((path.clone(), Some(stamp)));
            }
            present.insert(path);
        }
        changes.extend(self.seen.keys().filter(|path| !present.contains(*path)).map(|path| (path.clone(), None)));
        self.full_walks += 1;
        let changed = if stored_holds_it { changes.len() > unchanged_unkept } else { !changes.is_empty() || self.full_walks == 1 };
        self.take_in_with(changes, walked_at, progress, taken);
        if self.persistent && changed {
            self.save_stored(walked_at);
        }
        self.last_whole_walk = Some(walked_at);
        Ok(())
    }

    /// Sketches the notes `request` needs sketched and core asks for (`ops::sketches_needed`), reading and
    /// sketching [`SKETCH_SLICE`] notes at a time on every core, so that only one slice of texts
    /// is held however large the vault; the index keeps the sketches. When any were made after a
    /// whole walk, the persistent index is written again with them, so the next command does not
    /// read those notes again.
    pub fn sketch_for(&mut self, request: &vaultlink_core::ops::Request) {
        let wanted = vaultlink_core::ops::sketches_needed(&mut self.vault, request);
        if wanted.is_empty() {
            return;
        }
        let started = Instant::now();
        let mut kept = 0;
        for slice in wanted.chunks(SKETCH_SLICE) {
            let sketches = on_every_core(slice, |path| {
                let size = self.seen.get(path).map_or(0, |stamp| stamp.1);
                // Read by the rules the index read it by: a note that cannot be read is sketched
                // as the empty text it was indexed as.
                let text = self.read_note(path, size, false).0;
                vaultlink_core::sketch::Sketch::of_note(&text)
            });
            for (path, sketch) in slice.iter().zip(sketches) {
                kept += usize::from(self.vault.keep_sketch(path, sketch));
            }
        }
        tracing::info!("sketched {kept} notes for near_duplicate in {} ms", started.elapsed().as_millis());
        if let (true, Some(walked_at)) = (self.persistent && kept > 0, self.last_whole_walk) {
            self.save_stored(walked_at);
        }
    }

    /// Takes from the persistent index every file of `found` whose stamp proves it unchanged
    /// since it was kept (the same modification time, size and inode, the time over one coarse
    /// tick before the walk that read it) and whose kept data core reads back whole; returns the
    /// others, to be read; those taken, each with what its links resolved to when the walk found
    /// exactly the paths the file holds (else nothing, and they are resolved again); whether the
    /// file held exactly the files found, unchanged; and how many of those it holds without what
    /// the index keeps of them.
    fn take_stored(&mut self, found: Vec<(String, Stamp)>) -> (Vec<(String, Stamp)>, Vec<Taken>, bool, usize) {
        let Some(stored) = crate::store::load(&self.root) else {
            return (found, Vec::new(), false, 0);
        };
        let parse = self.vault.config().parse;
        if stored.max_links != parse.max_links as u64 {
            tracing::info!("the persistent index was kept with other parse settings; the vault is indexed from its notes");
            return (found, Vec::new(), false, 0);
        }
        let stored_files = stored.entries.len();
        // A link resolves by its note's path, itself and the paths of the vault's files, nothing
        // else (not the settings, not the other notes' text): when the walk found exactly the
        // paths the file holds, in its order, a note unchanged since resolves as it did then.
        let same_paths = stored.entries.len() == found.len() && stored.entries.windows(2).all(|pair| pair[0].path < pair[1].path) && {
            let paths: HashSet<&str> = stored.entries.iter().map(|entry| entry.path.as_str()).collect();
            found.iter().all(|(path, _)| paths.contains(path.as_str()))
        };
        // Each entry with its place in the file, which is path order.
        let mut kept: HashMap<String, (usize, crate::store::Entry)> = stored
            .entries
            .into_iter()
            .enumerate()
            .filter(|(_, entry)| entry.sure)
            .map(|(at, entry)| (entry.path.clone(), (at, entry)))
            .collect();
        let mut unkept = 0;
        let mut places = Vec::with_capacity(found.len());
        let mut found: Vec<((String, Stamp), Option<crate::store::Entry>)> = found
            .into_iter()
            .map(|(path, stamp)| {
                let unchanged = kept.remove(&path).filter(|(_, entry)| (entry.mtime, entry.size, entry.inode) == stamp);
                // An empty `kept` is a file whose index core does not encode: read, but unchanged.
                unkept += usize::from(unchanged.as_ref().is_some_and(|(_, entry)| entry.kept.is_empty()));
                places.push(unchanged.as_ref().map_or(usize::MAX, |(at, _)| *at));
                ((path, stamp), unchanged.map(|(_, entry)| entry))
            })
            .collect();
        // Decoding is most of a warm start's cost after the walk, and each entry's is its own. It
        // goes a slice of entries at a time, each slice's kept bytes freed once decoded, so that
        // the encoded vault and the decoded one are never both held whole.
        let mut decoded = Vec::with_capacity(found.len());
        for slice in found.chunks_mut(DECODE_SLICE) {
            decoded.extend(on_every_core(slice, |(_, unchanged)| {
                let entry = unchanged.as_ref()?;
                let prepared = vaultlink_core::index::kept::decode(&entry.kept, entry.size, &parse)?;
                Some((prepared, entry.hash))
            }));
            for entry in slice.iter_mut().filter_map(|(_, unchanged)| unchanged.as_mut()) {
                entry.kept = Vec::new();
            }
        }
        let mut unread = Vec::new();
        // The files taken go to the index in the file's order, which is their paths': it enters
        // them so (`Vault::insert_kept_many`), and would otherwise sort them.
        let mut taken_at: Vec<Option<Taken>> = Vec::new();
        taken_at.resize_with(stored_files, || None);
        for ((((path, stamp), entry), prepared), at) in found.into_iter().zip(decoded).zip(places) {
            match (prepared, taken_at.get_mut(at)) {
                (Some((prepared, hash)), Some(place)) => {
                    self.seen.insert(path.clone(), stamp);
                    self.hashes.insert(path.clone(), (hash, true));
                    let targets = entry.filter(|_| same_paths).map(|entry| entry.targets).unwrap_or_default();
                    *place = Some((path, prepared, targets));
                }
                _ => unread.push((path, stamp)),
            }
        }
        let taken: Vec<Taken> = taken_at.into_iter().flatten().collect();
        tracing::info!("the persistent index gave {} files; {} are read", taken.len(), unread.len());
        let holds_all = unread.len() == unkept && taken.len() + unkept == stored_files;
        (unread, taken, holds_all, unkept)
    }

    /// Keeps the index in the persistent index, for the next start.
    fn save_stored(&self, walked_at: SystemTime) {
        let hash_of = |path: &String| self.hashes.get(path).copied().unwrap_or((0, false));
        // The changes made outside vaultlink are carried forward: those the file kept pending and
        // those between the notes it held and these, so that no save loses a move not healed.
        let now: Vec<vaultlink_core::SeenNote> = self
            .seen
            .iter()
            .filter(|(path, _)| is_note_path(path))
            .map(|(path, &(_, size, _))| vaultlink_core::SeenNote { path: path.clone(), size, hash: hash_of(path).0 })
            .collect();
        let pending = match crate::store::previous(&self.root) {
            Some((before, pending)) => pending.carried(&before, &now, SystemTime::now()),
            None => crate::store::Pending::default(),
        };
        drop(now);
        // Each entry's kept bytes are encoded as the file is written, never all at once.
        let ranks = vaultlink_core::index::kept::ranks(&self.vault);
        // Resolutions name files by their place among the entries, which are the index's files:
        // kept only when the two hold the same paths.
        let same_paths = self.seen.len() == self.vault.paths().count();
        let entries = self.seen.iter().map(|(path, &(mtime, size, inode))| {
            let (hash, sure) = hash_of(path);
            let kept = vaultlink_core::index::kept::of_file(&self.vault, path).unwrap_or_default();
            let targets = if same_paths { vaultlink_core::index::kept::targets_of(&self.vault, &ranks, path) } else { Vec::new() };
            crate::store::Entry { path: path.clone(), size, mtime, inode, hash, sure, kept, targets }
        });
        let max_links = self.vault.config().parse.max_links as u64;
        crate::store::save_each(&self.root, max_links, self.seen.len(), entries, &pending, walked_at);
    }

    /// Brings the index up to date with the vault paths the watcher reported, by the walk's
    /// rules: a path that holds a file is read again, one that holds a folder is walked (it
    /// appeared, was renamed into place or changed itself), and whatever was indexed at or below
    /// a path that holds neither is forgotten.
    fn apply_changes(&mut self, watch: &mut Watch, changed: &BTreeSet<String>, progress: &crate::progress::Progress) -> Result<()> {
        // Path to its stamp (read it) or `None` (forget it). Paths are looked at in order, a
        // folder before what is in it, and a later look wins: it saw the disk later.
        let looked_at = SystemTime::now();
        let mut changes: BTreeMap<String, Option<Stamp>> = BTreeMap::new();
        let mut looks = Looks::default();
        for path in changed {
            let found = looks.at(&self.root, path)?;
            // Whatever was below the path is gone, unless the walk of a folder there finds it.
            self.forget_below(&mut changes, path);
            if !path.is_empty() {
                changes.insert(path.clone(), None);
            }
            match found {
                Found::Nothing => {}
                // Read even when its stamp looks the same: the watcher said it changed.
                Found::File(stamp) => {
                    changes.insert(path.clone(), Some(stamp));
                }
                Found::Folder => {
                    let mut found = Vec::new();
                    let folder = if path.is_empty() { self.root.clone() } else { self.root.join(path) };
                    walk(&folder, path, &mut found, Some(watch))?;
                    for (path, stamp) in found {
                        if self.seen.get(&path) == Some(&stamp) {
                            changes.remove(&path);
                        } else {
                            changes.insert(path, Some(stamp));
                        }
                    }
                }
            }
        }
        let changes = changes.into_iter().filter(|(path, stamp)| stamp.is_some() || self.seen.contains_key(path)).collect();
        self.take_in(changes, looked_at, progress);
        Ok(())
    }

    /// Marks every file indexed below the folder `path`, or found below it so far, as gone.
    fn forget_below(&self, changes: &mut BTreeMap<String, Option<Stamp>>, path: &str) {
        for (_, stamp) in changes.range_mut(below(path)) {
            *stamp = None;
        }
        for (path, _) in self.seen.range(below(path)) {
            changes.insert(path.clone(), None);
        }
    }

    /// Reads and indexes the files given a stamp, and forgets those given `None`; the stamps were
    /// taken after `looked_at`.
    fn take_in(&mut self, changes: Vec<(String, Option<Stamp>)>, looked_at: SystemTime, progress: &crate::progress::Progress) {
        self.take_in_with(changes, looked_at, progress, Vec::new());
    }

    /// [`Self::take_in`], on a first index entering `taken` (files from the persistent index,
    /// each with what its links resolved to, or nothing) with the files read.
    fn take_in_with(
        &mut self,
        changes: Vec<(String, Option<Stamp>)>,
        looked_at: SystemTime,
        progress: &crate::progress::Progress,
        mut taken: Vec<Taken>,
    ) {
        let mut changed = Vec::new();
        for (path, stamp) in changes {
            match stamp {
                Some(stamp) => changed.push((path, stamp)),
                None => {
                    self.vault.remove(&path);
                    self.seen.remove(&path);
                    self.hashes.remove(&path);
                }
            }
        }
        let count = changed.len();
        let progress = (count >= PROGRESS_EVERY_FILES).then_some(progress);
        if let Some(progress) = progress {
            progress.report(0.0, Some(count as f64), format!("indexing the vault folder: {count} files to read"));
        }
        let prepared = self.prepare_all(&changed, progress);
        let tick_before = looked_at.checked_sub(crate::store::COARSE_TICK).unwrap_or(std::time::UNIX_EPOCH);
        let mut batch = Vec::with_capacity(changed.len());
        for ((path, stamp), (prepared, hash)) in changed.into_iter().zip(prepared) {
            batch.push((path.clone(), prepared));
            if self.persistent {
                // A note or canvas that could not be read (hash 0) is read again next start.
                let read = hash != 0 || !(is_note_path(&path) || is_canvas_path(&path));
                self.hashes.insert(path.clone(), (hash, read && stamp.0.is_some_and(|mtime| mtime < tick_before)));
            }
            self.seen.insert(path, stamp);
        }
        if taken.is_empty() {
            self.vault.insert_prepared_many(batch);
        } else {
            taken.extend(batch.into_iter().map(|(path, prepared)| (path, prepared, Vec::new())));
            self.kept_resolutions = self.vault.insert_kept_many(taken);
            tracing::info!("{} files' links were taken resolved from the persistent index", self.kept_resolutions);
        }
        if let Some(progress) = progress {
            progress.report(count as f64, Some(count as f64), format!("indexed {count} files"));
        }
    }

    /// The folder as a call's edge: notes' texts read from disk now (`tool`'s progress reported
    /// while `find_evidence` reads the whole vault), modification times, and this process's id.
    /// For a call that `writes`, a note is read exactly or not at all ([`Self::read_exact_text`]).
    pub fn edge<'a>(&'a self, tool: &str, writes: bool, progress: &'a crate::progress::Progress) -> FolderEdge<'a> {
        FolderEdge { folder: self, progress, reads: 0, evidence: tool == "find_evidence", writes }
    }

    /// Reads a note's text for a tool, refusing a file that a symbolic link leads out of the
    /// vault. Bytes that are not UTF-8 are read as U+FFFD, which is what a reading tool shows.
    pub fn read_text(&self, path: &str) -> Result<String, vaultlink_core::error::CallError> {
        self.read_bytes(path)
            .map(|bytes| String::from_utf8(bytes).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()))
    }

    /// Reads a note's text for a call that may write it, as it is, byte for byte: a note that is
    /// not UTF-8 is refused (`unwritable_note`, saying what to do), not read as U+FFFD, which a
    /// plan would write back over its bytes, or take for a note changed since and refuse as
    /// `concurrent_modification` on every try (issue 21).
    pub fn read_exact_text(&self, path: &str) -> Result<String, vaultlink_core::error::CallError> {
        String::from_utf8(self.read_bytes(path)?).map_err(|_| StepError::NotUtf8 { path: path.to_owned() }.error())
    }

    /// A note's bytes, refusing a file a symbolic link leads out of the vault, or one over
    /// [`MAX_NOTE_BYTES`].
    pub(crate) fn read_bytes(&self, path: &str) -> Result<Vec<u8>, vaultlink_core::error::CallError> {
        let full = self.root.join(path);
        let canonical = std::fs::canonicalize(&full).map_err(|error| {
            vaultlink_core::error::CallError::new(
                ErrorCode::NoteNotFound,
                format!("`{path}` cannot be opened: {error}"),
                "Call list_notes to see the paths.",
                true,
            )
        })?;
        if !canonical.starts_with(&self.root) {
            return Err(vaultlink_core::error::CallError::new(
                ErrorCode::InvalidPath,
                format!("`{path}` leads outside the vault"),
                "Only files inside the vault folder can be read.",
                false,
            ));
        }
        let size = std::fs::metadata(&canonical).map(|meta| meta.len()).unwrap_or(0);
        read_at(&canonical, path, size)
    }

    /// The texts of `paths`, in order, each as [`Self::read_exact_text`] (when `exact`) or
    /// [`Self::read_text`] reads it, on every core. Each folder is opened once rather than its
    /// real path found once per note in it (a system call for each part of the path, and a
    /// vault's notes share few folders), and held while its notes are read: a note that is a
    /// plain file, reached from the vault's root without a symbolic link, is read through the
    /// held folder, so what is read rests on what was opened, not on a path checked before; any
    /// other note is read as one read reads it, with its refusals.
    fn read_texts(&self, paths: &[String], exact: bool) -> Vec<Result<String, vaultlink_core::error::CallError>> {
        let folders: Vec<&str> = paths.iter().map(|path| split_path(path).0).collect::<BTreeSet<&str>>().into_iter().collect();
        let held = on_every_core(&folders, |folder| crate::disk::HeldFolder::open(&self.root, &self.root.join(folder)));
        let held: HashMap<&str, crate::disk::HeldFolder> =
            folders.into_iter().zip(held).filter_map(|(folder, held)| Some((folder, held?))).collect();
        on_every_core(paths, |path| {
            let (folder, name) = split_path(path);
            let plain = held.get(folder).and_then(|folder| folder.read_file(std::ffi::OsStr::new(name), MAX_NOTE_BYTES));
            let bytes = match plain {
                Some(bytes) => bytes,
                None => self.read_bytes(path)?,
            };
            if exact {
                String::from_utf8(bytes).map_err(|_| StepError::NotUtf8 { path: path.to_owned() }.error())
            } else {
                Ok(String::from_utf8(bytes).unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()))
            }
        })
    }

    /// Reads and parses `files`, in order, on every core when there are many: reading and
    /// parsing are most of the cost of an index, and each file's is independent of the others.
    /// With `progress`, reports every `PROGRESS_EVERY_FILES` files prepared.
    /// Each file's `xxh3_128` comes with it (0 for a file not read).
    fn prepare_all(&self, files: &[(String, Stamp)], progress: Option<&crate::progress::Progress>) -> Vec<(Prepared, u128)> {
        let parse = self.vault.config().parse;
        let prepared_so_far = std::sync::atomic::AtomicUsize::new(0);
        let total = files.len();
        let prepare = |(path, stamp): &(String, Stamp)| {
            // A canvas's text is read too: its cards are links. Other attachments are not read.
            let (text, hash) = if is_note_path(path) || is_canvas_path(path) {
                self.read_note(path, stamp.1, self.persistent)
            } else {
                (String::new(), 0)
            };
            let prepared = (Vault::prepare(&parse, path, &text), hash);
            if let Some(progress) = progress {
                let done = prepared_so_far.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if done.is_multiple_of(PROGRESS_EVERY_FILES) {
                    progress.report(done as f64, Some(total as f64), format!("indexing the vault folder: {done} of {total} files"));
                }
            }
            prepared
        };
        on_every_core(files, prepare)
    }

    /// A note's text, and with `hashed` `xxh3_128` of its bytes (0 when it was not read or
    /// not asked for).
    fn read_note(&self, path: &str, size: u64, hashed: bool) -> (String, u128) {
        if size > MAX_NOTE_BYTES {
            tracing::warn!("{path} is {size} bytes, over the {MAX_NOTE_BYTES}-byte limit; its links are not indexed");
            return (String::new(), 0);
        }
        match std::fs::read(self.root.join(path)) {
            Ok(bytes) => {
                let hash = if hashed { xxhash_rust::xxh3::xxh3_128(&bytes) } else { 0 };
                let text = String::from_utf8(bytes).unwrap_or_else(|error| {
                    tracing::warn!("{path} is not valid UTF-8; invalid bytes are read as U+FFFD");
                    String::from_utf8_lossy(error.as_bytes()).into_owned()
                });
                (text, hash)
            }
            Err(error) => {
                tracing::warn!("{path} could not be read ({error}); its links are not indexed");
                (String::new(), 0)
            }
        }
    }
}

/// The folder a path is in (`""` at the vault's root) and its name.
fn split_path(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// The bytes of the note at `path` (as the index spells it), found at `full`, its real path,
/// whose size is `size`: refused as `too_large` over [`MAX_NOTE_BYTES`].
fn read_at(full: &Path, path: &str, size: u64) -> Result<Vec<u8>, vaultlink_core::error::CallError> {
    if size > MAX_NOTE_BYTES {
        return Err(vaultlink_core::error::CallError::new(
            ErrorCode::TooLarge,
            format!("`{path}` is {size} bytes, over the {MAX_NOTE_BYTES}-byte limit"),
            "Open the note in Obsidian or another editor; it is too large to return whole.",
            false,
        ));
    }
    std::fs::read(full).map_err(|error| StepError::Unreadable { path: path.to_owned(), why: error.to_string() }.error())
}

/// `work` of every item, in order, on every core (up to [`MAX_THREADS`]) when there are
/// [`PARALLEL_FROM`] items or more.
fn on_every_core<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from).min(MAX_THREADS);
    if threads < 2 || items.len() < PARALLEL_FROM {
        return items.iter().map(work).collect();
    }
    let work = &work;
    // Thread `t` takes items `t`, `t + threads`, …: sizes spread evenly, whatever the order.
    let parts: Vec<Vec<R>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|first| scope.spawn(move || items.iter().skip(first).step_by(threads).map(work).collect::<Vec<_>>()))
            .collect();
        workers.into_iter().map(|worker| worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    let mut parts: Vec<std::vec::IntoIter<R>> = parts.into_iter().map(Vec::into_iter).collect();
    (0..items.len()).filter_map(|index| parts[index % threads].next()).collect()
}

/// Collects `(vault path, stamp)` for every file below `dir`. Like Obsidian, it skips names
/// starting with a dot (`.obsidian`, `.trash`, `.git`). Symbolic links are not followed, so
/// nothing outside the vault is read. With `watch`, each folder is watched before it is read, so
/// that a change in it is either found now or reported later.
///
/// The folders are listed a level at a time and the files then looked at, each on every core when
/// there are many: on a big vault the walk and the look at each file were a serial part of every
/// start. The files come in the order a depth-first walk finds them (each folder's entries in the
/// order it lists them, a subfolder's files where the subfolder is), and a failure is the one that
/// walk would have met first.
fn walk(dir: &Path, prefix: &str, found: &mut Vec<(String, Stamp)>, watch: Option<&mut Watch>) -> Result<()> {
    let watch = std::sync::Mutex::new(watch);
    let mut listings: HashMap<String, Listing> = HashMap::new();
    let mut level = vec![(dir.to_owned(), prefix.to_owned())];
    while !level.is_empty() {
        let listed = on_every_core(&level, |(dir, prefix)| list_folder(dir, prefix, &watch));
        let mut next = Vec::new();
        for ((_, prefix), listing) in level.into_iter().zip(listed) {
            if let Ok(Some(entries)) = &listing {
                next.extend(entries.iter().filter_map(|entry| match entry {
                    Listed::Folder(path, full) => Some((full.clone(), path.clone())),
                    Listed::File(..) => None,
                }));
            }
            listings.insert(prefix, listing);
        }
        level = next;
    }
    let mut order = Vec::new();
    let failure = in_walk_order(prefix, &mut listings, &mut order).err();
    let stamps = on_every_core(&order, |(_, full)| look_at_file(full));
    for ((path, _), stamp) in order.into_iter().zip(stamps) {
        if let Some(stamp) = stamp? {
            found.push((path, stamp));
        }
    }
    failure.map_or(Ok(()), Err)
}

/// One entry of a folder the walk enters: its vault path and its path on disk.
enum Listed {
    File(String, PathBuf),
    Folder(String, PathBuf),
}

/// A folder's entries in the order it lists them; `None` for a folder gone since its parent was
/// read.
type Listing = Result<Option<Vec<Listed>>>;

/// The entries of the folder `dir` (vault path `prefix`) the walk looks at, the folder watched
/// first when there is a watch.
fn list_folder(dir: &Path, prefix: &str, watch: &std::sync::Mutex<Option<&mut Watch>>) -> Listing {
    {
        let mut watch = watch.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(watch) = watch.as_deref_mut() {
            if !watch.folder(dir).map_err(NotWatched)? && !prefix.is_empty() {
                // Gone since its parent was read: if it comes back, the parent's watch says so.
                return Ok(None);
            }
        }
    }
    let entries = match std::fs::read_dir(dir) {
        // A folder below the root removed since its parent was read (another program's batch,
        // an editor's temporary folder): there is nothing in it to index.
        Err(error) if error.kind() == std::io::ErrorKind::NotFound && !prefix.is_empty() => return Ok(None),
        entries => entries.with_context(|| format!("reading the folder {}", dir.display()))?,
    };
    let mut listed = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("reading the folder {}", dir.display()))?;
        let Ok(name) = entry.file_name().into_string() else {
            tracing::warn!("skipping {}: its name is not UTF-8", entry.path().display());
            continue;
        };
        if !walked_name(&name) {
            continue;
        }
        let path = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
        // An entry gone between the folder's listing and this look (a temporary file renamed
        // into place, a note another program moved) is simply not there: other calls must not
        // fail because of it.
        let file_type = match entry.file_type() {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => continue,
            file_type => file_type?,
        };
        if file_type.is_dir() {
            listed.push(Listed::Folder(path, entry.path()));
        } else if file_type.is_file() {
            listed.push(Listed::File(path, entry.path()));
        }
    }
    Ok(Some(listed))
}

/// The files below the listed folder `prefix`, as a depth-first walk finds them, onto `order`;
/// stops at the first folder that could not be read, and answers why.
fn in_walk_order(prefix: &str, listings: &mut HashMap<String, Listing>, order: &mut Vec<(String, PathBuf)>) -> Result<()> {
    let Some(listing) = listings.remove(prefix) else { return Ok(()) };
    for entry in listing?.into_iter().flatten() {
        match entry {
            Listed::File(path, full) => order.push((path, full)),
            Listed::Folder(path, _) => in_walk_order(&path, listings, order)?,
        }
    }
    Ok(())
}

/// A listed file's stamp, not following a symbolic link; `None` when it is gone, or is no longer
/// a file, since it was listed.
fn look_at_file(full: &Path) -> Result<Option<Stamp>> {
    match std::fs::symlink_metadata(full) {
        Ok(meta) if meta.is_file() => Ok(Some(stamp(&meta))),
        Ok(_) => Ok(None),
        Err(error) if matches!(error.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => Ok(None),
        Err(error) => Err(error.into()),
    }
}

/// Whether the walk looks at an entry of this name: not a hidden one.
fn walked_name(name: &str) -> bool {
    !name.starts_with('.')
}

fn stamp(meta: &std::fs::Metadata) -> Stamp {
    (meta.modified().ok(), meta.len(), inode(meta))
}

#[cfg(unix)]
fn inode(meta: &std::fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    meta.ino()
}

#[cfg(not(unix))]
fn inode(_meta: &std::fs::Metadata) -> u64 {
    0
}

fn stamp_of(path: &Path) -> Option<Stamp> {
    std::fs::metadata(path).ok().map(|meta| stamp(&meta))
}

/// The index configuration `.obsidian/app.json` asks for (Obsidian's defaults when there is
/// none, or it cannot be read as settings), with the link form `link_form`, and the file's
/// stamp, taken first: a change while it is read is read next time.
fn read_config(root: &Path, link_form: RewriteForm) -> (IndexConfig, Option<Stamp>) {
    let path = root.join(APP_JSON);
    let config_stamp = stamp_of(&path);
    let config = match std::fs::read_to_string(path) {
        Ok(text) => {
            let (config, warnings) = vaultlink_core::config::from_app_json(&text);
            for warning in warnings {
                tracing::warn!("{warning}");
            }
            config
        }
        Err(_) => IndexConfig::obsidian_defaults(),
    };
    let config = IndexConfig { link_form, ..config };
    (config, config_stamp)
}

/// The keys strictly below the folder `path` (every key for the vault's folder, `""`).
fn below(path: &str) -> (std::ops::Bound<String>, std::ops::Bound<String>) {
    use std::ops::Bound::{Excluded, Included, Unbounded};
    if path.is_empty() {
        return (Unbounded, Unbounded);
    }
    // `0` is the character after `/`.
    (Included(format!("{path}/")), Excluded(format!("{path}0")))
}

/// Looks at the paths the watcher reported, for one refresh, remembering which folders the walk
/// enters and the listing of any folder that matches names without regard to case.
#[derive(Default)]
struct Looks {
    folders: HashMap<String, bool>,
    /// Folders found to tell names apart by case, where a name that opens is spelt so.
    case_sensitive: HashSet<PathBuf>,
    /// The names in each folder found to match names without regard to case.
    listings: HashMap<PathBuf, HashSet<OsString>>,
}

impl Looks {
    /// What `path` holds now, as the walk would find it: only through folders it enters, only
    /// under the name spelt exactly so.
    fn at(&mut self, root: &Path, path: &str) -> Result<Found> {
        if path.is_empty() {
            return Ok(Found::Folder);
        }
        let (parent, name) = path.rsplit_once('/').unwrap_or(("", path));
        if !walked_name(name) || !self.is_folder(root, parent)? {
            return Ok(Found::Nothing);
        }
        let full = root.join(path);
        let meta = match std::fs::symlink_metadata(&full) {
            Ok(meta) => meta,
            Err(error) if matches!(error.kind(), std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory) => {
                return Ok(Found::Nothing)
            }
            Err(error) => return Err(error).with_context(|| format!("reading {}", full.display())),
        };
        let folder = if parent.is_empty() { root.to_owned() } else { root.join(parent) };
        if !self.spelt_exactly(&folder, name, &meta)? {
            return Ok(Found::Nothing);
        }
        Ok(if meta.is_dir() {
            Found::Folder
        } else if meta.is_file() {
            Found::File(stamp(&meta))
        } else {
            Found::Nothing
        })
    }

    /// Whether the walk enters the folder `path` (`""` for the vault's own).
    fn is_folder(&mut self, root: &Path, path: &str) -> Result<bool> {
        if path.is_empty() {
            return Ok(true);
        }
        if let Some(known) = self.folders.get(path) {
            return Ok(*known);
        }
        let is_folder = matches!(self.at(root, path)?, Found::Folder);
        self.folders.insert(path.to_owned(), is_folder);
        Ok(is_folder)
    }

    /// Whether `name`, found in `folder` as `meta`, is spelt so there. A folder that matches
    /// names without regard to case (vfat, exfat, a case-folded ext4 folder) finds `a.md` when
    /// only `A.md` is there, and the walk would give `A.md`; only its listing tells.
    fn spelt_exactly(&mut self, folder: &Path, name: &str, meta: &std::fs::Metadata) -> Result<bool> {
        if self.case_sensitive.contains(folder) {
            return Ok(true);
        }
        if !self.listings.contains_key(folder) {
            // The name in other case: the same file when the folder ignores case.
            let upper = name.to_uppercase();
            let other = if upper == name { name.to_lowercase() } else { upper };
            if other == name {
                return Ok(true);
            }
            if !std::fs::symlink_metadata(folder.join(&other)).is_ok_and(|other_meta| same_file(&other_meta, meta)) {
                self.case_sensitive.insert(folder.to_owned());
                return Ok(true);
            }
            let mut names = HashSet::new();
            for entry in std::fs::read_dir(folder).with_context(|| format!("reading the folder {}", folder.display()))? {
                names.insert(entry.with_context(|| format!("reading the folder {}", folder.display()))?.file_name());
            }
            self.listings.insert(folder.to_owned(), names);
        }
        Ok(self.listings.get(folder).is_some_and(|names| names.contains(std::ffi::OsStr::new(name))))
    }
}

#[cfg(unix)]
fn same_file(one: &std::fs::Metadata, other: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    (one.dev(), one.ino()) == (other.dev(), other.ino())
}

/// Without inode numbers, two spellings that both open are taken for one file: the folder's
/// listing then decides, which is exact either way.
#[cfg(not(unix))]
fn same_file(_one: &std::fs::Metadata, _other: &std::fs::Metadata) -> bool {
    true
}

/// While `find_evidence` reads notes on the folder, a progress notification this often.
const EVIDENCE_PROGRESS_EVERY_NOTES: usize = 500;

/// What core's operations see of the folder: [`FolderIndex::edge`].
pub struct FolderEdge<'a> {
    folder: &'a FolderIndex,
    progress: &'a crate::progress::Progress,
    reads: usize,
    evidence: bool,
    /// The call may write the notes it reads: each is read exactly, or refused.
    writes: bool,
}

impl vaultlink_core::ops::Edge for FolderEdge<'_> {
    fn text(&mut self, path: &str) -> Result<String, vaultlink_core::error::CallError> {
        // A cancelled call stops at its next read: it reads every note of the vault at most
        // (`find_evidence`, a plan), and stopping before one writes nothing.
        if self.progress.is_cancelled() {
            let notes = self.folder.vault().note_count();
            tracing::info!("a call stopped: the client cancelled it after {} of {notes} note reads", self.reads);
            return Err(vaultlink_core::error::CallError::new(
                ErrorCode::Cancelled,
                format!("the call was cancelled by the client after reading {} notes; it stopped, and nothing was written", self.reads),
                "Call again if the answer is still wanted.",
                false,
            ));
        }
        self.reads += 1;
        if self.evidence && self.reads.is_multiple_of(EVIDENCE_PROGRESS_EVERY_NOTES) {
            let notes = self.folder.vault().note_count();
            self.progress.report(self.reads as f64, Some(notes as f64), format!("find_evidence: read {} of {notes} notes", self.reads));
        }
        if self.writes {
            self.folder.read_exact_text(path)
        } else {
            self.folder.read_text(path)
        }
    }

    fn modified_ms(&mut self, path: &str) -> Option<u64> {
        let modified = std::fs::metadata(self.folder.root().join(path)).and_then(|meta| meta.modified()).ok()?;
        modified.duration_since(std::time::UNIX_EPOCH).ok().map(|since| since.as_millis() as u64)
    }

    fn tag(&self) -> u32 {
        std::process::id()
    }

    fn changes(&mut self) -> Vec<vaultlink_core::history::KeptChange> {
        crate::history::kept_changes(self.folder.root())
    }

    fn unopened_changes(&mut self) -> Vec<vaultlink_core::history::UnopenedChange> {
        crate::history::opened_changes(self.folder.root()).1
    }

    fn undone_changes(&mut self) -> Vec<vaultlink_core::history::KeptChange> {
        crate::history::undone_changes(self.folder.root())
    }

    fn observed(&mut self) -> Option<vaultlink_core::moves_detected::Observed> {
        crate::moves::observed(self.folder.vault(), &|path| self.folder.read_bytes(path).ok(), crate::store::previous(self.folder.root()))
    }

    /// Frees what a call no longer needs on a thread of its own, beside the answer's writing
    /// (a command's process may exit before it is done, which frees it all the same). When no
    /// thread can be started, the refused thread's work is dropped here, and `done` with it.
    fn discard(&self, done: Box<dyn std::any::Any + Send>) {
        let _ = std::thread::Builder::new().name("discard".to_owned()).spawn(move || drop(done));
    }

    /// The parts of a pass on every core, as a first index prepares its files: core merges them.
    fn run_parts(&self, count: usize, part: &(dyn Fn(usize) + Sync)) {
        let parts: Vec<usize> = (0..count).collect();
        on_every_core(&parts, |&at| part(at));
    }

    /// Reads the notes on every core: each read is independent of the others, and reading a
    /// whole vault again (`link_mentions`) is otherwise one path resolution and one read after
    /// another (each folder's real path is found once, `FolderIndex::read_texts`). A cancelled
    /// call stops before reading; an error is the first path's in order.
    fn texts(&mut self, paths: Vec<String>) -> Result<BTreeMap<String, String>, vaultlink_core::error::CallError> {
        if self.evidence {
            return vaultlink_core::edge::read_each(self, paths);
        }
        if let Some(first) = paths.first() {
            // The first read answers a cancelled call as every read does.
            let text = self.text(first)?;
            let rest = self.folder.read_texts(&paths[1..], self.writes);
            self.reads += rest.len();
            return std::iter::once(Ok(text)).chain(rest).zip(paths).map(|(text, path)| text.map(|text| (path, text))).collect();
        }
        Ok(BTreeMap::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A vault on disk, its canonical path, and a folder outside it on the same filesystem.
    fn vault_on_disk() -> (tempfile::TempDir, PathBuf, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let root = fs::canonicalize(dir.path()).unwrap();
        for (path, text) in [
            ("A.md", "[[B]] [[Sub/C]] [[Missing]]"),
            ("B.md", "[[A]]"),
            ("Sub/C.md", "[[A]] [[D]] ![[img.png]]"),
            ("Sub/Deep/D.md", "[[B]]"),
            ("img.png", "png"),
        ] {
            fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
            fs::write(root.join(path), text).unwrap();
        }
        (dir, root, tempfile::tempdir().unwrap())
    }

    /// A change another program makes to the vault folder: what it is, and how it is made.
    type Change = (&'static str, fn(&Path, &Path));

    /// Every kind of change, in an order where each finds what it needs. With `keeps_stamp`, also
    /// an edit that keeps the file's size and modification time, which only the watcher sees.
    fn changes(keeps_stamp: bool) -> Vec<Change> {
        let mut changes: Vec<Change> = vec![
            ("an edit", |root, _| fs::write(root.join("A.md"), "[[B]] [[Gone]] [[D]]").unwrap()),
            ("a new note", |root, _| fs::write(root.join("New.md"), "[[A]] [[Missing]] [[Renamed]]").unwrap()),
            ("a note renamed", |root, _| fs::rename(root.join("New.md"), root.join("Renamed.md")).unwrap()),
            ("a folder with notes renamed", |root, _| fs::rename(root.join("Sub"), root.join("Moved")).unwrap()),
            ("a note deleted", |root, _| fs::remove_file(root.join("B.md")).unwrap()),
            ("a note created and deleted before the call", |root, _| {
                fs::write(root.join("Brief.md"), "[[A]]").unwrap();
                fs::remove_file(root.join("Brief.md")).unwrap();
            }),
            ("saves through a temporary file renamed over the note", |root, _| {
                fs::write(root.join("A.md.tmp"), "[[Renamed]]").unwrap();
                fs::rename(root.join("A.md.tmp"), root.join("A.md")).unwrap();
                fs::write(root.join(".Renamed.md.swp"), "[[A]] [[D]]").unwrap();
                fs::rename(root.join(".Renamed.md.swp"), root.join("Renamed.md")).unwrap();
            }),
            ("a case-only rename", |root, _| fs::rename(root.join("Renamed.md"), root.join("renamed.md")).unwrap()),
            ("new nested folders and a note in them, made at once", |root, _| {
                fs::create_dir_all(root.join("X/Y/Z")).unwrap();
                fs::write(root.join("X/Y/Z/N.md"), "[[A]] [[D]]").unwrap();
            }),
            ("a folder moved out of the vault, changed there, and moved back under another name", |root, outside| {
                fs::rename(root.join("Moved"), outside.join("Moved")).unwrap();
                fs::write(outside.join("Moved/Deep/E.md"), "[[A]]").unwrap();
                fs::rename(outside.join("Moved"), root.join("Back")).unwrap();
            }),
            ("a folder deleted with its notes", |root, _| fs::remove_dir_all(root.join("X")).unwrap()),
            ("a hidden folder, and a symbolic link out of the vault", |root, outside| {
                fs::create_dir_all(root.join(".hidden")).unwrap();
                fs::write(root.join(".hidden/H.md"), "[[A]]").unwrap();
                fs::write(outside.join("Out.md"), "[[A]]").unwrap();
                #[cfg(unix)]
                std::os::unix::fs::symlink(outside, root.join("Linked")).unwrap();
            }),
            ("a file replaced by a folder of its name", |root, _| {
                fs::remove_file(root.join("img.png")).unwrap();
                fs::create_dir(root.join("img.png")).unwrap();
                fs::write(root.join("img.png/I.md"), "[[A]]").unwrap();
            }),
            ("a folder replaced by a file of its name", |root, _| {
                fs::remove_dir_all(root.join("img.png")).unwrap();
                fs::write(root.join("img.png"), "png again").unwrap();
            }),
            ("a folder renamed to a hidden name and back", |root, _| {
                fs::rename(root.join("Back/Deep"), root.join("Back/.Deep")).unwrap();
                fs::write(root.join("Back/.Deep/F.md"), "[[A]]").unwrap();
                fs::rename(root.join("Back/.Deep"), root.join("Back/Deep")).unwrap();
            }),
            ("the excluded folders changed in .obsidian/app.json", |root, _| {
                fs::create_dir_all(root.join(".obsidian")).unwrap();
                fs::write(root.join(APP_JSON), r#"{"userIgnoreFilters": ["Back/"]}"#).unwrap();
            }),
        ];
        if keeps_stamp {
            changes.insert(
                1,
                ("an edit that keeps the size and the modification time", |root, _| {
                    let path = root.join("B.md");
                    let modified = fs::metadata(&path).unwrap().modified().unwrap();
                    fs::write(&path, "[[D]]").unwrap();
                    fs::File::options().write(true).open(&path).unwrap().set_modified(modified).unwrap();
                }),
            );
        }
        changes
    }

    /// The walk as it was before it ran on every core: depth first, one folder and one file at a
    /// time. The walk must find what this finds, in this order.
    fn walk_serially(dir: &Path, prefix: &str, found: &mut Vec<(String, Stamp)>, mut watch: Option<&mut Watch>) -> Result<()> {
        if let Some(watch) = watch.as_deref_mut() {
            if !watch.folder(dir).map_err(NotWatched)? && !prefix.is_empty() {
                return Ok(());
            }
        }
        let entries = match fs::read_dir(dir) {
            Err(error) if error.kind() == std::io::ErrorKind::NotFound && !prefix.is_empty() => return Ok(()),
            entries => entries?,
        };
        for entry in entries {
            let entry = entry?;
            let Ok(name) = entry.file_name().into_string() else { continue };
            if !walked_name(&name) {
                continue;
            }
            let path = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            let file_type = entry.file_type()?;
            if file_type.is_dir() {
                walk_serially(&entry.path(), &path, found, watch.as_deref_mut())?;
            } else if file_type.is_file() {
                found.push((path, stamp(&entry.metadata()?)));
            }
        }
        Ok(())
    }

    /// A vault of many folders a level and many files a folder, so that both the listing and the
    /// look at each file run on several threads, with hidden names and symbolic links among them.
    fn wide_vault() -> (tempfile::TempDir, PathBuf, tempfile::TempDir) {
        let (dir, root, outside) = vault_on_disk();
        fs::create_dir(root.join("wide")).unwrap();
        for folder in 0..PARALLEL_FROM + 6 {
            for file in 0..(folder % 4) {
                let path = root.join(format!("wide/f{folder}/deep{}/n{file}.md", folder % 3));
                fs::create_dir_all(path.parent().unwrap()).unwrap();
                fs::write(path, format!("[[n{folder}]]")).unwrap();
            }
            fs::write(root.join(format!("wide/f{folder}.md")), "x").unwrap();
            fs::create_dir_all(root.join(format!("wide/f{folder}/.hidden"))).unwrap();
            fs::write(root.join(format!("wide/f{folder}/.hidden/h.md")), "x").unwrap();
        }
        for file in 0..PARALLEL_FROM * 2 {
            fs::write(root.join(format!("flat {file}.md")), "y").unwrap();
        }
        fs::write(outside.path().join("Out.md"), "[[A]]").unwrap();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside.path(), root.join("wide/f3/Linked")).unwrap();
            std::os::unix::fs::symlink(outside.path().join("Out.md"), root.join("wide/Out.md")).unwrap();
        }
        (dir, root, outside)
    }

    /// Writes `files` (vault path, text) below `root`, making their folders.
    fn write_files(root: &Path, files: &[(String, String)]) {
        for (path, text) in files {
            let full = root.join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, text).unwrap();
        }
    }

    /// The walk on every core finds the files the serial walk found, in its order, each with the
    /// same stamp, whether it watches the folders or not; nothing hidden, nothing through a link.
    #[test]
    fn the_walk_on_every_core_finds_what_the_serial_walk_found_in_its_order() {
        let (_dir, root, _outside) = wide_vault();
        let mut serial = Vec::new();
        walk_serially(&root, "", &mut serial, None).unwrap();
        let mut found = Vec::new();
        walk(&root, "", &mut found, None).unwrap();
        assert!(found.len() > PARALLEL_FROM * 3, "{}", found.len());
        assert_eq!(found, serial);
        assert!(!found.iter().any(|(path, _)| path.contains(".hidden") || path.contains("Linked") || path == "wide/Out.md"));
        // Below a folder, as a refresh walks one that changed.
        let (mut below, mut below_serially) = (Vec::new(), Vec::new());
        walk(&root.join("wide"), "wide", &mut below, None).unwrap();
        walk_serially(&root.join("wide"), "wide", &mut below_serially, None).unwrap();
        assert_eq!(below, below_serially);
        // A folder gone before it is walked holds nothing; the vault's own folder gone is an error.
        let mut gone = Vec::new();
        walk(&root.join("nowhere"), "nowhere", &mut gone, None).unwrap();
        assert!(gone.is_empty());
        assert!(walk(&root.join("nowhere"), "", &mut gone, None).is_err());
        #[cfg(any(target_os = "linux", target_os = "android"))]
        {
            let mut watch = Watch::start(&root).unwrap();
            let mut watched = Vec::new();
            walk(&root, "", &mut watched, Some(&mut watch)).unwrap();
            assert_eq!(watched, serial);
            // Every folder walked was watched before it was read: a note made in the deepest
            // now is reported.
            fs::write(root.join("wide/f5/deep2/new.md"), "z").unwrap();
            assert!(watch.changes().unwrap().contains("wide/f5/deep2/new.md"));
        }
    }

    /// The index a fresh walk of the folder gives.
    fn fresh(root: &Path) -> FolderIndex {
        let mut index = FolderIndex::new(root.to_owned());
        index.refresh().unwrap();
        index
    }

    /// `index` answers as a fresh walk of the folder does: the same files, links, resolutions,
    /// backlinks and settings.
    fn check_fresh(index: &FolderIndex, what: &str) {
        let fresh = fresh(index.root());
        assert_eq!(index.vault().snapshot(), fresh.vault().snapshot(), "after {what}");
        assert_eq!(index.seen.keys().collect::<Vec<_>>(), fresh.seen.keys().collect::<Vec<_>>(), "after {what}");
        assert_eq!(index.vault().config(), fresh.vault().config(), "after {what}");
    }

    /// After each kind of change, the next refresh of the live index answers as a fresh walk does,
    /// and it walked the folder only once, at the start.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn the_live_index_equals_a_fresh_walk_after_every_kind_of_change() {
        let (_dir, root, outside) = vault_on_disk();
        let mut live = FolderIndex::live(root.clone());
        live.refresh().unwrap();
        assert_eq!(live.updates()["mode"], "live", "{}", live.updates());
        for (what, change) in changes(true) {
            change(&root, outside.path());
            live.refresh().unwrap();
            check_fresh(&live, what);
            assert_eq!(live.updates()["mode"], "live", "after {what}");
            assert_eq!((live.full_walks, &live.last_fallback), (1, &None), "after {what}");
        }
        assert!(live.vault().contains("Back/Deep/E.md") && live.vault().contains("Back/Deep/F.md") && live.vault().contains("renamed.md"));
        assert!(!live.vault().contains(".hidden/H.md") && !live.vault().contains("Linked/Out.md"));
        assert_eq!(live.vault().config().excluded_folders, ["Back"]);
    }

    /// The barrier at work: each refresh, made the moment after an edit, sees it, hundreds of
    /// times over (without the barrier the events of the last edit are often still on their way).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn each_refresh_right_after_an_edit_sees_it() {
        let (_dir, root, _outside) = vault_on_disk();
        let mut live = FolderIndex::live(root.clone());
        live.refresh().unwrap();
        for round in 0..300 {
            let (note, target) = (format!("N{}.md", round % 7), format!("T{round}"));
            fs::write(root.join(&note), format!("[[{target}]]")).unwrap();
            live.refresh().unwrap();
            let links =
                live.vault().outgoing_links(&note).map(|links| links.iter().map(|link| link.link.target.clone()).collect::<Vec<_>>());
            assert_eq!(links, Some(vec![target]), "round {round}");
        }
        assert_eq!(live.full_walks, 1);
    }

    /// The sidecar's own writes (a move's batch, its journal and kept change) are events too: the
    /// index after the batch is the one a fresh walk gives, and stays live.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn the_live_index_after_the_sidecars_own_batch_equals_a_fresh_walk() {
        let (_dir, root, _outside) = vault_on_disk();
        let mut live = FolderIndex::live(root.clone());
        live.refresh().unwrap();
        let arguments = json!({"from": "Sub", "to": "Archive/Sub", "dry_run": false});
        let applied = crate::tools::run_on_folder_with(
            &crate::disk::RealDisk,
            &mut live,
            "move_note",
            &arguments,
            &crate::progress::Progress::none(),
        );
        assert_eq!(applied.unwrap()["applied"], true);
        assert!(root.join("Archive/Sub/Deep/D.md").exists());
        check_fresh(&live, "the move");
        live.refresh().unwrap();
        check_fresh(&live, "the move's own events");
        assert_eq!(live.updates()["mode"], "live");
        assert_eq!((live.full_walks, &live.last_fallback), (1, &None));
    }

    /// Without a watcher (as on a network drive) every refresh walks the folder, and answers
    /// as freshly.
    #[test]
    fn without_a_watcher_every_refresh_walks_and_answers_as_freshly() {
        let (_dir, root, outside) = vault_on_disk();
        let mut index = FolderIndex::without_watcher(root.clone());
        index.refresh().unwrap();
        let all = changes(false);
        for (what, change) in &all {
            change(&root, outside.path());
            index.refresh().unwrap();
            check_fresh(&index, what);
        }
        let updates = index.updates();
        assert_eq!(updates["mode"], "walk");
        assert_eq!(updates["reason"], "each call walks the whole folder: the watcher is unavailable (a test)");
        assert_eq!(index.full_walks, all.len() as u64 + 1);
    }

    /// An overflow of inotify's queue (events lost) makes the next refresh walk the whole folder,
    /// then watch it anew; `server_health` says so.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn an_overflow_walks_the_folder_then_watches_it_again() {
        use notify::event::{Event, EventKind, Flag};
        let (_dir, root, _outside) = vault_on_disk();
        let mut live = FolderIndex::live(root.clone());
        live.refresh().unwrap();
        fs::write(root.join("A.md"), "[[Overflowed]]").unwrap();
        live.watch().unwrap().simulate(Event::new(EventKind::Other).set_flag(Flag::Rescan));
        live.refresh().unwrap();
        check_fresh(&live, "an overflow");
        let updates = live.updates();
        assert_eq!((&updates["mode"], live.full_walks), (&json!("live"), 2), "{updates}");
        assert!(updates["reason"].as_str().unwrap().contains("could not be trusted (inotify's queue overflowed"), "{updates}");
        fs::write(root.join("B.md"), "[[After]]").unwrap();
        live.refresh().unwrap();
        check_fresh(&live, "an edit after the overflow");
        assert_eq!(live.full_walks, 2, "live again");
    }

    /// A barrier that cannot be made (its folder removed) walks the folder and watches anew; a
    /// second failure in a row leaves the index walking for a while, as freshly.
    #[cfg(any(target_os = "linux", target_os = "android"))]
    #[test]
    fn a_failed_barrier_walks_the_folder_and_twice_in_a_row_rests_the_watcher() {
        let (_dir, root, _outside) = vault_on_disk();
        let mut live = FolderIndex::live(root.clone());
        live.refresh().unwrap();
        for attempt in 1..=2 {
            fs::remove_dir_all(live.watch().unwrap().barrier_folder()).unwrap();
            fs::write(root.join("A.md"), format!("[[Attempt {attempt}]]")).unwrap();
            live.refresh().unwrap();
            check_fresh(&live, "a failed barrier");
            assert!(live.last_fallback.as_ref().unwrap().contains("barrier could not be set"), "{:?}", live.last_fallback);
        }
        let updates = live.updates();
        assert_eq!(updates["mode"], "walk", "{updates}");
        assert!(updates["reason"].as_str().unwrap().contains("failed twice in a row"), "{updates}");
        fs::write(root.join("B.md"), "[[Walked]]").unwrap();
        live.refresh().unwrap();
        check_fresh(&live, "an edit while the watcher rests");
    }

    #[test]
    fn refresh_follows_edits_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("A.md"), "[[B]]").unwrap();
        fs::create_dir(dir.path().join(".obsidian")).unwrap();
        fs::write(dir.path().join(".obsidian/hidden.md"), "[[B]]").unwrap();
        let mut index = FolderIndex::new(dir.path().to_owned());
        index.refresh().unwrap();
        assert_eq!(index.vault().summary().unresolved_links, 1);
        assert_eq!(index.vault().note_count(), 1);

        fs::write(dir.path().join("B.md"), "").unwrap();
        index.refresh().unwrap();
        assert_eq!(index.vault().backlinks("B.md").len(), 1);

        fs::remove_file(dir.path().join("A.md")).unwrap();
        index.refresh().unwrap();
        assert!(index.vault().backlinks("B.md").is_empty());
        assert!(!index.vault().contains("A.md"));
    }

    #[test]
    fn broken_links_searched_on_several_threads_are_repaired_as_one_by_one() {
        use vaultlink_core::ops::{call, Response};
        let dir = tempfile::tempdir().unwrap();
        let mut files = vec![("Opportunity attack.md".to_owned(), "x\n".to_owned()), ("Session 12.md".to_owned(), "x\n".to_owned())];
        // More missing targets than the threads take a pass from, some alike a note.
        for index in 0..PARALLEL_FROM * 3 {
            files.push((format!("Topic {index} kamiro.md"), "x\n".to_owned()));
            let text = format!("[[Topic {index} kamro]] [[Opportunity atack]] [[Sesion 12]] [[Gone {}]]\n", index % 150);
            files.push((format!("notes/Note {index}.md"), text));
        }
        write_files(dir.path(), &files);
        let mut folder = FolderIndex::new(dir.path().to_owned());
        folder.refresh().unwrap();
        let progress = crate::progress::Progress::none();
        let arguments = serde_json::json!({ "limit": 1000 });
        let answer = |outcome: vaultlink_core::ops::Outcome| match outcome.answer {
            Response::Repaired(answer) => serde_json::to_value(answer).unwrap(),
            _ => panic!("a repair's answer"),
        };
        let mut edge = folder.edge("fix_broken_links", false, &progress);
        let threaded = answer(call(folder.vault(), "fix_broken_links", &arguments, &mut edge, &mut Default::default()).unwrap());
        let texts = files.iter().cloned().collect();
        let mut read_before = vaultlink_core::ops::ReadBefore { texts, tag: 1, ..Default::default() };
        let one_by_one = answer(call(folder.vault(), "fix_broken_links", &arguments, &mut read_before, &mut Default::default()).unwrap());
        assert_eq!(threaded["links_repaired"], serde_json::json!(PARALLEL_FROM * 3 * 3), "{threaded}");
        assert_eq!(threaded, one_by_one);
    }

    #[test]
    fn many_files_read_on_several_threads_index_as_one_by_one() {
        let dir = tempfile::tempdir().unwrap();
        let mut files = Vec::new();
        for index in 0..PARALLEL_FROM * 3 {
            let folder = ["", "a/", "b/c/"][index % 3];
            let text = format!(
                "---\naliases: [N{index}]\nup: \"[[Note {}]]\"\n---\n# Note {index}\nSee [[Note {}]], [[N{}]] and [x](Note%20{}.md).\n",
                index / 2,
                (index * 7) % 200,
                index + 1,
                (index * 3) % 190
            );
            files.push((format!("{folder}Note {index}.md"), text));
        }
        files.push(("a/diagram.png".to_owned(), String::new()));
        write_files(dir.path(), &files);
        let mut folder = FolderIndex::new(dir.path().to_owned());
        folder.refresh().unwrap();
        let mut one_by_one = Vault::new(IndexConfig::obsidian_defaults());
        for (path, text) in &files {
            one_by_one.upsert(path, text);
        }
        assert_eq!(folder.vault().note_count(), PARALLEL_FROM * 3);
        assert_eq!(folder.vault().snapshot(), one_by_one.snapshot());
    }

    #[cfg(unix)]
    #[test]
    fn a_symbolic_link_out_of_the_vault_is_neither_indexed_nor_read() {
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.md"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("link.md")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("folder")).unwrap();
        let mut index = FolderIndex::new(fs::canonicalize(dir.path()).unwrap());
        index.refresh().unwrap();
        assert_eq!(index.vault().note_count(), 0);
        let refusal = index.read_text("link.md").unwrap_err();
        assert_eq!(refusal.code, "invalid_path");
        assert_eq!(index.read_text("folder/secret.md").unwrap_err().code, "invalid_path");
    }

    /// The notes a call reads at once, on every core, are each note's text as one read gives it,
    /// by path; a note a symbolic link leads out of the vault, among them, refuses the reads
    /// with its error, and a cancelled call reads nothing.
    #[cfg(unix)]
    #[test]
    fn the_notes_read_at_once_are_read_as_one_by_one_and_a_refusal_stops_them() {
        use vaultlink_core::ops::Edge;
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.md"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<String> = (0..PARALLEL_FROM * 3).map(|note| format!("n/Note {note}.md")).collect();
        for (note, path) in paths.iter().enumerate() {
            let full = dir.path().join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, format!("note {note} [[Note {}]]\n", note + 1)).unwrap();
        }
        let mut index = FolderIndex::new(fs::canonicalize(dir.path()).unwrap());
        index.refresh().unwrap();
        let progress = crate::progress::Progress::none();
        let texts = index.edge("link_mentions", true, &progress).texts(paths.clone()).unwrap();
        let one_by_one: BTreeMap<String, String> = paths.iter().map(|path| (path.clone(), index.read_exact_text(path).unwrap())).collect();
        assert_eq!(texts, one_by_one);
        std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("n/Out.md")).unwrap();
        let mut with_link = paths.clone();
        with_link.insert(PARALLEL_FROM, "n/Out.md".to_owned());
        let refusal = index.edge("link_mentions", true, &progress).texts(with_link).unwrap_err();
        assert_eq!(refusal.code, "invalid_path");
        let cancelled = crate::progress::Progress::none();
        cancelled.cancel();
        assert_eq!(index.edge("link_mentions", true, &cancelled).texts(paths).unwrap_err().code, "cancelled");
    }

    /// The notes read at once find each folder's real path once; what they read and refuse is
    /// still what one read of each gives: a note in a folder a symbolic link leads out of the
    /// vault is refused, one in a folder a link leads to inside the vault is read, a note that is
    /// itself a link inside the vault is read, and a note over the size limit is refused.
    #[cfg(unix)]
    #[test]
    fn the_notes_read_at_once_follow_folder_links_as_one_read_does() {
        use vaultlink_core::ops::Edge;
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("secret.md"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let mut paths: Vec<String> = (0..PARALLEL_FROM * 2).map(|note| format!("n/Note {note}.md")).collect();
        for (note, path) in paths.iter().enumerate() {
            let full = dir.path().join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, format!("note {note}\n")).unwrap();
        }
        std::os::unix::fs::symlink(dir.path().join("n"), dir.path().join("inside")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("n/Note 1.md"), dir.path().join("n/Again.md")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        fs::write(dir.path().join("Big.md"), "x".repeat(MAX_NOTE_BYTES as usize + 1)).unwrap();
        let index = FolderIndex::new(fs::canonicalize(dir.path()).unwrap());
        paths.extend(["inside/Note 2.md", "n/Again.md"].map(str::to_owned));
        let progress = crate::progress::Progress::none();
        let texts = index.edge("link_mentions", true, &progress).texts(paths.clone()).unwrap();
        assert_eq!(texts["inside/Note 2.md"], "note 2\n");
        assert_eq!(texts["n/Again.md"], "note 1\n");
        let one_by_one: BTreeMap<String, String> = paths.iter().map(|path| (path.clone(), index.read_exact_text(path).unwrap())).collect();
        assert_eq!(texts, one_by_one);
        for (refused, code) in [("out/secret.md", "invalid_path"), ("Big.md", "too_large"), ("n/Gone.md", "note_not_found")] {
            let mut with_it = paths.clone();
            with_it.push(refused.to_owned());
            let refusal = index.edge("link_mentions", true, &progress).texts(with_it).unwrap_err();
            assert_eq!(refusal.code, code, "{refused}");
            assert_eq!(index.read_exact_text(refused).unwrap_err().code, code, "{refused}");
        }
    }

    /// Past `MAX_NOTE_BYTES` a note is indexed without its links and `read_note` refuses it
    /// with `too_large`; neither hangs nor reads it whole.
    #[test]
    fn a_note_over_the_size_limit_is_indexed_without_links_and_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let big = "[[Target]] ".repeat((MAX_NOTE_BYTES as usize) / 11 + 1);
        assert!(big.len() as u64 > MAX_NOTE_BYTES);
        fs::write(dir.path().join("Big.md"), &big).unwrap();
        fs::write(dir.path().join("Target.md"), "").unwrap();
        let mut index = FolderIndex::new(fs::canonicalize(dir.path()).unwrap());
        index.refresh().unwrap();
        assert!(index.vault().contains("Big.md"));
        assert!(index.vault().backlinks("Target.md").is_empty(), "the big note's links are not indexed");
        let refusal = index.read_text("Big.md").unwrap_err();
        assert_eq!(refusal.code, "too_large");
        assert!(refusal.message.contains("over the 16777216-byte limit"), "{}", refusal.message);
    }
}
