//! A list whose items take the keyboard: each item is focusable, the arrow keys (and Home, End)
//! move between items, Enter or Space activates the focused one. One `keydown` listener on the
//! list's container serves every item (the events bubble up to it), so redrawing the items
//! adds no listener; keys pressed on a control inside an item (a button) are left to it.

/** One item: its element, and what Enter does on it (nothing when null). */
export interface KeyboardListItem {
	el: HTMLElement;
	activate: (() => void) | null;
}

export class KeyboardList {
	private items: KeyboardListItem[] = [];

	/** Makes `items` the list's items, in order, each focusable. */
	setItems(items: KeyboardListItem[]): void {
		this.items = items;
		for (const item of items) item.el.setAttr("tabindex", "0");
	}

	/** The items, in order. */
	get all(): readonly KeyboardListItem[] {
		return this.items;
	}

	/** Puts the keyboard on the item at `position` (clamped to the list). */
	focus(position: number): void {
		const item = this.items[Math.max(0, Math.min(position, this.items.length - 1))];
		item?.el.focus();
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
