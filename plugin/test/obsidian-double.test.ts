//! The test double itself: its vault writes real files and triggers Obsidian's events, its
//! components detach what they registered, and its helpers behave as Obsidian's do.

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { App, Component, FakeElement, Modal, TFile, TFolder, asObsidianApp, debounce, fakeElementOf, normalizePath, openedModals } from "./obsidian-double";
import { writeFixtureVault } from "./support";

function recordEvents(app: App): string[] {
	const seen: string[] = [];
	for (const name of ["create", "modify", "delete"]) {
		app.vault.on(name, (file: unknown) => seen.push(`${name} ${(file as TFile).path}`));
	}
	app.vault.on("rename", (file: unknown, oldPath: unknown) => seen.push(`rename ${String(oldPath)} -> ${(file as TFile).path}`));
	return seen;
}

test("the vault mirrors the folder, hiding dot-files", () => {
	const dir = writeFixtureVault(`
//- A.md
a
//- Sub/B.md
b
//- Sub/pic.png
//- .obsidian/app.json
{}
`);
	const app = new App(dir);
	assert.deepEqual(app.vault.getFiles().map((file) => file.path).sort(), ["A.md", "Sub/B.md", "Sub/pic.png"]);
	assert.deepEqual(app.vault.getMarkdownFiles().map((file) => file.path).sort(), ["A.md", "Sub/B.md"]);
	const b = app.vault.getAbstractFileByPath("Sub/B.md");
	assert.ok(b instanceof TFile);
	assert.deepEqual([b.name, b.basename, b.extension, b.parent?.path], ["B.md", "B", "md", "Sub"]);
	assert.ok(app.vault.getAbstractFileByPath("Sub") instanceof TFolder);
	assert.equal(app.vault.adapter.getBasePath(), path.resolve(dir));
});

test("mutations write the files and trigger Obsidian's events", async () => {
	const dir = writeFixtureVault("//- A.md\na\n");
	const app = new App(dir);
	const seen = recordEvents(app);
	const vault = app.vault;

	const created = await vault.create("New/C.md", "c");
	assert.equal(fs.readFileSync(path.join(dir, "New", "C.md"), "utf8"), "c");
	assert.equal(await vault.cachedRead(created), "c");
	await vault.modify(created, "c2");
	assert.equal(fs.readFileSync(path.join(dir, "New", "C.md"), "utf8"), "c2");
	await vault.rename(created, "Moved/C.md");
	assert.ok(fs.existsSync(path.join(dir, "Moved", "C.md")));
	assert.equal(vault.getAbstractFileByPath("New/C.md"), null);
	assert.equal(vault.getAbstractFileByPath("Moved/C.md"), created);
	const folder = vault.getAbstractFileByPath("Moved");
	assert.ok(folder instanceof TFolder);
	await vault.rename(folder, "Done");
	assert.equal(created.path, "Done/C.md");
	await vault.delete(created);
	assert.ok(!fs.existsSync(path.join(dir, "Done", "C.md")));
	await assert.rejects(vault.create("A.md", "again"), /already exists/);

	assert.deepEqual(seen, [
		"create New",
		"create New/C.md",
		"modify New/C.md",
		"create Moved",
		"rename New/C.md -> Moved/C.md",
		"rename Moved/C.md -> Done/C.md",
		"rename Moved -> Done",
		"delete Done/C.md",
	]);
});

test("unloading a component detaches the events it registered", () => {
	const app = new App(writeFixtureVault("//- A.md\n"));
	const component = new Component();
	let calls = 0;
	component.load();
	component.registerEvent(app.vault.on("modify", () => (calls += 1)));
	app.vault.trigger("modify");
	component.unload();
	app.vault.trigger("modify");
	assert.equal(calls, 1);
	assert.equal(app.vault.listenerCount("modify"), 0);
});

test("debounce calls once with the latest arguments; cancel drops the call and run makes it now", async () => {
	const calls: string[] = [];
	const fired = new Promise<void>((resolve) => {
		const debounced = debounce((value: string) => {
			calls.push(value);
			resolve();
		}, 5);
		debounced("a");
		debounced("b");
	});
	await fired;
	assert.deepEqual(calls, ["b"]);

	const cancelled = debounce((value: string) => calls.push(value), 60_000);
	cancelled("never").cancel();
	assert.equal(cancelled.run(), undefined, "nothing to run after cancel");

	const run = debounce((value: string) => value.toUpperCase(), 60_000, true);
	run("x")("y");
	assert.equal(run.run(), "Y");
	assert.equal(run.run(), undefined, "a call runs once");
	assert.deepEqual(calls, ["b"]);
});

