/**
 * The link engine: the worker path (the index in a Web Worker, messages structured-cloned, as
 * the plugin ships it) and the direct path (the same requests on this thread) give equal
 * answers, for every reading tool and a writing tool's plan, on the sample vault and on a
 * generated one, after the same sequence of upserts, renames, removes and a configuration.
 * Then what the client promises: order against updates, dropping a call whose caller went away,
 * and the count of unresolved targets told as it changes.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { CallDroppedError, type LinkEngine } from "../engine/client";
import { DirectEngine } from "../engine/direct";
import { startWorkerEngine } from "../engine/start";
import type { CallInputs } from "../engine/protocol";
import { REPO_ROOT, listVaultFiles, temporaryDirectory } from "./support";

/** The process id core names temporary files with; the same on both paths. */
const TAG = 4242;

interface Engines {
	worker: LinkEngine;
	direct: LinkEngine;
}

async function engines(t: TestContext): Promise<Engines> {
	const worker = await startWorkerEngine();
	const direct = new DirectEngine();
	t.after(() => {
		worker.dispose();
		direct.dispose();
	});
	assert.equal(worker.kind, "worker");
	assert.equal(direct.kind, "direct");
	return { worker, direct };
}

/** What a request settles to, an error's message included, so both paths' failures compare too. */
async function settled(request: Promise<unknown>): Promise<unknown> {
	try {
		return { answer: await request };
	} catch (error) {
		return { error: error instanceof Error ? error.message : String(error) };
	}
}

/** Runs `request` on both engines and checks they answer alike; returns the answer. */
async function same(both: Engines, what: string, request: (engine: LinkEngine) => Promise<unknown>): Promise<unknown> {
	const [fromWorker, fromDirect] = await Promise.all([settled(request(both.worker)), settled(request(both.direct))]);
	assert.deepEqual(fromWorker, fromDirect, what);
	return fromWorker;
}

/** The vault's files as the indexer gives them: a note's text, "" for anything else. */
function filesOf(vaultDir: string): Map<string, string> {
	const files = new Map<string, string>();
	for (const file of listVaultFiles(vaultDir)) files.set(file, file.endsWith(".md") ? fs.readFileSync(path.join(vaultDir, ...file.split("/")), "utf8") : "");
	return files;
}

/** The inputs core's call gets for `needed`: their texts as `files` holds them now, and fixed times. */
function inputsFor(files: Map<string, string>, needed: string[]): Partial<CallInputs> {
	const texts = new Map<string, string>();
	const modified = new Map<string, number>();
	for (const path of needed) {
		const text = files.get(path);
		if (text !== undefined) texts.set(path, text);
		modified.set(path, 1_700_000_000_000);
	}
	return { texts, modified, tag: TAG, changes: [] };
}

/** A call on both engines, each after asking it which notes it needs; the answers must be equal. */
async function call(both: Engines, files: Map<string, string>, tool: string, args: unknown): Promise<unknown> {
	const needed = (await same(both, `notes ${tool} needs`, (engine) => engine.notesNeeded(tool, args))) as { answer: string[] };
	return same(both, `${tool} ${JSON.stringify(args)}`, (engine) => engine.call(tool, args, inputsFor(files, needed.answer)));
}

/**
 * Takes both engines through the same updates, in the order the indexer would send them, and
 * keeps `files` as the vault would be: half the files in one batch, the rest one by one, the
 * app.json's exclusions, then renames (a note, and the notes of a folder), removes, and edits
 * that add links to a missing note and to a renamed one.
 */
