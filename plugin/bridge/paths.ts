/**
 * Where the bridge lives: the folder of discovery files, the vault's key, and the socket and
 * discovery-file paths derived from them. docs/bridge.md is the contract; the
 * sidecar derives the same paths independently (`crates/sidecar/src/discovery.rs`), so any
 * change here is a protocol change.
 *
 * The discovery file is found from the home folder alone, `<state>/bridge/<key>.json` beside the
 * journal key (`../state.ts`), because the sidecar is started by MCP clients that pass it
 * hardly any environment (no `XDG_RUNTIME_DIR`). The socket goes beside it when that path fits
 * a Unix socket, else in the private runtime directory (`$XDG_RUNTIME_DIR/vaultlink`), else in a
 * folder of a fresh random name under the system's temporary folder; the discovery file names it.
 */

import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { stateDirectory, userHome } from "../state";

/** The environment variables and platform facts the paths depend on, passed in for testing. */
export interface PathEnvironment {
	env: Record<string, string | undefined>;
	platform: NodeJS.Platform;
	uid: number | null;
	tmpdir: string;
	home: string;
}

export function currentEnvironment(): PathEnvironment {
	return {
		env: process.env,
		platform: process.platform,
		uid: typeof process.getuid === "function" ? process.getuid() : null,
		tmpdir: os.tmpdir(),
		home: userHome(process.env),
	};
}

export interface BridgePaths {
	/** The vault's canonical form, the one the key is derived from. */
	vaultPath: string;
	key: string;
	/** The folder of discovery files: `$VAULTLINK_RUNTIME_DIR`, else `<state>/bridge`. */
	discoveryDir: string;
	/** The folder the socket is in (the discovery folder, the runtime directory, or a fresh one); unused on Windows. */
	socketDir: string;
	/** Whether `socketDir` was made for this server (`<tmpdir>/vaultlink-<random>`), to be removed with it. */
	socketDirIsFresh: boolean;
	/** A Unix socket path, or a named pipe's path on Windows. */
	socketPath: string;
	discoveryPath: string;
}

/** Hex digits of the SHA-256 that make up a vault's key. */
const KEY_LENGTH = 16;

/**
 * The longest Unix socket path, in bytes, that every platform takes (macOS's sun_path holds 104
 * with its terminating NUL, Linux's 108); libuv would otherwise fail or silently truncate.
 */
export const MAX_SOCKET_PATH_BYTES = 103;

function nonEmpty(value: string | undefined): string | undefined {
	return value !== undefined && value !== "" ? value : undefined;
}

/** The folder of discovery files: `$VAULTLINK_RUNTIME_DIR` (an override both sides honour), else `<state>/bridge`. */
export function discoveryDirectory(environment: PathEnvironment = currentEnvironment()): string {
	const explicit = nonEmpty(environment.env["VAULTLINK_RUNTIME_DIR"]);
	if (explicit !== undefined) return explicit;
	const state = stateDirectory({ platform: environment.platform, home: environment.home, env: environment.env });
	return environment.platform === "win32" ? path.win32.join(state, "bridge") : path.posix.join(state, "bridge");
}

/**
 * Where a socket goes when its path beside the discovery file is too long: `$XDG_RUNTIME_DIR/vaultlink`,
 * the session's own folder, or `null` without one. Then a folder of a fresh random name is made
 * ({@link freshSocketDirectory}): a name known in advance in the shared temporary folder, such
 * as `<tmpdir>/vaultlink-<uid>`, could be made first by another user.
 */
export function runtimeDirectory(environment: PathEnvironment = currentEnvironment()): string | null {
	const xdg = nonEmpty(environment.env["XDG_RUNTIME_DIR"]);
	return xdg !== undefined ? path.posix.join(xdg, "vaultlink") : null;
}

/**
 * Makes `<tmpdir>/vaultlink-<6 random characters>`: `mkdtemp` creates it new (never one that was
 * there) with mode 0700, so it is this user's and nobody else's; the discovery file records it.
 */
export function freshSocketDirectory(environment: PathEnvironment): string {
	return fs.mkdtempSync(path.posix.join(environment.tmpdir, "vaultlink-"));
}

