//! The vault as a folder on disk: found, read and kept current without Obsidian.
//!
//! Each refresh walks the folder and reads only the files whose size or modification time
//! changed, so a long-running sidecar follows edits made by anyone.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;
use vaultlink_core::error::ErrorCode;

use anyhow::{bail, Context, Result};
use vaultlink_core::index::is_note_path;
use vaultlink_core::index::{IndexConfig, Prepared};
use vaultlink_core::Vault;

/// Files changed at once from which reading and parsing run on several threads.
const PARALLEL_FROM: usize = 64;
/// The most threads that read and parse.
const MAX_THREADS: usize = 8;

/// What a file looked like when it was read: modification time and size.
type Stamp = (Option<SystemTime>, u64);

/// The largest note read; a larger one is indexed without its links and a warning is logged.
/// 16 MiB is 30 times the largest note in the corpora we test on.
pub const MAX_NOTE_BYTES: u64 = 16 * 1024 * 1024;

/// While indexing, a progress notification every this many files read (and none when fewer
/// files changed, which is every refresh but the first of a big vault).
const PROGRESS_EVERY_FILES: usize = 500;

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

/// A vault folder and its index.
#[derive(Debug)]
pub struct FolderIndex {
    root: PathBuf,
    vault: Vault,
    /// What each indexed file looked like when it was read.
    seen: HashMap<String, Stamp>,
    /// The plan hashes this server's previews gave and those it applied, for core's approval.
    pub plans: vaultlink_core::approval::PlanHistory,
}

