/**
 * The plugin's tool runner: `read_note` gets the note's text through the Vault API (the test
 * double's, on a real folder) and core shapes the answer; every other tool goes to core as it is.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { runTool, type ToolHost } from "../tools";
import { READ_CONCURRENCY } from "../change";
import type { LinkEngine } from "../engine/client";
import { DirectEngine } from "../engine/direct";
import { startWorkerEngine } from "../engine/start";
import { App, TFile, asObsidianApp } from "./obsidian-double";
import { listVaultFiles, writeFixtureVault } from "./support";

const FIXTURE = `
//- Notes/Alpha.md
---
aliases: [First]
tags: [greek]
---
# Alpha
Links to [[Beta]].
//- Beta.md
Back to [[Alpha]].
`;

interface Setup {
	vaultDir: string;
	app: App;
	/** The index in the engine's worker, as the plugin has it. */
	index: LinkEngine;
	/** The same index on this thread, for comparison. */
	direct: LinkEngine;
	/** The app and index as tools get them; nothing updates this index, so `settle` has nothing to wait for. */
	host: ToolHost;
	/** The paths `cachedRead` was called with, in order. */
	reads: string[];
}

/** The fixture vault on the double, indexed as the indexer does, with `cachedRead` watched. */
async function setUp(t: TestContext, fixture = FIXTURE): Promise<Setup> {
	const vaultDir = writeFixtureVault(fixture);
	const app = new App(vaultDir);
	const index = await startWorkerEngine();
	const direct = new DirectEngine();
	t.after(() => {
		index.dispose();
		direct.dispose();
	});
	for (const filePath of listVaultFiles(vaultDir)) {
		const text = filePath.endsWith(".md") ? fs.readFileSync(path.join(vaultDir, filePath), "utf8") : "";
		await Promise.all([index.upsert(filePath, text), direct.upsert(filePath, text)]);
	}
	const reads: string[] = [];
	const cachedRead = app.vault.cachedRead.bind(app.vault);
	t.mock.method(app.vault, "cachedRead", (file: TFile) => {
		reads.push(file.path);
		return cachedRead(file);
	});
	const host: ToolHost = { app: asObsidianApp(app), index, settle: async () => undefined };
	return { vaultDir, app, index, direct, host, reads };
}

test("read_note reads the note through the Vault API and returns its parts", async (t) => {
	const { vaultDir, host, reads } = await setUp(t);
	// Changed on disk after indexing: the answer can only come from reading the note now.
	fs.writeFileSync(path.join(vaultDir, "Notes", "Alpha.md"), "---\naliases: [First]\n---\n# Alpha, edited\nNew text.");

	// A path as a person writes it: other case, no `.md`.
	const outcome = await runTool(host, "read_note", { path: "notes/alpha" });
	assert.deepEqual(outcome, {
		ok: true,
		result: {
			path: "Notes/Alpha.md",
			frontmatter: "aliases: [First]\n",
			body: "# Alpha, edited\nNew text.",
			body_bytes: 25,
			aliases: ["First"],
			tags: [],
			headings: ["Alpha, edited"],
		},
	});
	assert.deepEqual(reads, ["Notes/Alpha.md"], "one read, of the note the path names");
});

test("read_note never takes a text from the caller", async (t) => {
	const { app, host } = await setUp(t);
	// The text is the edge's to supply: a caller's is an unknown parameter, as the sidecar's schema says.
	const forged = await runTool(host, "read_note", { path: "Beta.md", response_format: "concise", text: "forged" });
	assert.ok(!forged.ok);
	assert.equal(forged.error.code, "invalid_arguments");
	assert.match(forged.error.message, /^unknown parameter `text`/);
	const outcome = await runTool(host, "read_note", { path: "Beta.md", response_format: "concise" });
	assert.deepEqual(outcome, { ok: true, result: { path: "Beta.md", body: "Back to [[Alpha]].\n", body_bytes: 19 } });
	// Deleted from the vault while the index still holds it (its update waits for the debounce):
	// there is no text to read, and the caller's must not stand in for it.
	const beta = app.vault.getFileByPath("Beta.md");
	assert.ok(beta !== null);
	await app.vault.delete(beta);
	const gone = await runTool(host, "read_note", { path: "Beta.md" });
	assert.ok(!gone.ok, JSON.stringify(gone));
	assert.equal(gone.error.retryable, true, "worth calling again once the index has caught up");
});

