/**
 * The link parity check: core's parse (the real wasm module) against hand-written caches shaped
 * as Obsidian's, note by note and over a vault, and the command that shows the result.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import type { CachedMetadata, FrontmatterLinkCache, Loc, ReferenceCache } from "obsidian";
import { compareNote, describeDisagreement, describeIntended, type NoteComparison } from "../parity/compare";
import { describeTotals, summarise } from "../parity/report";
import { COMPARE_LINK_PARSING_COMMAND_ID, compareVaultLinks } from "../parity/command";
import { LinkParityModal, renderReport } from "../parity/modal";
import { parseNote } from "../wasm";
import { App, FakeElement, asHTMLElement, asObsidianApp, doublePluginOf, fakeElementOf, openedModals, shownNotices } from "./obsidian-double";
import { loadPlugin, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

// ---------------------------------------------------------------------------------------------
// Obsidian-shaped caches, written by hand

/** Where `offset` (UTF-16 code units, as JavaScript strings count) is in `text`, as Obsidian's `Loc`. */
function locAt(text: string, offset: number): Loc {
	const before = text.slice(0, offset);
	const lineStart = before.lastIndexOf("\n") + 1;
	return { line: before.split("\n").length - 1, col: offset - lineStart, offset };
}

/** `[original, link, displayText?]`: a body link Obsidian found where `original` first occurs after the frontmatter. */
type BodyLink = [string, string, string?];
/** `[key, link, original, displayText?]`: a link Obsidian found in a property. */
type PropertyLink = [string, string, string, string?];

interface CacheSpec {
	links?: BodyLink[];
	embeds?: BodyLink[];
	frontmatterLinks?: PropertyLink[];
}

function referenceIn(text: string, [original, link, displayText]: BodyLink): ReferenceCache {
	const bodyStart = text.startsWith("---\n") ? text.indexOf("\n---", 3) + "\n---".length : 0;
	const start = text.indexOf(original, bodyStart);
	assert.ok(start >= 0, `${original} is in the note`);
	const reference: ReferenceCache = {
		link,
		original,
		position: { start: locAt(text, start), end: locAt(text, start + original.length) },
	};
	if (displayText !== undefined) reference.displayText = displayText;
	return reference;
}

/** A cache as Obsidian would hold it for `text`, from the links listed. */
function obsidianCache(text: string, spec: CacheSpec): CachedMetadata {
	const cache: CachedMetadata = {};
	if (spec.links !== undefined) cache.links = spec.links.map((link) => referenceIn(text, link));
	if (spec.embeds !== undefined) cache.embeds = spec.embeds.map((link) => referenceIn(text, link));
	if (spec.frontmatterLinks !== undefined) {
		cache.frontmatterLinks = spec.frontmatterLinks.map(([key, link, original, displayText]) => {
			const reference: FrontmatterLinkCache = { key, link, original };
			if (displayText !== undefined) reference.displayText = displayText;
			return reference;
		});
	}
	return cache;
}

function compareText(text: string, spec: CacheSpec): NoteComparison {
	return compareNote("Note.md", text, parseNote("Note.md", text), obsidianCache(text, spec));
}

interface Expected {
	agreeing: number;
	disagreements?: string[];
	intended?: string[];
}

/** Compares `text` against `spec` and checks the result, described as the report describes it. */
function check(text: string, spec: CacheSpec, expected: Expected): void {
	const comparison = compareText(text, spec);
	assert.deepEqual(
		{
			agreeing: comparison.agreeing,
			disagreements: comparison.disagreements.map(describeDisagreement),
			intended: comparison.intended.map(describeIntended),
		},
		{ agreeing: expected.agreeing, disagreements: expected.disagreements ?? [], intended: expected.intended ?? [] },
	);
}

const FRONTMATTER = `---
up: "[[Alpha]]"
related:
  - "[[Beta|the beta]]"
  - "[[Gamma#Part]]"
---
`;

// ---------------------------------------------------------------------------------------------
// One note

