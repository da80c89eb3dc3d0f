/** The `obsidian` double's events (see `index.ts`). */

import type * as obsidian from "obsidian";

/** What `Events.on` returns; Obsidian's `EventRef` is opaque, this is what the double keeps. */
export interface DoubleEventRef extends obsidian.EventRef {
	readonly events: Events;
	readonly name: string;
	readonly callback: (...data: unknown[]) => unknown;
	readonly context: unknown;
}

export class Events implements obsidian.Events {
	private readonly listeners = new Map<string, DoubleEventRef[]>();

	on(name: string, callback: (...data: unknown[]) => unknown, ctx?: unknown): obsidian.EventRef {
		const ref: DoubleEventRef = { events: this, name, callback, context: ctx };
		const list = this.listeners.get(name) ?? [];
		list.push(ref);
		this.listeners.set(name, list);
		return ref;
	}

	off(name: string, callback: (...data: unknown[]) => unknown): void {
		const list = this.listeners.get(name);
		if (list === undefined) return;
		this.listeners.set(
			name,
			list.filter((ref) => ref.callback !== callback),
		);
	}

	offref(ref: obsidian.EventRef): void {
		const doubleRef = ref as DoubleEventRef;
		const list = this.listeners.get(doubleRef.name);
		if (list === undefined) return;
		this.listeners.set(
			doubleRef.name,
			list.filter((other) => other !== doubleRef),
		);
	}

	trigger(name: string, ...data: unknown[]): void {
		// A copy, so a listener that unsubscribes while being called does not skip its neighbour.
		for (const ref of [...(this.listeners.get(name) ?? [])]) this.tryTrigger(ref, data);
	}

	tryTrigger(evt: obsidian.EventRef, args: unknown[]): void {
		const ref = evt as DoubleEventRef;
		try {
			ref.callback.apply(ref.context, args);
		} catch (error) {
			// As Obsidian does: one failing listener must not stop the others, and the error is
			// rethrown on a later tick so it is not lost (in a test it fails the run loudly).
			setTimeout(() => {
				throw error;
			}, 0);
		}
	}

	/** How many listeners are subscribed to `name`; for tests of clean unloading. */
	listenerCount(name: string): number {
		return this.listeners.get(name)?.length ?? 0;
	}

	/** How many listeners are subscribed to any event; for tests of clean unloading. */
	totalListenerCount(): number {
		return [...this.listeners.values()].reduce((sum, list) => sum + list.length, 0);
	}
}