function isDrive(text: string): boolean {
	return /^[A-Za-z]:(?:$|[\\/])/.test(text);
}

/**
 * The one spelling of a vault's absolute path that both sides hash: on Windows the verbatim
 * prefixes go (`\\?\C:\…` is `C:\…`, `\\?\UNC\server\share` is `\\server\share`), `/` is `\`,
 * the drive letter is upper case; on both, repeated separators are one and a trailing one goes
 * (but for a root). Pure; `tests/vectors/vault_keys.json` holds the cases the sidecar checks too.
 */
export function canonicalForm(input: string, platform: NodeJS.Platform): string {
	if (platform !== "win32") {
		let out = input.replace(/\/{2,}/g, "/");
		while (out.length > 1 && out.endsWith("/")) out = out.slice(0, -1);
		return out;
	}
	const slashed = input.replace(/\//g, "\\");
	let unc = false;
	let rest = slashed;
	if (slashed.startsWith("\\\\?\\UNC\\")) {
		unc = true;
		rest = slashed.slice(8);
	} else if ((slashed.startsWith("\\\\?\\") || slashed.startsWith("\\\\.\\")) && isDrive(slashed.slice(4))) {
		rest = slashed.slice(4);
	} else if (slashed.startsWith("\\\\")) {
		unc = true;
		rest = slashed.slice(2);
	}
	let out = unc ? "\\\\" : "";
	for (const c of rest) if (!(c === "\\" && out.endsWith("\\"))) out += c;
	if (isDrive(out)) {
		out = out[0]!.toUpperCase() + out.slice(1);
		if (out.length === 2) out += "\\";
	}
	const root = isDrive(out) ? 3 : unc ? 2 : 1;
	while (out.length > root && out.endsWith("\\")) out = out.slice(0, -1);
	return out;
}

/** The first 16 hex digits of the SHA-256 of the canonical form's UTF-8 bytes. */
export function keyOfCanonicalPath(canonicalPath: string): string {
	return crypto.createHash("sha256").update(canonicalPath, "utf8").digest("hex").slice(0, KEY_LENGTH);
}

/** The vault's canonical form on this system: symbolic links and relative segments resolved by the OS, then {@link canonicalForm}. */
export function canonicalVaultPath(vaultPath: string, platform: NodeJS.Platform = process.platform): string {
	// The native call (realpath(3), GetFinalPathNameByHandle) gives the folder's casing on disk,
	// as the sidecar's `canonicalize` does. Node's own `realpathSync` keeps the casing it was
	// handed on a disk that ignores case (macOS, Windows), and a key from that casing is not the
	// sidecar's: the bridge would go unused.
	const real = fs.realpathSync.native(vaultPath);
	return canonicalForm(real, platform);
}

/**
 * The bridge's paths for the vault at `vaultPath`. Where the socket needs a fresh folder (no
 * `XDG_RUNTIME_DIR`, and a path too long beside the discovery file), the folder is made here.
 */
export function bridgePaths(vaultPath: string, environment: PathEnvironment = currentEnvironment()): BridgePaths {
	const canonicalPath = canonicalVaultPath(vaultPath, environment.platform);
	const key = keyOfCanonicalPath(canonicalPath);
	const discoveryDir = discoveryDirectory(environment);
	const isWindows = environment.platform === "win32";
	const join = (...parts: string[]) => (isWindows ? path.win32.join(...parts) : path.posix.join(...parts));
	let socketDir = discoveryDir;
	let socketDirIsFresh = false;
	if (!isWindows && Buffer.byteLength(join(discoveryDir, `${key}.sock`)) > MAX_SOCKET_PATH_BYTES) {
		const runtime = runtimeDirectory(environment);
		socketDirIsFresh = runtime === null;
		socketDir = runtime ?? freshSocketDirectory(environment);
	}
	return {
		vaultPath: canonicalPath,
		key,
		discoveryDir,
		socketDir,
		socketDirIsFresh,
		socketPath: isWindows ? `\\\\.\\pipe\\vaultlink-${key}` : join(socketDir, `${key}.sock`),
		discoveryPath: join(discoveryDir, `${key}.json`),
	};
}
