/** The `obsidian` double's views (see `index.ts`). */

import type * as obsidian from "obsidian";
import { doubleLeafOf, EDITOR_SAVE_DELAY_MS } from "./app";
import { Component } from "./components";
import { asHTMLElement, FakeElement } from "./elements";
import { TFile } from "./files";
import { debounce } from "./paths";
import { Vault } from "./vault";

/**
 * A view in a leaf. Obsidian's `onOpen` and `onClose` are protected; the double's leaf calls
 * them through `open` and `close`, which load and unload the view as Obsidian does.
 */
export abstract class View
	extends Component
	implements Pick<obsidian.View, "app" | "icon" | "navigation" | "leaf" | "containerEl" | "scope" | "getViewType" | "getDisplayText" | "getIcon">
{
	app: obsidian.App;
	icon = "";
	navigation = false;
	leaf: obsidian.WorkspaceLeaf;
	containerEl: HTMLElement = asHTMLElement(new FakeElement("div"));
	scope: obsidian.Scope | null = null;

	constructor(leaf: obsidian.WorkspaceLeaf) {
		super();
		this.leaf = leaf;
		this.app = doubleLeafOf(leaf).app;
	}

	abstract getViewType(): string;
	abstract getDisplayText(): string;

	getIcon(): string {
		return this.icon;
	}

	async onOpen(): Promise<void> {}

	async onClose(): Promise<void> {}

	/** Loads the view and opens it, as a leaf does. */
	async open(): Promise<void> {
		this.load();
		await this.onOpen();
	}

	/** Closes the view and unloads it, as a leaf does. */
	async close(): Promise<void> {
		await this.onClose();
		this.unload();
	}
}

/** A view with a header and a content element, as plugins' own views are. */
export abstract class ItemView extends View implements Pick<obsidian.ItemView, "contentEl"> {
	contentEl: HTMLElement;

	constructor(leaf: obsidian.WorkspaceLeaf) {
		super(leaf);
		this.containerEl.createDiv({ cls: "view-header" });
		this.contentEl = this.containerEl.createDiv({ cls: "view-content" });
	}
}

/**
 * The editor of a `MarkdownView`: its text, which the test types into. What is typed stays in
 * the view until it is saved: `requestSave` saves it `EDITOR_SAVE_DELAY_MS` after the last
 * change, as Obsidian's editor does, and `view.save()` saves it at once.
 */
export class Editor implements Pick<obsidian.Editor, "getValue" | "setValue"> {
	constructor(private readonly view: MarkdownView) {}

	getValue(): string {
		return this.view.getViewData();
	}

	/** Replaces the text, as typing does: unsaved until the view saves it. */
	setValue(content: string): void {
		this.view.data = content;
		this.view.requestSave();
	}
}

/**
 * A note open in a Markdown editor (Obsidian's `MarkdownView`, a `TextFileView`). It keeps the
 * text in memory (`data`); a save writes it with `vault.modify`. A change to the file on disk
 * while nothing is unsaved is shown in the editor; with unsaved text, the editor keeps its own,
 * and its save, when it comes, writes over what is on disk, as in Obsidian.
 */
export class MarkdownView
	extends ItemView
	implements Pick<obsidian.MarkdownView, "file" | "data" | "requestSave" | "save" | "getViewData" | "setViewData" | "clear" | "getViewType" | "getDisplayText">
{
	file: TFile | null = null;
	data = "";
	readonly editor: Editor = new Editor(this);
	/** The text last read from or written to the file. */
	private savedData = "";
	private readonly saveLater: obsidian.Debouncer<[], Promise<void>> = debounce(() => this.save(), EDITOR_SAVE_DELAY_MS, true);
	private stopFollowing: (() => void) | null = null;

	/** Saves `EDITOR_SAVE_DELAY_MS` after the last call. */
	requestSave = (): void => {
		this.saveLater();
	};

	getViewType(): string {
		return "markdown";
	}

	getDisplayText(): string {
		return this.file?.basename ?? "No file";
	}

	getViewData(): string {
		return this.data;
	}

	setViewData(data: string, clear: boolean): void {
		void clear;
		this.data = data;
	}

	clear(): void {
		this.data = "";
	}

	/** Whether the editor holds text not yet saved to the file. */
	get dirty(): boolean {
		return this.data !== this.savedData;
	}

	/** Opens `file` in the editor. */
	async loadFile(file: TFile): Promise<void> {
		const vault = doubleVaultOf(file);
		this.file = file;
		this.savedData = await vault.read(file);
		this.setViewData(this.savedData, true);
		this.stopFollowing?.();
		this.stopFollowing = vault.observe((name, data) => {
			if (name !== "modify" || data[0] !== this.file || this.dirty) return;
			void vault.read(file).then((text) => {
				if (this.dirty) return;
				this.savedData = text;
				this.setViewData(text, false);
			});
		});
	}

	/** Writes the editor's text to the file when it differs from what was saved. */
	async save(clear?: boolean): Promise<void> {
		void clear;
		this.saveLater.cancel();
		const file = this.file;
		if (file === null || !this.dirty) return;
		const data = this.data;
		await doubleVaultOf(file).modify(file, data);
		this.savedData = data;
	}

	override async onClose(): Promise<void> {
		// Obsidian saves an editor as it closes.
		await this.save();
		this.stopFollowing?.();
		this.stopFollowing = null;
	}
}

function doubleVaultOf(file: TFile): Vault {
	const candidate: unknown = file.vault;
	if (!(candidate instanceof Vault)) throw new Error("Not a file of the obsidian test double");
	return candidate;
}

/** A view of the double as Obsidian's type, for a test's own view creator to return. */
export function asObsidianView(view: View): obsidian.View {
	return view as unknown as obsidian.View;
}

/** The double's view behind one a creator made. */
export function doubleViewOf(view: obsidian.View): View {
	const candidate: unknown = view;
	if (!(candidate instanceof View)) throw new Error("Not a view of the obsidian test double");
	return candidate;
}