test("normalizePath follows Obsidian's rules", () => {
	const cases: [string, string][] = [
		["a/b.md", "a/b.md"],
		["/a//b/", "a/b"],
		["a\\b\\c.md", "a/b/c.md"],
		["", "/"],
		["/", "/"],
		["a\u00A0b", "a b"],
		["Cafe\u0301.md", "Café.md"],
	];
	for (const [input, expected] of cases) assert.equal(normalizePath(input), expected, JSON.stringify(input));
});

test("the metadata cache answers from the fixtures a test sets, with copies", () => {
	const app = new App(writeFixtureVault("//- A.md\n[[B]]\n//- B.md\n"));
	const a = app.vault.getFileByPath("A.md");
	const b = app.vault.getFileByPath("B.md");
	assert.ok(a !== null && b !== null);
	const position = { start: { line: 0, col: 0, offset: 0 }, end: { line: 0, col: 5, offset: 5 } };
	app.metadataCache.setFileCache("/A.md", { links: [{ link: "B", original: "[[B]]", position }] });
	assert.deepEqual(app.metadataCache.getFileCache(a)?.links?.map((link) => link.link), ["B"]);
	assert.equal(app.metadataCache.getFileCache(b), null, "a file without a fixture has no cache yet");
	app.metadataCache.getFileCache(a)?.links?.pop();
	assert.equal(app.metadataCache.getCache("A.md")?.links?.length, 1, "changing an answer does not change the fixture");
	app.metadataCache.setFileCache("A.md", null);
	assert.equal(app.metadataCache.getFileCache(a), null);
});

test("the metadata cache resolves linkpaths from fixtures, per linking note, to the vault's files", () => {
	const app = new App(writeFixtureVault("//- A.md\n[[B]]\n//- Sub/B.md\n//- B.md\n"));
	const cache = app.metadataCache;
	assert.deepEqual([cache.resolvedLinks, cache.unresolvedLinks], [{}, {}], "nothing resolved until a test says so");
	cache.setFirstLinkpathDest("B", "A.md", "Sub/B.md");
	cache.setFirstLinkpathDest("B", "/Sub/B.md", "B.md");
	cache.setFirstLinkpathDest("Gone", "A.md", null);
	assert.equal(cache.getFirstLinkpathDest("B", "A.md"), app.vault.getFileByPath("Sub/B.md"), "the vault's own TFile");
	assert.equal(cache.getFirstLinkpathDest("B", "Sub/B.md")?.path, "B.md", "answers depend on the linking note");
	assert.equal(cache.getFirstLinkpathDest("Gone", "A.md"), null);
	assert.equal(cache.getFirstLinkpathDest("b", "A.md"), null, "a linkpath without a fixture names no file");
	cache.setFirstLinkpathDest("C", "A.md", "C.md");
	assert.throws(() => cache.getFirstLinkpathDest("C", "A.md"), /names C\.md, which is not a file of the vault/);
});

test("fake elements record what is rendered and refuse what they cannot do", () => {
	const root = new FakeElement("div");
	const list = root.createEl("ul", { cls: "a b" });
	list.createEl("li", { text: "one", attr: { "data-x": 1 } });
	list.createEl("li", "item").setText("two");
	root.createDiv({ text: "after" });
	assert.deepEqual(root.outline(), ["  li one", "  li two", "div after"]);
	assert.equal(root.getText(), "onetwoafter");
	assert.deepEqual(fakeElementOf(list).classes, ["a", "b"]);
	assert.deepEqual(root.findAll("li").map((li) => [li.getText(), li.classes, li.attributes.get("data-x")]), [
		["one", [], "1"],
		["two", ["item"], undefined],
	]);
	assert.throws(() => root.createEl("a", { href: "https://example.com" }), /does not support href/);
	root.empty();
	assert.deepEqual(root.outline(), []);
});

test("a modal opens once, closes on Escape and calls back on close", () => {
	const app = asObsidianApp(new App(writeFixtureVault("//- A.md\n")));
	const events: string[] = [];
	class Recording extends Modal {
		override onOpen(): void {
			events.push("open");
			this.setTitle("Title").setContent("Body");
		}
		override onClose(): void {
			events.push("close");
		}
	}
	const modal = new Recording(app).setCloseCallback(() => events.push("callback"));
	modal.open();
	modal.open();
	assert.equal(openedModals.at(-1), modal);
	assert.deepEqual([fakeElementOf(modal.titleEl).getText(), fakeElementOf(modal.contentEl).getText()], ["Title", "Body"]);
	modal.scope.press("Enter");
	assert.ok(modal.isOpen, "other keys leave it open");
	modal.scope.press("Escape");
	modal.close();
	assert.ok(!modal.isOpen);
	assert.deepEqual(events, ["open", "close", "callback"]);
});
