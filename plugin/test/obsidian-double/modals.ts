/** The `obsidian` double's keymap scopes and modals (see `index.ts`). */

import type * as obsidian from "obsidian";
import { activeElement, asHTMLElement, FakeElement, fakeElementOf, FakeKeyboardEvent, pressKey } from "./elements";

export class Scope implements obsidian.Scope {
	private readonly handlers: { handler: obsidian.KeymapEventHandler; func: obsidian.KeymapEventListener }[] = [];

	register(modifiers: obsidian.Modifier[] | null, key: string | null, func: obsidian.KeymapEventListener): obsidian.KeymapEventHandler {
		const handler: obsidian.KeymapEventHandler = { scope: this, modifiers: modifiers === null ? null : modifiers.join(","), key };
		this.handlers.push({ handler, func });
		return handler;
	}

	unregister(handler: obsidian.KeymapEventHandler): void {
		const index = this.handlers.findIndex((entry) => entry.handler === handler);
		if (index >= 0) this.handlers.splice(index, 1);
	}

	/** Presses `key` with no modifiers, as `pressKey` does with this scope, for tests. */
	press(key: string): FakeKeyboardEvent {
		return pressKey(key, this);
	}

	/**
	 * Calls the handlers registered for the event's key (or for any key), newest first, until
	 * one returns false, which prevents the event's default, as Obsidian's keymap does.
	 */
	handle(event: FakeKeyboardEvent): void {
		const keyboardEvent = event as unknown as KeyboardEvent;
		for (const { handler, func } of [...this.handlers].reverse()) {
			if (handler.key !== null && handler.key !== event.key) continue;
			if (handler.modifiers !== null && handler.modifiers !== "") continue;
			if (func(keyboardEvent, { modifiers: "", key: event.key, vkey: event.key }) === false) {
				event.preventDefault();
				return;
			}
		}
	}
}

/** Every modal opened, oldest first, so tests can see what the user was shown. */
export const openedModals: Modal[] = [];

/** Who is told when a modal opens (`whenModalOpens`). */
const modalWatchers = new Set<(modal: Modal) => void>();

/**
 * Tells `watcher` of each modal that opens from now on, until the returned function is called: a
 * command's callback returns nothing to wait on, so a test waits for what it opens.
 */
export function whenModalOpens(watcher: (modal: Modal) => void): () => void {
	modalWatchers.add(watcher);
	return () => modalWatchers.delete(watcher);
}

export class Modal
	implements
		Pick<
			obsidian.Modal,
			| "app"
			| "scope"
			| "containerEl"
			| "modalEl"
			| "titleEl"
			| "contentEl"
			| "shouldRestoreSelection"
			| "open"
			| "close"
			| "onOpen"
			| "onClose"
			| "setTitle"
			| "setContent"
			| "setCloseCallback"
		>
{
	app: obsidian.App;
	scope = new Scope();
	containerEl: HTMLElement = asHTMLElement(new FakeElement("div"));
	modalEl: HTMLElement;
	titleEl: HTMLElement;
	contentEl: HTMLElement;
	shouldRestoreSelection = true;
	isOpen = false;
	private closeCallback: (() => unknown) | null = null;

	constructor(app: obsidian.App) {
		this.app = app;
		this.modalEl = this.containerEl.createDiv({ cls: "modal" });
		this.titleEl = this.modalEl.createDiv({ cls: "modal-title" });
		this.contentEl = this.modalEl.createDiv({ cls: "modal-content" });
		// As in Obsidian: Escape closes the modal.
		this.scope.register([], "Escape", () => {
			this.close();
			return false;
		});
	}

	open(): void {
		if (this.isOpen) return;
		this.isOpen = true;
		// The focus moves into the modal: whatever had it outside no longer does.
		const focused = activeElement();
		if (focused !== null && !fakeElementOf(this.containerEl).contains(focused)) focused.blur();
		openedModals.push(this);
		void this.onOpen();
		for (const watcher of [...modalWatchers]) watcher(this);
	}

	close(): void {
		if (!this.isOpen) return;
		this.isOpen = false;
		// The modal leaves the document, and the focus with it.
		const focused = activeElement();
		if (focused !== null && fakeElementOf(this.containerEl).contains(focused)) focused.blur();
		this.onClose();
		this.closeCallback?.();
	}

	onOpen(): Promise<void> | void {}

	onClose(): void {}

	setTitle(title: string): this {
		this.titleEl.setText(title);
		return this;
	}

	setContent(content: string | DocumentFragment): this {
		this.contentEl.setText(content);
		return this;
	}

	setCloseCallback(callback: () => unknown): this {
		this.closeCallback = callback;
		return this;
	}
}
