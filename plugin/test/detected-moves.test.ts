/**
 * Moves made outside Obsidian (`mv`, a script, a file manager) as they reach the plugin: Obsidian's
 * file watcher sees paths, not moves, so each is a `delete` and a `create` (the double's
 * `noticeDiskChanges`). The plugin keeps each note's size and content hash, and `detected_moves`
 * and `heal_moves` answer through it as the sidecar does on the folder
 * (`tests/test_detected_moves.py` holds both to the same answers).
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { HEAL_MOVES_COMMAND_ID, previewHeal } from "../heal/command";
import type VaultlinkPlugin from "../main";
import { PreviewConfirmModal } from "../move/modals";
import { runTool, type ToolHost } from "../tools";
import type { ToolOutcome } from "../wasm";
import { doublePluginOf, fakeElementOf, shownNotices, type App } from "./obsidian-double";
import { lastModal, loadPlugin, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const LINKER = "see [alpha](notes/Alpha.md), [[old/x]], [[old/deep/y]], [delta](notes/Delta.md) and [epsilon](notes/Epsilon.md)\n";

const VAULT = `
//- Index.md
${LINKER}
//- notes/Alpha.md
alpha, moved by mv, back to [the index](../Index.md)
//- old/x.md
x of a folder a script moves
//- old/deep/y.md
y of a folder a script moves
//- notes/Delta.md
delta, moved and edited
//- notes/Epsilon.md
epsilon, copied twice and gone
`;

interface Opened {
	vaultDir: string;
	app: App;
	host: ToolHost;
	plugin: VaultlinkPlugin;
}

async function open(t: TestContext): Promise<Opened> {
	const vaultDir = writeFixtureVault(VAULT);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const host = plugin.toolHost;
	assert.ok(host !== null, "the plugin is loaded");
	return { vaultDir, app, host, plugin };
}

function onDisk(vaultDir: string, filePath: string): string {
	return path.join(vaultDir, ...filePath.split("/"));
}

/** `mv from to`, behind Obsidian's back. */
function mv(vaultDir: string, from: string, to: string): void {
	fs.mkdirSync(path.dirname(onDisk(vaultDir, to)), { recursive: true });
	fs.renameSync(onDisk(vaultDir, from), onDisk(vaultDir, to));
}

function resultOf<T>(outcome: ToolOutcome): T {
	assert.ok(outcome.ok, JSON.stringify(outcome));
	return outcome.result as T;
}

interface Detected {
	observed: boolean;
	total: number;
	moves: { kind: string; from: string; to: string; evidence: string; notes_total: number; links_broken: { note: string; target: string }[] }[];
	ambiguous: { from: string; why: string; candidates: string[] }[];
}

interface Healed {
	dry_run: boolean;
	applied?: boolean;
	plan_hash: string;
	links_changed: number;
	files_moved: number;
	healed_total: number;
	ambiguous: number;
}

test("the double reports a move made on the disk as Obsidian's watcher does: a delete and a create, never a rename", async (t) => {
	const { vaultDir, app } = await open(t);
	const events: string[] = [];
	for (const name of ["create", "modify", "delete"] as const) app.vault.on(name, (file) => events.push(`${name} ${file.path}`));
	app.vault.on("rename", (file) => events.push(`rename ${file.path}`));
	mv(vaultDir, "notes/Alpha.md", "archive/Alpha.md");
	fs.renameSync(onDisk(vaultDir, "old"), onDisk(vaultDir, "new"));
	app.vault.noticeDiskChanges();
	assert.deepEqual(events, [
		"delete notes/Alpha.md",
		"delete old/deep/y.md",
		"delete old/deep",
		"delete old/x.md",
		"delete old",
		"create archive",
		"create archive/Alpha.md",
		"create new",
		"create new/deep",
		"create new/deep/y.md",
		"create new/x.md",
	]);
	assert.equal(app.vault.getAbstractFileByPath("notes/Alpha.md"), null);
	assert.ok(app.vault.getFileByPath("new/deep/y.md") !== null);
});

test("nothing moved outside Obsidian: observed, and nothing detected or healed", async (t) => {
	const { host } = await open(t);
	const detected = resultOf<Detected>(await runTool(host, "detected_moves", {}));
	assert.equal(detected.observed, true);
	assert.equal(detected.total, 0);
	const healed = resultOf<Healed>(await runTool(host, "heal_moves", {}));
	assert.equal(healed.links_changed, 0);
});

