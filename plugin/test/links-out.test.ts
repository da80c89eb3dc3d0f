/**
 * No writing tool inside Obsidian goes through a symbolic link out of the vault (issue 34, red
 * team, critical: `move_note Note.md -> Inbox/Note.md` with `Inbox -> <a folder outside>` answered
 * `applied` through the plugin and put the note outside). The double shows a linked folder as an
 * ordinary folder and follows it, as Obsidian does; every writing tool that would create, write,
 * move or delete through the link is refused with `invalid_path` naming it, and both the vault
 * and the folder outside stay byte for byte as they were. Reads through the link still work, as
 * in Obsidian.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { runTool, type ToolHost } from "../tools";
import type { ToolOutcome } from "../wasm";
import { App, TFile } from "./obsidian-double";
import { loadPlugin, snapshotVault, temporaryDirectory, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const VAULT = `
//- Note.md
# Note
See [[Other]].
//- Other.md
# Other
//- att/evil.desktop
[Desktop Entry]
//- Sub/Kept.md
# Kept
`;

interface Linked {
	vaultDir: string;
	outside: string;
	app: App;
	host: ToolHost;
}

/**
 * The vault above with `Inbox` a symbolic link to a folder outside it, which holds a note that
 * links into the vault (`Inside.md`); `also` runs before the plugin loads.
 */
async function open(t: TestContext, also?: (vaultDir: string, outside: string) => void): Promise<Linked> {
	const vaultDir = writeFixtureVault(VAULT);
	const outside = temporaryDirectory("outside");
	fs.writeFileSync(path.join(outside, "Inside.md"), "# Inside\n[[Other]] and [[Note]]\n");
	fs.symlinkSync(outside, path.join(vaultDir, "Inbox"), "dir");
	also?.(vaultDir, outside);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	assert.ok(plugin.toolHost !== null, "the plugin is loaded");
	return { vaultDir, outside, app, host: plugin.toolHost };
}

function refusal(outcome: ToolOutcome, link: string): void {
	assert.ok(!outcome.ok, `refused, not ${JSON.stringify(outcome)}`);
	assert.equal(outcome.error.code, "invalid_path", JSON.stringify(outcome.error));
	assert.match(outcome.error.message, new RegExp(`goes through \`${link}\`, a symbolic link`), outcome.error.message);
	assert.match(outcome.error.message, /nothing was changed/);
}

/** Runs `tool` approved at once and checks it is refused naming `link`, with nothing changed inside or outside. */
async function refused(linked: Linked, tool: string, args: Record<string, unknown>, link = "Inbox"): Promise<void> {
	const vaultBefore = snapshotVault(linked.vaultDir);
	const outsideBefore = snapshotVault(linked.outside);
	refusal(await runTool(linked.host, tool, args), link);
	assert.deepEqual(snapshotVault(linked.vaultDir), vaultBefore, `${tool}: the vault is as it was`);
	assert.deepEqual(snapshotVault(linked.outside), outsideBefore, `${tool}: the folder outside is as it was`);
}

test("Obsidian's view of a linked folder: its notes are listed and read through the link", async (t) => {
	const linked = await open(t);
	assert.ok(linked.app.vault.getAbstractFileByPath("Inbox/Inside.md") !== null, "the double shows the linked folder, as Obsidian does");
	const read = await runTool(linked.host, "read_note", { path: "Inbox/Inside.md" });
	assert.ok(read.ok, JSON.stringify(read));
	assert.match(JSON.stringify(read.result), /\[\[Other\]\] and \[\[Note\]\]/);
});

test("move_note into a linked folder is refused: a note and an attachment stay in the vault", async (t) => {
	const linked = await open(t);
	await refused(linked, "move_note", { from: "Note.md", to: "Inbox/Note.md", dry_run: false });
	await refused(linked, "move_note", { from: "att/evil.desktop", to: "Inbox/evil.desktop", dry_run: false });
	await refused(linked, "move_note", { from: "att", to: "Inbox/att", dry_run: false });
	// Deeper, into a folder the move would make under the link.
	await refused(linked, "move_note", { from: "Note.md", to: "Inbox/new/Note.md", dry_run: false });
});

test("move_note of a note behind a link, or one whose links must be rewritten there, is refused", async (t) => {
	const linked = await open(t);
	await refused(linked, "move_note", { from: "Inbox/Inside.md", to: "Inside.md", dry_run: false });
	// Inbox/Inside.md links to Other: the move would rewrite it through the link.
	await refused(linked, "move_note", { from: "Other.md", to: "Renamed.md", dry_run: false });
});

test("bulk_move_notes with one move through a link is refused whole", async (t) => {
	const linked = await open(t);
	await refused(linked, "bulk_move_notes", {
		moves: [
			{ from: "Sub/Kept.md", to: "Sub/Renamed.md" },
			{ from: "Note.md", to: "Inbox/Note.md" },
		],
		dry_run: false,
	});
});

test("rewrite_link whose links include one behind a link is refused", async (t) => {
	const linked = await open(t);
	await refused(linked, "rewrite_link", { from_target: "Other", to_target: "Note", dry_run: false });
});

test("update_properties of a note behind a link is refused", async (t) => {
	const linked = await open(t);
	await refused(linked, "update_properties", { path: "Inbox/Inside.md", set: { status: "done" }, dry_run: false });
});

