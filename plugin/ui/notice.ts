/**
 * What every command and the plugin's lifecycle share when they tell the user something went
 * wrong: how long an error stays on screen, and the message of whatever was thrown.
 */

/** How long an error stays on screen: long enough to read what to do. */
export const ERROR_NOTICE_MS = 10_000;

/** The message of a thrown value: an `Error`'s message, or the value as text. */
export function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
