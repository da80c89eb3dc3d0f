/**
 * The fault matrix inside Obsidian (the test double on a real folder): a full disk and a
 * read-only note part way through a batch, the journal written before the first change and
 * gone after the last, and Obsidian killed part way: a real Node process applying a move is
 * killed (SIGKILL) before each rename or write in turn, and `vaultlink recover`, the real
 * sidecar binary, restores the vault from the journal the plugin left.
 */

import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
// The module object itself, whose methods a test may mock for every module that imports it.
import nodeFs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { keptChanges } from "../batch/history";
import { JOURNAL_PATH, beginJournal, finishJournal, machineName } from "../batch/journal";
import { sealIn } from "../move/seal-keys";
import { runTool } from "../tools";
import { contentHash, type Journal, type ToolError, type ToolOutcome } from "../wasm";
import type { TFile } from "./obsidian-double";
import { BATCH, CALLS, COMMIT, KILL_CHILD, MOVE, keptFiles, killedAt, leaseRunOut, moveFirst, notesOf, runKillChild, sidecarBinary } from "./killing";
import { loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

/** `journal` sealed with the vault's key as the journal of the vault in `vaultDir`, as the plugin and the sidecar seal it. */
function sealedJournal(vaultDir: string, journal: Journal): string {
	const made = sealIn(vaultDir, "journal", journal);
	assert.ok("sealed" in made);
	return made.sealed;
}

/** What `.vaultlink` holds but the plugin's presence lease and the vault's sealing keys (made by the first seal, and kept). */
function engineFiles(vaultDir: string): string[] {
	return fs.readdirSync(path.join(vaultDir, ".vaultlink")).filter((name) => !["presence.json", "keys", ".gitignore"].includes(name));
}

function errorOf(outcome: ToolOutcome): ToolError {
	assert.ok(!outcome.ok, `expected an error, got ${JSON.stringify(outcome)}`);
	return outcome.error;
}

async function open(t: TestContext) {
	const vaultDir = writeFixtureVault(BATCH);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const host = plugin.toolHost;
	assert.ok(host !== null);
	return { vaultDir, app, host };
}

test("the journal holds every pre-image while the batch runs, and is gone once it is done", async (t) => {
	const { vaultDir, app, host } = await open(t);
	const seen: unknown[] = [];
	const rename = app.vault.rename.bind(app.vault);
	t.mock.method(app.vault, "rename", (file: TFile, to: string) => {
		seen.push((JSON.parse(fs.readFileSync(path.join(vaultDir, JOURNAL_PATH), "utf8")) as { journal: unknown }).journal);
		return rename(file, to);
	});
	assert.ok((await runTool(host, "move_note", MOVE)).ok);
	assert.equal(seen.length, 1);
	const journal = seen[0] as { pid: number; writes: { path: string; before: string }[]; moves: { from: string; to: string }[]; made_folders: string[] };
	assert.equal(journal.pid, process.pid);
	assert.deepEqual(journal.writes.map((write) => [write.path, write.before]), [["A.md", "[[Old]] and [[Old]]"], ["C.md", "![[Old]]"]]);
	assert.deepEqual(journal.moves, [{ from: "Old.md", to: "deep/New.md", via: null }]);
	assert.deepEqual(journal.made_folders, ["deep"]);
	assert.equal(fs.existsSync(path.join(vaultDir, JOURNAL_PATH)), false, "no journal left");
	assert.deepEqual(engineFiles(vaultDir), ["changes"], "only the change kept for undo_change");
	assert.equal(fs.readdirSync(path.join(vaultDir, ".vaultlink", "changes")).length, 1);
});

// Reported in issue 34: another program saved a note the batch had already rewritten (an editor
// reloading it from disk, an appender) before the last look; the batch was undone around it, the
// note kept the new link, and the answer said "nothing was changed". The save is kept, with the
// rewrite put back where the save left it intact; else the answer names the link left.
for (const [name, save, expected] of [
	["an appender", (now: string) => `${now}\nappended meanwhile\n`, "![[Old]]\nappended meanwhile\n"],
	["a save over the rewrite", () => "Typed over ![[New]] wholly.\n", null],
] as const) {
	test(`a save after a note's rewrite (${name}) keeps the save, and the note's link or its name`, async (t) => {
		const { vaultDir, app, host } = await open(t);
		const note = path.join(vaultDir, "C.md");
		const rename = app.vault.rename.bind(app.vault);
		let saved = false;
		t.mock.method(app.vault, "rename", (file: TFile, to: string) => {
			if (!saved) {
				// Between the notes' writes and the last look: as the moved note goes to its place.
				saved = true;
				const now = fs.readFileSync(note, "utf8");
				assert.equal(now, "![[New]]", "the batch wrote it");
				fs.writeFileSync(note, save(now));
			}
			return rename(file, to);
		});
		const error = errorOf(await runTool(host, "move_note", MOVE));
		assert.ok(saved, "the save was made");
		assert.equal(error.code, "concurrent_modification", error.message);
		assert.ok(!error.message.includes("nothing was changed"), error.message);
		assert.ok(fs.existsSync(path.join(vaultDir, "Old.md")) && !fs.existsSync(path.join(vaultDir, "deep")), "the move is undone");
		assert.equal(fs.readFileSync(path.join(vaultDir, "A.md"), "utf8"), "[[Old]] and [[Old]]");
		if (expected !== null) {
			assert.equal(fs.readFileSync(note, "utf8"), expected, "the save is kept, its link put back");
			assert.ok(error.message.includes("the save kept in `C.md` with the links the change had rewritten in it put back"), error.message);
		} else {
			assert.equal(fs.readFileSync(note, "utf8"), "Typed over ![[New]] wholly.\n", "the save is kept as it is");
			assert.ok(error.message.includes("`C.md` keeps the save, in which ![[New]] still read as the change wrote them"), error.message);
			assert.ok(!error.retryable && error.hint.includes("rewrite_link"), error.hint);
		}
		assert.equal(fs.existsSync(path.join(vaultDir, JOURNAL_PATH)), false, "no journal left");
	});
}

test("a rewrite's journal names rewrite_link, the tool that made it", async (t) => {
	const { vaultDir, app, host } = await open(t);
	const tools: unknown[] = [];
	const processNote = app.vault.process.bind(app.vault);
	t.mock.method(app.vault, "process", (file: TFile, fn: (data: string) => string) => {
		tools.push((JSON.parse(fs.readFileSync(path.join(vaultDir, JOURNAL_PATH), "utf8")) as { journal: { tool: string } }).journal.tool);
		return processNote(file, fn);
	});
	// Elsewhere names no note: the links to Old, which work, would stop working, so the rewrite
	// is refused, nothing written, until the call allows it.
	const before = snapshotVault(vaultDir);
	const refused = errorOf(await runTool(host, "rewrite_link", { from_target: "Old", to_target: "Elsewhere", dry_run: false }));
	assert.equal(refused.code, "breaks_links", refused.message);
	assert.deepEqual(snapshotVault(vaultDir), before);
	assert.deepEqual(tools, []);
	assert.ok((await runTool(host, "rewrite_link", { from_target: "Old", to_target: "Elsewhere", allow_unresolved: true, dry_run: false })).ok);
	assert.ok(tools.length > 0, "the rewrite wrote notes under its journal");
	assert.deepEqual([...new Set(tools)], ["rewrite_link"]);
});

test("a full disk or a read-only note part way through: the vault is byte-identical and no journal is left", async (t) => {
	for (const [code, message] of [
		["ENOSPC", "ENOSPC: no space left on device, write"],
		["EACCES", "EACCES: permission denied, open 'C.md'"],
		["EIO", "EIO: i/o error, write"],
	] as const) {
		const { vaultDir, app, host } = await open(t);
		const before = snapshotVault(vaultDir);
		const processNote = app.vault.process.bind(app.vault);
		const mocked = t.mock.method(app.vault, "process", (file: TFile, fn: (data: string) => string) => {
			if (file.path === "C.md") return Promise.reject(Object.assign(new Error(message), { code }));
			return processNote(file, fn);
		});
		const error = errorOf(await runTool(host, "move_note", MOVE));
		mocked.mock.restore();
		assert.equal(error.code, "write_failed");
		assert.equal(error.message, `writing C.md failed: ${message}; every change made so far was undone`);
		assert.deepEqual(snapshotVault(vaultDir), before, code);
	}
});

test("a page commit whose create or write fails part way leaves the vault byte-identical", async (t) => {
	for (const failing of ["create", "process"] as const) {
		const { vaultDir, app, host } = await open(t);
		const before = snapshotVault(vaultDir);
		const mocked = t.mock.method(app.vault, failing, () => Promise.reject(Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" })));
		const error = errorOf(await runTool(host, "commit_wiki_page", COMMIT));
		mocked.mock.restore();
		assert.equal(error.code, "write_failed", failing);
		assert.deepEqual(snapshotVault(vaultDir), before, `${failing} failing`);
	}
	// A file saved at the page's path after the check is never replaced: the batch is undone.
	const { vaultDir, app, host } = await open(t);
	const create = app.vault.create.bind(app.vault);
	t.mock.method(app.vault, "create", async (at: string, data: string) => {
		fs.mkdirSync(path.join(vaultDir, "wiki"), { recursive: true });
		fs.writeFileSync(path.join(vaultDir, at), "someone else's page\n");
		await app.vault.adapter.exists(at);
		return create(at, data);
	});
	const error = errorOf(await runTool(host, "commit_wiki_page", COMMIT));
	// Undone wholly (the folder the batch made holds the other page, and stays, as core's undo
	// steps leave it on both edges): the answer is the taken name, as the sidecar's.
	assert.equal(error.code, "destination_exists");
	assert.ok(!fs.existsSync(path.join(vaultDir, ".vaultlink", "journal.json")), "no journal is left");
	assert.equal(fs.readFileSync(path.join(vaultDir, "wiki", "Forest.md"), "utf8"), "someone else's page\n");
	assert.equal(fs.readFileSync(path.join(vaultDir, "A.md"), "utf8"), "[[Old]] and [[Old]]", "the patch is undone");
});

test("a change that cannot be kept for undo_change (a full disk) is undone whole, and nothing of it is kept", async (t) => {
	const { vaultDir, host } = await open(t);
	const before = snapshotVault(vaultDir);
	const link = nodeFs.linkSync.bind(nodeFs);
	t.mock.method(nodeFs, "linkSync", (from: fs.PathLike, to: fs.PathLike) => {
		if (String(to).includes(path.join(".vaultlink", "changes"))) throw Object.assign(new Error("ENOSPC: no space left on device, link"), { code: "ENOSPC" });
		link(from, to);
	});
	const error = errorOf(await runTool(host, "move_note", MOVE));
	assert.equal(error.code, "write_failed");
	assert.match(error.message, /^keeping the change for undo_change failed: ENOSPC/);
	assert.deepEqual(snapshotVault(vaultDir), before);
});

test("a batch is refused while an interrupted one's journal is in the vault", async (t) => {
	const { vaultDir, host } = await open(t);
	fs.mkdirSync(path.join(vaultDir, ".vaultlink"), { recursive: true });
	const journal = { version: 4, pid: 0, tool: "move_note", started_unix_ms: 0, machine: machineName(), writes: [], moves: [], made_folders: [] };
	fs.writeFileSync(path.join(vaultDir, JOURNAL_PATH), sealedJournal(vaultDir, journal));
	const before = snapshotVault(vaultDir);
	const error = errorOf(await runTool(host, "move_note", MOVE));
	assert.equal(error.code, "interrupted_change");
	assert.match(error.hint, /Run `vaultlink recover/);
	assert.deepEqual(snapshotVault(vaultDir), before);
});

test("a journal that came with the vault (not sealed with this user's key) is never acted on, by the plugin or by `vaultlink recover`", async (t) => {
	const { vaultDir, host } = await open(t);
	const outside = fs.mkdtempSync(path.join(os.tmpdir(), "vaultlink-outside-"));
	t.after(() => fs.rmSync(outside, { recursive: true, force: true }));
	fs.writeFileSync(path.join(outside, "secret.txt"), "mine");
	const relative = path.relative(vaultDir, path.join(outside, "secret.txt")).split(path.sep).join("/");
	fs.mkdirSync(path.join(vaultDir, ".vaultlink"), { recursive: true });
	const crafted = { version: 1, pid: 0, tool: "move_note", started_unix_ms: 0, writes: [{ path: relative, temporary: "", before: "overwritten", after_hash: contentHash("mine") }], moves: [], made_folders: [] };
	fs.writeFileSync(path.join(vaultDir, JOURNAL_PATH), JSON.stringify(crafted));
	const before = snapshotVault(vaultDir);
	const error = errorOf(await runTool(host, "move_note", MOVE));
	assert.equal(error.code, "interrupted_change");
	assert.match(error.message, /not a sealed vaultlink journal/);
	assert.match(error.hint, /delete it/);
	const recovered = spawnSync(sidecarBinary(), ["recover", vaultDir], { encoding: "utf8" });
	assert.equal(recovered.status, 2, recovered.stdout + recovered.stderr);
	assert.match(recovered.stderr, /left alone: it is not a sealed vaultlink journal/);
	assert.equal(fs.readFileSync(path.join(outside, "secret.txt"), "utf8"), "mine", "nothing outside the vault was touched");
	assert.deepEqual(snapshotVault(vaultDir), before);
	assert.ok(fs.existsSync(path.join(vaultDir, JOURNAL_PATH)), "the journal is left for the user");
});

test("an undo that fails too keeps the journal, marked abandoned, and `vaultlink recover` finishes the undo while the plugin runs", async (t) => {
	const { vaultDir, app, host } = await open(t);
	const before = snapshotVault(vaultDir);
	app.vault.failNext("rename", "Old.md");
	// C.md's write goes through; writing its old text back does not.
	let writesOfC = 0;
	const processNote = app.vault.process.bind(app.vault);
	t.mock.method(app.vault, "process", (file: TFile, fn: (data: string) => string) => {
		if (file.path === "C.md" && ++writesOfC === 2) return Promise.reject(new Error("EIO: i/o error, write"));
		return processNote(file, fn);
	});
	const error = errorOf(await runTool(host, "move_note", MOVE));
	assert.equal(error.code, "write_failed");
	assert.match(error.message, /undoing the changes made so far failed in part: C\.md could not be restored/);
	assert.match(error.hint, /vaultlink recover/);
	const { journal } = JSON.parse(fs.readFileSync(path.join(vaultDir, JOURNAL_PATH), "utf8")) as { journal: { pid: number } };
	assert.equal(journal.pid, 0, "abandoned: no process applies it any more");
	const recovered = spawnSync(sidecarBinary(), ["recover", vaultDir], { encoding: "utf8" });
	assert.equal(recovered.status, 0, recovered.stderr);
	assert.deepEqual(snapshotVault(vaultDir), before);
});

test("a failed batch's undo, as core's undo steps say, leaves a note saved over since with the save and keeps its text from before under .vaultlink/recovered, as the sidecar does", async (t) => {
	const { vaultDir, app, host } = await open(t);
	const cBefore = fs.readFileSync(path.join(vaultDir, "C.md"), "utf8");
	// The move's rename fails, after someone saved C.md over what the batch wrote in it.
	t.mock.method(app.vault, "rename", () => {
		fs.writeFileSync(path.join(vaultDir, "C.md"), "someone's save\n");
		return Promise.reject(new Error("EIO: i/o error, rename"));
	});
	const error = errorOf(await runTool(host, "move_note", MOVE));
	assert.equal(error.code, "write_failed", error.message);
	assert.equal(fs.readFileSync(path.join(vaultDir, "C.md"), "utf8"), "someone's save\n", "the save stays");
	assert.equal(fs.readFileSync(path.join(vaultDir, ".vaultlink", "recovered", "C.md"), "utf8"), cBefore, "the text from before is kept");
	assert.equal(fs.readFileSync(path.join(vaultDir, "A.md"), "utf8"), "[[Old]] and [[Old]]", "the rest is undone");
	assert.ok(fs.existsSync(path.join(vaultDir, "Old.md")) && !fs.existsSync(path.join(vaultDir, "deep")), "the move is undone");
	assert.ok(!fs.existsSync(path.join(vaultDir, JOURNAL_PATH)), "wholly undone: no journal is left");
});

test("a delete whose move to the trash fails leaves the note where it was", async (t) => {
	const { vaultDir, app, host } = await open(t);
	const before = snapshotVault(vaultDir);
	t.mock.method(app.fileManager, "trashFile", () => Promise.reject(Object.assign(new Error("ENOSPC: no space left on device, rename"), { code: "ENOSPC" })));
	const error = errorOf(await runTool(host, "delete_note", { path: "Old.md", confirm: true, force: true }));
	assert.equal(error.code, "write_failed");
	assert.match(error.message, /^moving `Old\.md` to the trash failed \(ENOSPC: no space left on device, rename\); nothing was deleted$/);
	assert.deepEqual(snapshotVault(vaultDir), before);
});

if (process.env[KILL_CHILD] !== undefined) {
	void runKillChild(process.env[KILL_CHILD]);
} else {
	test("Obsidian killed before each change of a batch (a move, a page commit, a swap, an undo): `vaultlink recover` restores the vault from the plugin's journal", async () => {
		const binary = sidecarBinary();
		for (const tool of Object.keys(CALLS)) for (let step = 0; ; step += 1) {
			const vaultDir = writeFixtureVault(BATCH);
			if (tool === "undo_change") await moveFirst(vaultDir);
			const before = snapshotVault(vaultDir);
			if (!(await killedAt(vaultDir, tool, "vault", step))) {
				assert.ok(step >= (tool === "undo_change" ? 3 : 4), `${tool}: the batch took ${step} changes`);
				assert.equal(fs.existsSync(path.join(vaultDir, JOURNAL_PATH)), false);
				break;
			}
			assert.ok(fs.existsSync(path.join(vaultDir, JOURNAL_PATH)), `the journal is left after a kill at change ${step}`);
			if (step === 0) {
				// Its lease still live: recovery would undo a change being made, and refuses.
				const early = spawnSync(binary, ["recover", vaultDir], { encoding: "utf8" });
				assert.equal(early.status, 2, early.stdout + early.stderr);
				assert.match(early.stderr, /another change to this vault is being applied/);
			}
			leaseRunOut(vaultDir);
			const recovered = spawnSync(binary, ["recover", vaultDir], { encoding: "utf8" });
			assert.equal(recovered.status, 0, recovered.stderr);
			assert.match(recovered.stdout, new RegExp(`^undid an interrupted ${tool}`));
			assert.deepEqual(snapshotVault(vaultDir), before, `killed at change ${step}, then recovered`);
		}
	});
}

test("a change kept for undo_change, copied to the journal's place, is never acted on, by the plugin or by `vaultlink recover` (issue 34)", async (t) => {
	const { vaultDir, host } = await open(t);
	assert.ok((await runTool(host, "move_note", MOVE)).ok);
	const [record] = keptFiles(vaultDir);
	assert.ok(record !== undefined, "the move is kept");
	fs.copyFileSync(path.join(vaultDir, ".vaultlink", "changes", record), path.join(vaultDir, JOURNAL_PATH));
	const before = snapshotVault(vaultDir);
	const error = errorOf(await runTool(host, "move_note", { from: "deep/New.md", to: "Elsewhere.md", dry_run: false }));
	assert.equal(error.code, "interrupted_change");
	assert.match(error.message, /kept for undo_change/);
	const recovered = spawnSync(sidecarBinary(), ["recover", vaultDir], { encoding: "utf8" });
	assert.equal(recovered.status, 2, recovered.stdout + recovered.stderr);
	assert.match(recovered.stderr, /kept for undo_change/);
	assert.deepEqual(snapshotVault(vaultDir), before, "the move stands, and the copied file is left for the user");
});

test("a journal put back after its change was made and kept, with a later change since, is never acted on (issue 34)", async (t) => {
	const { vaultDir, app, host } = await open(t);
	let saved: Buffer | null = null;
	const remove = app.vault.adapter.remove.bind(app.vault.adapter);
	const mocked = t.mock.method(app.vault.adapter, "remove", (at: string) => {
		// The journal as a copy of the vault taken while the change was made holds it.
		if (at === JOURNAL_PATH && saved === null) saved = fs.readFileSync(path.join(vaultDir, JOURNAL_PATH));
		return remove(at);
	});
	assert.ok((await runTool(host, "move_note", MOVE)).ok);
	mocked.mock.restore();
	assert.ok((await runTool(host, "move_note", { from: "A.md", to: "A2.md", dry_run: false })).ok);
	assert.equal(keptFiles(vaultDir).length, 2);
	assert.ok(saved !== null, "the journal was copied");
	fs.mkdirSync(path.join(vaultDir, ".vaultlink"), { recursive: true });
	fs.writeFileSync(path.join(vaultDir, JOURNAL_PATH), saved);
	const before = snapshotVault(vaultDir);
	const error = errorOf(await runTool(host, "move_note", { from: "C.md", to: "C2.md", dry_run: false }));
	assert.equal(error.code, "interrupted_change");
	assert.match(error.message, /was made and kept for undo_change/);
	const recovered = spawnSync(sidecarBinary(), ["recover", vaultDir], { encoding: "utf8" });
	assert.equal(recovered.status, 2, recovered.stdout + recovered.stderr);
	assert.match(recovered.stderr, /was made and kept for undo_change/);
	assert.deepEqual(snapshotVault(vaultDir), before, "both moves stand, and the copy is left for the user");
});

test("a journal or a kept change past core's bound (a sparse 1 GiB file) is refused from its size, and never read (issue 34)", async (t) => {
	const { vaultDir, app, host } = await open(t);
	assert.ok((await runTool(host, "move_note", MOVE)).ok);
	const huge = path.join(vaultDir, ".vaultlink", "changes", "9999999999999999-ff.json");
	fs.closeSync(fs.openSync(huge, "w"));
	fs.truncateSync(huge, 1 << 30);
	const kept = await keptChanges(app.vault.adapter);
	assert.deepEqual(kept.map((change) => change.journal.tool), ["move_note"], "the sparse file is not used for undo; the move is");
	fs.unlinkSync(huge);

	const notes = notesOf(vaultDir);
	const journal = path.join(vaultDir, JOURNAL_PATH);
	fs.closeSync(fs.openSync(journal, "w"));
	fs.truncateSync(journal, 1 << 30);
	const error = errorOf(await runTool(host, "move_note", { from: "deep/New.md", to: "Elsewhere.md", dry_run: false }));
	assert.equal(error.code, "interrupted_change");
	assert.match(error.message, /it is 1073741824 bytes, over the 67108864/);
	assert.equal(fs.statSync(journal).size, 1 << 30, "the file is left for the user");
	assert.deepEqual(notesOf(vaultDir), notes, "nothing was changed");
});

test("two batches taking the vault's lock at once: one holds it, the other is refused with change_in_progress and removes nothing of the winner's", async (t) => {
	const { vaultDir, app } = await open(t);
	const journal = (started: number) => ({ version: 4, pid: process.pid, tool: "move_note", started_unix_ms: started, machine: machineName(), writes: [], moves: [], made_folders: [], change_id: "" });
	for (let round = 0; round < 20; round++) {
		// Both look for a journal before either has written one, as two batches starting at once do.
		const results = await Promise.all([beginJournal(app.vault.adapter, journal(2 * round)), beginJournal(app.vault.adapter, journal(2 * round + 1))]);
		const won = results.filter((result) => result === null).length;
		assert.equal(won, 1, `round ${round}: ${JSON.stringify(results)}`);
		const lost = results.find((result) => result !== null);
		assert.equal(lost?.code, "change_in_progress", JSON.stringify(lost));
		assert.equal(lost?.retryable, true);
		const held = (JSON.parse(fs.readFileSync(path.join(vaultDir, JOURNAL_PATH), "utf8")) as { journal: { started_unix_ms: number } }).journal;
		const winner = results[0] === null ? 2 * round : 2 * round + 1;
		assert.equal(held.started_unix_ms, winner, "the journal in place is the winner's, whole");
		assert.deepEqual(engineFiles(vaultDir), ["journal.json"], "no attempt's own file is left");
		await finishJournal(app.vault.adapter, journal(winner));
		assert.equal(fs.existsSync(path.join(vaultDir, JOURNAL_PATH)), false);
	}
});

test("a batch is refused while another live process holds the vault's lock (a sidecar planning or applying)", async (t) => {
	const { vaultDir, host } = await open(t);
	const sidecar = spawn("sleep", ["30"]);
	t.after(() => sidecar.kill());
	assert.ok(sidecar.pid !== undefined);
	fs.mkdirSync(path.join(vaultDir, ".vaultlink"), { recursive: true });
	const lock = { version: 4, pid: sidecar.pid, tool: "move_note", started_unix_ms: Date.now(), machine: machineName(), writes: [], moves: [], made_folders: [], change_id: "lock-0" };
	fs.writeFileSync(path.join(vaultDir, JOURNAL_PATH), sealedJournal(vaultDir, lock));
	const before = snapshotVault(vaultDir);
	const error = errorOf(await runTool(host, "move_note", MOVE));
	assert.equal(error.code, "change_in_progress");
	assert.equal(error.retryable, true);
	assert.deepEqual(snapshotVault(vaultDir), before, "nothing changed, the lock left to its holder");
});
