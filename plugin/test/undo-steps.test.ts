/**
 * The undo of a journal is decided once, in core (`undo_steps::steps`): the shared vectors
 * (tests/vectors/undo_steps.json) give the steps each journal yields, which the Rust tests check
 * too, so both edges undo a journal alike.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { loadEngine, undoSteps, type Journal, type UndoStep } from "../wasm";

test("the shared vectors give the undo steps core gives the sidecar", async () => {
	await loadEngine();
	const file = path.join(__dirname, "..", "..", "tests", "vectors", "undo_steps.json");
	const vectors = JSON.parse(fs.readFileSync(file, "utf8")) as { cases: { name: string; journal: Journal; steps: UndoStep[] }[] };
	assert.ok(vectors.cases.length >= 4);
	for (const vector of vectors.cases) assert.deepEqual(undoSteps(vector.journal), vector.steps, vector.name);
});

test("the journal goes last, after every step that undoes the batch", async () => {
	await loadEngine();
	const journal: Journal = {
		version: 4,
		pid: 1,
		tool: "move_note",
		started_unix_ms: 0,
		machine: "",
		writes: [{ path: "A.md", temporary: "", before: "a", after_hash: "h" }],
		moves: [{ from: "B.md", to: "d/B.md", via: null }],
		made_folders: ["d"],
	};
	assert.deepEqual(
		undoSteps(journal).map((step) => step.step),
		["move_back", "restore", "remove_folder", "remove_journal"],
	);
});