impl FolderIndex {
    /// The folder's index, configured as the vault's `.obsidian/app.json` asks (Obsidian's
    /// defaults when there is none).
    pub fn new(root: PathBuf) -> FolderIndex {
        let config = match std::fs::read_to_string(root.join(".obsidian/app.json")) {
            Ok(text) => {
                let (config, warnings) = vaultlink_core::config::from_app_json(&text);
                for warning in warnings {
                    tracing::warn!("{warning}");
                }
                config
            }
            Err(_) => IndexConfig::obsidian_defaults(),
        };
        FolderIndex { root, vault: Vault::new(config), seen: HashMap::new(), plans: Default::default() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn vault(&self) -> &Vault {
        &self.vault
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
        let mut found = Vec::new();
        walk(&self.root, "", &mut found)?;
        let mut present = std::collections::HashSet::with_capacity(found.len());
        let mut changed = Vec::new();
        for (path, stamp) in found {
            present.insert(path.clone());
            if self.seen.get(&path) != Some(&stamp) {
                changed.push((path, stamp));
            }
        }
        let count = changed.len();
        let progress = (count >= PROGRESS_EVERY_FILES).then_some(progress);
        if let Some(progress) = progress {
            progress.report(0.0, Some(count as f64), format!("indexing the vault folder: {count} files to read"));
        }
        let prepared = self.prepare_all(&changed, progress);
        let mut batch = Vec::with_capacity(changed.len());
        for ((path, stamp), prepared) in changed.into_iter().zip(prepared) {
            batch.push((path.clone(), prepared));
            self.seen.insert(path, stamp);
        }
        self.vault.insert_prepared_many(batch);
        if let Some(progress) = progress {
            progress.report(count as f64, Some(count as f64), format!("indexed {count} files"));
        }
        let gone: Vec<String> = self.seen.keys().filter(|path| !present.contains(*path)).cloned().collect();
        for path in gone {
            self.vault.remove(&path);
            self.seen.remove(&path);
        }
        Ok(())
    }

    /// Reads a note's text for a tool, refusing a file that a symbolic link leads out of the
    /// vault.
    /// The folder as a call's edge: notes' texts read from disk now (`tool`'s progress reported
    /// while `find_evidence` reads the whole vault), modification times, and this process's id.
    pub fn edge<'a>(&'a self, tool: &str, progress: &'a crate::progress::Progress) -> FolderEdge<'a> {
        FolderEdge { folder: self, progress, reads: 0, evidence: tool == "find_evidence" }
    }

    pub fn read_text(&self, path: &str) -> Result<String, vaultlink_core::error::CallError> {
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
        if size > MAX_NOTE_BYTES {
            return Err(vaultlink_core::error::CallError::new(
                ErrorCode::TooLarge,
                format!("`{path}` is {size} bytes, over the {MAX_NOTE_BYTES}-byte limit"),
                "Open the note in Obsidian or another editor; it is too large to return whole.",
                false,
            ));
        }
        std::fs::read(&canonical).map(|bytes| String::from_utf8_lossy(&bytes).into_owned()).map_err(|error| {
            vaultlink_core::error::CallError::new(
                ErrorCode::VaultUnreadable,
                format!("`{path}` could not be read: {error}"),
                "Check the file's permissions, then call again.",
                true,
            )
        })
    }

    /// Reads and parses `files`, in order, on every core when there are many: reading and
    /// parsing are most of the cost of an index, and each file's is independent of the others.
    /// With `progress`, reports every `PROGRESS_EVERY_FILES` files prepared.
    fn prepare_all(&self, files: &[(String, Stamp)], progress: Option<&crate::progress::Progress>) -> Vec<Prepared> {
        let parse = self.vault.config().parse;
        let prepared_so_far = std::sync::atomic::AtomicUsize::new(0);
        let total = files.len();
        let prepare = |(path, stamp): &(String, Stamp)| {
            let text = if is_note_path(path) { self.read_note(path, stamp.1) } else { String::new() };
            let prepared = Vault::prepare(&parse, path, &text);
            if let Some(progress) = progress {
                let done = prepared_so_far.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                if done.is_multiple_of(PROGRESS_EVERY_FILES) {
                    progress.report(done as f64, Some(total as f64), format!("indexing the vault folder: {done} of {total} files"));
                }
            }
            prepared
        };
        let threads = std::thread::available_parallelism().map_or(1, usize::from).min(MAX_THREADS);
        if threads < 2 || files.len() < PARALLEL_FROM {
            return files.iter().map(prepare).collect();
        }
        // Thread `t` takes files `t`, `t + threads`, …: sizes spread evenly, whatever the order.
        let parts: Vec<Vec<Prepared>> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|first| scope.spawn(move || files.iter().skip(first).step_by(threads).map(prepare).collect::<Vec<_>>()))
                .collect();
            workers.into_iter().map(|worker| worker.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
        });
        let mut parts: Vec<std::vec::IntoIter<Prepared>> = parts.into_iter().map(Vec::into_iter).collect();
        (0..files.len()).filter_map(|index| parts[index % threads].next()).collect()
    }

    fn read_note(&self, path: &str, size: u64) -> String {
        if size > MAX_NOTE_BYTES {
            tracing::warn!("{path} is {size} bytes, over the {MAX_NOTE_BYTES}-byte limit; its links are not indexed");
            return String::new();
        }
        match std::fs::read(self.root.join(path)) {
            Ok(bytes) => String::from_utf8(bytes).unwrap_or_else(|error| {
                tracing::warn!("{path} is not valid UTF-8; invalid bytes are read as U+FFFD");
                String::from_utf8_lossy(error.as_bytes()).into_owned()
            }),
            Err(error) => {
                tracing::warn!("{path} could not be read ({error}); its links are not indexed");
                String::new()
            }
        }
    }
}

/// Collects `(vault path, (mtime, size))` for every file below `dir`. Like Obsidian, it skips
/// names starting with a dot (`.obsidian`, `.trash`, `.git`). Symbolic links are not followed,
/// so nothing outside the vault is read.
fn walk(dir: &Path, prefix: &str, found: &mut Vec<(String, (Option<SystemTime>, u64))>) -> Result<()> {
    let entries = std::fs::read_dir(dir).with_context(|| format!("reading the folder {}", dir.display()))?;
    for entry in entries {
        let entry = entry.with_context(|| format!("reading the folder {}", dir.display()))?;
        let Ok(name) = entry.file_name().into_string() else {
            tracing::warn!("skipping {}: its name is not UTF-8", entry.path().display());
            continue;
        };
        if name.starts_with('.') {
            continue;
        }
        let path = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
        let file_type = entry.file_type()?;
        if file_type.is_dir() {
            walk(&entry.path(), &path, found)?;
        } else if file_type.is_file() {
            let meta = entry.metadata()?;
            found.push((path, (meta.modified().ok(), meta.len())));
        }
    }
    Ok(())
}

