/**
 * The user's own vaultlink folder on this machine, outside every vault: where the bridge's
 * discovery files are, the same folder the sidecar uses (`crates/sidecar/src/state.rs`). The
 * folder is found from the home folder alone, never from variables a desktop session sets and an
 * MCP client's filtered environment drops: `~/.local/state/vaultlink` on Linux and other Unix
 * systems, `~/Library/Application Support/vaultlink` on macOS, `%LOCALAPPDATA%\vaultlink` on
 * Windows. No trust hangs on it: journals and kept changes are sealed with a key kept in the
 * vault (`move/seal-keys.ts`), which both sides share whatever sandbox each runs in.
 */

import * as os from "os";
import * as path from "path";

/** What the folder depends on, passed in for testing. */
export interface StateEnvironment {
	platform: NodeJS.Platform;
	home: string;
	env: Record<string, string | undefined>;
}

export function currentStateEnvironment(): StateEnvironment {
	return { platform: process.platform, home: userHome(process.env), env: process.env };
}

/**
 * The user's real home folder: the one the sidecar, started by an MCP client outside any
 * sandbox, finds from `HOME`. A Snap may give Obsidian a home of its own (`~/snap/obsidian/…`)
 * and says where the real one is in `SNAP_REAL_HOME`.
 */
export function userHome(env: Record<string, string | undefined>, home: string = os.homedir()): string {
	const real = env["SNAP_REAL_HOME"];
	return real !== undefined && real !== "" ? real : home;
}

/** The user's vaultlink folder. */
export function stateDirectory(environment: StateEnvironment = currentStateEnvironment()): string {
	const { platform, home, env } = environment;
	if (platform === "win32") {
		const local = env["LOCALAPPDATA"];
		const base =
			local !== undefined && local !== "" ? unpackagedLocalAppData(local) : path.win32.join(env["USERPROFILE"] ?? home, "AppData", "Local");
		return path.win32.join(base, "vaultlink");
	}
	if (platform === "darwin") return path.posix.join(home, "Library", "Application Support", "vaultlink");
	return path.posix.join(home, ".local", "state", "vaultlink");
}

/**
 * The real `%LOCALAPPDATA%` that `local` stands for, as the sidecar takes it
 * (`unpackaged_local_app_data` in `crates/sidecar/src/state.rs`): a program of an MSIX package may
 * be handed the package's private copy, `<real>\Packages\<package family>\LocalCache\Local`,
 * where Obsidian never writes; both sides meet in `<real>`. `tests/vectors/state_dirs.json` holds
 * the cases both check.
 */
export function unpackagedLocalAppData(local: string): string {
	const packaged = /^(.+)[\\/]packages[\\/][^\\/]+[\\/]localcache[\\/]local[\\/]*$/i.exec(local);
	return packaged?.[1] ?? local;
}
