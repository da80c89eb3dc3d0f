/**
 * The small helpers the plugin's dialogs and reports share to say how many of a thing there are
 * and to group a change's items by the note they are in, so every list reads the same way.
 */

/** `amount` and its noun: `one` for one, `many` (by default `one` and an `s`) otherwise: `1 note`, `3 notes`. */
export function count(amount: number, one: string, many = `${one}s`): string {
	return `${amount} ${amount === 1 ? one : many}`;
}

/** The items grouped by the note each is in, the notes in the order they first appear. */
export function byNote<T extends { note: string }>(items: readonly T[]): Map<string, T[]> {
	const notes = new Map<string, T[]>();
	for (const item of items) {
		const list = notes.get(item.note) ?? [];
		list.push(item);
		notes.set(item.note, list);
	}
	return notes;
}
