/**
 * A journal found in the vault is judged by core's `lease::judge` (through wasm), as the sidecar
 * judges it: by its lease (the file's age), never by a pid (issue 35). The shared vectors
 * (tests/vectors/liveness.json) give both edges the same verdicts; the plugin's refusals name
 * the real vault folder; a journal found is compared with the plugin's own by core's `same_batch`
 * (the change id included); and the plugin renews the lease of its own journal while a batch runs.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { JOURNAL_PATH, machineName } from "../batch/journal";
import { sealIn } from "../move/seal-keys";
import { runTool } from "../tools";
import { journalLease, judgeJournal, sameBatch, type Journal, type ObservedJournal, type ToolError, type ToolOutcome } from "../wasm";
import { BATCH, MOVE } from "./killing";
import { loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

async function open(t: TestContext) {
	const vaultDir = writeFixtureVault(BATCH);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const host = plugin.toolHost;
	assert.ok(host !== null);
	return { vaultDir, app, host };
}

function errorOf(outcome: ToolOutcome): ToolError {
	assert.ok(!outcome.ok, JSON.stringify(outcome));
	return outcome.error;
}

/** A journal of a batch with one move, sealed for the vault, planted as a process elsewhere would leave it, its time `ageMs` ago. */
function plant(vaultDir: string, journal: Journal, ageMs: number): void {
	const made = sealIn(vaultDir, "journal", journal);
	assert.ok("sealed" in made);
	const file = path.join(vaultDir, ...JOURNAL_PATH.split("/"));
	fs.mkdirSync(path.dirname(file), { recursive: true });
	fs.writeFileSync(file, made.sealed);
	const when = new Date(Date.now() - ageMs);
	fs.utimesSync(file, when, when);
}

function journalNaming(pid: number): Journal {
	return {
		version: 4,
		pid,
		holder: "c".repeat(32),
		tool: "move_note",
		started_unix_ms: 1,
		machine: machineName(),
		writes: [],
		moves: [{ from: "Elsewhere.md", to: "Gone.md", via: null }],
		made_folders: [],
	};
}

test("the shared vectors give the verdicts the sidecar's judge gives", async (t) => {
	await open(t);
	const file = path.join(__dirname, "..", "..", "tests", "vectors", "liveness.json");
	const vectors = JSON.parse(fs.readFileSync(file, "utf8")) as { name: string; observed: ObservedJournal; verdict: unknown }[];
	assert.ok(vectors.length >= 8);
	for (const vector of vectors) assert.deepEqual(judgeJournal(vector.observed, "/v", JOURNAL_PATH).verdict, vector.verdict, vector.name);
});

test("a journal naming pid 1 (a process of another pid namespace) is in progress while its lease is live, and interrupted once it ran out, naming the vault folder", async (t) => {
	const { vaultDir, host } = await open(t);
	plant(vaultDir, journalNaming(1), 0);
	const before = snapshotVault(vaultDir);
	const live = errorOf(await runTool(host, "move_note", MOVE));
	assert.equal(live.code, "change_in_progress", live.message);
	assert.match(live.message, /move_note by process 1/);
	plant(vaultDir, journalNaming(1), journalLease().expire_ms + 1_000);
	const left = errorOf(await runTool(host, "move_note", MOVE));
	assert.equal(left.code, "interrupted_change", left.message);
	assert.ok(left.hint.includes(`vaultlink recover ${vaultDir}`), left.hint);
	assert.ok(!left.hint.includes("<vault folder>"), left.hint);
	const notes = (snapshot: Record<string, string>) => Object.entries(snapshot).filter(([name]) => !name.startsWith(".vaultlink"));
	assert.deepEqual(notes(snapshotVault(vaultDir)), notes(before), "nothing was changed");
});

test("a journal found is the plugin's own only when core's same_batch says so: the change id counts, as in the sidecar", async (t) => {
	await open(t);
	const ours = { ...journalNaming(5), change_id: "aaaa" };
	assert.ok(sameBatch(ours, ours));
	assert.ok(sameBatch({ ...ours, pid: 0 }, ours), "an abandoned journal is still its batch's");
	assert.ok(!sameBatch({ ...ours, change_id: "bbbb" }, ours));
	assert.ok(!sameBatch({ ...ours, holder: "d".repeat(32) }, ours), "another holder's journal, taken over by recovery, is not its own");
});

test("the plugin renews its journal's lease before each step of a batch", async (t) => {
	const { vaultDir, app, host } = await open(t);
	const file = path.join(vaultDir, ...JOURNAL_PATH.split("/"));
	const ages: number[] = [];
	const process = app.vault.process.bind(app.vault);
	app.vault.process = async (...args: Parameters<typeof process>) => {
		const result = await process(...args);
		// Set back, as a lease not renewed for a minute would be: the next step renews it first.
		const old = new Date(Date.now() - 60_000);
		fs.utimesSync(file, old, old);
		return result;
	};
	const rename = app.vault.rename.bind(app.vault);
	app.vault.rename = async (...args: Parameters<typeof rename>) => {
		ages.push(Date.now() - fs.statSync(file).mtimeMs);
		return rename(...args);
	};
	assert.ok((await runTool(host, "move_note", MOVE)).ok);
	assert.ok(ages.length > 0);
	for (const age of ages) assert.ok(age < journalLease().renew_ms, `renewed before the step: ${age} ms old`);
	assert.ok(!fs.existsSync(file), "no journal left");
});

test("an undo that finds the page it removes saved over since its plan answers undo_refused, as the sidecar does", async (t) => {
	const { vaultDir, app, host } = await open(t);
	const committed = await runTool(host, "commit_wiki_page", { page: { path: "Page", body: "text\n" }, dry_run: false });
	assert.ok(committed.ok, JSON.stringify(committed));
	const read = app.vault.read.bind(app.vault);
	let saved = false;
	app.vault.read = async (file: Parameters<typeof read>[0]) => {
		// Another program saves the page between the undo's plan and its removal.
		if (file.path === "Page.md" && !saved) {
			saved = true;
			fs.writeFileSync(path.join(vaultDir, "Page.md"), "text, and a line saved meanwhile\n");
		}
		return read(file);
	};
	const error = errorOf(await runTool(host, "undo_change", { dry_run: false }));
	assert.ok(saved, "the removal's check read the page");
	assert.equal(error.code, "undo_refused", error.message);
	assert.match(error.message, /Page\.md/);
	assert.equal(fs.readFileSync(path.join(vaultDir, "Page.md"), "utf8"), "text, and a line saved meanwhile\n", "the save is kept");
});
