/** The `obsidian` double's setting components (see `index.ts`). */

import type * as obsidian from "obsidian";
import { asHTMLElement, FakeElement, fakeElementOf } from "./elements";

export abstract class BaseComponent implements obsidian.BaseComponent {
	disabled = false;

	then(cb: (component: this) => unknown): this {
		cb(this);
		return this;
	}

	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		return this;
	}
}

/**
 * What a text field and a text area share, as Obsidian's `AbstractTextComponent` does: the
 * element, its value, its placeholder and its `onChange` callbacks; `type` stands in for the
 * user typing into it, for tests.
 */
export abstract class AbstractTextComponent<T extends HTMLInputElement | HTMLTextAreaElement> extends BaseComponent implements obsidian.AbstractTextComponent<T> {
	inputEl: T;
	private readonly changeCallbacks: ((value: string) => unknown)[] = [];

	constructor(inputEl: T) {
		super();
		this.inputEl = inputEl;
		fakeElementOf(this.inputEl).inputAction = () => this.onChanged();
	}

	getValue(): string {
		return this.inputEl.value;
	}

	setValue(value: string): this {
		this.inputEl.value = value;
		return this;
	}

	setPlaceholder(placeholder: string): this {
		fakeElementOf(this.inputEl).attributes.set("placeholder", placeholder);
		return this;
	}

	onChange(callback: (value: string) => unknown): this {
		this.changeCallbacks.push(callback);
		return this;
	}

	onChanged(): void {
		for (const callback of this.changeCallbacks) callback(this.getValue());
	}

	registerOptionListener(): this {
		throw new Error("The obsidian test double has no option listeners");
	}

	/** Replaces the field's text as typing would, calling the `onChange` callbacks. */
	type(value: string): void {
		this.setValue(value);
		this.onChanged();
	}
}

/** A text field. */
export class TextComponent extends AbstractTextComponent<HTMLInputElement> implements obsidian.TextComponent {
	constructor(containerEl: HTMLElement) {
		super(containerEl.createEl("input", { attr: { type: "text" } }));
	}
}

/** A button; clicking its element (`FakeElement.click`) calls `onClick`'s callback unless it is disabled. */
export class ButtonComponent extends BaseComponent implements obsidian.ButtonComponent {
	buttonEl: HTMLButtonElement;
	constructor(containerEl: HTMLElement) {
		super();
		this.buttonEl = containerEl.createEl("button");
	}

	setButtonText(name: string): this {
		this.buttonEl.setText(name);
		return this;
	}

	setCta(): this {
		this.buttonEl.addClass("mod-cta");
		return this;
	}

	removeCta(): this {
		const classes = fakeElementOf(this.buttonEl).classes;
		if (classes.includes("mod-cta")) classes.splice(classes.indexOf("mod-cta"), 1);
		return this;
	}

	setWarning(): this {
		this.buttonEl.addClass("mod-warning");
		return this;
	}

	setDestructive(): this {
		this.buttonEl.addClass("mod-destructive");
		return this;
	}

	removeDestructive(): this {
		const classes = fakeElementOf(this.buttonEl).classes;
		if (classes.includes("mod-destructive")) classes.splice(classes.indexOf("mod-destructive"), 1);
		return this;
	}

	setTooltip(tooltip: string): this {
		fakeElementOf(this.buttonEl).attributes.set("aria-label", tooltip);
		return this;
	}

	setIcon(): this {
		throw new Error("The obsidian test double has no icons");
	}

	setClass(cls: string): this {
		this.buttonEl.addClass(cls);
		return this;
	}

	override setDisabled(disabled: boolean): this {
		super.setDisabled(disabled);
		if (disabled) fakeElementOf(this.buttonEl).attributes.set("disabled", "");
		else fakeElementOf(this.buttonEl).attributes.delete("disabled");
		return this;
	}

	onClick(callback: (evt: MouseEvent) => unknown): this {
		fakeElementOf(this.buttonEl).clickAction = (evt) => (this.disabled ? undefined : callback(evt));
		return this;
	}
}

/** An on/off switch; `toggleEl` clicked (or `setValue` and `onClick`) flips it and calls `onChange`. */
export class ToggleComponent extends BaseComponent implements obsidian.ToggleComponent {
	toggleEl: HTMLElement;
	private value = false;
	private readonly changeCallbacks: ((value: boolean) => unknown)[] = [];

	constructor(containerEl: HTMLElement) {
		super();
		this.toggleEl = containerEl.createDiv({ cls: "checkbox-container", attr: { role: "switch", "aria-checked": "false", tabindex: "0" } });
		fakeElementOf(this.toggleEl).clickAction = () => this.onClick();
	}

	getValue(): boolean {
		return this.value;
	}

	setValue(on: boolean): this {
		this.value = on;
		const element = fakeElementOf(this.toggleEl);
		if (on) element.addClass("is-enabled");
		else element.removeClass("is-enabled");
		element.attributes.set("aria-checked", String(on));
		return this;
	}

