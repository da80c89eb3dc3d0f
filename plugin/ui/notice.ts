/**
 * What every command and the plugin's lifecycle share when they tell the user something went
 * wrong: how long an error stays on screen, and the message of whatever was thrown.
 */

import { Notice } from "obsidian";

/** How long an error stays on screen: long enough to read what to do. */
export const ERROR_NOTICE_MS = 10_000;

/** The message of a thrown value: an `Error`'s message, or the value as text. */
export function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}

/** Says that a command found no link index to ask, and what to do. Every command says it alike. */
export function noticeIndexNotLoaded(): void {
	new Notice("vaultlink: the link index is not loaded; enable the plugin again and retry.", ERROR_NOTICE_MS);
}