test("links both sides read alike give no disagreement", () => {
	const text = `${FRONTMATTER}See [[Beta]], [[Beta#Heading|shown]], ![[pic.png]], [x](My%20Note.md#Part) and ![chart](<Charts/a b.png>).`;
	check(
		text,
		{
			links: [
				["[[Beta]]", "Beta", "Beta"],
				["[[Beta#Heading|shown]]", "Beta#Heading", "shown"],
				// Obsidian gives a Markdown link's destination decoded.
				["[x](My%20Note.md#Part)", "My Note.md#Part", "x"],
			],
			embeds: [
				["![[pic.png]]", "pic.png", "pic.png"],
				["![chart](<Charts/a b.png>)", "Charts/a b.png", "chart"],
			],
			frontmatterLinks: [
				["up", "Alpha", "[[Alpha]]", "Alpha"],
				["related.0", "Beta", "[[Beta|the beta]]", "the beta"],
				["related.1", "Gamma#Part", "[[Gamma#Part]]", "Gamma#Part"],
			],
		},
		{ agreeing: 8 },
	);
});

test("a Markdown link's destination as written also agrees", () => {
	check("[x](My%20Note.md)", { links: [["[x](My%20Note.md)", "My%20Note.md", "x"]] }, { agreeing: 1 });
});

test("a Markdown link's destination without its .md, as other readings of Obsidian give it, agrees too", () => {
	check("[x](My%20Note.md#Some%20Heading)", { links: [["[x](My%20Note.md#Some%20Heading)", "My Note#Some Heading", "x"]] }, { agreeing: 1 });
});

test("relative wikilinks, JSON frontmatter and block scalars are counted by form", () => {
	const json = `---\n{"up": "[[Alpha]]", "related": ["[[Beta]]"]}\n---\nSee [[../Other]] and [[./Sibling|s]] and [[Plain]].`;
	const jsonComparison = compareText(json, {
		frontmatterLinks: [
			["up", "Alpha", "[[Alpha]]"],
			["related.0", "Beta", "[[Beta]]"],
		],
		// Obsidian read ./Sibling differently: one relative link not alike.
		links: [
			["[[../Other]]", "../Other"],
			["[[./Sibling|s]]", "Sibling", "s"],
			["[[Plain]]", "Plain"],
		],
	});
	assert.equal(jsonComparison.agreeing, 4);
	assert.deepEqual(jsonComparison.forms, {
		relative: { agreeing: 1, disagreeing: 1 },
		json_frontmatter: { agreeing: 2, disagreeing: 0 },
		block_scalar: { agreeing: 0, disagreeing: 0 },
	});
	const block = `---\nsummary: >-\n  Met [[Ada]]\nnotes: |\n  and [[Bob]]\n---\n`;
	// Obsidian (like vaultlink) may not list a link inside a longer string: only vaultlink's then.
	const blockComparison = compareText(block, { frontmatterLinks: [["summary", "Ada", "[[Ada]]"]] });
	assert.deepEqual(blockComparison.forms.block_scalar, { agreeing: 1, disagreeing: 1 });
	const report = summarise([jsonComparison, blockComparison], []);
	assert.deepEqual(report.totals.forms.relative, { agreeing: 1, disagreeing: 1 });
	const phrases = describeTotals(report.totals);
	assert.ok(phrases.includes("relative wikilinks: 1 read alike, 1 not"), phrases.join("; "));
	assert.ok(phrases.includes("links in JSON frontmatter: 2 read alike, 0 not"), phrases.join("; "));
	assert.ok(phrases.includes("links in block scalars: 1 read alike, 1 not"), phrases.join("; "));
	// A vault without such links gets no such lines.
	assert.ok(!describeTotals(summarise([compareText("[[Plain]]", { links: [["[[Plain]]", "Plain"]] })], []).totals).some((phrase) => phrase.includes("relative")));
});

test("a link only Obsidian has, and one only vaultlink has, are reported", () => {
	// vaultlink reads no links in inline code; a cache that lists one there is Obsidian's alone.
	check(
		"A [[Beta]] and `[[Gone]]`.\nLine two [[Gamma]].",
		{ links: [["[[Beta]]", "Beta"], ["[[Gone]]", "Gone"]] },
		{
			agreeing: 1,
			disagreements: ['only Obsidian: [[Gone]] (line 1, column 17), target "Gone"', 'only vaultlink: [[Gamma]] (line 2, column 10), target "Gamma"'],
		},
	);
	const comparison = compareText("Just [[Beta]].", { links: [] });
	assert.deepEqual(comparison.disagreements, [
		{
			presence: "only-vaultlink",
			location: { source: "body", start: { line: 0, col: 5, offset: 5 } },
			link: { original: "[[Beta]]", target: "Beta" },
		},
	]);
});

