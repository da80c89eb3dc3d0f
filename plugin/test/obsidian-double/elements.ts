/** The `obsidian` double's elements (see `index.ts`). */

import { Scope } from "./modals";

/** A listener added with `addEventListener`, as the double calls it. */
type FakeListener = (this: HTMLElement, ev: never) => unknown;

/**
 * A keyboard event as the double dispatches it: the fields handlers read, and the two calls
 * they make. Handed to plugin code as Obsidian's `KeyboardEvent`.
 */
export class FakeKeyboardEvent {
	readonly type = "keydown";
	readonly key: string;
	readonly target: FakeElement | null;
	currentTarget: FakeElement | null = null;
	readonly shiftKey = false;
	readonly ctrlKey = false;
	readonly altKey = false;
	readonly metaKey = false;
	defaultPrevented = false;
	propagationStopped = false;

	constructor(key: string, target: FakeElement | null) {
		this.key = key;
		this.target = target;
	}

	preventDefault(): void {
		this.defaultPrevented = true;
	}

	stopPropagation(): void {
		this.propagationStopped = true;
	}
}

/** The element that has the keyboard focus, as `document.activeElement`; null for the body. */
let activeFakeElement: FakeElement | null = null;

/** The element with the keyboard focus, or null when nothing has it. */
export function activeElement(): FakeElement | null {
	return activeFakeElement;
}

/**
 * Presses `key` as a user would, for tests: a `keydown` goes to the focused element and bubbles
 * up through its ancestors; then, as Obsidian's keymap does, the handlers of `scope` (a
 * modal's) run, and one returning false prevents the default; last, unless prevented, Enter
 * on a focused button clicks it, as browsers do.
 */
export function pressKey(key: string, scope?: Scope): FakeKeyboardEvent {
	const target = activeFakeElement;
	const event = new FakeKeyboardEvent(key, target);
	for (let element = target; element !== null && !event.propagationStopped; element = element.parent) {
		event.currentTarget = element;
		element.fire(event);
	}
	event.currentTarget = null;
	if (scope !== undefined && !event.defaultPrevented) scope.handle(event);
	if (!event.defaultPrevented && key === "Enter" && target?.tag === "button") target.click();
	return event;
}

/**
 * The few members of Obsidian's `HTMLElement` helpers that the plugin's views use, recorded as a
 * tree so tests can read what was rendered. It is not a DOM: anything else throws. It keeps
 * the keyboard focus (one element at a time, as a document does), `keydown` listeners, and
 * serialises to HTML for the DOM snapshots.
 */
