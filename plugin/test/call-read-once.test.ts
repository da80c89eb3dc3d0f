/**
 * A call is read into core's request once: `notesNeeded` reads it and the engine keeps what it
 * read for the `call` that follows. What is kept must never answer another call: calls whose
 * reads interleave, a call whose arguments differ from those its notes were asked for, and a
 * call no `notesNeeded` came before each answer as they would alone.
 */

import assert from "node:assert/strict";
import { before, test } from "node:test";
import { DirectEngine } from "../engine/direct";
import { loadEngine } from "../wasm";

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

	// Two calls' notes asked for, then the calls made in the other order.
	assert.deepEqual(await engine.notesNeeded("read_note", { path: "A.md" }), ["A.md"]);
	assert.deepEqual(await engine.notesNeeded("read_note", { path: "B.md" }), ["B.md"]);
	assert.equal(bodyOf(await read("B.md")), "Beta\n");
	assert.equal(bodyOf(await read("A.md")), "Alpha\n");

	// Notes asked for one note, the call made for another: it answers for the other.
	await engine.notesNeeded("read_note", { path: "A.md" });
	assert.equal(bodyOf(await read("B.md")), "Beta\n");
	// And with no notes asked for at all.
	assert.equal(bodyOf(await read("A.md")), "Alpha\n");

	// Arguments core refuses are refused alike, asked for first or not.
	const refused = { path: "A.md", limit: 3 };
	assert.deepEqual(await engine.notesNeeded("read_note", refused), []);
	const first = await engine.call("read_note", refused);
	const again = await engine.call("read_note", refused);
	assert.equal(first.ok, false);
	assert.deepEqual(first, again);
});