test("a different target, display text, whole text or kind is reported with its field", () => {
	check(
		"[[Beta#Part|b]] [[Gamma]] ![[pic.png]]",
		{
			links: [
				["[[Beta#Part|b]]", "Beta#Other", "not b"],
				["[[Gamma]]", "Gamma", "Gamma"],
				["![[pic.png]]", "pic.png"],
			],
		},
		{
			agreeing: 1,
			disagreements: [
				'both, different target: [[Beta#Part|b]] (line 1, column 1): vaultlink "Beta#Part", Obsidian "Beta#Other"',
				'both, different display: [[Beta#Part|b]] (line 1, column 1): vaultlink "b", Obsidian "not b"',
				'both, different kind: ![[pic.png]] (line 1, column 27): vaultlink "embed", Obsidian "link"',
			],
		},
	);
	// Obsidian's link ends earlier than vaultlink's.
	const text = "[[Beta]] and more";
	const cache = obsidianCache(text, { links: [["[[Beta]]", "Beta"]] });
	const [beta] = cache.links ?? [];
	assert.ok(beta !== undefined);
	beta.original = "[[Be";
	const comparison = compareNote("Note.md", text, parseNote("Note.md", text), cache);
	assert.deepEqual(comparison.disagreements.map(describeDisagreement), [
		'both, different original: [[Beta]] (line 1, column 1): vaultlink "[[Beta]]", Obsidian "[[Be"',
	]);
});

test("property links are matched by key and target, and differences name the key", () => {
	check(
		FRONTMATTER,
		{
			frontmatterLinks: [
				["up", "Alpha", "[[Alpha]]"],
				// Same key, another target: one disagreement on the target.
				["related.0", "Delta", "[[Delta|the beta]]"],
				// A key vaultlink does not have.
				["other", "Omega", "[[Omega]]"],
			],
		},
		{
			agreeing: 1,
			disagreements: [
				'both, different target: [[Beta|the beta]] (property "related.0"): vaultlink "Beta", Obsidian "Delta"',
				'only Obsidian: [[Omega]] (property "other"), target "Omega"',
				'only vaultlink: [[Gamma#Part]] (property "related.1"), target "Gamma#Part"',
			],
		},
	);
	const comparison = compareText(FRONTMATTER, { frontmatterLinks: [["up", "Alpha", "[[Alpha]]"], ["related.0", "Beta", "[[Beta|the beta]]"]] });
	assert.deepEqual(comparison.disagreements, [
		{
			presence: "only-vaultlink",
			location: { source: "property", key: "related.1" },
			link: { original: "[[Gamma#Part]]", target: "Gamma#Part" },
		},
	]);
});

test("a Markdown link in a property is an intended difference, not a disagreement", () => {
	const text = `---\nup: "[[Alpha]]"\nsource: "[the paper](Papers/Paper%20One.md)"\nrelated:\n  - "[[Beta]]"\n  - "[b](Beta.md)"\n---\nBody.`;
	check(
		text,
		{ frontmatterLinks: [["up", "Alpha", "[[Alpha]]"], ["related.0", "Beta", "[[Beta]]"]] },
		{
			agreeing: 2,
			intended: [
				'Markdown link in a property, only vaultlink: [the paper](Papers/Paper%20One.md) (property "source")',
				'Markdown link in a property, only vaultlink: [b](Beta.md) (property "related.1")',
			],
		},
	);
	// Were Obsidian to read one too, the two would simply agree.
	check(text, { frontmatterLinks: [["up", "Alpha", "[[Alpha]]"], ["related.0", "Beta", "[[Beta]]"], ["related.1", "Beta.md", "[b](Beta.md)", "b"]] }, {
		agreeing: 3,
		intended: ['Markdown link in a property, only vaultlink: [the paper](Papers/Paper%20One.md) (property "source")'],
	});
});

