//! A note whose write was torn (the file truncated, then the write failed: a disk that filled
//! mid-write) is the batch's own write: core's undo steps say so (`restorable` holds the empty
//! text's hash for a note written in place), and the plugin's undo restores it, as the sidecar's
//! recovery does, instead of taking the empty note for someone's save.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { runTool } from "../tools";
import type { TFile } from "./obsidian-double";
import { BATCH, MOVE } from "./killing";
import { loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

/** The vault but the plugin's presence lease and the sealing keys the first seal makes (kept). */
function vaultFiles(vaultDir: string): Record<string, string> {
	return Object.fromEntries(
		Object.entries(snapshotVault(vaultDir)).filter(([file]) => file !== ".vaultlink/presence.json" && !file.startsWith(".vaultlink/keys") && file !== ".vaultlink/.gitignore" && file !== ".vaultlink/"),
	);
}

test("a write torn by a full disk (the note truncated, then the write failed) is undone: the note gets its text back, nothing is kept aside", async (t) => {
	const vaultDir = writeFixtureVault(BATCH);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const host = plugin.toolHost;
	assert.ok(host !== null);
	const before = vaultFiles(vaultDir);
	assert.ok((before["C.md"] ?? "").length > 0, "the note has a text to lose");
	const processNote = app.vault.process.bind(app.vault);
	let torn = false;
	t.mock.method(app.vault, "process", async (file: TFile, fn: (data: string) => string) => {
		if (file.path !== "C.md" || torn) return processNote(file, fn);
		torn = true;
		// The write reads the note, truncates the file, and the disk fills before a byte is written.
		fn(await app.vault.adapter.read(file.path));
		fs.truncateSync(path.join(vaultDir, "C.md"), 0);
		throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
	});
	const outcome = await runTool(host, "move_note", MOVE);
	assert.ok(torn, "the write of C.md was torn");
	assert.ok(!outcome.ok, JSON.stringify(outcome));
	assert.equal(outcome.error.code, "write_failed");
	assert.match(outcome.error.message, /every change made so far was undone$/);
	assert.deepEqual(vaultFiles(vaultDir), before, "C.md has its text back and nothing was kept under .vaultlink/recovered");
});

test("a write torn part way (a prefix of the batch's text left) cannot be told from a save: the note keeps what is there, its text from before is kept under .vaultlink/recovered, nothing is lost", async (t) => {
	const vaultDir = writeFixtureVault(BATCH);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const host = plugin.toolHost;
	assert.ok(host !== null);
	const before = vaultFiles(vaultDir);
	const processNote = app.vault.process.bind(app.vault);
	let prefix: string | null = null;
	t.mock.method(app.vault, "process", async (file: TFile, fn: (data: string) => string) => {
		if (file.path !== "C.md" || prefix !== null) return processNote(file, fn);
		// The write reads the note, truncates the file, writes the first bytes of the new text, and
		// the disk fills.
		const text = fn(await app.vault.adapter.read(file.path));
		prefix = text.slice(0, Math.max(1, Math.floor(text.length / 2)));
		fs.writeFileSync(path.join(vaultDir, "C.md"), prefix);
		throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
	});
	const outcome = await runTool(host, "move_note", MOVE);
	assert.ok(prefix !== null, "the write of C.md was torn");
	assert.ok(!outcome.ok, JSON.stringify(outcome));
	assert.equal(outcome.error.code, "write_failed");
	assert.doesNotMatch(outcome.error.message, /every change made so far was undone/, "the answer does not claim what is untrue");
	assert.match(outcome.error.message, /every other change made so far was undone, but `C\.md` holds text .* its text from before the change is in `\.vaultlink\/recovered\/C\.md`$/);
	assert.equal(outcome.error.retryable, false);
	const after = vaultFiles(vaultDir);
	assert.equal(after["C.md"], prefix, "the note keeps what is there (it cannot be told from a save)");
	assert.equal(after[".vaultlink/recovered/C.md"], before["C.md"], "the text from before is kept, whole");
	const { ["C.md"]: _torn, [".vaultlink/recovered/C.md"]: _kept, ...others } = after;
	const { ["C.md"]: _before, ...othersBefore } = before;
	assert.deepEqual(
		Object.fromEntries(Object.entries(others).filter(([file]) => !file.endsWith("/"))),
		Object.fromEntries(Object.entries(othersBefore).filter(([file]) => !file.endsWith("/"))),
		"every other file is as it was",
	);
});
