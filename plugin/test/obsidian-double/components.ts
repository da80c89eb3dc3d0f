/** The `obsidian` double's components and plugins (see `index.ts`). */

import type * as obsidian from "obsidian";
import { App } from "./app";
import { asHTMLElement, FakeElement } from "./elements";
import { DoubleEventRef } from "./events";
import { PluginSettingTab } from "./settings";

export class Component implements obsidian.Component {
	private loaded = false;
	private readonly cleanups: (() => unknown)[] = [];
	private readonly children: Component[] = [];

	load(): void {
		if (this.loaded) return;
		this.loaded = true;
		this.onload();
		for (const child of this.children) child.load();
	}

	onload(): void {}

	unload(): void {
		if (!this.loaded) return;
		this.loaded = false;
		while (this.children.length > 0) this.children.pop()?.unload();
		while (this.cleanups.length > 0) this.cleanups.pop()?.();
		this.onunload();
	}

	onunload(): void {}

	addChild<T extends obsidian.Component>(component: T): T {
		const child = component as unknown as Component;
		this.children.push(child);
		if (this.loaded) child.load();
		return component;
	}

	removeChild<T extends obsidian.Component>(component: T): T {
		const child = component as unknown as Component;
		const index = this.children.indexOf(child);
		if (index >= 0) {
			this.children.splice(index, 1);
			child.unload();
		}
		return component;
	}

	register(cb: () => unknown): void {
		this.cleanups.push(cb);
	}

	registerEvent(eventRef: obsidian.EventRef): void {
		const ref = eventRef as DoubleEventRef;
		this.register(() => ref.events.offref(ref));
	}

	registerDomEvent<K extends keyof WindowEventMap>(el: Window, type: K, callback: (this: HTMLElement, ev: WindowEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
	registerDomEvent<K extends keyof DocumentEventMap>(el: Document, type: K, callback: (this: HTMLElement, ev: DocumentEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
	registerDomEvent<K extends keyof HTMLElementEventMap>(el: HTMLElement, type: K, callback: (this: HTMLElement, ev: HTMLElementEventMap[K]) => unknown, options?: boolean | AddEventListenerOptions): void;
	/** Listens on one of the double's elements until the component unloads; it has no window or document. */
	registerDomEvent(el: Window | Document | HTMLElement, type: string, callback: (this: HTMLElement, ev: never) => unknown, options?: boolean | AddEventListenerOptions): void {
		const candidate: unknown = el;
		if (!(candidate instanceof FakeElement)) throw new Error("The obsidian test double has no window or document to listen on");
		candidate.addEventListener(type, callback, options);
		this.register(() => candidate.removeEventListener(type, callback, options));
	}

	registerInterval(id: number): number {
		this.register(() => clearInterval(id));
		return id;
	}
}

export abstract class Plugin
	extends Component
	implements
		Pick<obsidian.Plugin, "manifest" | "addCommand" | "removeCommand" | "loadData" | "saveData" | "registerView" | "addStatusBarItem" | "addSettingTab">
{
	readonly app: App;
	manifest: obsidian.PluginManifest;
	/** Commands added with `addCommand`, by id; tests look them up here. */
	readonly commands = new Map<string, obsidian.Command>();
	/** Status-bar items added with `addStatusBarItem` and not yet removed, oldest first; tests read them here. */
	readonly statusBarItems: FakeElement[] = [];
	/** Setting tabs added with `addSettingTab` and not yet removed; tests open them here. */
	readonly settingTabs: PluginSettingTab[] = [];

	constructor(app: App, manifest: obsidian.PluginManifest) {
		super();
		this.app = app;
		this.manifest = manifest;
	}

	addCommand(command: obsidian.Command): obsidian.Command {
		this.commands.set(command.id, command);
		return command;
	}

	removeCommand(commandId: string): void {
		this.commands.delete(commandId);
	}

	registerView(type: string, viewCreator: obsidian.ViewCreator): void {
		this.app.workspace.registerViewType(type, viewCreator);
		this.register(() => this.app.workspace.unregisterViewType(type));
	}

	/** A status-bar item, removed when the plugin unloads, as in Obsidian. */
	addStatusBarItem(): HTMLElement {
		const item = new FakeElement("div");
		item.addClass("status-bar-item");
		this.statusBarItems.push(item);
		this.register(() => this.statusBarItems.splice(this.statusBarItems.indexOf(item), 1));
		return asHTMLElement(item);
	}

	/** A setting tab, removed when the plugin unloads, as in Obsidian. */
	addSettingTab(settingTab: obsidian.PluginSettingTab): void {
		const candidate: unknown = settingTab;
		if (!(candidate instanceof PluginSettingTab)) throw new Error("Not a setting tab of the obsidian test double");
		this.settingTabs.push(candidate);
		this.register(() => this.settingTabs.splice(this.settingTabs.indexOf(candidate), 1));
	}

	/** Where Obsidian keeps the plugin's data: `<configDir>/plugins/<id>/data.json` in the vault. */
	get dataPath(): string {
		return `${this.app.vault.configDir}/plugins/${this.manifest.id}/data.json`;
	}

	/** The plugin's `data.json` parsed, or null when there is none; text that is not JSON rejects. */
	async loadData(): Promise<unknown> {
		const adapter = this.app.vault.adapter;
		if (!(await adapter.exists(this.dataPath))) return null;
		return JSON.parse(await adapter.read(this.dataPath)) as unknown;
	}

	async saveData(data: unknown): Promise<void> {
		await this.app.vault.adapter.write(this.dataPath, JSON.stringify(data, null, 2));
	}
}