/// While `find_evidence` reads notes on the folder, a progress notification this often.
const EVIDENCE_PROGRESS_EVERY_NOTES: usize = 500;

/// What core's operations see of the folder: [`FolderIndex::edge`].
pub struct FolderEdge<'a> {
    folder: &'a FolderIndex,
    progress: &'a crate::progress::Progress,
    reads: usize,
    evidence: bool,
}

impl vaultlink_core::ops::Edge for FolderEdge<'_> {
    fn text(&mut self, path: &str) -> Result<String, vaultlink_core::error::CallError> {
        self.reads += 1;
        if self.evidence && self.reads.is_multiple_of(EVIDENCE_PROGRESS_EVERY_NOTES) {
            let notes = self.folder.vault().note_count();
            self.progress.report(self.reads as f64, Some(notes as f64), format!("find_evidence: read {} of {notes} notes", self.reads));
        }
        self.folder.read_text(path)
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refresh_follows_edits_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("A.md"), "[[B]]").unwrap();
        std::fs::create_dir(dir.path().join(".obsidian")).unwrap();
        std::fs::write(dir.path().join(".obsidian/hidden.md"), "[[B]]").unwrap();
        let mut index = FolderIndex::new(dir.path().to_owned());
        index.refresh().unwrap();
        assert_eq!(index.vault().summary().unresolved_links, 1);
        assert_eq!(index.vault().note_count(), 1);

        std::fs::write(dir.path().join("B.md"), "").unwrap();
        index.refresh().unwrap();
        assert_eq!(index.vault().backlinks("B.md").len(), 1);

        std::fs::remove_file(dir.path().join("A.md")).unwrap();
        index.refresh().unwrap();
        assert!(index.vault().backlinks("B.md").is_empty());
        assert!(!index.vault().contains("A.md"));
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
        for (path, text) in &files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
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
        std::fs::write(outside.path().join("secret.md"), "secret").unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), dir.path().join("link.md")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("folder")).unwrap();
        let mut index = FolderIndex::new(std::fs::canonicalize(dir.path()).unwrap());
        index.refresh().unwrap();
        assert_eq!(index.vault().note_count(), 0);
        let refusal = index.read_text("link.md").unwrap_err();
        assert_eq!(refusal.code, "invalid_path");
        assert_eq!(index.read_text("folder/secret.md").unwrap_err().code, "invalid_path");
    }

    /// Past `MAX_NOTE_BYTES` a note is indexed without its links and `read_note` refuses it
    /// with `too_large`; neither hangs nor reads it whole.
    #[test]
    fn a_note_over_the_size_limit_is_indexed_without_links_and_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let big = "[[Target]] ".repeat((MAX_NOTE_BYTES as usize) / 11 + 1);
        assert!(big.len() as u64 > MAX_NOTE_BYTES);
        std::fs::write(dir.path().join("Big.md"), &big).unwrap();
        std::fs::write(dir.path().join("Target.md"), "").unwrap();
        let mut index = FolderIndex::new(std::fs::canonicalize(dir.path()).unwrap());
        index.refresh().unwrap();
        assert!(index.vault().contains("Big.md"));
        assert!(index.vault().backlinks("Target.md").is_empty(), "the big note's links are not indexed");
        let refusal = index.read_text("Big.md").unwrap_err();
        assert_eq!(refusal.code, "too_large");
        assert!(refusal.message.contains("over the 16777216-byte limit"), "{}", refusal.message);
    }
}
