/**
 * The form of a rewritten link is decided once, in core (`link_form`): every example of
 * crates/core/tests/spec/link_form.md, which core's own tests run too, run here through the
 * plugin's link engine (the wasm module, configured as the plugin configures it: the text of
 * `app.json` and the "Keep the form of rewritten links" setting), so both edges write the same
 * links. Then the setting as the plugin reads it from `data.json`.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { DirectEngine } from "../engine/direct";
import { readSettings } from "../settings/settings";
import { REPO_ROOT } from "./support";

const FENCE = "````````````````````````````````";

interface Example {
	line: number;
	appJson: string | null;
	keep: boolean;
	change: { kind: "move" | "rewrite"; from: string; to: string };
	files: Map<string, string>;
	expected: string;
}

/** The examples of the spec, read as `crates/core/tests/link_form.rs` reads them. */
function examples(): Example[] {
	const lines = fs.readFileSync(path.join(REPO_ROOT, "crates", "core", "tests", "spec", "link_form.md"), "utf8").split("\n");
	const found: Example[] = [];
	for (let at = 0; at < lines.length; at++) {
		if (lines[at] !== `${FENCE} example`) continue;
		const example: Example = { line: at + 1, appJson: null, keep: false, change: { kind: "move", from: "", to: "" }, files: new Map(), expected: "" };
		let current: string | null = null;
		let inExpected = false;
		for (at++; at < lines.length && lines[at] !== FENCE; at++) {
			const line = lines[at] ?? "";
			const change = /^(move|rewrite): (.*) → (.*)$/.exec(line);
			if (line === "." && !inExpected) inExpected = true;
			else if (inExpected) example.expected += `${line}\n`;
			else if (current === null && line.startsWith("app.json: ")) example.appJson = line.slice("app.json: ".length);
			else if (current === null && line === "link form: keep") example.keep = true;
			else if (current === null && change !== null) example.change = { kind: change[1] as "move" | "rewrite", from: change[2] ?? "", to: change[3] ?? "" };
			else if (line.startsWith("//- ")) {
				current = line.slice(4).trim();
				example.files.set(current, "");
			} else if (current !== null) example.files.set(current, `${example.files.get(current) ?? ""}${line}\n`);
		}
		found.push(example);
	}
	return found;
}

interface LinkChange {
	note: string;
	before: string;
	after: string;
}

/** What the example's change rewrites, as the spec writes it, through the plugin's engine. */
async function run(example: Example): Promise<string> {
	const engine = new DirectEngine();
	try {
		const warnings = await engine.configure(example.appJson ?? "{}", example.keep ? "keep" : "obsidian");
		for (const [filePath, text] of example.files) await engine.upsert(filePath, filePath.endsWith(".md") ? text : "");
		const { kind, from, to } = example.change;
		const tool = kind === "move" ? "move_note" : "rewrite_link";
		const args = kind === "move" ? { from, to, dry_run: true } : { from_target: from, to_target: to, dry_run: true };
		const needed = await engine.notesNeeded(tool, args);
		const texts = new Map(needed.map((notePath) => [notePath, example.files.get(notePath) ?? ""] as const));
		const outcome = await engine.call(tool, args, { texts, modified: new Map(needed.map((notePath) => [notePath, 1] as const)) });
		if (!outcome.ok) throw new Error(`the example at line ${example.line} was refused: ${outcome.error.message}`);
		const changes = (outcome.result as { changes?: LinkChange[] }).changes ?? [];
		return [...changes.map((change) => `${change.note}: ${change.before} → ${change.after}\n`), ...warnings.map((warning) => `warning: ${warning}\n`)].join("");
	} finally {
		engine.dispose();
	}
}

test("every example of the spec writes its links as it says, through the plugin's engine", async () => {
	const all = examples();
	assert.ok(all.length >= 20, `the spec holds ${all.length} examples`);
	for (const example of all) assert.equal(await run(example), example.expected, `the example at line ${example.line}`);
});

test("the setting is read back from data.json, and anything but its two values is replaced, saying so", () => {
	assert.equal(readSettings(null).settings.linkForm, "obsidian");
	assert.equal(readSettings({ linkForm: "keep" }).settings.linkForm, "keep");
	const loaded = readSettings({ linkForm: "shortest" });
	assert.equal(loaded.settings.linkForm, "obsidian");
	assert.deepEqual(loaded.problems, [
		'the setting `linkForm` in its data.json is not "obsidian" or "keep"; writing links as Obsidian would is used until you change it in the plugin\'s settings',
	]);
});
