/**
 * The resolution half of the parity check: the real wasm index's resolutions against answers
 * written by hand as Obsidian's metadata cache would give them, note by note and over a vault.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { compareVaultLinks } from "../parity/command";
import { describeResolutionDisagreements } from "../parity/report";
import { compareResolution, describeAmbiguous, linkpathsOf, type NoteResolution } from "../parity/resolution";
import { DirectEngine } from "../engine/direct";
import { parseNote, type OutgoingLinks } from "../wasm";
// These tests compare answers note by note, synchronously: the index straight from the glue.
import { Vault as LinkIndex } from "../wasm/vaultlink_wasm";
import { App, asObsidianApp } from "./obsidian-double";
import { listVaultFiles, writeFixtureVault } from "./support";

// ---------------------------------------------------------------------------------------------
// Fixtures

interface FixtureVault {
	vaultDir: string;
	index: LinkIndex;
	/** The same vault in a link engine, as the plugin's commands get it. */
	engine(): Promise<DirectEngine>;
	/** The text of a note of the vault. */
	text(notePath: string): string;
}

/**
 * Writes the fixture and indexes it as the indexer does: notes with their text, other files with
 * "". The index is built when first used, since the link engine loads (asynchronously) only
 * before the first test, after fixtures at the top of this file are written.
 */
function indexFixture(fixture: string): FixtureVault {
	const vaultDir = writeFixtureVault(fixture);
	const text = (notePath: string) => fs.readFileSync(path.join(vaultDir, ...notePath.split("/")), "utf8");
	let index: LinkIndex | null = null;
	let engine: DirectEngine | null = null;
	const textOf = (filePath: string) => (filePath.endsWith(".md") ? text(filePath) : "");
	return {
		vaultDir,
		text,
		get index(): LinkIndex {
			if (index === null) {
				index = new LinkIndex();
				for (const filePath of listVaultFiles(vaultDir)) index.upsert(filePath, textOf(filePath));
			}
			return index;
		},
		async engine(): Promise<DirectEngine> {
			if (engine === null) {
				engine = new DirectEngine();
				for (const filePath of listVaultFiles(vaultDir)) await engine.upsert(filePath, textOf(filePath));
			}
			return engine;
		},
	};
}

/** What "Obsidian" answers for one note. */
interface ObsidianSpec {
	/** `getFirstLinkpathDest` for each linkpath of the note; every one must be listed. */
	dest: Record<string, string | null>;
	resolved?: Record<string, number>;
	unresolved?: Record<string, number>;
}

function compareIn(vault: FixtureVault, notePath: string, spec: ObsidianSpec): NoteResolution {
	const text = vault.text(notePath);
	const parsed = parseNote(notePath, text);
	assert.deepEqual(Object.keys(spec.dest).sort(), linkpathsOf(parsed).sort(), "the fixture answers for exactly the note's linkpaths");
	return compareResolution(notePath, text, parsed, (vault.index.outgoingLinks(notePath) as OutgoingLinks), {
		resolvedLinks: spec.resolved ?? {},
		unresolvedLinks: spec.unresolved ?? {},
		firstLinkpathDest: new Map(Object.entries(spec.dest)),
	});
}

interface Expected {
	agreeing: number;
	/** The report's lines for the note's disagreements: links, then counts. */
	disagreements?: string[];
	ambiguous?: string[];
}

/** Compares `notePath` against `spec` and checks the result, described as the report describes it. */
function check(vault: FixtureVault, notePath: string, spec: ObsidianSpec, expected: Expected): void {
	const comparison = compareIn(vault, notePath, spec);
	assert.deepEqual(
		{
			agreeing: comparison.agreeing,
			disagreements: describeResolutionDisagreements(comparison),
			ambiguous: comparison.ambiguous.map(describeAmbiguous),
		},
		{ agreeing: expected.agreeing, disagreements: expected.disagreements ?? [], ambiguous: expected.ambiguous ?? [] },
	);
}

const LINKS = indexFixture(`
//- Notes/A.md
---
up: "[[B]]"
source: "[c](Sub/C.md)"
---
[[B]] and [[B#Head|the head]], ![[pic.png]], [[Missing]], [x](Sub/C.md) and [[#Local]].
## Local
//- Notes/Sub/C.md
//- B.md
# Head
//- pic.png
`);