async function update(both: Engines, files: Map<string, string>): Promise<void> {
	const all = [...files.keys()];
	const half = Math.floor(all.length / 2);
	const first = all.slice(0, half);
	await same(both, "upsertMany", (engine) => engine.upsertMany(first, first.map((file) => files.get(file) ?? "")));
	for (const file of all.slice(half)) await same(both, `upsert ${file}`, (engine) => engine.upsert(file, files.get(file) ?? ""));
	await same(both, "configure", (engine) => engine.configure(JSON.stringify({ userIgnoreFilters: ["Excluded/"], newLinkFormat: "shortest" })));

	const notes = all.filter((file) => file.endsWith(".md"));
	const renamed = notes[1];
	assert.ok(renamed !== undefined, "the vault has notes to rename");
	const to = `Renamed/${path.posix.basename(renamed)}`;
	await same(both, `rename ${renamed}`, (engine) => engine.rename(renamed, to));
	files.set(to, files.get(renamed) ?? "");
	files.delete(renamed);
	await same(both, "rename of a file that is not there", (engine) => engine.rename("Not there.md", "Elsewhere.md"));
	const folder = notes.find((note) => note.includes("/") && note !== renamed)?.split("/")[0];
	if (folder !== undefined) {
		for (const file of [...files.keys()].filter((file) => file.startsWith(`${folder}/`))) {
			const moved = `Moved ${file}`;
			await same(both, `rename ${file}`, (engine) => engine.rename(file, moved));
			files.set(moved, files.get(file) ?? "");
			files.delete(file);
		}
	}
	const removed = notes[2];
	assert.ok(removed !== undefined);
	if (files.has(removed)) {
		await same(both, `remove ${removed}`, (engine) => engine.remove(removed));
		files.delete(removed);
	}
	await same(both, "remove of a file that is not there", (engine) => engine.remove("Not there.md"));
	const edited = [...files.keys()].find((file) => file.endsWith(".md"));
	assert.ok(edited !== undefined);
	const text = `${files.get(edited) ?? ""}\n\nSee [[Nowhere yet]], [[${path.posix.basename(to, ".md")}]] and [[${path.posix.basename(removed, ".md")}]].\n`;
	await same(both, `upsert ${edited}`, (engine) => engine.upsert(edited, text));
	files.set(edited, text);
}

/** Every reading tool, and the plans of writing tools, on both engines. */
async function compareEverything(both: Engines, files: Map<string, string>): Promise<void> {
	const notes = [...files.keys()].filter((file) => file.endsWith(".md")).sort();
	assert.ok(notes.length >= 3);
	await same(both, "noteCount", (engine) => engine.noteCount());
	await same(both, "unresolvedCount", (engine) => engine.unresolvedCount());
	for (const note of notes) {
		await same(both, `outgoingLinks ${note}`, (engine) => engine.outgoingLinks(note));
		await same(both, `backlinks ${note}`, (engine) => engine.backlinks(note));
		await same(both, `findNote ${note}`, (engine) => engine.findNote(note.replace(/\.md$/, "").toLowerCase()));
		await call(both, files, "get_outgoing_links", { path: note });
		await call(both, files, "get_backlinks", { path: note, response_format: "concise" });
		const read = (await call(both, files, "read_note", { path: note })) as { answer: { ok: boolean } };
		assert.ok(read.answer.ok, `read_note ${note}`);
	}
	await same(both, "outgoingLinks of a note not in the index", (engine) => engine.outgoingLinks("Not there.md"));
	const [first, second] = notes;
	assert.ok(first !== undefined && second !== undefined);
	const title = path.posix.basename(first, ".md");
	await same(both, "auditRename", (engine) => engine.auditRename(notes[1] ?? first, first));
	// Each reading tool, answered (`true`) or refused (`false`) alike on both paths.
	const reading: [string, unknown, boolean][] = [
		["vault_summary", {}, true],
		["list_notes", { limit: 1000 }, true],
		["find_unresolved_links", {}, true],
		["find_orphans", { limit: 1000 }, true],
		["lint_wiki", {}, true],
		["lint_wiki", { kinds: ["dead_end", "orphan"], limit: 1000 }, true],
		["resolve_link", { from: first, link: title }, true],
		["find_existing_page", { topic: title }, true],
		["find_evidence", { title }, true],
		["draft_wiki_page", { topic: "A page nobody wrote" }, true],
		["get_outgoing_links", {}, false],
		["no_such_tool", {}, false],
	];
	for (const [tool, args, answered] of reading) {
		const outcome = (await call(both, files, tool, args)) as { answer: { ok: boolean } };
		assert.equal(outcome.answer.ok, answered, `${tool} ${JSON.stringify(args)}: ${JSON.stringify(outcome).slice(0, 300)}`);
	}

	// A writing tool's plan: the preview, then the approved plan's steps (not carried out).
	const move = { from: first, to: `Archive/${path.posix.basename(first)}` };
	const preview = (await call(both, files, "move_note", { ...move, dry_run: true })) as { answer: { ok: boolean; result: { plan_hash: string } } };
	assert.ok(preview.answer.ok, JSON.stringify(preview));
	const approved = (await call(both, files, "move_note", { ...move, approved_plan_hash: preview.answer.result.plan_hash })) as { answer: { ok: boolean; change?: unknown } };
	assert.ok(approved.answer.ok && approved.answer.change !== undefined, JSON.stringify(approved));
	await call(both, files, "rewrite_link", { from_target: title, to_target: path.posix.basename(second, ".md"), dry_run: true });
	await call(both, files, "delete_note", { path: second });
	await same(both, "planApplied", (engine) => engine.planApplied(preview.answer.result.plan_hash));
	await call(both, files, "move_note", { ...move, approved_plan_hash: preview.answer.result.plan_hash });
}