export class FakeElement
	implements
		Pick<
			HTMLElement,
			| "createEl"
			| "createDiv"
			| "createSpan"
			| "setText"
			| "getText"
			| "tagName"
			| "empty"
			| "addClass"
			| "removeClass"
			| "hasClass"
			| "setAttr"
			| "getAttr"
			| "focus"
			| "blur"
			| "click"
			| "onClickEvent"
			| "addEventListener"
			| "removeEventListener"
		>,
		Pick<HTMLInputElement, "value" | "select" | "setSelectionRange" | "selectionStart" | "selectionEnd">
{
	readonly tag: string;
	readonly classes: string[] = [];
	readonly attributes = new Map<string, string>();
	readonly children: FakeElement[] = [];
	/** The element this one was created in; null for a root, or once removed by `empty`. */
	parent: FakeElement | null = null;
	/** An input's value. */
	value = "";
	/** An input's selection, as UTF-16 offsets into `value`. */
	selectionStart: number | null = null;
	selectionEnd: number | null = null;
	/** True while the element has the keyboard focus. */
	focused = false;
	/** What a click does; `onClickEvent` and the double's `ButtonComponent.onClick` set it. */
	clickAction: ((evt: MouseEvent) => unknown) | null = null;
	/** What typing into a field does besides setting its value: its component's change callbacks. */
	inputAction: (() => unknown) | null = null;
	/** The element's own text, set by `setText` or `{text}`; children come after it. */
	private ownText = "";
	private readonly listeners: { type: string; listener: FakeListener }[] = [];

	constructor(tag: string) {
		this.tag = tag;
	}

	/** The tag in upper case, as the DOM gives an HTML element's `tagName`. */
	get tagName(): string {
		return this.tag.toUpperCase();
	}

	createEl<K extends keyof HTMLElementTagNameMap>(
		tag: K,
		o?: DomElementInfo | string,
		callback?: (el: HTMLElementTagNameMap[K]) => void,
	): HTMLElementTagNameMap[K] {
		const child = new FakeElement(tag);
		child.apply(typeof o === "string" ? { cls: o } : (o ?? {}));
		child.parent = this;
		this.children.push(child);
		const element = asHTMLElement<HTMLElementTagNameMap[K]>(child);
		callback?.(element);
		return element;
	}

	createDiv(o?: DomElementInfo | string, callback?: (el: HTMLDivElement) => void): HTMLDivElement {
		return this.createEl("div", o, callback);
	}

	createSpan(o?: DomElementInfo | string, callback?: (el: HTMLSpanElement) => void): HTMLSpanElement {
		return this.createEl("span", o, callback);
	}

	setText(val: string | DocumentFragment): void {
		if (typeof val !== "string") throw new Error("The obsidian test double has no DocumentFragment");
		this.removeChildren();
		this.ownText = val;
	}

	/** The text of the element and its descendants, as `textContent` would give it. */
	getText(): string {
		return this.ownText + this.children.map((child) => child.getText()).join("");
	}

	empty(): void {
		this.removeChildren();
		this.ownText = "";
	}

	/** Detaches every child; a focused descendant loses the focus, as a removed element does. */
	private removeChildren(): void {
		for (const child of this.children) child.parent = null;
		if (activeFakeElement !== null && this.children.some((child) => child.contains(activeFakeElement))) {
			activeFakeElement.blur();
		}
		this.children.length = 0;
	}

	/** Whether `other` is this element or one of its descendants. */
	contains(other: FakeElement | null): boolean {
		for (let element = other; element !== null; element = element.parent) if (element === this) return true;
		return false;
	}

	addClass(...classes: string[]): void {
		for (const cls of classes) if (!this.classes.includes(cls)) this.classes.push(cls);
	}

	removeClass(...classes: string[]): void {
		for (const cls of classes) {
			const index = this.classes.indexOf(cls);
			if (index >= 0) this.classes.splice(index, 1);
		}
	}

	hasClass(cls: string): boolean {
		return this.classes.includes(cls);
	}

	setAttr(qualifiedName: string, value: string | number | boolean | null): void {
		if (value === null) this.attributes.delete(qualifiedName);
		else this.attributes.set(qualifiedName, String(value));
	}

	getAttr(qualifiedName: string): string | null {
		return this.attributes.get(qualifiedName) ?? null;
	}

	/** Takes the keyboard focus from whichever element had it. */
	focus(): void {
		if (activeFakeElement !== null && activeFakeElement !== this) activeFakeElement.focused = false;
		activeFakeElement = this;
		this.focused = true;
	}

	blur(): void {
		if (activeFakeElement === this) activeFakeElement = null;
		this.focused = false;
	}

	addEventListener(type: string, listener: FakeListener | EventListenerOrEventListenerObject | null, options?: boolean | AddEventListenerOptions): void {
		void options;
		if (type !== "keydown") throw new Error(`The obsidian test double dispatches keydown events only, not ${type}`);
		if (typeof listener !== "function") throw new Error("The obsidian test double takes listener functions only");
		const fn = listener as FakeListener;
		if (!this.listeners.some((entry) => entry.type === type && entry.listener === fn)) this.listeners.push({ type, listener: fn });
	}

	removeEventListener(type: string, listener: FakeListener | EventListenerOrEventListenerObject | null, options?: boolean | EventListenerOptions): void {
		void options;
		const index = this.listeners.findIndex((entry) => entry.type === type && entry.listener === listener);
		if (index >= 0) this.listeners.splice(index, 1);
	}

	/** How many listeners the element has, for tests of clean unloading. */
	listenerCount(): number {
		return this.listeners.length;
	}

	/** Calls this element's listeners for `event`, as the element the event is passing through. */
	fire(event: FakeKeyboardEvent): void {
		const element = asHTMLElement(this);
		for (const { type, listener } of [...this.listeners]) {
			if (type === event.type) (listener as (this: HTMLElement, ev: unknown) => unknown).call(element, event);
		}
	}

	/** Makes `listener` what a click does; the double keeps one listener an element. */
	onClickEvent(listener: (this: HTMLElement, ev: MouseEvent) => unknown): void {
		const element = asHTMLElement(this);
		this.clickAction = (evt) => listener.call(element, evt);
	}

	/** Clicks the element, as a user would, for tests. */
	click(): void {
		this.clickAction?.({} as MouseEvent);
	}

	/** Replaces a field's text as typing would, calling its component's change callbacks, for tests. */
	type(value: string): void {
		this.value = value;
		this.inputAction?.();
	}

	select(): void {
		this.setSelectionRange(0, this.value.length);
	}

	setSelectionRange(start: number | null, end: number | null): void {
		this.selectionStart = start;
		this.selectionEnd = end;
	}

	/** Every descendant (depth first, in order) with the tag, for tests. */
	findAll(tag: string): FakeElement[] {
		return this.children.flatMap((child) => [...(child.tag === tag ? [child] : []), ...child.findAll(tag)]);
	}

	/** Every descendant (depth first, in order) with the class, for tests. */
	findAllWithClass(cls: string): FakeElement[] {
		return this.children.flatMap((child) => [...(child.hasClass(cls) ? [child] : []), ...child.findAllWithClass(cls)]);
	}

	/**
	 * What the element shows, for tests: one line per descendant that has text of its own, as
	 * its tag and text, indented two spaces per level below this element's children.
	 */
	outline(): string[] {
		return this.children.flatMap((child) => child.outlineAt(0));
	}

	private outlineAt(depth: number): string[] {
		const own = this.ownText === "" ? [] : [`${"  ".repeat(depth)}${this.tag} ${this.ownText}`];
		return [...own, ...this.children.flatMap((child) => child.outlineAt(depth + 1))];
	}

	/**
	 * The element as HTML, one element a line, indented by depth: its tag, classes, attributes
	 * (sorted), an input's value, and its text, escaped. What the DOM snapshots store.
	 */
	toHTML(depth = 0): string {
		const indent = "  ".repeat(depth);
		const attributes = new Map(this.attributes);
		if (this.classes.length > 0) attributes.set("class", this.classes.join(" "));
		if ((this.tag === "input" || this.tag === "textarea") && this.value !== "") attributes.set("value", this.value);
		const attributeText = [...attributes.entries()]
			.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
			.map(([name, value]) => (value === "" ? ` ${name}` : ` ${name}="${escapeHTML(value)}"`))
			.join("");
		const open = `${indent}<${this.tag}${attributeText}>`;
		if (VOID_ELEMENTS.has(this.tag)) return open;
		if (this.children.length === 0) return `${open}${escapeHTML(this.ownText)}</${this.tag}>`;
		const text = this.ownText === "" ? [] : [`${indent}  ${escapeHTML(this.ownText)}`];
		return [open, ...text, ...this.children.map((child) => child.toHTML(depth + 1)), `${indent}</${this.tag}>`].join("\n");
	}

	private apply(info: DomElementInfo): void {
		const unsupported = Object.keys(info).filter((name) => !["text", "cls", "attr", "title"].includes(name));
		if (unsupported.length > 0) throw new Error(`The obsidian test double does not support ${unsupported.join(", ")} in createEl`);
		if (info.text !== undefined) this.setText(info.text);
		if (info.cls !== undefined) this.addClass(...(typeof info.cls === "string" ? info.cls.split(" ") : info.cls));
		for (const [name, value] of Object.entries(info.attr ?? {})) if (value !== null) this.attributes.set(name, String(value));
		if (info.title !== undefined) this.attributes.set("title", info.title);
	}
}

/** Elements HTML writes without a closing tag. */
const VOID_ELEMENTS = new Set(["input", "br", "hr", "img"]);

function escapeHTML(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** A fake element as the DOM type plugin code expects; the one cast between the two lives here. */
export function asHTMLElement<T extends HTMLElement = HTMLElement>(element: FakeElement): T {
	return element as unknown as T;
}

/** The fake behind an element the double handed out, for tests to read. */
export function fakeElementOf(element: HTMLElement): FakeElement {
	const fake: unknown = element;
	if (!(fake instanceof FakeElement)) throw new Error("Not an element of the obsidian test double");
	return fake;
}