/** Obsidian's answers when it resolves every link of Notes/A.md as vaultlink does. */
const ALIKE: ObsidianSpec = {
	dest: { B: "B.md", "Sub/C.md": "Notes/Sub/C.md", "pic.png": "pic.png", Missing: null, "": "Notes/A.md" },
	// The Markdown link in a property is not Obsidian's, so it is not in its counts.
	resolved: { "B.md": 3, "Notes/Sub/C.md": 1, "pic.png": 1, "Notes/A.md": 1 },
	unresolved: { Missing: 1 },
};

// ---------------------------------------------------------------------------------------------
// One note

test("links both sides resolve alike give no disagreement", () => {
	check(LINKS, "Notes/A.md", ALIKE, { agreeing: 8 });
});

test("a link resolved to another file, or to none, is reported with both sides' files", () => {
	check(
		LINKS,
		"Notes/A.md",
		{ ...ALIKE, dest: { ...ALIKE.dest, B: "Archive/B.md", Missing: "Missing.md" } },
		{
			agreeing: 4,
			disagreements: [
				'[[B]] (property "up"): vaultlink "B.md" (resolved), Obsidian "Archive/B.md"',
				'[[B]] (line 5, column 1): vaultlink "B.md" (resolved), Obsidian "Archive/B.md"',
				'[[B#Head|the head]] (line 5, column 11): vaultlink "B.md" (resolved), Obsidian "Archive/B.md"',
				'[[Missing]] (line 5, column 46): vaultlink none (unresolved), Obsidian "Missing.md"',
			],
		},
	);
});

test("destinations counted differently are reported, external URLs only Obsidian lists are not", () => {
	check(
		LINKS,
		"Notes/A.md",
		{
			dest: ALIKE.dest,
			// Obsidian leaves out the self-link, counts pic.png twice, and has unresolved texts of its own.
			resolved: { "B.md": 3, "Notes/Sub/C.md": 1, "pic.png": 2 },
			unresolved: { Missing: 1, "https://example.com/x": 1, "mailto:me@example.com": 2, "Meeting: notes": 1 },
		},
		{
			agreeing: 8,
			disagreements: [
				'links to "Notes/A.md": vaultlink 1, Obsidian 0',
				'links to "pic.png": vaultlink 1, Obsidian 2',
				'unresolved links "Meeting: notes": vaultlink 0, Obsidian 1',
			],
		},
	);
});

const AMBIGUOUS = indexFixture(`
//- b/x.md
[[T]] [[U]] [[V]] [[W]]
//- a/T.md
//- b/T.md
//- bb/U.md
//- c/U.md
//- a/V.md
//- c/V.md
//- a/W.md
//- c/W.md
//- d/W.md
//- e/W.md
//- f/W.md
//- g/W.md
`);

test("ambiguous links are listed with each side's pick and the step of vaultlink's rule that decided", () => {
	check(
		AMBIGUOUS,
		"b/x.md",
		{
			dest: { T: "b/T.md", U: "bb/U.md", V: "a/V.md", W: null },
			resolved: { "b/T.md": 1, "bb/U.md": 1, "a/V.md": 1 },
			unresolved: { W: 1 },
		},
		{
			agreeing: 2,
			disagreements: [
				'[[U]] (line 1, column 7): vaultlink "c/U.md" (ambiguous), Obsidian "bb/U.md"',
				'[[W]] (line 1, column 19): vaultlink "a/W.md" (ambiguous), Obsidian none',
				'links to "a/W.md": vaultlink 1, Obsidian 0',
				'links to "bb/U.md": vaultlink 0, Obsidian 1',
				'links to "c/U.md": vaultlink 1, Obsidian 0',
				'unresolved links "W": vaultlink 0, Obsidian 1',
			],
			ambiguous: [
				`[[T]] (line 1, column 1), 2 candidates (a/T.md, b/T.md): vaultlink "b/T.md" (by the linking note's folder), Obsidian "b/T.md": same pick`,
				'[[U]] (line 1, column 7), 2 candidates (bb/U.md, c/U.md): vaultlink "c/U.md" (by shortest path), Obsidian "bb/U.md": different picks',
				'[[V]] (line 1, column 13), 2 candidates (a/V.md, c/V.md): vaultlink "a/V.md" (by lexicographic order), Obsidian "a/V.md": same pick',
				'[[W]] (line 1, column 19), 6 candidates (a/W.md, c/W.md, d/W.md, e/W.md, f/W.md, 1 more): vaultlink "a/W.md" (by lexicographic order), Obsidian none: different picks',
			],
		},
	);
	const comparison = compareIn(AMBIGUOUS, "b/x.md", { dest: { T: "b/T.md", U: "c/U.md", V: "a/V.md", W: "a/W.md" } });
	assert.deepEqual(comparison.ambiguous[0], {
		location: { source: "body", start: { line: 0, col: 0, offset: 0 } },
		original: "[[T]]",
		linkpath: "T",
		candidates: ["a/T.md", "b/T.md"],
		vaultlink: "b/T.md",
		obsidian: "b/T.md",
		decidedBy: "linking-folder",
	});
});