test("the worker path and the direct path answer alike on the sample vault, after upserts, renames and removes", async (t) => {
	const both = await engines(t);
	const files = filesOf(path.join(REPO_ROOT, "examples", "vault"));
	assert.ok(files.size > 5, "the sample vault has files");
	await update(both, files);
	await compareEverything(both, files);
});

/** A vault of `count` notes in folders, with links between them (some to notes that do not exist), aliases, headings and properties. */
function generatedVault(count: number): string {
	const vaultDir = temporaryDirectory("generated");
	let seed = 20;
	const next = (below: number) => {
		seed = (seed * 1103515245 + 12345) % 2147483648;
		return seed % below;
	};
	for (let at = 0; at < count; at += 1) {
		const folder = ["", "Topics/", "People/", "Excluded/", "Topics/Deep/"][at % 5] ?? "";
		const links = Array.from({ length: 1 + next(5) }, () => {
			const target = next(count + count / 10);
			return target < count ? `[[Note ${target}${next(3) === 0 ? "#Part" : ""}]]` : `[[Missing ${target}]]`;
		});
		const text = `---\naliases: [Alias ${at}]\nrelated: "[[Note ${next(count)}]]"\n---\n# Note ${at}\n\n## Part\nThe note ${at} is about topic ${next(7)}; see ${links.join(", ")}.\n`;
		fs.mkdirSync(path.join(vaultDir, folder), { recursive: true });
		fs.writeFileSync(path.join(vaultDir, folder, `Note ${at}.md`), text);
	}
	fs.writeFileSync(path.join(vaultDir, "picture.png"), "");
	return vaultDir;
}

test("the worker path and the direct path answer alike on a generated vault, after upserts, renames and removes", async (t) => {
	const both = await engines(t);
	const files = filesOf(generatedVault(120));
	await update(both, files);
	await compareEverything(both, files);
});

test("an update made before a call is applied before the call runs, though nobody waited for it", async (t) => {
	const { worker } = await engines(t);
	await worker.upsert("A.md", "[[B]]");
	const before = await worker.call("get_outgoing_links", { path: "A.md" });
	void worker.upsert("B.md", "B is here");
	void worker.rename("A.md", "Folder/A.md");
	const after = await worker.call("get_outgoing_links", { path: "Folder/A.md" });
	assert.ok(before.ok && after.ok);
	assert.equal((before.result as { links: { status: string }[] }).links[0]?.status, "unresolved");
	assert.equal((after.result as { links: { status: string }[] }).links[0]?.status, "resolved");
});

test("a call whose caller went away before its turn is dropped; the one running answers", async (t) => {
	const { worker } = await engines(t);
	const files = filesOf(generatedVault(60));
	await worker.upsertMany([...files.keys()], [...files.values()]);
	const running = worker.call("lint_wiki", {});
	const caller = new AbortController();
	const waiting = worker.call("vault_summary", {}, {}, caller.signal);
	caller.abort();
	await assert.rejects(waiting, CallDroppedError);
	const lint = await running;
	assert.ok(lint.ok, JSON.stringify(lint));
	// A signal aborted before the call is made drops it too; later calls go on.
	const gone = new AbortController();
	gone.abort();
	await assert.rejects(worker.call("vault_summary", {}, {}, gone.signal), CallDroppedError);
	const summary = await worker.call("vault_summary", {});
	assert.ok(summary.ok);
});

test("the engine tells the count of unresolved targets when updates change it, and not otherwise", async (t) => {
	const { worker } = await engines(t);
	const counts: number[] = [];
	let told: () => void = () => undefined;
	worker.onUnresolvedCount((count) => {
		counts.push(count);
		told();
	});
	const next = () => new Promise<void>((resolve) => (told = resolve));
	let change = next();
	await worker.upsert("A.md", "[[Missing]] and [[Gone]]");
	await change;
	assert.deepEqual(counts, [2]);
	change = next();
	// An edit that leaves the count as it was is not told; the next that changes it is.
	await worker.upsert("A.md", "[[Gone]] and [[Missing]], again");
	await worker.upsert("Missing.md", "here now");
	await change;
	assert.deepEqual(counts, [2, 1]);
	assert.equal(await worker.unresolvedCount(), 1);
});

test("a stopped engine refuses every request, and what was waiting", async (t) => {
	const { worker } = await engines(t);
	await worker.upsert("A.md", "[[B]]");
	const waiting = worker.call("vault_summary", {});
	worker.dispose();
	await assert.rejects(waiting, /stopped/);
	await assert.rejects(worker.noteCount(), /stopped/);
});
