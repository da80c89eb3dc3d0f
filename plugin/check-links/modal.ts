/**
 * The current note's links on screen: a summary line, then each link (problems first, each
 * labelled), focusable; the arrow keys move between them and Enter (or a click) goes to the
 * link's line in the note. Escape closes.
 */

import { Modal, type App } from "obsidian";
import { KeyboardList } from "../ui/keyboard-list";
import { describeCheck, describeLink, PROBLEM_TITLES, type LinkCheck } from "./report";

/** Links listed; a note with more says how many more (the summary's counts stay exact). */
export const MAX_LISTED_LINKS = 500;

export class LinkCheckModal extends Modal {
	readonly links = new KeyboardList();
	private readonly check: LinkCheck;
	private readonly goToLine: (line: number) => void;

	constructor(app: App, check: LinkCheck, goToLine: (line: number) => void) {
		super(app);
		this.check = check;
		this.goToLine = goToLine;
	}

	override onOpen(): void {
		this.setTitle(`Links of ${this.check.path}`);
		renderLinkCheck(this.contentEl, this.check, this.links, (line) => {
			this.close();
			this.goToLine(line);
		});
		this.contentEl.addEventListener("keydown", (evt) => {
			this.links.handleKeydown(evt);
		});
		this.links.focus(0);
	}

	override onClose(): void {
		this.links.setItems([]);
		this.contentEl.empty();
	}
}

/** Draws `check` into `container`; the listed links become `list`'s items. */
export function renderLinkCheck(container: HTMLElement, check: LinkCheck, list: KeyboardList, goToLine: (line: number) => void): void {
	container.empty();
	container.createEl("p", { cls: "vaultlink-links-summary", text: describeCheck(check) });
	if (check.links.length === 0) {
		list.setItems([]);
		return;
	}
	const items = container.createEl("ul", { cls: "vaultlink-links" });
	const listed = check.links.slice(0, MAX_LISTED_LINKS).map((checked) => {
		const item = items.createEl("li", { cls: checked.problem === null ? "vaultlink-link" : "vaultlink-link vaultlink-link-problem" });
		if (checked.problem !== null) item.createSpan({ cls: "vaultlink-link-problem-kind", text: `${PROBLEM_TITLES[checked.problem]}: ` });
		item.createSpan({ text: describeLink(checked) });
		const line = checked.link.line;
		item.onClickEvent(() => goToLine(line));
		return { el: item, activate: () => goToLine(line) };
	});
	list.setItems(listed);
	const unlisted = check.links.length - listed.length;
	if (unlisted > 0) container.createEl("p", { text: `${unlisted} more ${unlisted === 1 ? "link" : "links"}, not listed here.` });
}