test("a note over vaultlink's link limit has its links compared but not its counts", () => {
	const text = LINKS.text("Notes/A.md");
	const parsed = parseNote("Notes/A.md", text);
	const outgoing = { ...(LINKS.index.outgoingLinks("Notes/A.md") as OutgoingLinks), truncated: true };
	const comparison = compareResolution("Notes/A.md", text, parsed, outgoing, {
		resolvedLinks: {},
		unresolvedLinks: { Elsewhere: 4 },
		firstLinkpathDest: new Map(Object.entries({ ...ALIKE.dest, Missing: "Missing.md" })),
	});
	assert.equal(comparison.countsCompared, false);
	assert.deepEqual(comparison.counts, []);
	assert.deepEqual(describeResolutionDisagreements(comparison), ['[[Missing]] (line 5, column 46): vaultlink none (unresolved), Obsidian "Missing.md"']);
});

test("an index holding another version of the note, or a missing answer from Obsidian, is refused", () => {
	const index = new LinkIndex();
	index.upsert("N.md", "[[B]] [[C]]");
	const answers = { resolvedLinks: {}, unresolvedLinks: {}, firstLinkpathDest: new Map([["B", null]]) };
	assert.throws(
		() => compareResolution("N.md", "[[B]]", parseNote("N.md", "[[B]]"), (index.outgoingLinks("N.md") as OutgoingLinks), answers),
		/another version of N\.md .*\(2 links against 1\)/,
	);
	// The same number of links, but another target, or the same target elsewhere.
	for (const indexed of ["[[C]]", "Now [[B]]"]) {
		index.upsert("N.md", indexed);
		assert.throws(() => compareResolution("N.md", "[[B]]", parseNote("N.md", "[[B]]"), (index.outgoingLinks("N.md") as OutgoingLinks), answers), /another version of N\.md/, indexed);
	}
	index.upsert("N.md", "[[B]] [[C]]");
	const text = "[[B]] [[C]]";
	assert.throws(() => compareResolution("N.md", text, parseNote("N.md", text), (index.outgoingLinks("N.md") as OutgoingLinks), answers), /answer for the linkpath "C" of N\.md is missing/);
	index.free();
});

// ---------------------------------------------------------------------------------------------
// The vault, through the test double's metadata cache

test("the vault's resolutions are compared through Obsidian's resolvedLinks, unresolvedLinks and getFirstLinkpathDest", async () => {
	const vault = indexFixture(`
//- a/x.md
[[T]] and [[Gone]].
//- a/T.md
Back to [[x]].
//- b/T.md
//- Unresolved yet.md
[[T]]
`);
	const app = new App(vault.vaultDir);
	for (const notePath of ["a/x.md", "a/T.md", "b/T.md", "Unresolved yet.md"]) app.metadataCache.setFileCache(notePath, {});
	app.metadataCache.resolvedLinks = { "a/x.md": { "b/T.md": 1 }, "a/T.md": { "a/x.md": 1 }, "b/T.md": {} };
	app.metadataCache.unresolvedLinks = { "a/x.md": { Gone: 1 }, "a/T.md": {}, "b/T.md": {} };
	app.metadataCache.setFirstLinkpathDest("T", "a/x.md", "b/T.md");
	app.metadataCache.setFirstLinkpathDest("x", "a/T.md", "a/x.md");

	const report = await compareVaultLinks(asObsidianApp(app), await vault.engine());
	assert.deepEqual(report.resolution.totals, {
		notesCompared: 3,
		notesSkipped: 1,
		notesWithDisagreements: 1,
		linksAgreeing: 2,
		linkDisagreements: 1,
		countDisagreements: 2,
		ambiguousLinks: 1,
		ambiguousPicksDiffering: 1,
		forms: { relative: { agreeing: 0, disagreeing: 0 }, json_frontmatter: { agreeing: 0, disagreeing: 0 }, block_scalar: { agreeing: 0, disagreeing: 0 } },
	});
	assert.deepEqual(
		report.resolution.notes.map((note) => [note.path, describeResolutionDisagreements(note), note.ambiguous.map(describeAmbiguous)]),
		[
			["a/T.md", [], []],
			[
				"a/x.md",
				[
					'[[T]] (line 1, column 1): vaultlink "a/T.md" (ambiguous), Obsidian "b/T.md"',
					'links to "a/T.md": vaultlink 1, Obsidian 0',
					'links to "b/T.md": vaultlink 0, Obsidian 1',
				],
				[`[[T]] (line 1, column 1), 2 candidates (a/T.md, b/T.md): vaultlink "a/T.md" (by the linking note's folder), Obsidian "b/T.md": different picks`],
			],
			["b/T.md", [], []],
		],
	);
	assert.deepEqual(report.resolution.skipped, [{ path: "Unresolved yet.md", reason: "Obsidian has not resolved its links yet" }]);

	// Without an index, parsing is still compared and resolution is skipped note by note.
	const withoutIndex = await compareVaultLinks(asObsidianApp(app), null);
	assert.equal(withoutIndex.totals.notesCompared, 4);
	assert.deepEqual(
		withoutIndex.resolution.skipped.map((skipped) => skipped.reason),
		Array<string>(4).fill("the plugin's link index is not loaded"),
	);
});

