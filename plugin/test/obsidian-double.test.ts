/**
 * The test double itself: its vault writes real files and triggers Obsidian's events, its
 * components detach what they registered, and its helpers behave as Obsidian's do.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import {
	App,
	ButtonComponent,
	Component,
	EDITOR_SAVE_DELAY_MS,
	FakeElement,
	ItemView,
	MAX_CACHE_READS,
	Plugin,
	FuzzySuggestModal,
	Modal,
	TFile,
	TFolder,
	TextComponent,
	asHTMLElement,
	asObsidianApp,
	asObsidianView,
	debounce,
	fakeElementOf,
	normalizePath,
	openedModals,
} from "./obsidian-double";
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
	// After the startup storm, which the tests below look at on their own.
	await app.started;
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

test("process writes what its callback returns; a callback that throws writes nothing", async () => {
	const dir = writeFixtureVault("//- A.md\nold");
	const app = new App(dir);
	// After the startup storm, which the tests below look at on their own.
	await app.started;
	const seen = recordEvents(app);
	const file = app.vault.getAbstractFileByPath("A.md");
	assert.ok(file instanceof TFile);
	assert.equal(await app.vault.process(file, (data) => data.replace("old", "new")), "new");
	assert.equal(fs.readFileSync(path.join(dir, "A.md"), "utf8"), "new");
	await assert.rejects(
		app.vault.process(file, () => {
			throw new Error("refused");
		}),
		/refused/,
	);
	assert.equal(fs.readFileSync(path.join(dir, "A.md"), "utf8"), "new");
	assert.deepEqual(seen, ["modify A.md"]);
});

test("createFolder refuses a folder that exists; delete keeps hidden files unless forced", async () => {
	const dir = writeFixtureVault("//- Kept/.hidden\n//- Plain/A.md\n");
	const app = new App(dir);
	await assert.rejects(app.vault.createFolder("Plain"), /already exists/);
	const made = await app.vault.createFolder("New/Deeper");
	assert.equal(made.path, "New/Deeper");
	assert.ok(fs.statSync(path.join(dir, "New", "Deeper")).isDirectory());

	const kept = app.vault.getAbstractFileByPath("Kept");
	assert.ok(kept instanceof TFolder);
	assert.equal(kept.children.length, 0, "a hidden file is not a child the vault lists");
	await assert.rejects(app.vault.delete(kept), /hidden files/);
	assert.ok(fs.existsSync(path.join(dir, "Kept", ".hidden")));
	await app.vault.delete(kept, true);
	assert.ok(!fs.existsSync(path.join(dir, "Kept")));
	// A folder of visible files goes with them, as Obsidian deletes it.
	const plain = app.vault.getAbstractFileByPath("Plain");
	assert.ok(plain instanceof TFolder);
	await app.vault.delete(plain);
	assert.equal(app.vault.getAbstractFileByPath("Plain/A.md"), null);
});

test("failNext makes a vault operation fail before it changes anything, as often as asked", async () => {
	const dir = writeFixtureVault("//- A.md\na");
	const app = new App(dir);
	const file = app.vault.getAbstractFileByPath("A.md");
	assert.ok(file instanceof TFile);
	app.vault.failNext("rename", "A.md", 2);
	app.vault.failNext("process", "A.md");
	for (let attempt = 0; attempt < 2; attempt += 1) {
		await assert.rejects(app.vault.rename(file, "Sub/B.md"), /rename of A\.md failed \(a failure injected by the test\)/);
	}
	assert.ok(!fs.existsSync(path.join(dir, "Sub")), "a failed rename creates no folder");
	await assert.rejects(app.vault.process(file, () => "changed"), /injected/);
	assert.equal(fs.readFileSync(path.join(dir, "A.md"), "utf8"), "a");
	await app.vault.rename(file, "Sub/B.md");
	assert.equal(file.path, "Sub/B.md");
});

test("a fuzzy suggest modal chooses the first match on Enter; text fields and buttons act as typed and clicked", () => {
	const app = new App(writeFixtureVault("//- Alpha.md\n//- Beta.md\n//- Notes/Alphabet.md\n"));
	const chosen: string[] = [];
	class Picker extends FuzzySuggestModal<TFile> {
		getItems(): TFile[] {
			return app.vault.getFiles();
		}
		getItemText(file: TFile): string {
			return file.path;
		}
		onChooseItem(file: TFile): void {
			chosen.push(file.path);
		}
	}
	const picker = new Picker(asObsidianApp(app));
	picker.open();
	picker.inputEl.value = "alph";
	assert.deepEqual(
		picker.currentSuggestions().map((match) => match.item.path).sort(),
		["Alpha.md", "Notes/Alphabet.md"],
	);
	picker.scope.press("Enter");
	assert.deepEqual(chosen, ["Alpha.md"], "the best match: the one whose match starts first");
	assert.ok(!picker.isOpen, "choosing closes the modal");
	const none = new Picker(asObsidianApp(app));
	none.open();
	none.inputEl.value = "zzz";
	none.scope.press("Enter");
	assert.deepEqual(chosen, ["Alpha.md"], "no match, no choice");

	const container = new FakeElement("div");
	const text = new TextComponent(asHTMLElement(container)).setValue("start");
	const typed: string[] = [];
	text.onChange((value) => typed.push(value));
	assert.equal(text.getValue(), "start");
	text.type("typed");
	assert.deepEqual([text.getValue(), typed], ["typed", ["typed"]]);

	let clicks = 0;
	const button = new ButtonComponent(asHTMLElement(container)).setButtonText("Go").setCta().onClick(() => (clicks += 1));
	const buttonEl = fakeElementOf(button.buttonEl);
	buttonEl.click();
	button.setDisabled(true);
	buttonEl.click();
	assert.equal(clicks, 1, "a disabled button ignores clicks");
	assert.deepEqual([buttonEl.getText(), buttonEl.classes, buttonEl.attributes.has("disabled")], ["Go", ["mod-cta"], true]);
});

test("a registered view opens in a leaf, loaded then opened, and closes with its plugin", async () => {
	const app = new App(writeFixtureVault("//- A.md\n"));
	const steps: string[] = [];
	class Counter extends ItemView {
		getViewType(): string {
			return "counter";
		}
		getDisplayText(): string {
			return "Counter";
		}
		override onload(): void {
			steps.push("load");
		}
		override async onOpen(): Promise<void> {
			steps.push("open");
		}
		override async onClose(): Promise<void> {
			steps.push("close");
		}
	}
	class Owner extends Plugin {}
	const owner = new Owner(app, { id: "owner", name: "Owner", version: "1", minAppVersion: "1", author: "", description: "" });
	owner.load();
	owner.registerView("counter", (leaf) => asObsidianView(new Counter(leaf)));
	assert.throws(() => owner.registerView("counter", (leaf) => asObsidianView(new Counter(leaf))), /existing view type/);
	const leaf = app.workspace.getRightLeaf(false);
	assert.ok(leaf !== null);
	await leaf.setViewState({ type: "counter" });
	assert.deepEqual(steps, ["load", "open"]);
	assert.equal(app.workspace.getLeavesOfType("counter").length, 1);
	assert.equal(leaf.getDisplayText(), "Counter");
	const item = fakeElementOf(owner.addStatusBarItem());
	assert.deepEqual([item.classes, owner.statusBarItems.length], [["status-bar-item"], 1]);
	owner.unload();
	assert.deepEqual(steps, ["load", "open", "close"]);
	assert.equal(app.workspace.getLeavesOfType("counter").length, 0);
	assert.equal(owner.statusBarItems.length, 0);
	await assert.rejects(leaf.setViewState({ type: "counter" }), /no view type/);
});

// ---------------------------------------------------------------------------------------------
// The double as strict as Obsidian: the startup storm, a metadata cache that lags, a
// case-insensitive folder, an editor that saves later.

test("the app starts as Obsidian does: a create for every file and folder, then the layout is ready, then the metadata cache resolves", async () => {
	const dir = writeFixtureVault("//- A.md\na\n//- Sub/B.md\nb\n//- Sub/pic.png\n");
	const app = new App(dir, { metadataDelayMs: 20 });
	const order: string[] = [];
	for (const name of ["create", "modify", "rename", "delete"]) app.vault.on(name, (file: unknown) => order.push(`${name} ${(file as TFile).path}`));
	assert.equal(app.workspace.layoutReady, false, "a plugin loaded with the app loads before the layout is ready");
	app.workspace.onLayoutReady(() => order.push(`layout ready, metadata resolved: ${String(app.metadataCache.resolved)}`));
	app.metadataCache.on("resolved", () => order.push("resolved"));
	await app.started;
	assert.deepEqual(order.slice(0, 5).sort(), ["create A.md", "create Sub", "create Sub/B.md", "create Sub/pic.png", "layout ready, metadata resolved: false"].sort());
	assert.equal(order[4], "layout ready, metadata resolved: false", "every create comes before the layout is ready");
	await app.metadataCache.whenResolved();
	assert.equal(order.at(-1), "resolved");
	let calledAtOnce = false;
	app.workspace.onLayoutReady(() => (calledAtOnce = true));
	assert.ok(calledAtOnce, "once the layout is ready, onLayoutReady calls back at once");
});

test("the metadata cache reads a big vault a bounded number of notes at a time, and every note once", async () => {
	const notes = 3 * MAX_CACHE_READS + 5;
	const dir = writeFixtureVault(Array.from({ length: notes }, (_, at) => `//- N${at}.md\nnote ${at}\n`).join(""));
	const app = new App(dir, { metadataDelayMs: 1 });
	const cache = app.metadataCache;
	let open = 0;
	let most = 0;
	const read = app.vault.adapter.read.bind(app.vault.adapter);
	app.vault.adapter.read = async (normalizedPath: string) => {
		open += 1;
		most = Math.max(most, open);
		try {
			await new Promise((resolve) => setTimeout(resolve, 2));
			return await read(normalizedPath);
		} finally {
			open -= 1;
		}
	};
	const seen: string[] = [];
	cache.computeCache = (file, text) => {
		seen.push(`${file.path}: ${text.trim()}`);
		return {};
	};
	await app.started;
	await cache.whenResolved();
	assert.equal(most, MAX_CACHE_READS, "the reads overlap, up to the bound and no further");
	assert.deepEqual(seen.sort(), Array.from({ length: notes }, (_, at) => `N${at}.md: note ${at}`).sort());
});

test("the metadata cache updates a note a while after its modify, and a rename moves its entry without reading it again", async () => {
	const dir = writeFixtureVault("//- A.md\nfirst\n");
	const app = new App(dir, { metadataDelayMs: 30 });
	const cache = app.metadataCache;
	const reads: string[] = [];
	cache.computeCache = (file, text) => {
		reads.push(file.path);
		return { headings: [{ heading: text.trim(), level: 1, position: { start: { line: 0, col: 0, offset: 0 }, end: { line: 0, col: 0, offset: 0 } } }] };
	};
	await app.started;
	await cache.whenResolved();
	const file = app.vault.getFileByPath("A.md");
	assert.ok(file !== null);
	assert.equal(cache.getFileCache(file)?.headings?.[0]?.heading, "first");
	const changed: string[] = [];
	cache.on("changed", (changedFile: unknown, data: unknown) => changed.push(`${(changedFile as TFile).path}: ${String(data).trim()}`));

	await app.vault.modify(file, "second\n");
	assert.equal(cache.resolved, false, "a modified note is not resolved at once");
	assert.equal(cache.getFileCache(file)?.headings?.[0]?.heading, "first", "the cache still holds what it read before");
	await cache.whenResolved();
	assert.equal(cache.getFileCache(file)?.headings?.[0]?.heading, "second");
	assert.deepEqual(changed, ["A.md: second"]);

	reads.length = 0;
	await app.vault.rename(file, "Moved.md");
	assert.equal(cache.resolved, true, "a rename leaves the cache resolved");
	assert.equal(cache.getCache("Moved.md")?.headings?.[0]?.heading, "second", "the entry moved with the note");
	assert.equal(cache.getCache("A.md"), null);
	await new Promise((resolve) => setTimeout(resolve, 60));
	assert.deepEqual(reads, [], "a rename does not read the note again");
	assert.deepEqual(changed, ["A.md: second"], "nor does it fire changed");
});

test("a case-insensitive adapter finds names in any case, but getAbstractFileByPath stays exact", async () => {
	const dir = writeFixtureVault("//- Notes/Alpha.md\na\n//- Beta.md\nb\n");
	const app = new App(dir, { caseInsensitive: true });
	const vault = app.vault;
	assert.equal(await vault.adapter.exists("notes/alpha.md"), true);
	assert.equal(await vault.adapter.exists("notes/alpha.md", true), false, "sensitive asks for the exact case");
	assert.equal(vault.adapter.spelledOnDisk("NOTES/ALPHA.MD"), "Notes/Alpha.md");
	assert.equal(vault.getAbstractFileByPath("notes/alpha.md"), null, "the vault's lookup is case-sensitive, as documented");
	const beta = vault.getFileByPath("Beta.md");
	assert.ok(beta !== null);
	await assert.rejects(vault.rename(beta, "Notes/ALPHA.md"), /already exists/, "another file's name in another case is taken");
	await assert.rejects(vault.create("beta.md", "again"), /already exists/);
	await vault.rename(beta, "BETA.md");
	assert.equal(beta.path, "BETA.md", "a rename that changes only case is allowed");
	assert.deepEqual(fs.readdirSync(dir).sort(), ["BETA.md", "Notes"]);
	const sensitive = new App(dir);
	assert.equal(await sensitive.vault.adapter.exists("beta.md"), false, "a case-sensitive adapter is exact");
});

test("an open editor keeps typed text unsaved until it saves, 2 s later or when asked", async () => {
	const dir = writeFixtureVault("//- A.md\nsaved\n");
	const app = new App(dir);
	await app.started;
	const file = app.vault.getFileByPath("A.md");
	assert.ok(file !== null);
	const view = await app.workspace.openEditor(file);
	assert.equal(app.workspace.getLeavesOfType("markdown").length, 1);
	assert.equal(view.editor.getValue(), "saved\n");
	view.editor.setValue("typed\n");
	assert.ok(view.dirty);
	assert.equal(fs.readFileSync(path.join(dir, "A.md"), "utf8"), "saved\n", "typed text is not on disk yet");
	await view.save();
	assert.equal(fs.readFileSync(path.join(dir, "A.md"), "utf8"), "typed\n");
	assert.ok(!view.dirty);

	// A change on disk is shown while nothing is unsaved...
	// (the editor reads the file again on the change's event, as its own read: wait for it, as
	// a loaded machine may take longer than a few milliseconds)
	await app.vault.modify(file, "from disk\n");
	for (let wait = 0; wait < 100 && view.editor.getValue() !== "from disk\n"; wait += 1) await new Promise((resolve) => setTimeout(resolve, 20));
	assert.equal(view.editor.getValue(), "from disk\n");
	// ...but unsaved text stays, and its save, when it comes, writes over the disk.
	view.editor.setValue("typed again\n");
	await app.vault.modify(file, "behind the editor\n");
	assert.equal(view.editor.getValue(), "typed again\n");
	await new Promise((resolve) => setTimeout(resolve, EDITOR_SAVE_DELAY_MS));
	assert.equal(view.editor.getValue(), "typed again\n");
	// The save starts 2 s after the typing and takes its own time on a loaded machine: read the
	// file once it is written (the editor no longer dirty), not while the write is under way.
	for (let wait = 0; wait < 100 && view.dirty; wait += 1) await new Promise((resolve) => setTimeout(resolve, 50));
	assert.ok(!view.dirty, "the editor saved by itself");
	assert.equal(fs.readFileSync(path.join(dir, "A.md"), "utf8"), "typed again\n", "the editor's own save, 2 s later, wins");
});