test("a note and a folder moved by mv, a note moved and edited and one copied are detected as on the folder, and healed by plan hash", async (t) => {
	const { vaultDir, app, host } = await open(t);
	mv(vaultDir, "notes/Alpha.md", "archive/2026/Alpha.md");
	fs.renameSync(onDisk(vaultDir, "old"), onDisk(vaultDir, "new"));
	mv(vaultDir, "notes/Delta.md", "archive/Delta.md");
	fs.appendFileSync(onDisk(vaultDir, "archive/Delta.md"), "an edit after the move\n");
	fs.copyFileSync(onDisk(vaultDir, "notes/Epsilon.md"), onDisk(vaultDir, "archive/Epsilon.md"));
	fs.copyFileSync(onDisk(vaultDir, "notes/Epsilon.md"), onDisk(vaultDir, "archive/Epsilon copy.md"));
	fs.unlinkSync(onDisk(vaultDir, "notes/Epsilon.md"));
	app.vault.noticeDiskChanges();

	const detected = resultOf<Detected>(await runTool(host, "detected_moves", {}));
	assert.equal(detected.observed, true);
	assert.deepEqual(
		detected.moves.map((move) => [move.kind, move.from, move.to]),
		[
			["note", "notes/Alpha.md", "archive/2026/Alpha.md"],
			["folder", "old", "new"],
		],
		JSON.stringify(detected),
	);
	assert.match(detected.moves[0]?.evidence ?? "", /same size and content hash/);
	assert.equal(detected.moves[1]?.notes_total, 2);
	const broken = detected.moves.flatMap((move) => move.links_broken.map((link) => `${link.note} ${link.target}`)).sort();
	assert.deepEqual(broken, ["Index.md notes/Alpha.md", "Index.md old/deep/y", "Index.md old/x", "archive/2026/Alpha.md ../Index.md"]);
	const ambiguous = Object.fromEntries(detected.ambiguous.map((item) => [item.from, item]));
	assert.equal(ambiguous["notes/Delta.md"]?.why, "content_differs");
	assert.equal(ambiguous["notes/Epsilon.md"]?.why, "copies");
	assert.deepEqual(ambiguous["notes/Epsilon.md"]?.candidates.slice().sort(), ["archive/Epsilon copy.md", "archive/Epsilon.md"]);

	const preview = resultOf<Healed>(await runTool(host, "heal_moves", {}));
	assert.equal(preview.dry_run, true);
	assert.equal(preview.files_moved, 0);
	assert.equal(preview.links_changed, 4);
	assert.equal(preview.ambiguous, 2);
	assert.equal(fs.readFileSync(onDisk(vaultDir, "Index.md"), "utf8"), LINKER, "a preview writes nothing");

	const applied = resultOf<Healed>(await runTool(host, "heal_moves", { approved_plan_hash: preview.plan_hash }));
	assert.equal(applied.applied, true);
	assert.equal(
		fs.readFileSync(onDisk(vaultDir, "Index.md"), "utf8"),
		"see [alpha](Alpha.md), [[x]], [[y]], [delta](notes/Delta.md) and [epsilon](notes/Epsilon.md)\n",
	);
	assert.equal(fs.readFileSync(onDisk(vaultDir, "archive/2026/Alpha.md"), "utf8"), "alpha, moved by mv, back to [the index](Index.md)");
	assert.ok(fs.existsSync(onDisk(vaultDir, "archive/2026/Alpha.md")) && !fs.existsSync(onDisk(vaultDir, "notes/Alpha.md")), "no file moved back");

	// Healed: the moves are made, as if through vaultlink, and no longer listed; the moved note
	// the heal rewrote is not taken for a move plus an edit. The cases it left alone stay.
	const after = resultOf<Detected>(await runTool(host, "detected_moves", {}));
	assert.deepEqual(after.moves, [], JSON.stringify(after));
	assert.deepEqual(after.ambiguous.map((item) => [item.from, item.why]).sort(), [
		["notes/Delta.md", "content_differs"],
		["notes/Epsilon.md", "copies"],
	]);
});

test("a move made through Obsidian is not one made outside it", async (t) => {
	const { app, host } = await open(t);
	const alpha = app.vault.getFileByPath("notes/Alpha.md");
	assert.ok(alpha !== null);
	await app.vault.rename(alpha, "elsewhere/Alpha.md");
	const detected = resultOf<Detected>(await runTool(host, "detected_moves", {}));
	assert.equal(detected.total, 0, JSON.stringify(detected));
});