test("external URLs Obsidian lists are intended differences", () => {
	check(
		"Read [the docs](https://example.com/docs) and [[Beta]]; mail [me](mailto:me@example.com).",
		{
			links: [
				["[the docs](https://example.com/docs)", "https://example.com/docs", "the docs"],
				["[[Beta]]", "Beta"],
				["[me](mailto:me@example.com)", "mailto:me@example.com", "me"],
			],
		},
		{
			agreeing: 1,
			intended: [
				"external URL, only Obsidian: [the docs](https://example.com/docs) (line 1, column 6)",
				"external URL, only Obsidian: [me](mailto:me@example.com) (line 1, column 62)",
			],
		},
	);
	// A wikilink whose target has a colon names a note: missing it is a disagreement.
	check("[[Meeting: notes]]", { links: [["[[Meeting: notes]]", "Meeting: notes"], ["ting: notes]]", "x:y"]] }, {
		agreeing: 1,
		disagreements: ['only Obsidian: ting: notes]] (line 1, column 6), target "x:y"'],
	});
});

test("positions after multi-byte characters match through UTF-16 offsets", () => {
	const text = "😀 café, naïve — ✓ [[Beta]]\n日本語 ![[pic.png]] [x](Gamma.md)";
	const parsed = parseNote("Note.md", text);
	const cache = obsidianCache(text, {
		links: [["[[Beta]]", "Beta"], ["[x](Gamma.md)", "Gamma.md", "x"]],
		embeds: [["![[pic.png]]", "pic.png"]],
	});
	// The test means something only if bytes and UTF-16 units differ here.
	const firstLink = parsed.links[0];
	assert.ok(firstLink !== undefined);
	assert.notEqual(firstLink.span.start, text.indexOf("[[Beta]]"), "UTF-8 bytes and UTF-16 units differ before the link");
	const comparison = compareNote("Note.md", text, parsed, cache);
	assert.deepEqual(comparison.disagreements.map(describeDisagreement), []);
	assert.equal(comparison.agreeing, 3);
	assert.deepEqual(parsed.link_positions[1]?.start, cache.embeds?.[0]?.position.start, "line and column agree as well");
});

test("a parse whose positions do not line up with its links is refused", () => {
	const parsed = parseNote("Note.md", "[[Beta]]");
	assert.throws(() => compareNote("Note.md", "[[Beta]]", { ...parsed, link_positions: [] }, {}), /1 links but 0 positions/);
});

// ---------------------------------------------------------------------------------------------
// The vault and the command

const VAULT = `
//- Alpha.md
---
up: "[[Beta]]"
source: "[paper](Papers/Paper.md)"
---
😀 Alpha links to [[Beta]] and [[Gamma]].
//- Beta.md
Beta links to [[Alpha#Top]] and [the web](https://example.com).
//- Notes/Uncached.md
Not cached by Obsidian yet: [[Alpha]].
//- image.png
`;

/**
 * Sets the fixture caches for VAULT. Parsing: Alpha disagrees once (Gamma), Beta agrees.
 * Resolution: every link points to the same file on both sides, but Obsidian counts one link
 * to Beta fewer in Alpha (as if it did not count links in properties).
 */
function cacheVault(app: App): void {
	const cache = app.metadataCache;
	cache.resolvedLinks = { "Alpha.md": { "Beta.md": 1 }, "Beta.md": { "Alpha.md": 1 } };
	cache.unresolvedLinks = { "Alpha.md": { Gamma: 1 }, "Beta.md": { "https://example.com": 1 } };
	cache.setFirstLinkpathDest("Beta", "Alpha.md", "Beta.md");
	cache.setFirstLinkpathDest("Alpha", "Beta.md", "Alpha.md");
	const alpha = '---\nup: "[[Beta]]"\nsource: "[paper](Papers/Paper.md)"\n---\n😀 Alpha links to [[Beta]] and [[Gamma]].';
	app.metadataCache.setFileCache(
		"Alpha.md",
		obsidianCache(alpha, { links: [["[[Beta]]", "Beta"], ["[[Gamma]]", "Gamma#Nope"]], frontmatterLinks: [["up", "Beta", "[[Beta]]"]] }),
	);
	const beta = "Beta links to [[Alpha#Top]] and [the web](https://example.com).";
	app.metadataCache.setFileCache(
		"Beta.md",
		obsidianCache(beta, { links: [["[[Alpha#Top]]", "Alpha#Top"], ["[the web](https://example.com)", "https://example.com", "the web"]] }),
	);
}

