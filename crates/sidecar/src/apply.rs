//! Applies a move plan to the vault folder, all or nothing.
//!
//! Every note the plan edits is checked against the hash the plan was made from before the
//! first write. Each write goes to a temporary file in the same folder, is synced, and is
//! renamed over the original; every pre-image is kept until the batch is done, and any
//! failure restores them and undoes the moves made so far.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::Value;
use vaultlink_core::rename::{self, content_hash, MoveAnswer, MovePlan};

use crate::standalone::FolderIndex;
use crate::tools::ToolError;

fn from_move_error(error: &rename::MoveError) -> ToolError {
    ToolError::new(error.code(), error.message(), error.hint(), error.retryable())
}

fn concurrent(path: &str) -> ToolError {
    ToolError::new(
        "concurrent_modification",
        format!("`{path}` changed after the plan was made; nothing was changed"),
        "Preview the move again (dry run) and approve the new plan.",
        true,
    )
}

fn write_failed(what: String) -> ToolError {
    ToolError::new(
        "write_failed",
        format!("{what}; every change made so far was undone"),
        "Check the vault folder's permissions and free space, then try again.",
        true,
    )
}

/// The `move_note` tool on the folder: plans, and applies when asked.
pub fn move_note(folder: &mut FolderIndex, arguments: &Value) -> Result<Value, ToolError> {
    let text = |key: &str| arguments.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let (from, to) = (text("from"), text("to"));
    let needed = rename::notes_to_read(folder.vault(), &from, &to).map_err(|error| from_move_error(&error))?;
    let texts = read_texts(folder, needed)?;
    let plan = rename::plan_move(folder.vault(), &from, &to, &texts).map_err(|error| from_move_error(&error))?;
    // Moving a whole folder removes it once empty; moving files out of one leaves it.
    let moved_folder = folder.vault().find_file(&from).is_none().then(|| from.trim_matches('/').to_owned());
    finish(folder, arguments, &plan, moved_folder.as_deref())
}

/// The `rewrite_link` tool on the folder: plans, and applies when asked.
pub fn rewrite_link(folder: &mut FolderIndex, arguments: &Value) -> Result<Value, ToolError> {
    let text = |key: &str| arguments.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
    let (from_target, to_target) = (text("from_target"), text("to_target"));
    let needed = rename::notes_to_read_for_rewrite(folder.vault(), &from_target);
    let texts = read_texts(folder, needed)?;
    let plan = rename::plan_rewrite_link(folder.vault(), &from_target, &to_target, &texts)
        .map_err(|error| from_move_error(&error))?;
    finish(folder, arguments, &plan, None)
}

fn read_texts(folder: &FolderIndex, paths: Vec<String>) -> Result<std::collections::BTreeMap<String, String>, ToolError> {
    paths.into_iter().map(|path| folder.read_text(&path).map(|text| (path, text))).collect()
}

/// Checks an approved hash, applies the plan when asked, and answers.
fn finish(folder: &mut FolderIndex, arguments: &Value, plan: &MovePlan, moved_folder: Option<&str>) -> Result<Value, ToolError> {
    let dry_run = arguments.get("dry_run").and_then(Value::as_bool);
    let approved = arguments.get("approved_plan_hash").and_then(Value::as_str);
    let detailed = arguments.get("response_format").and_then(Value::as_str) != Some("concise");
    if let Some(approved) = approved {
        if approved != plan.plan_hash {
            return Err(ToolError::new(
                "plan_hash_mismatch",
                "the vault changed since the preview, so the plan is no longer the one approved; nothing was changed",
                "Preview the move again (dry run), check it, and approve its new plan_hash.",
                false,
            ));
        }
    }
    let apply = dry_run == Some(false) || (dry_run.is_none() && approved.is_some());
    if apply {
        apply_plan(folder.root(), plan, moved_folder)?;
        folder.refresh().map_err(|error| write_failed(format!("the change was applied but the index could not be refreshed: {error:#}")))?;
    }
    let answer = MoveAnswer::new(plan, !apply, apply, detailed);
    serde_json::to_value(answer).map_err(|error| ToolError::new("internal", error.to_string(), "Report this as a bug.", false))
}

