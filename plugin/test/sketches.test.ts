/**
 * The sketches a lint's near_duplicate compares are made only when it runs: `sketchNotes` reads
 * the notes core names a batch at a time (never more than `SKETCH_BATCH` texts at once), the
 * engine keeps them, a later lint reads none, and a note changed after it was named is named
 * again rather than kept with the sketch of its old text.
 */

import assert from "node:assert/strict";
import { before, test } from "node:test";
import { DirectEngine } from "../engine/direct";
import { SKETCH_BATCH, sketchNotes } from "../sketches";
import { loadEngine } from "../wasm";

before(async () => {
	await loadEngine();
});

const BODY = "Spaced repetition schedules each review just before you would forget the card, so the interval between reviews grows every time you recall it correctly and shrinks when you fail, because retrieval strengthens memory more than rereading does, and spacing the practice gives the memory time to consolidate between sessions.";

test("near_duplicate's notes are sketched in batches once, and a note changed since it was named is named again", async (t) => {
	const engine = new DirectEngine();
	t.after(() => engine.dispose());
	const texts = new Map<string, string>();
	for (let note = 0; note < SKETCH_BATCH + 50; note++) texts.set(`n${String(note).padStart(4, "0")}.md`, `Note ${note} says nothing alike.`);
	texts.set("A.md", `${BODY} Flashcards.`);
	texts.set("B.md", `---\ntags: [copy]\n---\n${BODY} Paper.`);
	await engine.upsertMany([...texts.keys()], [...texts.values()]);
	const args = { kinds: ["near_duplicate"] };

	const batches: number[] = [];
	const read = async (paths: string[]) => {
		batches.push(paths.length);
		return paths.map((path) => (path === "n0003.md" ? null : (texts.get(path) ?? null)));
	};
	assert.equal(await sketchNotes(engine, "lint_wiki", args, undefined, read), texts.size - 1, "every note read was kept");
	assert.deepEqual(batches, [SKETCH_BATCH, texts.size - SKETCH_BATCH]);
	const lint = await engine.call("lint_wiki", args);
	assert.ok(lint.ok);
	const report = lint.result as { proposals: { subject: string; related: string[] }[]; skipped: { kind: string; reason: string }[] };
	assert.deepEqual(report.proposals.map((proposal) => [proposal.subject, ...proposal.related]), [["A.md", "B.md"]]);
	// The note no read gave is not compared, and the lint says so.
	assert.match(report.skipped[0]?.reason ?? "", /^1 notes were not compared/);

	// Only the unread note is named again; then a note changed after it was named is not kept.
	assert.deepEqual(await engine.sketchesNeeded("lint_wiki", args), ["n0003.md"]);
	await engine.upsert("A.md", "changed");
	assert.deepEqual(await engine.sketchesNeeded("lint_wiki", args), ["A.md", "n0003.md"]);
	await engine.upsert("A.md", "changed again");
	assert.equal(await engine.keepSketches(["A.md"], ["changed"]), 0, "named before the last change");
	assert.deepEqual(await engine.sketchesNeeded("lint_wiki", args), ["A.md", "n0003.md"]);
	// A call that runs no near_duplicate names none.
	assert.deepEqual(await engine.sketchesNeeded("lint_wiki", { kinds: ["orphan"] }), []);
});
