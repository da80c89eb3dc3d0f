//! Where the bridge lives: the per-user runtime directory, the vault's key, and the socket and
//! discovery-file paths derived from them. ARCHITECTURE.md ("The bridge") is the contract; the
//! sidecar derives the same paths independently, so any change here is a protocol change.

import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";

/** The environment variables and platform facts the paths depend on, passed in for testing. */
export interface PathEnvironment {
	env: Record<string, string | undefined>;
	platform: NodeJS.Platform;
	uid: number | null;
	tmpdir: string;
}

export function currentEnvironment(): PathEnvironment {
	return {
		env: process.env,
		platform: process.platform,
		uid: typeof process.getuid === "function" ? process.getuid() : null,
		tmpdir: os.tmpdir(),
	};
}

export interface BridgePaths {
	/** The vault's canonical absolute path, the one the key is derived from. */
	vaultPath: string;
	key: string;
	runtimeDir: string;
	/** A Unix socket path, or a named pipe's path on Windows. */
	socketPath: string;
	discoveryPath: string;
}

/** Hex digits of the SHA-256 that make up a vault's key. */
const KEY_LENGTH = 16;

/** `$VAULTLINK_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/vaultlink`, else `<tmpdir>/vaultlink-<uid>`; on Windows `%LOCALAPPDATA%\vaultlink`. */
export function runtimeDirectory(environment: PathEnvironment = currentEnvironment()): string {
	const { env, platform } = environment;
	const explicit = env["VAULTLINK_RUNTIME_DIR"];
	if (explicit !== undefined && explicit !== "") return explicit;
	if (platform === "win32") {
		// Without %LOCALAPPDATA%, the temporary directory, as the sidecar does.
		const localAppData = env["LOCALAPPDATA"];
		const base = localAppData !== undefined && localAppData !== "" ? localAppData : environment.tmpdir;
		return path.win32.join(base, "vaultlink");
	}
	const xdg = env["XDG_RUNTIME_DIR"];
	if (xdg !== undefined && xdg !== "") return path.posix.join(xdg, "vaultlink");
	return path.posix.join(environment.tmpdir, `vaultlink-${environment.uid ?? "user"}`);
}

/** The first 16 hex digits of the SHA-256 of the canonical path's UTF-8 bytes. */
export function keyOfCanonicalPath(canonicalPath: string): string {
	return crypto.createHash("sha256").update(canonicalPath, "utf8").digest("hex").slice(0, KEY_LENGTH);
}

export function bridgePaths(vaultPath: string, environment: PathEnvironment = currentEnvironment()): BridgePaths {
	// Symlinks and relative segments resolved, so every way of naming the vault gives one key.
	const canonicalPath = fs.realpathSync(vaultPath);
	const key = keyOfCanonicalPath(canonicalPath);
	const runtimeDir = runtimeDirectory(environment);
	const join = (...parts: string[]) => (environment.platform === "win32" ? path.win32.join(...parts) : path.posix.join(...parts));
	return {
		vaultPath: canonicalPath,
		key,
		runtimeDir,
		socketPath: environment.platform === "win32" ? `\\\\.\\pipe\\vaultlink-${key}` : join(runtimeDir, `${key}.sock`),
		discoveryPath: join(runtimeDir, `${key}.json`),
	};
}
