/**
 * A list whose items take the keyboard: each item is focusable, the arrow keys (and Home, End)
 * move between items, Enter or Space activates the focused one. One `keydown` listener on the
 * list's container serves every item (the events bubble up to it), so redrawing the items
 * adds no listener; keys pressed on a control inside an item (a button) are left to it. Tab
 * enters the list once, on the item last focused (a roving tabindex), rather than stopping at
 * each of what may be a thousand findings.
 */

/** One item: its element, and what Enter does on it (nothing when null). */
export interface KeyboardListItem {
	el: HTMLElement;
	activate: (() => void) | null;
}

export class KeyboardList {
	private items: KeyboardListItem[] = [];

	/** Makes `items` the list's items, in order, each focusable; Tab reaches the first. */
	setItems(items: KeyboardListItem[]): void {
		this.items = items;
		items.forEach((item, position) => item.el.setAttr("tabindex", position === 0 ? "0" : "-1"));
	}

	/** The items, in order. */
	get all(): readonly KeyboardListItem[] {
		return this.items;
	}

	/** Puts the keyboard on the item at `position` (clamped to the list), the one Tab comes back to. */
	focus(position: number): void {
		const item = this.items[Math.max(0, Math.min(position, this.items.length - 1))];
		if (item === undefined) return;
		for (const other of this.items) other.el.setAttr("tabindex", other === item ? "0" : "-1");
		item.el.focus();
	}

	/** Handles a `keydown` that reached the container; true when it was one of the list's keys. */
	handleKeydown(evt: KeyboardEvent): boolean {
		const position = this.items.findIndex((item) => item.el === evt.target);
		if (position < 0) return false;
		switch (evt.key) {
			case "ArrowDown":
				this.focus(position + 1);
				break;
			case "ArrowUp":
				this.focus(position - 1);
				break;
			case "Home":
				this.focus(0);
				break;
			case "End":
				this.focus(this.items.length - 1);
				break;
			case "Enter":
			case " ": {
				const activate = this.items[position]?.activate;
				if (activate === null || activate === undefined) return false;
				activate();
				break;
			}
			default:
				return false;
		}
		evt.preventDefault();
		return true;
	}
}
