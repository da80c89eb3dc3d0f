/** The `obsidian` double's menus (see `index.ts`). */

import type * as obsidian from "obsidian";

/**
 * A context menu, as the file explorer hands one to `files-menu` handlers (with several files
 * selected) and `file-menu` ones: items are added, and a test clicks one by its title.
 */
export class Menu implements Pick<obsidian.Menu, "addItem" | "addSeparator"> {
	readonly items: MenuItem[] = [];

	addItem(cb: (item: obsidian.MenuItem) => unknown): obsidian.Menu {
		const item = new MenuItem();
		cb(item);
		this.items.push(item);
		return this as unknown as obsidian.Menu;
	}

	addSeparator(): obsidian.Menu {
		return this as unknown as obsidian.Menu;
	}

	/** The item with this title; clicking it runs its handler as a click in Obsidian does. */
	item(title: string): MenuItem | undefined {
		return this.items.find((item) => item.title === title);
	}
}

export class MenuItem implements Omit<obsidian.MenuItem, never> {
	title = "";
	icon: string | null = null;
	checked: boolean | null = null;
	disabled = false;
	warning = false;
	label = false;
	section = "";

	setChecked(checked: boolean | null): this {
		this.checked = checked;
		return this;
	}

	setDisabled(disabled: boolean): this {
		this.disabled = disabled;
		return this;
	}

	setWarning(isWarning: boolean): this {
		this.warning = isWarning;
		return this;
	}

	setIsLabel(isLabel: boolean): this {
		this.label = isLabel;
		return this;
	}

	setSection(section: string): this {
		this.section = section;
		return this;
	}
	private handler: ((evt: MouseEvent | KeyboardEvent) => unknown) | null = null;

	setTitle(title: string | DocumentFragment): this {
		this.title = String(title);
		return this;
	}

	setIcon(icon: string | null): this {
		this.icon = icon;
		return this;
	}

	onClick(callback: (evt: MouseEvent | KeyboardEvent) => unknown): this {
		this.handler = callback;
		return this;
	}

	/** A click, as Obsidian gives it; a disabled item does nothing. */
	click(): void {
		if (!this.disabled) this.handler?.({} as MouseEvent);
	}
}