test("the notice says how many notes moved outside Obsidian and how many links broke, once, and the command previews and heals them", async (t) => {
	const { vaultDir, app, host, plugin } = await open(t);
	const noticer = plugin.movesNoticer;
	assert.ok(noticer !== null);
	assert.equal(await noticer.lookForMoves(), null, "no notice while nothing moved");
	mv(vaultDir, "notes/Alpha.md", "archive/2026/Alpha.md");
	fs.renameSync(onDisk(vaultDir, "old"), onDisk(vaultDir, "new"));
	app.vault.noticeDiskChanges();
	const notice = await noticer.lookForMoves();
	assert.ok(notice !== null, "a notice is shown");
	assert.equal(
		shownNotices.at(-1)?.message,
		'vaultlink: 3 notes were moved outside Obsidian; 4 links broke. Run "Heal links broken by moves made outside Obsidian" to review and heal them.',
	);
	assert.equal(await noticer.lookForMoves(), null, "the same moves are told of once");

	const command = doublePluginOf(plugin).commands.get(HEAL_MOVES_COMMAND_ID)?.callback;
	assert.ok(command !== undefined, "the command is registered");
	const modal = (await command()) as PreviewConfirmModal | null;
	assert.ok(modal !== null, "the command opens the preview");
	assert.equal(lastModal(PreviewConfirmModal), modal);
	const shown = fakeElementOf(modal.contentEl).getText();
	assert.match(shown, /notes\/Alpha\.md → archive\/2026\/Alpha\.md/);
	assert.match(shown, /old\/x\.md → new\/x\.md/);
	assert.match(shown, /\[\[old\/x\]\] → \[\[x\]\]/);
	assert.equal(fs.readFileSync(onDisk(vaultDir, "Index.md"), "utf8"), LINKER, "the preview writes nothing");
	modal.confirm();
	await modal.action;
	assert.match(shownNotices.at(-1)?.message ?? "", /rewrote 4 links broken by moves made outside Obsidian/);
	assert.equal(
		fs.readFileSync(onDisk(vaultDir, "Index.md"), "utf8"),
		"see [alpha](Alpha.md), [[x]], [[y]], [delta](notes/Delta.md) and [epsilon](notes/Epsilon.md)\n",
	);
	assert.equal(await previewHeal(app as never, async () => host), null, "nothing is left to heal");
	assert.equal(shownNotices.at(-1)?.message, "vaultlink: no move made outside Obsidian since vaultlink loaded is left to heal.", "the healed moves are made");
});

test("fix_broken_links takes a note moved by mv as the repair of the link it broke, as on the folder", async (t) => {
	// `tests/test_fix_detected_moves.py` holds the sidecar to the same repair.
	const vaultDir = writeFixtureVault(`
//- Index.md
the plan is in [[notes/Plan]]
//- notes/Plan.md
the plan, moved by mv
//- Plans.md
a note whose name reads alike
`);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const host = plugin.toolHost;
	assert.ok(host !== null, "the plugin is loaded");
	const index = fs.readFileSync(onDisk(vaultDir, "Index.md"), "utf8");
	mv(vaultDir, "notes/Plan.md", "archive/Old plan draft.md");
	app.vault.noticeDiskChanges();

	const preview = resultOf<{ links_repaired: number; plan_hash: string; repairs: { before: string; after: string; target: string; evidence: string; confidence: number }[] }>(
		await runTool(host, "fix_broken_links", {}),
	);
	assert.equal(preview.links_repaired, 1, JSON.stringify(preview));
	const [repair] = preview.repairs;
	assert.deepEqual([repair?.before, repair?.target, repair?.evidence, repair?.confidence], ["[[notes/Plan]]", "archive/Old plan draft.md", "detected_move", 1], JSON.stringify(repair));
	const applied = resultOf<{ applied?: boolean }>(await runTool(host, "fix_broken_links", { approved_plan_hash: preview.plan_hash }));
	assert.equal(applied.applied, true);
	assert.ok(repair !== undefined && ["[[Old plan draft]]", "[[archive/Old plan draft]]"].includes(repair.after), JSON.stringify(repair));
	assert.equal(fs.readFileSync(onDisk(vaultDir, "Index.md"), "utf8"), index.replace("[[notes/Plan]]", repair.after));
});
