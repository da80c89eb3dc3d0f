/**
 * A call is read into core's request once: `needs` reads it and the engine keeps what it read,
 * under the number it answers, for every later request that names the call (`needs` asked again
 * with the kept changes, `sketchesNeeded`, `call`). What is kept must never answer another call:
 * calls whose reads interleave, a call that names no number, and a number of another tool each
 * answer as they would alone; and however many times a call is asked about, the engine reads its
 * arguments once.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { before, test, type TestContext } from "node:test";
import { runCall } from "../change";
import { DirectEngine } from "../engine/direct";
import type { ToolHost } from "../host";
import { loadEngine } from "../wasm";
import { App, asObsidianApp } from "./obsidian-double";
import { listVaultFiles, writeFixtureVault } from "./support";

before(async () => {
	await loadEngine();
});

/** The body `read_note` answers, or the error's code. */
function bodyOf(outcome: { ok: boolean; result?: unknown; error?: { code: string } }): string {
	if (!outcome.ok) return `error ${outcome.error?.code ?? "?"}`;
	return (outcome.result as { body: string }).body;
}

test("a call answers for its own arguments, whichever calls asked for their notes before it", async (t) => {
	const engine = new DirectEngine();
	t.after(() => engine.dispose());
	const texts = new Map([
		["A.md", "Alpha\n"],
		["B.md", "Beta\n"],
	]);
	await engine.upsertMany([...texts.keys()], [...texts.values()]);
	const read = (path: string) => engine.call("read_note", { path }, { texts: new Map([[path, texts.get(path) ?? ""]]) });

	const readAs = (path: string, call: number | undefined) =>
		engine.call("read_note", { path }, { texts: new Map([[path, texts.get(path) ?? ""]]), call });

	// Two calls' needs asked for, then the calls made in the other order, each naming its own.
	const a = await engine.needs("read_note", { path: "A.md" });
	const b = await engine.needs("read_note", { path: "B.md" });
	assert.deepEqual([a.notes, b.notes], [["A.md"], ["B.md"]]);
	assert.notEqual(a.call, b.call);
	assert.equal(bodyOf(await readAs("B.md", b.call)), "Beta\n");
	assert.equal(bodyOf(await readAs("A.md", a.call)), "Alpha\n");

	// Needs asked for one note, the call made for another without naming it: it answers for the other.
	await engine.needs("read_note", { path: "A.md" });
	assert.equal(bodyOf(await read("B.md")), "Beta\n");
	// And with no needs asked for at all.
	assert.equal(bodyOf(await read("A.md")), "Alpha\n");
	// A number of another tool's call is not taken for this one's.
	const other = await engine.needs("get_backlinks", { path: "A.md" });
	assert.equal(bodyOf(await readAs("B.md", other.call)), "Beta\n");

	// Arguments core refuses are refused alike, asked for first or not, and kept under no number.
	const refused = { path: "A.md", limit: 3 };
	const needs = await engine.needs("read_note", refused);
	assert.deepEqual([needs.notes, needs.call], [[], undefined]);
	const first = await engine.call("read_note", refused);
	const again = await engine.call("read_note", refused);
	assert.equal(first.ok, false);
	assert.deepEqual(first, again);
});

/** Arguments whose every field counts its reads: one reading of the arguments reads each field once. */
function counted(fields: Record<string, unknown>): { args: object; readings: () => number } {
	const reads = new Map<string, number>();
	const args = {};
	for (const [name, value] of Object.entries(fields)) {
		Object.defineProperty(args, name, {
			enumerable: true,
			get: () => {
				reads.set(name, (reads.get(name) ?? 0) + 1);
				return value;
			},
		});
	}
	return { args, readings: () => Math.max(0, ...reads.values()) };
}

const VAULT = `
//- Index.md
see [[Plan]] and [[Beta]]
//- Plan.md
the plan, which Beta follows
//- Beta.md
beta, close to the plan, which Beta follows
`;

/** A vault folder behind the Obsidian double, indexed by an engine on this thread (whose arguments are not cloned on their way). */
async function directHost(t: TestContext): Promise<{ vaultDir: string; host: ToolHost }> {
	const vaultDir = writeFixtureVault(VAULT);
	const index = new DirectEngine();
	t.after(() => index.dispose());
	for (const filePath of listVaultFiles(vaultDir)) await index.upsert(filePath, fs.readFileSync(path.join(vaultDir, filePath), "utf8"));
	return { vaultDir, host: { app: asObsidianApp(new App(vaultDir)), index, settle: async () => undefined } };
}

test("a call's arguments are read once, however many times the engine is asked about the call", async (t) => {
	const { vaultDir, host } = await directHost(t);
	const once = async (tool: string, fields: Record<string, unknown>): Promise<unknown> => {
		const { args, readings } = counted(fields);
		const outcome = await runCall(host, tool, args);
		assert.ok(outcome.ok, `${tool}: ${JSON.stringify(outcome)}`);
		assert.equal(readings(), 1, `${tool} ${JSON.stringify(fields)}: its arguments were read ${readings()} times`);
		return outcome.result;
	};
	// A read; a lint that sketches the notes first; a preview; its approval, which reads the kept
	// changes; an undo, which reads them and is asked about again with them.
	await once("read_note", { path: "beta" });
	await once("lint_wiki", { kinds: ["near_duplicate"] });
	const preview = (await once("move_note", { from: "Beta.md", to: "archive/Beta.md" })) as { plan_hash: string };
	await once("move_note", { from: "Beta.md", to: "archive/Beta.md", approved_plan_hash: preview.plan_hash });
	assert.ok(fs.existsSync(path.join(vaultDir, "archive", "Beta.md")), "the move was made");
	// Nothing watches this folder: the index is told what the move did, as the indexer would.
	await host.index.remove("Beta.md");
	for (const filePath of listVaultFiles(vaultDir)) await host.index.upsert(filePath, fs.readFileSync(path.join(vaultDir, filePath), "utf8"));
	const undo = (await once("undo_change", { dry_run: true })) as { change_id: string };
	assert.ok(typeof undo.change_id === "string" && undo.change_id !== "", JSON.stringify(undo));
});