test("a note the index does not hold is skipped with the index's reason", async () => {
	const vault = indexFixture("//- A.md\n[[B]]\n//- B.md\n");
	const app = new App(vault.vaultDir);
	app.metadataCache.setFileCache("A.md", {});
	app.metadataCache.setFileCache("B.md", {});
	app.metadataCache.resolvedLinks = { "A.md": { "B.md": 1 }, "B.md": {} };
	await (await vault.engine()).remove("A.md");
	const report = await compareVaultLinks(asObsidianApp(app), await vault.engine());
	assert.deepEqual(report.resolution.notes.map((note) => note.path), ["B.md"]);
	assert.equal(report.resolution.skipped.length, 1);
	assert.equal(report.resolution.skipped[0]?.path, "A.md");
	assert.match(report.resolution.skipped[0]?.reason ?? "", /^resolution could not be compared: .*A\.md/);
});

const RELATIVE = indexFixture(`
//- a/b/Source.md
[[../Other]] [[./Sibling]] [[../Gone]] [[Other]]
//- a/Other.md
//- a/b/Sibling.md
//- c/Other.md
`);

test("relative wikilinks are resolved from the linking note's folder and counted by form", () => {
	const comparison = compareIn(RELATIVE, "a/b/Source.md", {
		// Obsidian follows ../Other and ./Sibling from a/b; one answer here differs on purpose.
		dest: { "../Other": "a/Other.md", "./Sibling": "a/b/Sibling.md", "../Gone": "c/Other.md", Other: "a/Other.md" },
	});
	assert.equal(comparison.agreeing, 3);
	assert.deepEqual(comparison.forms.relative, { agreeing: 2, disagreeing: 1 });
	assert.deepEqual(comparison.forms.json_frontmatter, { agreeing: 0, disagreeing: 0 });
	assert.deepEqual(
		comparison.links.map((link) => [link.linkpath, link.vaultlink, link.obsidian]),
		[["../Gone", null, "c/Other.md"]],
	);
});

// Issue 40's resolution leftovers, with Obsidian's answers as `tests/resolution.rs` argues them:
// a final capital sigma, CommonMark's escapes in a markdown destination, and a folder path two
// files' paths end with, which both sides resolve but vaultlink reports as ambiguous.
const LEFTOVERS = indexFixture(`
//- x/A.md
[[ΟΔΟΣ]] [[οδος]] [a](../T\\(1\\).md) [b](../Fish%20&amp;%20Chips.md) [[docs/Guide]]
//- ΟΔΟΣ.md
//- T(1).md
//- Fish & Chips.md
//- docs/Guide.md
//- x/docs/Guide.md
`);

test("a final capital sigma, an escaped destination and a folder path resolve as Obsidian resolves them", () => {
	check(
		LEFTOVERS,
		"x/A.md",
		{
			dest: { "ΟΔΟΣ": "ΟΔΟΣ.md", "οδος": "ΟΔΟΣ.md", "../T(1).md": "T(1).md", "../Fish & Chips.md": "Fish & Chips.md", "docs/Guide": "x/docs/Guide.md" },
			resolved: { "ΟΔΟΣ.md": 2, "T(1).md": 1, "Fish & Chips.md": 1, "x/docs/Guide.md": 1 },
		},
		{
			agreeing: 5,
			ambiguous: [
				'[[docs/Guide]] (line 1, column 69), 2 candidates (docs/Guide.md, x/docs/Guide.md): vaultlink "x/docs/Guide.md" (by the linking note\'s folder), Obsidian "x/docs/Guide.md": same pick',
			],
		},
	);
});
