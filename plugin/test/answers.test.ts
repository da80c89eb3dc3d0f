/**
 * What the plugin's answers promise, as the sidecar's do (`tests/test_answers.py`): every answer
 * stays under its ceiling whatever its arguments, a list inside one item is cut with its count,
 * an undo's preview is paged, a stale `list_notes` cursor is refused, and a retried call whose
 * plan was applied already says so.
 */

import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { runTool, type ToolHost } from "../tools";
import type { ToolOutcome } from "../wasm";
import { loadPlugin, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

/** Core's `answer::MAX_ANSWER_BYTES`: an answer's JSON, as structured content and again as text. */
const MAX_ANSWER_BYTES = 256_000;
const FILES = 400;
const REFERRERS = 120;
const MANY_LINKS = 12_000;
const LONG_NAME = "a rather long descriptive file name that repeats itself ".repeat(2);

function fixture(): string {
	const parts: string[] = [];
	for (let number = 0; number < FILES; number++) {
		const id = String(number).padStart(4, "0");
		const next = String((number + 1) % FILES).padStart(4, "0");
		const missing = number < REFERRERS ? "[[Missing page]] " : "";
		parts.push(`//- Project/${LONG_NAME}${id}.md\n# Part ${number}\n\n${missing}[[Hub]] [[Nowhere ${number}]] [[${LONG_NAME}${next}]]\n`);
	}
	parts.push("//- Hub.md\n# Hub\n");
	parts.push(`//- Many links.md\n${Array.from({ length: MANY_LINKS }, (_, number) => `- [[Target ${number} with a longer name]]`).join("\n")}\n`);
	return parts.join("");
}

async function open(t: TestContext, text: string): Promise<ToolHost> {
	const vaultDir = writeFixtureVault(text);
	const { plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	assert.ok(plugin.toolHost !== null, "the plugin is loaded");
	return plugin.toolHost;
}

function resultOf(outcome: ToolOutcome): Record<string, unknown> {
	assert.ok(outcome.ok, JSON.stringify(outcome).slice(0, 500));
	return outcome.result as Record<string, unknown>;
}

/** The bytes the answer takes on the wire: its JSON twice, the second time as an escaped string. */
function wireBytes(outcome: ToolOutcome): number {
	const json = JSON.stringify(outcome.ok ? outcome.result : outcome.error);
	return Buffer.byteLength(json) + Buffer.byteLength(JSON.stringify(json));
}

test("every answer stays under its ceiling with limit 1000, and a finding's lists are cut with their counts", async (t) => {
	const host = await open(t, fixture());
	for (const [tool, args] of [
		["lint_wiki", { limit: 1000 }],
		["find_unresolved_links", { limit: 1000 }],
		["get_backlinks", { path: "Hub", limit: 1000 }],
		["list_notes", { limit: 1000 }],
		["rewrite_link", { from_target: "Hub", to_target: "Centre", allow_unresolved: true, limit: 1000 }],
		["get_outgoing_links", { path: "Many links", limit: 1000 }],
	] as const) {
		const outcome = await runTool(host, tool, args);
		resultOf(outcome);
		assert.ok(wireBytes(outcome) < MAX_ANSWER_BYTES, `${tool}: ${wireBytes(outcome)} bytes`);
	}
	const outgoing = resultOf(await runTool(host, "get_outgoing_links", { path: "Many links", limit: 1000 }));
	assert.equal(outgoing["total"], MANY_LINKS);
	assert.ok(typeof outgoing["next_cursor"] === "string" && (outgoing["links"] as unknown[]).length < MANY_LINKS);
	const lint = resultOf(await runTool(host, "lint_wiki", { kinds: ["unresolved_link"], limit: 1000 }));
	const proposals = lint["proposals"] as { subject: string; related: string[]; related_count?: number; evidence: Record<string, unknown> }[];
	const missing = proposals.find((proposal) => proposal.subject === "Missing page");
	assert.ok(missing !== undefined);
	assert.equal(missing.related.length, 50);
	assert.equal(missing.related_count, REFERRERS);
	assert.equal((missing.evidence["referrers"] as unknown[]).length, 50);
	assert.equal(missing.evidence["referrers_count"], REFERRERS);
});

test("an undo's preview is paged with its counts, and a retried apply says it was applied already", async (t) => {
	const host = await open(t, fixture());
	const move = { from: "Project", to: "Archive/Project" };
	const preview = resultOf(await runTool(host, "move_note", move));
	const approved = { ...move, approved_plan_hash: preview["plan_hash"] };
	const applied = resultOf(await runTool(host, "move_note", approved));
	const retried = await runTool(host, "move_note", approved);
	assert.ok(!retried.ok);
	assert.equal(retried.error.code, "already_applied");
	assert.ok(retried.error.message.includes(`\`${String(applied["change_id"])}\``), retried.error.message);

	const moved: unknown[] = [];
	let cursor: string | undefined;
	let pages = 0;
	do {
		const page = resultOf(await runTool(host, "undo_change", { limit: 150, ...(cursor === undefined ? {} : { cursor }) }));
		pages += 1;
		moved.push(...(page["moved_back"] as unknown[]));
		assert.equal((page["counts"] as { moved_back: number }).moved_back, FILES);
		cursor = page["next_cursor"] as string | undefined;
	} while (cursor !== undefined);
	assert.ok(pages > 1);
	assert.equal(moved.length, FILES);
});

test("a list_notes cursor is refused once a note went and another came", async (t) => {
	const host = await open(t, "//- A.md\n//- B.md\n//- C.md\n");
	const first = resultOf(await runTool(host, "list_notes", { limit: 1 }));
	const preview = resultOf(await runTool(host, "move_note", { from: "A.md", to: "D.md" }));
	resultOf(await runTool(host, "move_note", { from: "A.md", to: "D.md", approved_plan_hash: preview["plan_hash"] }));
	const stale = await runTool(host, "list_notes", { limit: 1, cursor: first["next_cursor"] });
	assert.ok(!stale.ok);
	assert.equal(stale.error.code, "invalid_arguments");
	assert.match(stale.error.message, /start again/);
});
