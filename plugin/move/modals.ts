/**
 * The "Move note safely…" command's three steps on screen: pick a file (`NotePickerModal`),
 * type where it goes (`DestinationModal`), and check every change before confirming
 * (`MovePreviewModal`, drawn by `renderMovePreview`). Enter goes forward, Escape cancels.
 */

import { App, ButtonComponent, FuzzySuggestModal, Modal, TextComponent, type TFile } from "obsidian";
import type { ChangeReason, LinkChange, MoveAnswer } from "../wasm";
import { byNote, count } from "../ui/lists";

/**
 * Changes listed in a preview. A move of a much-linked note could otherwise build a list of
 * many thousands of elements; the counts above the list stay exact.
 */
export const MAX_LISTED_CHANGES = 500;

/** True when a key event comes from a focused button, which Enter should press instead. */
export function fromButton(evt: KeyboardEvent): boolean {
	const target = evt.target as { tagName?: unknown } | null | undefined;
	return typeof target?.tagName === "string" && target.tagName.toUpperCase() === "BUTTON";
}

/** What a `NotePickerModal` offers, and what its field says before anything is typed. */
export interface NotePickerOptions {
	placeholder: string;
	/** Which files are offered; every file when absent. */
	offers?: (file: TFile) => boolean;
}

/** Picks a file (the one to move, unless told otherwise), by a fuzzy search over every file's path. */
export class NotePickerModal extends FuzzySuggestModal<TFile> {
	/** What choosing started, when it is asynchronous (a preview), for callers that wait on it. */
	action: Promise<void> | null = null;
	private readonly onChoose: (file: TFile) => Promise<void> | void;
	private readonly offers: (file: TFile) => boolean;

	constructor(app: App, onChoose: (file: TFile) => Promise<void> | void, options: NotePickerOptions = { placeholder: "Note or file to move…" }) {
		super(app);
		this.onChoose = onChoose;
		this.offers = options.offers ?? (() => true);
		this.setPlaceholder(options.placeholder);
		this.setInstructions([
			{ command: "↑↓", purpose: "to navigate" },
			{ command: "↵", purpose: "to choose" },
			{ command: "esc", purpose: "to cancel" },
		]);
	}

	getItems(): TFile[] {
		return this.app.vault
			.getFiles()
			.filter((file) => this.offers(file))
			.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
	}

	getItemText(file: TFile): string {
		return file.path;
	}

	onChooseItem(file: TFile): void {
		const started = this.onChoose(file);
		if (started instanceof Promise) this.action = started;
	}
}

/** Asks for the new path, prefilled with the current one and its name selected. */
/** What the destination modal says: its title and the sentence under it. */
export interface DestinationWording {
	title: string;
	text: string;
}

export class DestinationModal extends Modal {
	/** The path field, once open. */
	input: TextComponent | null = null;
	/** What submitting started (the preview), for callers that wait on it. */
	action: Promise<void> | null = null;
	private readonly from: string;
	private readonly onSubmit: (to: string) => Promise<void>;
	private readonly wording: DestinationWording;

	constructor(app: App, from: string, onSubmit: (to: string) => Promise<void>, wording?: DestinationWording) {
		super(app);
		this.from = from;
		this.onSubmit = onSubmit;
		this.wording = wording ?? {
			title: `Move ${from}`,
			text: "The new path, from the vault's root. A note keeps its .md if you leave it out. Next you see every link that will change; nothing moves until you confirm.",
		};
		this.scope.register([], "Enter", (evt) => {
			if (fromButton(evt)) return true;
			this.submit();
			return false;
		});
	}

	override onOpen(): void {
		this.setTitle(this.wording.title);
		this.contentEl.createEl("p", { text: this.wording.text });
		const input = new TextComponent(this.contentEl).setValue(this.from);
		input.inputEl.addClass("vaultlink-move-destination");
		this.input = input;
		const buttons = this.contentEl.createDiv({ cls: "modal-button-container" });
		new ButtonComponent(buttons)
			.setButtonText("Preview")
			.setCta()
			.onClick(() => this.submit());
		new ButtonComponent(buttons).setButtonText("Cancel").onClick(() => this.close());
		// As Obsidian's own rename: the name is selected, ready to be typed over.
		const nameStart = this.from.lastIndexOf("/") + 1;
		const dot = this.from.lastIndexOf(".");
		input.inputEl.focus();
		input.inputEl.setSelectionRange(nameStart, dot > nameStart ? dot : this.from.length);
	}

	override onClose(): void {
		this.contentEl.empty();
	}

	/** Goes on to the preview with the typed path; an empty one is not submitted. */
	submit(): void {
		const to = this.input?.getValue().trim() ?? "";
		if (to === "" || this.action !== null) return;
		this.close();
		this.action = this.onSubmit(to);
	}
}

/** What a `PreviewConfirmModal` shows and does. */
export interface PreviewConfirmOptions {
	title: string;
	/** Draws the preview into the modal's content. */
	render(container: HTMLElement): void;
	confirmText: string;
	/** `cta` for a change that can be undone by another, `warning` for one that removes. */
	style: "cta" | "warning";
	/** Puts the keyboard on the confirm button when the modal opens; never for `warning`, which starts on Cancel. */
	focusConfirm?: boolean;
	/** Applies exactly what was previewed. */
	onConfirm(): Promise<void>;
}

/**
 * A dry run's preview with a confirm button, shared by the move, delete and rename-audit
 * commands: Enter confirms (unless a button has the focus, which Enter then presses), Esc or
 * Cancel closes, and confirming starts the action once.
 */
export class PreviewConfirmModal extends Modal {
	/** What confirming started, for callers that wait on it. */
	action: Promise<void> | null = null;
	private readonly options: PreviewConfirmOptions;