/// The `delete_note` tool on the folder: previews, and with `confirm` moves the note to the
/// vault's `.trash` folder, as Obsidian's "move to Obsidian trash" does.
pub fn delete_note(folder: &mut FolderIndex, arguments: &Value) -> Result<Value, ToolError> {
    use vaultlink_core::delete::{capture, decide, plan_delete, DeleteRequest};
    let path = arguments.get("path").and_then(Value::as_str).unwrap_or_default();
    let found = match folder.vault().find_file(path) {
        Some(found) if folder.vault().is_note(found) => found.to_owned(),
        _ => path.to_owned(),
    };
    let text = if folder.vault().is_note(&found) { folder.read_text(&found)? } else { String::new() };
    let plan = plan_delete(folder.vault(), &found, &text)
        .map_err(|error| ToolError::new(error.code(), error.message(), error.hint(), false))?;
    let mtime = fs::metadata(folder.root().join(&plan.path))
        .and_then(|meta| meta.modified())
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|since| since.as_millis() as u64);
    let request = DeleteRequest {
        confirm: arguments.get("confirm").and_then(Value::as_bool).unwrap_or(false),
        force: arguments.get("force").and_then(Value::as_bool).unwrap_or(false),
        expected_hash: arguments.get("expected_hash").and_then(Value::as_str).map(str::to_owned),
        expected_mtime: arguments.get("expected_mtime").and_then(Value::as_u64),
        approved_plan_hash: arguments.get("approved_plan_hash").and_then(Value::as_str).map(str::to_owned),
    };
    let (mut answer, delete) = decide(&plan, &request, mtime);
    if delete {
        let trash = folder.root().join(".trash");
        fs::create_dir_all(&trash).map_err(|error| write_failed(format!("creating .trash failed: {error}")))?;
        let name = plan.path.rsplit('/').next().unwrap_or(&plan.path);
        let (stem, extension) = name.rsplit_once('.').unwrap_or((name, ""));
        let mut target = trash.join(name);
        let mut number = 2;
        while target.exists() {
            target = trash.join(format!("{stem} {number}.{extension}"));
            number += 1;
        }
        fs::rename(folder.root().join(&plan.path), &target)
            .map_err(|error| write_failed(format!("moving {} to the trash failed: {error}", plan.path)))?;
        answer.captured = Some(capture(&text));
        answer.trashed_to = Some(format!(".trash/{}", target.file_name().map(|name| name.to_string_lossy()).unwrap_or_default()));
        folder.refresh().map_err(|error| write_failed(format!("the note was deleted but the index could not be refreshed: {error:#}")))?;
    }
    if arguments.get("response_format").and_then(Value::as_str) == Some("concise") {
        answer = answer.concise();
    }
    serde_json::to_value(answer).map_err(|error| ToolError::new("internal", error.to_string(), "Report this as a bug.", false))
}

/// A change made so far, to undo on failure.
enum Done {
    Wrote { path: PathBuf, before: Vec<u8> },
    Moved { from: PathBuf, to: PathBuf },
    MadeFolder(PathBuf),
}

