/**
 * The "Show the link graph's health" command: the report core's `link_graph` gives on the
 * plugin's index (the real wasm module), and the window that shows it, its hubs opening their
 * notes.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { DirectEngine } from "../engine/direct";
import { LINK_GRAPH_COMMAND_ID, LinkGraphModal, linkGraphReport } from "../graph/command";
import { App, asObsidianApp, doublePluginOf, fakeElementOf } from "./obsidian-double";
import { listVaultFiles, loadPlugin, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const FIXTURE = `
//- Hub.md
[[A]] [[B]] [[Missing]]
//- A.md
[[Hub]] [[Bridge]]
//- B.md
[[Hub]]
//- Bridge.md
[[Far]]
//- Far.md
//- Alone.md
//- x/T.md
[[Twin]]
//- one/Twin.md
//- two/Twin.md
`;

async function engineOn(vaultDir: string): Promise<DirectEngine> {
	const engine = new DirectEngine();
	for (const filePath of listVaultFiles(vaultDir)) {
		await engine.upsert(filePath, filePath.endsWith(".md") ? fs.readFileSync(path.join(vaultDir, filePath), "utf8") : "");
	}
	return engine;
}

test("the link graph's health, hubs and islands come from the index, and a hub opens its note", async (t) => {
	const vaultDir = writeFixtureVault(FIXTURE);
	const engine = await engineOn(vaultDir);
	t.after(() => engine.dispose());
	const report = await linkGraphReport(engine);
	assert.ok(typeof report !== "string", String(report));
	assert.deepEqual(report.hubs.map((hub) => [hub.path, hub.in_degree, hub.out_degree, hub.cut_point]), [
		["Hub.md", 2, 2, true],
		["A.md", 1, 2, true],
		["Bridge.md", 1, 1, true],
		["B.md", 1, 1, false],
		["Far.md", 1, 0, false],
		["one/Twin.md", 1, 0, false],
	]);
	assert.equal(report.cutPoints, 3);
	assert.deepEqual(report.islands, [5, 2, 1, 1]);
	const opened: string[] = [];
	const modal = new LinkGraphModal(asObsidianApp(new App(vaultDir)), report, (notePath) => opened.push(notePath));
	modal.open();
	const outline = fakeElementOf(modal.contentEl).outline();
	assert.deepEqual(outline.slice(0, 4), [
		"p 9 notes, 8 links.",
		"p Broken links: 1 (12.5% of links). Ambiguous links: 1 (12.5%).",
		"p Orphans: 3 (33.3% of notes). Dead ends: 4 (44.4%).",
		"p Islands: 4; the largest holds 5 notes (55.6%); 2 notes have no link to or from another note.",
	]);
	assert.ok(outline.includes("p 5 notes, 2 notes, 1 note, 1 note"), outline.join("\n"));
	fakeElementOf(modal.contentEl).findAll("li")[0]?.click();
	assert.deepEqual(opened, ["Hub.md"]);
});

test("the command is offered under a stable id", async (t) => {
	const vaultDir = writeFixtureVault(FIXTURE);
	const loaded = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => loaded.plugin.unload());
	const command = doublePluginOf(loaded.plugin).commands.get(LINK_GRAPH_COMMAND_ID);
	assert.equal(command?.name, "Show the link graph's health");
});