test("the vault's notes are compared, and notes Obsidian has not cached are skipped", async () => {
	const app = new App(writeFixtureVault(VAULT));
	cacheVault(app);
	const report = await compareVaultLinks(asObsidianApp(app), null);
	assert.deepEqual(report.totals, {
		notesCompared: 2,
		notesSkipped: 1,
		notesWithDisagreements: 1,
		notesTruncated: 0,
		linksAgreeing: 3,
		disagreements: 1,
		intendedDifferences: 2,
		forms: { relative: { agreeing: 0, disagreeing: 0 }, json_frontmatter: { agreeing: 0, disagreeing: 0 }, block_scalar: { agreeing: 0, disagreeing: 0 } },
	});
	assert.deepEqual(
		report.notes.map((note) => [note.path, note.disagreements.map(describeDisagreement), note.intended.map(describeIntended)]),
		[
			[
				"Alpha.md",
				['both, different target: [[Gamma]] (line 5, column 32): vaultlink "Gamma", Obsidian "Gamma#Nope"'],
				['Markdown link in a property, only vaultlink: [paper](Papers/Paper.md) (property "source")'],
			],
			["Beta.md", [], ["external URL, only Obsidian: [the web](https://example.com) (line 1, column 33)"]],
		],
	);
	assert.deepEqual(report.skipped, [{ path: "Notes/Uncached.md", reason: "Obsidian has not cached its metadata yet" }]);
});

test("the command is registered with its stable id; running it logs the report and opens the modal", async (t) => {
	const loaded = await loadPlugin(writeFixtureVault(VAULT));
	t.after(() => loaded.plugin.unload());
	cacheVault(loaded.app);
	const command = doublePluginOf(loaded.plugin).commands.get(COMPARE_LINK_PARSING_COMMAND_ID);
	assert.ok(command !== undefined, "the command is registered");
	assert.equal(COMPARE_LINK_PARSING_COMMAND_ID, "compare-link-parsing");
	assert.equal(command.name, "Compare link parsing with Obsidian");
	assert.equal(command.hotkeys, undefined, "no default hotkey");
	assert.ok(command.callback !== undefined);

	const logged: string[] = [];
	t.mock.method(console, "debug", (...data: unknown[]) => logged.push(data.map(String).join(" ")));
	const modalsBefore = openedModals.length;
	await command.callback();

	assert.equal(openedModals.length, modalsBefore + 1, "one modal opened");
	const modal = openedModals.at(-1);
	assert.ok(modal instanceof LinkParityModal);
	assert.ok(modal.isOpen);
	assert.equal(fakeElementOf(modal.titleEl).getText(), "Link parsing compared with Obsidian");
	const shown = fakeElementOf(modal.contentEl).outline();
	for (const line of [
		"  li 2 notes compared",
		"  li 3 links read alike",
		"  li 1 disagreement in 1 note",
		"  li 2 intended differences",
		"  li 1 note skipped",
		"h3 Disagreements",
		"h4 Alpha.md",
		'  li both, different target: [[Gamma]] (line 5, column 32): vaultlink "Gamma", Obsidian "Gamma#Nope"',
		"h3 Intended differences",
		"h4 Beta.md",
		"  li external URL, only Obsidian: [the web](https://example.com) (line 1, column 33)",
		"h3 Skipped",
		"  li Notes/Uncached.md: Obsidian has not cached its metadata yet",
		"h3 Resolution",
		"  li 2 notes compared",
		"  li 5 links resolved alike",
		"  li 0 links resolved differently and 1 destination counted differently, in 1 note",
		"  li 0 ambiguous links, 0 where Obsidian picks another file",
		"h3 Resolution disagreements",
		'  li links to "Beta.md": vaultlink 2, Obsidian 1',
		"h3 Ambiguous links",
		"p None: no link matches more than one file.",
		"h3 Resolution skipped",
	]) {
		assert.ok(shown.includes(line), `the modal shows ${JSON.stringify(line)}:\n${shown.join("\n")}`);
	}

	const report = logged.join("\n");
	assert.match(report, /2 notes compared/);
	assert.match(report, /Alpha\.md\n {4}both, different target: \[\[Gamma\]\]/);
	assert.match(report, /Notes\/Uncached\.md: Obsidian has not cached its metadata yet/);
	assert.match(report, /Resolution disagreements:\n {2}Alpha\.md\n {4}links to "Beta\.md": vaultlink 2, Obsidian 1\n/);

	modal.scope.press("Escape");
	assert.ok(!modal.isOpen, "Escape closes the modal");
	assert.deepEqual(fakeElementOf(modal.contentEl).outline(), [], "closing clears its content");
});