/// Applies `plan` under `root`, all or nothing. `moved_folder` is the folder a folder move
/// empties, removed at the end.
pub fn apply_plan(root: &Path, plan: &MovePlan, moved_folder: Option<&str>) -> Result<(), ToolError> {
    // Check everything before the first write.
    let mut staged = Vec::new();
    for file in &plan.edits {
        let path = root.join(&file.path);
        let before = fs::read(&path).map_err(|_| concurrent(&file.path))?;
        let text = String::from_utf8(before.clone()).map_err(|_| concurrent(&file.path))?;
        if content_hash(&text) != file.content_hash {
            return Err(concurrent(&file.path));
        }
        staged.push((path, before, rename::apply_edits(&text, &file.edits)));
    }
    for file_move in &plan.moves {
        let (from, to) = (root.join(&file_move.from), root.join(&file_move.to));
        let case_only = file_move.from.to_lowercase() == file_move.to.to_lowercase();
        if !from.exists() || (to.exists() && !case_only) {
            return Err(concurrent(&file_move.from));
        }
    }
    let mut done: Vec<Done> = Vec::new();
    let result = (|| {
        for (path, before, after) in staged {
            write_atomically(&path, after.as_bytes()).map_err(|error| write_failed(format!("writing {} failed: {error}", path.display())))?;
            done.push(Done::Wrote { path, before });
        }
        for file_move in &plan.moves {
            let (from, to) = (root.join(&file_move.from), root.join(&file_move.to));
            if let Some(parent) = to.parent() {
                make_folders(parent, &mut done).map_err(|error| write_failed(format!("creating {} failed: {error}", parent.display())))?;
            }
            fs::rename(&from, &to).map_err(|error| write_failed(format!("moving {} failed: {error}", file_move.from)))?;
            done.push(Done::Moved { from, to });
        }
        Ok(())
    })();
    if let Err(error) = result {
        undo(done);
        return Err(error);
    }
    if let Some(folder) = moved_folder {
        remove_emptied_folders(root, plan, &root.join(folder));
    }
    Ok(())
}

fn make_folders(folder: &Path, done: &mut Vec<Done>) -> std::io::Result<()> {
    if folder.exists() {
        return Ok(());
    }
    if let Some(parent) = folder.parent() {
        make_folders(parent, done)?;
    }
    fs::create_dir(folder)?;
    done.push(Done::MadeFolder(folder.to_owned()));
    Ok(())
}

/// Writes to a temporary file beside `path`, syncs it, and renames it over `path`.
fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default();
    let temporary = path.with_file_name(format!(".{name}.vaultlink-{}.tmp", std::process::id()));
    let result = (|| {
        let mut file = fs::File::create(&temporary)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        if let Ok(meta) = fs::metadata(path) {
            fs::set_permissions(&temporary, meta.permissions())?;
        }
        fs::rename(&temporary, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temporary);
    }
    result
}

fn undo(done: Vec<Done>) {
    for step in done.into_iter().rev() {
        let outcome = match &step {
            Done::Wrote { path, before } => write_atomically(path, before),
            Done::Moved { from, to } => fs::rename(to, from),
            Done::MadeFolder(folder) => fs::remove_dir(folder),
        };
        if let Err(error) = outcome {
            tracing::error!("undoing a step of a failed move failed ({error}); the vault may need a look");
        }
    }
}

