/**
 * The discovery file: how the sidecar finds the plugin's socket and proves it may use it.
 * Written atomically with mode 0600 as soon as the server listens, at the plugin's load and
 * before its first index (`"state": "starting"`), again once the index is built (`"ready"`), and
 * removed when it stops.
 */

import * as crypto from "crypto";
import * as fs from "fs";

/** The bridge protocol's version, in the discovery file and in `hello`'s answer. */
export const PROTOCOL_VERSION = 1;

/** Whether the plugin's first index is built: until then the bridge refuses calls, and the sidecar waits or answers reads from the folder. */
export type PluginState = "starting" | "ready";

/** The discovery file's fields, named as docs/bridge.md names them. */
export interface Discovery {
	socket: string;
	token: string;
	pid: number;
	vault_path: string;
	protocol: number;
	plugin_version: string;
	state: PluginState;
}

/** 256 random bits as 64 hex digits; a new one on every load. */
export function newToken(): string {
	return crypto.randomBytes(32).toString("hex");
}

/**
 * Writes `discovery` to `filePath` so that a reader sees either the old file or the whole new
 * one, and nobody but the user can ever read the token: a private temporary file, then rename.
 */
export function writeDiscovery(filePath: string, discovery: Discovery): void {
	const temporaryPath = `${filePath}.${process.pid}.${crypto.randomBytes(4).toString("hex")}.tmp`;
	const descriptor = fs.openSync(temporaryPath, "wx", 0o600);
	try {
		// The umask can only narrow the mode given to open; fchmod makes it exactly 0600.
		if (process.platform !== "win32") fs.fchmodSync(descriptor, 0o600);
		fs.writeSync(descriptor, `${JSON.stringify(discovery, null, 2)}\n`);
		fs.fsyncSync(descriptor);
	} catch (error) {
		fs.closeSync(descriptor);
		fs.rmSync(temporaryPath, { force: true });
		throw error;
	}
	fs.closeSync(descriptor);
	try {
		fs.renameSync(temporaryPath, filePath);
	} catch (error) {
		fs.rmSync(temporaryPath, { force: true });
		throw error;
	}
}

/**
 * Removes the discovery file if it is still the one carrying `token`, so a window that stops
 * never removes the file of another that has since taken over the vault.
 */
export function removeDiscovery(filePath: string, token: string): void {
	let current: unknown;
	try {
		current = JSON.parse(fs.readFileSync(filePath, "utf8"));
	} catch {
		// Already gone, or unreadable; either way it is not a file this window can vouch for.
		return;
	}
	if (typeof current === "object" && current !== null && (current as { token?: unknown }).token === token) {
		fs.rmSync(filePath, { force: true });
	}
}