test("the modal lists a bounded number of items and says how many more the console has", () => {
	const text = "[[A]] [[B]] [[C]]";
	const comparison = compareNote("Note.md", text, parseNote("Note.md", text), {});
	const container = new FakeElement("div");
	renderReport(asHTMLElement(container), summarise([comparison], []), 2);
	const shown = container.outline();
	assert.equal(shown.filter((line) => line.includes("only vaultlink")).length, 2);
	assert.ok(shown.includes("p 1 more not listed here; the developer console has the full report (at its Verbose level)."), shown.join("\n"));
	assert.ok(shown.includes("p None in this vault."));
});

test("an empty vault gives an empty report that says so", () => {
	const container = new FakeElement("div");
	renderReport(asHTMLElement(container), summarise([], []));
	assert.deepEqual(container.outline(), [
		"  li 0 notes compared",
		"  li 0 links read alike",
		"  li 0 disagreements in 0 notes",
		"  li 0 intended differences",
		"  li 0 notes skipped",
		"  li 0 notes over vaultlink's link limit",
		"h3 Disagreements",
		"p None: every link is read alike, apart from the intended differences below.",
		"h3 Intended differences",
		"  li vaultlink also reads Markdown links ([text](Note.md)) inside property values; Obsidian reads only wikilinks there.",
		"  li Obsidian's cache may list links to external URLs ([text](https://…)); vaultlink does not count them as links in the vault.",
		"p None in this vault.",
		"h3 Resolution",
		"  li 0 notes compared",
		"  li 0 links resolved alike",
		"  li 0 links resolved differently and 0 destinations counted differently, in 0 notes",
		"  li 0 ambiguous links, 0 where Obsidian picks another file",
		"  li 0 notes skipped",
		"h3 Resolution disagreements",
		"p None: every link points to the same file on both sides.",
		"h3 Ambiguous links",
		"p None: no link matches more than one file.",
	]);
});

test("the command waits for Obsidian's metadata cache to resolve a change before it compares", async (t) => {
	const loaded = await loadPlugin(writeFixtureVault(VAULT), {}, { metadataDelayMs: 150 });
	t.after(() => loaded.plugin.unload());
	cacheVault(loaded.app);
	await loaded.app.metadataCache.whenResolved();
	const command = doublePluginOf(loaded.plugin).commands.get(COMPARE_LINK_PARSING_COMMAND_ID);
	assert.ok(command?.callback !== undefined);
	t.mock.method(console, "debug", () => undefined);
	// A change Obsidian has not read yet: its cache is still the old one.
	const uncached = loaded.app.vault.getFileByPath("Notes/Uncached.md");
	assert.ok(uncached !== null);
	await loaded.app.vault.modify(uncached, "changed");
	assert.equal(loaded.app.metadataCache.resolved, false);
	const modalsBefore = openedModals.length;
	await command.callback();
	assert.equal(loaded.app.metadataCache.resolved, true, "the comparison ran once the cache had resolved");
	assert.equal(openedModals.length, modalsBefore + 1, "and its report opened");
});

test("while Obsidian is still indexing, the command says so rather than report its lag as disagreement", async (t) => {
	const loaded = await loadPlugin(writeFixtureVault(VAULT), {}, { metadataDelayMs: 60_000 });
	t.after(() => loaded.plugin.unload());
	loaded.plugin.metadataWaitMs = 50;
	cacheVault(loaded.app);
	assert.equal(loaded.app.metadataCache.resolved, false, "the cache's first index is far from done");
	const command = doublePluginOf(loaded.plugin).commands.get(COMPARE_LINK_PARSING_COMMAND_ID);
	assert.ok(command?.callback !== undefined);
	const modalsBefore = openedModals.length;
	const noticesBefore = shownNotices.length;
	await command.callback();
	assert.equal(openedModals.length, modalsBefore, "no report");
	assert.deepEqual(
		shownNotices.slice(noticesBefore).map((notice) => notice.message),
		["vaultlink: Obsidian is still indexing the vault, so its links cannot be compared yet; run the comparison again once it is done."],
	);
});
