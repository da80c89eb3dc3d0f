/**
 * The element helpers Obsidian adds to the DOM (`createEl`, `createDiv`, `setText`, `empty`,
 * `addClass`, `setAttr`, `onClickEvent`, …), written here for a plain browser page, so the
 * plugin's drawing code runs on a real DOM in headless Chromium. Only what the plugin's
 * views call; written from Obsidian's documented behaviour, not taken from Obsidian.
 */

type Attributes = Record<string, string | number | boolean | null>;

interface ElementInfo {
	cls?: string | string[];
	text?: string;
	attr?: Attributes;
	title?: string;
}

function applyInfo(element: HTMLElement, info: ElementInfo | string | undefined): void {
	const given: ElementInfo = typeof info === "string" ? { cls: info } : (info ?? {});
	const unsupported = Object.keys(given).filter((name) => !["text", "cls", "attr", "title"].includes(name));
	if (unsupported.length > 0) throw new Error(`the page's helpers do not support ${unsupported.join(", ")} in createEl`);
	if (given.cls !== undefined) element.classList.add(...(typeof given.cls === "string" ? given.cls.split(" ").filter((cls) => cls !== "") : given.cls));
	if (given.text !== undefined) element.textContent = given.text;
	for (const [name, value] of Object.entries(given.attr ?? {})) if (value !== null) element.setAttribute(name, String(value));
	if (given.title !== undefined) element.setAttribute("title", given.title);
}

/** Installs the helpers on `HTMLElement.prototype` of this page. */
export function installObsidianDomHelpers(): void {
	const proto = HTMLElement.prototype as unknown as Record<string, unknown>;
	proto["createEl"] = function (this: HTMLElement, tag: string, info?: ElementInfo | string, callback?: (element: HTMLElement) => void): HTMLElement {
		const element = this.ownerDocument.createElement(tag);
		applyInfo(element, info);
		this.appendChild(element);
		callback?.(element);
		return element;
	};
	proto["createDiv"] = function (this: HTMLElement, info?: ElementInfo | string, callback?: (element: HTMLElement) => void): HTMLElement {
		return (proto["createEl"] as (this: HTMLElement, ...args: unknown[]) => HTMLElement).call(this, "div", info, callback);
	};
	proto["createSpan"] = function (this: HTMLElement, info?: ElementInfo | string, callback?: (element: HTMLElement) => void): HTMLElement {
		return (proto["createEl"] as (this: HTMLElement, ...args: unknown[]) => HTMLElement).call(this, "span", info, callback);
	};
	proto["setText"] = function (this: HTMLElement, text: string): void {
		this.textContent = text;
	};
	proto["getText"] = function (this: HTMLElement): string {
		return this.textContent ?? "";
	};
	proto["empty"] = function (this: HTMLElement): void {
		while (this.firstChild !== null) this.removeChild(this.firstChild);
	};
	proto["addClass"] = function (this: HTMLElement, ...classes: string[]): void {
		this.classList.add(...classes);
	};
	proto["removeClass"] = function (this: HTMLElement, ...classes: string[]): void {
		this.classList.remove(...classes);
	};
	proto["hasClass"] = function (this: HTMLElement, cls: string): boolean {
		return this.classList.contains(cls);
	};
	proto["setAttr"] = function (this: HTMLElement, name: string, value: string | number | boolean | null): void {
		if (value === null) this.removeAttribute(name);
		else this.setAttribute(name, String(value));
	};
	proto["getAttr"] = function (this: HTMLElement, name: string): string | null {
		return this.getAttribute(name);
	};
	proto["onClickEvent"] = function (this: HTMLElement, listener: (this: HTMLElement, event: MouseEvent) => unknown): void {
		this.addEventListener("click", listener);
	};
}

/** Elements HTML writes without a closing tag. */
const VOID_ELEMENTS = new Set(["input", "br", "hr", "img"]);

function escapeHTML(text: string): string {
	return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/**
 * A real element as HTML in the DOM snapshots' form (the test double's `FakeElement.toHTML`):
 * one element a line, indented by depth, classes and sorted attributes, the element's own text
 * before its children.
 */
export function snapshotHTML(element: Element, depth = 0): string {
	const indent = "  ".repeat(depth);
	const attributes = new Map<string, string>();
	for (const attribute of Array.from(element.attributes)) if (attribute.name !== "class") attributes.set(attribute.name, attribute.value);
	if (element.classList.length > 0) attributes.set("class", Array.from(element.classList).join(" "));
	const attributeText = [...attributes.entries()]
		.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
		.map(([name, value]) => (value === "" ? ` ${name}` : ` ${name}="${escapeHTML(value)}"`))
		.join("");
	const tag = element.tagName.toLowerCase();
	const open = `${indent}<${tag}${attributeText}>`;
	if (VOID_ELEMENTS.has(tag)) return open;
	const ownText = Array.from(element.childNodes)
		.filter((node) => node.nodeType === Node.TEXT_NODE)
		.map((node) => node.textContent ?? "")
		.join("");
	const children = Array.from(element.children);
	if (children.length === 0) return `${open}${escapeHTML(ownText)}</${tag}>`;
	const text = ownText === "" ? [] : [`${indent}  ${escapeHTML(ownText)}`];
	return [open, ...text, ...children.map((child) => snapshotHTML(child, depth + 1)), `${indent}</${tag}>`].join("\n");
}