test("read_note of an unknown path is note_not_found, without reading anything", async (t) => {
	const { host, reads } = await setUp(t);
	for (const args of [{ path: "Nowhere.md" }, { path: "Nowhere.md", response_format: "concise" }]) {
		const outcome = await runTool(host, "read_note", args);
		assert.ok(!outcome.ok, JSON.stringify(outcome));
		assert.equal(outcome.error.code, "note_not_found");
		assert.match(outcome.error.message, /Nowhere\.md/);
		assert.equal(outcome.error.retryable, false);
	}
	// Missing or mistyped arguments reach core, which says what is wrong.
	const untyped = await runTool(host, "read_note", { path: 7 });
	assert.ok(!untyped.ok);
	assert.equal(untyped.error.code, "invalid_arguments");
	assert.deepEqual(reads, []);
});

test("other tools pass through to core unchanged, without reading notes", async (t) => {
	const { direct, host, reads } = await setUp(t);
	const calls: [string, unknown][] = [
		["get_outgoing_links", { path: "Notes/Alpha" }],
		["get_backlinks", { path: "Beta.md", response_format: "concise" }],
		["vault_summary", {}],
		["vault_summary", null],
		["get_outgoing_links", { path: "Nowhere" }],
		["no_such_tool", {}],
	];
	for (const [tool, args] of calls) {
		const outcome = await runTool(host, tool, args);
		assert.deepEqual(outcome, await direct.call(tool, args), `${tool} ${JSON.stringify(args)}`);
	}
	const outgoing = await runTool(host, "get_outgoing_links", { path: "Notes/Alpha" });
	assert.ok(outgoing.ok);
	assert.equal((outgoing.result as { links: { resolved_path?: string }[] }).links[0]?.resolved_path, "Beta.md", "a real answer, not an error");
	assert.deepEqual(reads, []);
});

test("find_evidence reads every note through the Vault API and core ranks them", async (t) => {
	const { vaultDir, host, reads } = await setUp(t);
	// Written after indexing: only a fresh read of Beta.md can find this mention.
	fs.writeFileSync(path.join(vaultDir, "Beta.md"), "Back to [[Alpha]]. Alpha comes first in the alphabet.");
	const outcome = await runTool(host, "find_evidence", { title: "alpha" });
	assert.equal(outcome.ok, true, JSON.stringify(outcome));
	const result = (outcome as { ok: true; result: { total: number; matches: { path: string; match: string; mentions: number; excerpt?: string }[] } }).result;
	assert.deepEqual(reads.slice().sort(), ["Beta.md", "Notes/Alpha.md"]);
	assert.equal(result.total, 2);
	assert.deepEqual(
		result.matches.map((found) => [found.path, found.match, found.mentions]),
		[
			["Notes/Alpha.md", "title", 0],
			// The link and the prose mention; the link's own text is counted once, with the prose.
			["Beta.md", "body", 2],
		],
	);
	assert.equal(result.matches[1]?.excerpt, "Back to [[Alpha]]. Alpha comes first in the alphabet.");

	const refused = await runTool(host, "find_evidence", { title: "" });
	assert.equal(refused.ok, false);
	assert.equal((refused as { ok: false; error: { code: string } }).error.code, "invalid_arguments");
});

test("find_evidence reads at most READ_CONCURRENCY notes at once, and reads every one", async (t) => {
	const notes = Array.from({ length: 5 * READ_CONCURRENCY }, (_, at) => `//- Note ${at}.md\nNote ${at} mentions the lighthouse.\n`).join("");
	const { app, host, reads } = await setUp(t, notes);
	let reading = 0;
	let most = 0;
	const cachedRead = app.vault.cachedRead.bind(app.vault);
	t.mock.method(app.vault, "cachedRead", async (file: TFile) => {
		reading += 1;
		most = Math.max(most, reading);
		try {
			// A read that takes a turn of the event loop, as a read from disk does.
			await new Promise((resolve) => setTimeout(resolve, 1));
			return await cachedRead(file);
		} finally {
			reading -= 1;
		}
	});
	const outcome = await runTool(host, "find_evidence", { title: "lighthouse" });
	assert.ok(outcome.ok, JSON.stringify(outcome));
	assert.equal((outcome.result as { total: number }).total, 5 * READ_CONCURRENCY);
	assert.equal(most, READ_CONCURRENCY, "as many reads at once as allowed, and no more");
	assert.equal(reads.length, 5 * READ_CONCURRENCY);
});