/// After a folder move, removes the folders under `moved_folder` (and it) that the move left
/// empty.
fn remove_emptied_folders(root: &Path, plan: &MovePlan, moved_folder: &Path) {
    let mut folders: Vec<PathBuf> = plan
        .moves
        .iter()
        .filter_map(|file_move| root.join(&file_move.from).parent().map(Path::to_path_buf))
        .filter(|folder| folder != root)
        .collect();
    folders.sort_by_key(|folder| std::cmp::Reverse(folder.components().count()));
    folders.dedup();
    for folder in folders {
        let mut current = folder.as_path();
        while current != root && current.starts_with(moved_folder) {
            if fs::remove_dir(current).is_err() {
                break;
            }
            match current.parent() {
                Some(parent) => current = parent,
                None => break,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn vault(files: &[(&str, &str)]) -> (tempfile::TempDir, FolderIndex) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            fs::create_dir_all(full.parent().unwrap()).unwrap();
            fs::write(full, text).unwrap();
        }
        let mut index = FolderIndex::new(fs::canonicalize(dir.path()).unwrap());
        index.refresh().unwrap();
        (dir, index)
    }

    fn snapshot(root: &Path) -> Vec<(String, Vec<u8>)> {
        let mut files = Vec::new();
        let mut stack = vec![root.to_owned()];
        while let Some(dir) = stack.pop() {
            for entry in fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    files.push((path.strip_prefix(root).unwrap().display().to_string(), fs::read(&path).unwrap()));
                }
            }
        }
        files.sort();
        files
    }

    #[test]
    fn a_dry_run_changes_nothing_and_an_approved_plan_applies() {
        let (dir, mut index) = vault(&[("A.md", "see [[Old|it]]\n"), ("Old.md", "# Old\n")]);
        let before = snapshot(dir.path());
        let preview = move_note(&mut index, &json!({"from": "Old.md", "to": "sub/New.md"})).unwrap();
        assert_eq!(preview["dry_run"], true);
        assert_eq!(preview["links_changed"], 1);
        assert_eq!(snapshot(dir.path()), before);

        let wrong = move_note(&mut index, &json!({"from": "Old.md", "to": "sub/New.md", "approved_plan_hash": "0"})).unwrap_err();
        assert_eq!(wrong.code, "plan_hash_mismatch");
        assert_eq!(snapshot(dir.path()), before);

        let applied = move_note(&mut index, &json!({"from": "Old", "to": "sub/New", "approved_plan_hash": preview["plan_hash"]})).unwrap();
        assert_eq!(applied["applied"], true);
        assert_eq!(fs::read_to_string(dir.path().join("A.md")).unwrap(), "see [[New|it]]\n");
        assert_eq!(fs::read_to_string(dir.path().join("sub/New.md")).unwrap(), "# Old\n");
        assert!(!dir.path().join("Old.md").exists());
        assert_eq!(index.vault().backlinks("sub/New.md").len(), 1);
    }

    #[test]
    fn an_edit_after_the_plan_refuses_the_batch() {
        let (dir, index) = vault(&[("A.md", "[[Old]]\n"), ("B.md", "[[Old]]\n"), ("Old.md", "")]);
        let needed = rename::notes_to_read(index.vault(), "Old.md", "New.md").unwrap();
        let texts = needed.iter().map(|path| (path.clone(), fs::read_to_string(dir.path().join(path)).unwrap())).collect();
        let plan = rename::plan_move(index.vault(), "Old.md", "New.md", &texts).unwrap();
        fs::write(dir.path().join("B.md"), "[[Old]] edited meanwhile\n").unwrap();
        let before = snapshot(dir.path());
        let refusal = apply_plan(index.root(), &plan, None).unwrap_err();
        assert_eq!(refusal.code, "concurrent_modification");
        assert_eq!(snapshot(dir.path()), before, "nothing was written");
    }

    #[test]
    fn a_failing_step_undoes_every_earlier_one() {
        let (dir, index) = vault(&[("A.md", "[[Old]] and [[Old]]\n"), ("C.md", "![[Old]]\n"), ("Old.md", "")]);
        let needed = rename::notes_to_read(index.vault(), "Old.md", "blocked/New.md").unwrap();
        let texts = needed.iter().map(|path| (path.clone(), fs::read_to_string(dir.path().join(path)).unwrap())).collect();
        let plan = rename::plan_move(index.vault(), "Old.md", "blocked/New.md", &texts).unwrap();
        // A file where the destination folder must go: the edits are written, then the move
        // fails, and the edits must be undone.
        fs::write(dir.path().join("blocked"), "not a folder").unwrap();
        let before = snapshot(dir.path());
        let refusal = apply_plan(index.root(), &plan, None).unwrap_err();
        assert_eq!(refusal.code, "write_failed");
        assert_eq!(snapshot(dir.path()), before, "the vault is byte-identical to before");
    }

    #[test]
    fn a_folder_move_takes_its_files_and_leaves_no_empty_folder() {
        let (dir, mut index) = vault(&[("proj/One.md", "[two](Two.md)\n"), ("proj/Two.md", ""), ("Home.md", "[[proj/One]]\n")]);
        move_note(&mut index, &json!({"from": "proj", "to": "archive/proj", "dry_run": false})).unwrap();
        assert!(!dir.path().join("proj").exists());
        // `[[proj/One]]` still finds archive/proj/One.md by its path's end: left as written.
        assert_eq!(fs::read_to_string(dir.path().join("Home.md")).unwrap(), "[[proj/One]]\n");
        assert_eq!(index.vault().backlinks("archive/proj/One.md").len(), 1);
        assert_eq!(fs::read_to_string(dir.path().join("archive/proj/One.md")).unwrap(), "[two](Two.md)\n");
    }
}
