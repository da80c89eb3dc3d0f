/** The `obsidian` double's notices (see `index.ts`). */

import type * as obsidian from "obsidian";
import { asHTMLElement, FakeElement } from "./elements";

/** Every notice shown, oldest first, so tests can see what the user was told. */
export const shownNotices: Notice[] = [];

/** Who is told when a notice is shown (`whenNoticeShown`). */
const noticeWatchers = new Set<(notice: Notice) => void>();

/** Tells `watcher` of each notice shown from now on, until the returned function is called. */
export function whenNoticeShown(watcher: (notice: Notice) => void): () => void {
	noticeWatchers.add(watcher);
	return () => noticeWatchers.delete(watcher);
}

export class Notice implements obsidian.Notice {
	message: string;
	readonly duration: number | undefined;
	/** Every message this notice showed, oldest first. */
	readonly history: string[] = [];
	hidden = false;

	constructor(message: string | DocumentFragment, duration?: number) {
		this.message = String(message);
		this.duration = duration;
		this.history.push(this.message);
		shownNotices.push(this);
		for (const watcher of [...noticeWatchers]) watcher(this);
	}

	/** The notice's element: a fake one, which takes a click action (`onClickEvent`) a test can click. */
	private readonly element = new FakeElement("div");

	get noticeEl(): HTMLElement {
		return asHTMLElement(this.element);
	}

	get containerEl(): HTMLElement {
		throw new Error("The obsidian test double has no DOM: Notice.containerEl");
	}

	get messageEl(): HTMLElement {
		throw new Error("The obsidian test double has no DOM: Notice.messageEl");
	}

	setMessage(message: string | DocumentFragment): this {
		this.message = String(message);
		this.history.push(this.message);
		return this;
	}

	hide(): void {
		this.hidden = true;
	}
}