	constructor(app: App, options: PreviewConfirmOptions) {
		super(app);
		this.options = options;
		this.scope.register([], "Enter", (evt) => {
			if (fromButton(evt)) return true;
			this.confirm();
			return false;
		});
	}

	override onOpen(): void {
		this.setTitle(this.options.title);
		this.options.render(this.contentEl);
		const buttons = this.contentEl.createDiv({ cls: "modal-button-container" });
		const confirm = new ButtonComponent(buttons).setButtonText(this.options.confirmText).onClick(() => this.confirm());
		if (this.options.style === "warning") styleDestructive(confirm);
		else confirm.setCta();
		const cancel = new ButtonComponent(buttons).setButtonText("Cancel").onClick(() => this.close());
		// A change that removes never starts with the keyboard on the button that makes it: a
		// stray Enter then cancels (it presses the focused button, `fromButton`) rather than removes.
		if (this.options.style === "warning") cancel.buttonEl.focus();
		else if (this.options.focusConfirm === true) confirm.buttonEl.focus();
	}

	override onClose(): void {
		this.contentEl.empty();
	}

	/** Starts the previewed action, once. */
	confirm(): void {
		if (this.action !== null) return;
		this.close();
		this.action = this.options.onConfirm();
	}
}

/**
 * Styles `button` as one that removes, with the class the deprecated `setWarning` adds. Its
 * replacement, `setDestructive`, arrived in Obsidian 1.13.0, after the manifest's minAppVersion
 * (1.7.2); the class is styled in both.
 */
function styleDestructive(button: ButtonComponent): void {
	button.buttonEl.addClass("mod-warning");
}

/** Shows a move's plan and applies exactly that plan on confirmation. */
export class MovePreviewModal extends PreviewConfirmModal {
	constructor(app: App, answer: MoveAnswer, onConfirm: () => Promise<void>) {
		super(app, {
			title: "Move safely: check the changes",
			render: (container) => renderMovePreview(container, answer),
			confirmText: "Move",
			style: "cta",
			// A move can be undone by another; the keyboard starts on the button that does it.
			focusConfirm: true,
			onConfirm,
		});
	}
}

/** Draws a dry run's answer into `container`: what moves, every link rewritten, every link that will resolve. */
export function renderMovePreview(container: HTMLElement, answer: MoveAnswer, maxListed = MAX_LISTED_CHANGES): void {
	container.empty();
	container.createEl("p", { cls: "vaultlink-move-summary", text: describeMove(answer) });

	container.createEl("h3", { text: answer.files_moved === 1 ? "File moved" : "Files moved" });
	const moves = container.createEl("ul");
	const movesListed = answer.moves.slice(0, maxListed);
	for (const move of movesListed) moves.createEl("li", { text: `${move.from} → ${move.to}` });
	// The answer is the preview's first page; the counts are of the whole plan.
	if (answer.files_moved > movesListed.length) container.createEl("p", { text: `${answer.files_moved - movesListed.length} more files move.` });

	container.createEl("h3", { text: "Links rewritten" });
	const changes = answer.changes ?? [];
	if (changes.length === 0) {
		container.createEl("p", { text: "None: every link keeps pointing where it points without a change." });
	}
	let listed = 0;
	for (const [note, noteChanges] of byNote(changes)) {
		if (listed >= maxListed) break;
		container.createEl("h4", { text: note });
		const list = container.createEl("ul");
		for (const change of noteChanges) {
			if (listed >= maxListed) break;
			list.createEl("li", { text: describeChange(change) });
			listed += 1;
		}
	}
	const unlisted = answer.links_changed - listed;
	if (unlisted > 0) container.createEl("p", { text: `${unlisted} more ${unlisted === 1 ? "link is" : "links are"} rewritten, not listed here.` });

	if (answer.newly_resolved.length > 0) {
		container.createEl("h3", { text: "Links that will find the moved file" });
		container.createEl("p", { text: "These links point nowhere now; under its new name the moved file is what they name." });
		const list = container.createEl("ul");
		for (const link of answer.newly_resolved.slice(0, maxListed)) {
			list.createEl("li", { text: `${link.note}, line ${link.line}: ${link.link} → ${link.resolves_to}` });
		}
		if (answer.newly_resolved.length > maxListed) container.createEl("p", { text: `${answer.newly_resolved.length - maxListed} more.` });
	}
}

/** One sentence on what a move does (a preview) or did (once applied). */
export function describeMove(answer: MoveAnswer): string {
	const first = answer.moves[0];
	const what = answer.files_moved === 1 && first !== undefined ? `${first.from} to ${first.to}` : `${answer.files_moved} files`;
	const links = `${count(answer.links_changed, "link")} in ${count(answer.notes_edited, "note")}`;
	if (answer.applied) {
		return answer.links_changed === 0 ? `Moved ${what}; no link needed rewriting.` : `Moved ${what} and rewrote ${links}.`;
	}
	const change = answer.links_changed === 0 ? `Moves ${what}; no link needs rewriting.` : `Moves ${what} and rewrites ${links}.`;
	return `${change} Nothing changes until you confirm.`;
}

/** A rewritten link as the preview lists it: where, before → after, and why. */
export function describeChange(change: LinkChange): string {
	return `line ${change.line}: ${change.before} → ${change.after} (${REASONS[change.reason]})`;
}

const REASONS: Record<ChangeReason, string> = {
	target_moved: "it points to a file that moves",
	source_moved: "its note moves, and the link is written relative to the note's folder",
	second_order: "the move would make it point to another file",
	repointed: "it names the old target",
	linked: "it was a plain-text mention of the note",
};
