/** The `obsidian` double's paths and timing helpers (see `index.ts`). */

import type * as obsidian from "obsidian";

export function normalizePath(input: string): string {
	// Obsidian's rules: one forward slash between segments, none at either end, non-breaking
	// spaces become spaces, Unicode in NFC; the empty path is the root, "/".
	let result = input.replace(/([\\/])+/g, "/").replace(/(^\/+|\/+$)/g, "");
	if (result === "") result = "/";
	return result.replace(/\u00A0|\u202F/g, " ").normalize("NFC");
}

export const debounce: typeof obsidian.debounce = <T extends unknown[], V>(
	cb: (...args: [...T]) => V,
	timeout = 0,
	resetTimer = false,
): obsidian.Debouncer<T, V> => {
	// Obsidian's semantics: the call happens `timeout` ms after the first call of a burst (or
	// after the last one with `resetTimer`), once, with the arguments of the latest call.
	let timer: ReturnType<typeof setTimeout> | null = null;
	let pendingArgs: [...T] | null = null;
	const fire = (): V | void => {
		timer = null;
		const args = pendingArgs;
		pendingArgs = null;
		if (args !== null) return cb(...args);
	};
	const debounced = ((...args: [...T]) => {
		pendingArgs = args;
		if (timer !== null && resetTimer) {
			clearTimeout(timer);
			timer = null;
		}
		if (timer === null) timer = setTimeout(fire, timeout);
		return debounced;
	}) as obsidian.Debouncer<T, V>;
	debounced.cancel = () => {
		if (timer !== null) clearTimeout(timer);
		timer = null;
		pendingArgs = null;
		return debounced;
	};
	debounced.run = () => {
		if (timer === null) return;
		clearTimeout(timer);
		return fire();
	};
	return debounced;
};