test("commit_wiki_page neither creates a page nor patches a note behind a link", async (t) => {
	const linked = await open(t);
	await refused(linked, "commit_wiki_page", { page: { path: "Inbox/Page", body: "# Page\n\nSee [[Note]].\n" }, dry_run: false });
	await refused(linked, "commit_wiki_page", {
		page: { path: "Page", body: "# Page\n\nSee [[Note]].\n" },
		patches: [{ path: "Inbox/Inside.md", kind: "link" }],
		dry_run: false,
	});
});

test("delete_note of a note behind a link, or into a trash that is a link, is refused", async (t) => {
	const linked = await open(t);
	await refused(linked, "delete_note", { path: "Inbox/Inside.md", confirm: true, force: true });
	const trashed = await open(t, (vaultDir) => {
		fs.symlinkSync(temporaryDirectory("trash-outside"), path.join(vaultDir, ".trash"), "dir");
	});
	await refused(trashed, "delete_note", { path: "Sub/Kept.md", confirm: true, force: true }, ".trash");
});

test("a journal folder that is a link is never written through", async (t) => {
	const linked = await open(t, (vaultDir) => {
		fs.symlinkSync(temporaryDirectory("journal-outside"), path.join(vaultDir, ".vaultlink"), "dir");
	});
	await refused(linked, "move_note", { from: "Sub/Kept.md", to: "Sub/Renamed.md", dry_run: false }, ".vaultlink");
});

test("undo_change whose files went behind a link since is refused, and nothing moves out", async (t) => {
	const linked = await open(t);
	const moved = await runTool(linked.host, "move_note", { from: "Sub/Kept.md", to: "Sub/Renamed.md", dry_run: false });
	assert.ok(moved.ok, JSON.stringify(moved));
	// `Sub` now leads out of the vault: its real folder went elsewhere, a link in its place.
	const elsewhere = path.join(temporaryDirectory("sub-outside"), "Sub");
	fs.renameSync(path.join(linked.vaultDir, "Sub"), elsewhere);
	fs.symlinkSync(elsewhere, path.join(linked.vaultDir, "Sub"), "dir");
	await linked.host.settle();
	const before = snapshotVault(path.dirname(elsewhere));
	await refused(linked, "undo_change", { dry_run: false }, "Sub");
	assert.deepEqual(snapshotVault(path.dirname(elsewhere)), before, "the moved-away folder is as it was");
});

// Issue 34 (red team, high): a folder swapped for a link between the check and the step. A
// hook in the double's rename replaces `Sub` by a link to a folder outside just before the move
// runs: the file lands outside, the look after the step sees the link, and the batch is undone,
// which brings the file back; the answer says so and is not `applied`.
test("a folder swapped for a link right before a move's step: the move is undone and nothing stays outside", async (t) => {
	const linked = await open(t);
	const outside = temporaryDirectory("swapped");
	const before = snapshotVault(outside);
	const realSub = path.join(temporaryDirectory("real-sub"), "Sub");
	const rename = linked.app.vault.rename.bind(linked.app.vault);
	t.mock.method(linked.app.vault, "rename", async (file: TFile, newPath: string) => {
		if (newPath === "Sub/Note.md" && !fs.lstatSync(path.join(linked.vaultDir, "Sub")).isSymbolicLink()) {
			fs.renameSync(path.join(linked.vaultDir, "Sub"), realSub);
			fs.symlinkSync(outside, path.join(linked.vaultDir, "Sub"), "dir");
		}
		return rename(file, newPath);
	});
	const outcome = await runTool(linked.host, "move_note", { from: "Note.md", to: "Sub/Note.md", dry_run: false });
	assert.ok(!outcome.ok, JSON.stringify(outcome));
	assert.equal(outcome.error.code, "write_failed", JSON.stringify(outcome.error));
	assert.match(outcome.error.message, /now goes through `Sub`, a symbolic link; every change made so far was undone/);
	assert.deepEqual(snapshotVault(outside), before, "nothing stays outside");
	assert.equal(fs.readFileSync(path.join(linked.vaultDir, "Note.md"), "utf8"), "# Note\nSee [[Other]].", "the note is back");
});

test("a folder swapped for a link and back around a move's step: the move is not answered applied", async (t) => {
	const linked = await open(t);
	const outside = temporaryDirectory("swapped");
	const realSub = path.join(temporaryDirectory("real-sub"), "Sub");
	const rename = linked.app.vault.rename.bind(linked.app.vault);
	t.mock.method(linked.app.vault, "rename", async (file: TFile, newPath: string) => {
		if (newPath !== "Sub/Note.md") return rename(file, newPath);
		const sub = path.join(linked.vaultDir, "Sub");
		fs.renameSync(sub, realSub);
		fs.symlinkSync(outside, sub, "dir");
		try {
			return await rename(file, newPath);
		} finally {
			fs.unlinkSync(sub);
			fs.renameSync(realSub, sub);
		}
	});
	const outcome = await runTool(linked.host, "move_note", { from: "Note.md", to: "Sub/Note.md", dry_run: false });
	assert.ok(!outcome.ok, JSON.stringify(outcome));
	assert.match(outcome.error.message, /`Sub\/Note.md` is not where it was put/, outcome.error.message);
	// The note went where the link led and cannot be brought back from there: the answer says
	// the undo is incomplete, and the journal is left for `vaultlink recover`.
	assert.equal(outcome.error.code, "write_failed");
	assert.ok(fs.existsSync(path.join(linked.vaultDir, ".vaultlink", "journal.json")), "the journal is left");
});