	/** Flips the switch, as a click does, unless it is disabled. */
	onClick(): void {
		if (this.disabled) return;
		this.setValue(!this.value);
		for (const callback of this.changeCallbacks) callback(this.value);
	}

	onChange(callback: (value: boolean) => unknown): this {
		this.changeCallbacks.push(callback);
		return this;
	}

	setTooltip(tooltip: string): this {
		fakeElementOf(this.toggleEl).attributes.set("aria-label", tooltip);
		return this;
	}

	registerOptionListener(): this {
		throw new Error("The obsidian test double has no option listeners");
	}
}

/** A multi-line text field; `type` stands in for the user typing into it, for tests. */
export class TextAreaComponent extends AbstractTextComponent<HTMLTextAreaElement> implements obsidian.TextAreaComponent {
	constructor(containerEl: HTMLElement) {
		super(containerEl.createEl("textarea"));
	}
}

/** One row of a settings tab: a name and description on the left, controls on the right. */
export class Setting
	implements
		Pick<
			obsidian.Setting,
			| "settingEl"
			| "infoEl"
			| "nameEl"
			| "descEl"
			| "controlEl"
			| "components"
			| "setName"
			| "setDesc"
			| "setClass"
			| "setHeading"
			| "setDisabled"
			| "addButton"
			| "addToggle"
			| "addText"
			| "addTextArea"
			| "then"
		>
{
	settingEl: HTMLElement;
	infoEl: HTMLElement;
	nameEl: HTMLElement;
	descEl: HTMLElement;
	controlEl: HTMLElement;
	components: obsidian.BaseComponent[] = [];

	constructor(containerEl: HTMLElement) {
		this.settingEl = containerEl.createDiv({ cls: "setting-item" });
		this.infoEl = this.settingEl.createDiv({ cls: "setting-item-info" });
		this.nameEl = this.infoEl.createDiv({ cls: "setting-item-name" });
		this.descEl = this.infoEl.createDiv({ cls: "setting-item-description" });
		this.controlEl = this.settingEl.createDiv({ cls: "setting-item-control" });
	}

	setName(name: string | DocumentFragment): obsidian.Setting {
		this.nameEl.setText(name);
		return this.asObsidian();
	}

	setDesc(desc: string | DocumentFragment): obsidian.Setting {
		this.descEl.setText(desc);
		return this.asObsidian();
	}

	setClass(cls: string): obsidian.Setting {
		this.settingEl.addClass(cls);
		return this.asObsidian();
	}

	setHeading(): obsidian.Setting {
		this.settingEl.addClass("setting-item-heading");
		return this.asObsidian();
	}

	setDisabled(disabled: boolean): obsidian.Setting {
		for (const component of this.components) component.setDisabled(disabled);
		return this.asObsidian();
	}

	addButton(cb: (component: obsidian.ButtonComponent) => unknown): obsidian.Setting {
		return this.add(new ButtonComponent(this.controlEl), cb);
	}

	addToggle(cb: (component: obsidian.ToggleComponent) => unknown): obsidian.Setting {
		return this.add(new ToggleComponent(this.controlEl), cb);
	}

	addText(cb: (component: obsidian.TextComponent) => unknown): obsidian.Setting {
		return this.add(new TextComponent(this.controlEl), cb);
	}

	addTextArea(cb: (component: obsidian.TextAreaComponent) => unknown): obsidian.Setting {
		return this.add(new TextAreaComponent(this.controlEl), cb);
	}

	then(cb: (setting: obsidian.Setting) => unknown): obsidian.Setting {
		cb(this.asObsidian());
		return this.asObsidian();
	}

	private add<T extends BaseComponent, O>(component: T, cb: (component: O) => unknown): obsidian.Setting {
		this.components.push(component as unknown as obsidian.BaseComponent);
		cb(component as unknown as O);
		return this.asObsidian();
	}

	/** This row as Obsidian's type, which its chained calls return. */
	private asObsidian(): obsidian.Setting {
		return this as unknown as obsidian.Setting;
	}
}

/** Every setting row drawn, for tests to find by name. */
export function settingsIn(containerEl: HTMLElement): FakeElement[] {
	return fakeElementOf(containerEl).findAllWithClass("setting-item");
}

/** A settings tab; the test opens it with `display()`, as Obsidian does when the user picks it. */
export abstract class SettingTab implements Pick<obsidian.SettingTab, "app" | "containerEl" | "display" | "hide"> {
	app: obsidian.App;
	containerEl: HTMLElement = asHTMLElement(new FakeElement("div"));

	constructor(app: obsidian.App) {
		this.app = app;
		this.containerEl.addClass("vertical-tab-content");
	}

	abstract display(): void;

	hide(): void {
		this.containerEl.empty();
	}
}

export abstract class PluginSettingTab extends SettingTab {
	readonly plugin: obsidian.Plugin;

	constructor(app: obsidian.App, plugin: obsidian.Plugin) {
		super(app);
		this.plugin = plugin;
	}
}
