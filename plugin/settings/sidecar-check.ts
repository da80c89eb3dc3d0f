/**
 * The settings tab's check of the configured vaultlink program: is it there (an absolute path,
 * or a name on Obsidian's search path), does it run, which version and bridge protocol does it
 * say (`vaultlink --version`), and can it work with this plugin. Desktop only, as the bridge is.
 *
 * The check gathers facts (`gatherFacts`: where the program is, what running it gave, on macOS
 * its extended attributes, on Windows any release download on the search path under its own
 * name) and decides what to tell the user from them alone (`decideCheck`, pure), so each
 * platform's case is tested on any platform.
 */

import { execFile } from "child_process";
import * as fs from "fs";
import * as path from "path";
import { incompatibility, parseVersionLine, type BridgeEnd } from "../bridge/compatibility";

/** What the check found: `ok` when the program runs and speaks this plugin's protocol. */
export interface SidecarCheck {
	ok: boolean;
	message: string;
}

/** Where the program is looked for: Obsidian's own PATH (which may be shorter than a terminal's). */
export interface SearchEnvironment {
	path: string;
	platform: NodeJS.Platform;
	pathExt: string;
}

/** Why running `--version` failed, as Node's `execFile` said it. */
export interface RunFailure {
	/** The first line of the error's message. */
	message: string;
	/** The errno name (`EACCES`, `ENOENT`, …) or the exit code. */
	code: string | number | null;
	/** The signal that ended the program (`SIGKILL` when macOS stopped it), if one did. */
	signal: string | null;
	/** The first line the program wrote to stderr. */
	stderr: string;
}

/** What the check learned about the configured program, for `decideCheck`. */
export interface ProgramFacts {
	/** The command as configured. */
	command: string;
	platform: NodeJS.Platform;
	/** The file it names, or null when there is none. */
	program: string | null;
	/**
	 * Release downloads under their own name (`vaultlink-<version>-<target>.exe`) in the folders
	 * the program was looked for in; Windows only, and only when the program was not found.
	 */
	downloads: string[];
	/** What `--version` printed, or why it did not run; null when there was no program. */
	ran: { output: string } | { failure: RunFailure } | null;
	/**
	 * macOS: the names of the program's extended attributes (what `xattr <path>` lists), looked
	 * at only when it did not run; null when they were not looked at or could not be read.
	 */
	attributes: string[] | null;
}

/** How long `--version` may take before the program counts as not running. */
const RUN_TIMEOUT_MS = 10_000;

/** The name a release's Windows download has: `vaultlink-<version>-x86_64-pc-windows-msvc.exe`. */
const WINDOWS_DOWNLOAD = /^vaultlink-.+-pc-windows-msvc\.exe$/i;

/** The extended attribute macOS puts on a downloaded file, which Gatekeeper looks at. */
const QUARANTINE_ATTRIBUTE = "com.apple.quarantine";

export function currentSearchEnvironment(): SearchEnvironment {
	return { path: process.env["PATH"] ?? "", platform: process.platform, pathExt: process.env["PATHEXT"] ?? ".EXE;.CMD;.BAT" };
}

function hasSeparator(command: string, platform: NodeJS.Platform): boolean {
	return (platform === "win32" ? /[\\/]/ : /\//).test(command);
}

/** Where the last separator of `command` splits it: its folder and its file's name. */
function splitPath(command: string, platform: NodeJS.Platform): { folder: string; name: string } {
	const at = Math.max(command.lastIndexOf("/"), platform === "win32" ? command.lastIndexOf("\\") : -1);
	return { folder: at <= 0 ? command.slice(0, at + 1) : command.slice(0, at), name: command.slice(at + 1) };
}

/** The folders `command` is looked for in: its own when it is a path, else the search path's. */
function searchFolders(command: string, environment: SearchEnvironment): string[] {
	if (hasSeparator(command, environment.platform)) return [splitPath(command, environment.platform).folder];
	const delimiter = environment.platform === "win32" ? ";" : ":";
	return environment.path.split(delimiter).filter((dir) => dir !== "");
}

/** The file `command` names: itself when it is a path, else the first match on the search path. */
export function locate(command: string, environment: SearchEnvironment): string | null {
	const windowsExtensions = environment.platform === "win32" ? ["", ...environment.pathExt.split(";").filter((ext) => ext !== "")] : [""];
	if (hasSeparator(command, environment.platform)) {
		for (const ext of windowsExtensions) if (isFile(`${command}${ext}`)) return `${command}${ext}`;
		return null;
	}
	for (const dir of searchFolders(command, environment)) {
		for (const ext of windowsExtensions) {
			const candidate = path.join(dir, `${command}${ext}`);
			if (isFile(candidate)) return candidate;
		}
	}
	return null;
}

/**
 * The command MCP clients are told to start: the absolute path of the program `command` names
 * when there is one (Claude Desktop and others start it without a shell, from a search path of
 * their own), else `command` as configured, with `found` false so the caller says so.
 */
export function programForClients(command: string, environment: SearchEnvironment = currentSearchEnvironment()): { command: string; found: boolean } {
	const program = locate(command, environment);
	return program === null ? { command, found: false } : { command: path.resolve(program), found: true };
}

function isFile(candidate: string): boolean {
	try {
		return fs.statSync(candidate).isFile();
	} catch {
		return false;
	}
}

/** Release downloads under their own name in `folders`. */
function releaseDownloads(folders: string[]): string[] {
	const found: string[] = [];
	for (const dir of folders) {
		let names: string[];
		try {
			names = fs.readdirSync(dir);
		} catch {
			continue;
		}
		for (const name of names.sort()) if (WINDOWS_DOWNLOAD.test(name)) found.push(path.join(dir, name));
	}
	return found;
}

/** Runs `program --version` and answers its first line of output, or why it did not run. */
function runVersion(program: string): Promise<{ output: string } | { failure: RunFailure }> {
	return new Promise((resolve) => {
		execFile(program, ["--version"], { timeout: RUN_TIMEOUT_MS, windowsHide: true }, (error, stdout, stderr) => {
			if (error !== null) {
				resolve({
					failure: {
						message: error.message.split("\n")[0] ?? "it failed",
						code: error.code ?? null,
						signal: error.signal ?? null,
						stderr: `${stderr}`.trim().split("\n")[0] ?? "",
					},
				});
			} else {
				resolve({ output: `${stdout}`.trim().split("\n")[0] ?? "" });
			}
		});
	});
}

/** The names of `program`'s extended attributes, as macOS's `xattr` lists them; null if it could not. */
function extendedAttributes(program: string): Promise<string[] | null> {
	return new Promise((resolve) => {
		execFile("/usr/bin/xattr", [program], { timeout: RUN_TIMEOUT_MS }, (error, stdout) => {
			resolve(error === null ? `${stdout}`.split("\n").map((line) => line.trim()).filter((line) => line !== "") : null);
		});
	});
}

/** Looks for the program `command` names, runs it, and looks further where it did not run. */
export async function gatherFacts(command: string, environment: SearchEnvironment = currentSearchEnvironment()): Promise<ProgramFacts> {
	const program = locate(command, environment);
	const facts: ProgramFacts = { command, platform: environment.platform, program, downloads: [], ran: null, attributes: null };
	if (program === null) {
		if (environment.platform === "win32") facts.downloads = releaseDownloads(searchFolders(command, environment));
		return facts;
	}
	facts.ran = await runVersion(program);
	if ("failure" in facts.ran && environment.platform === "darwin") facts.attributes = await extendedAttributes(program);
	return facts;
}

/** What to tell the user about the program, decided from `facts` alone. */
export function decideCheck(facts: ProgramFacts, plugin: BridgeEnd): SidecarCheck {
	const { command, program, ran } = facts;
	if (program === null || ran === null) {
		const download = facts.downloads[0];
		if (download !== undefined) {
			const name = splitPath(command, facts.platform).name;
			const wanted = name.toLowerCase().endsWith(".exe") ? name : `${name}.exe`;
			return { ok: false, message: `Found ${download}, the release's download under its own name. Rename it to ${wanted} in the same folder, then check again.` };
		}
		const where = hasSeparator(command, facts.platform)
			? `There is no file at ${command}.`
			: `"${command}" is not on Obsidian's search path (Obsidian started from the desktop may have a shorter one than your terminal).`;
		return {
			ok: false,
			message: `${where} Install the program (cargo install vaultlink, or the binary of a vaultlink release) and give its absolute path here.`,
		};
	}
	if ("failure" in ran) {
		if (facts.platform === "darwin" && (facts.attributes ?? []).includes(QUARANTINE_ATTRIBUTE)) {
			return {
				ok: false,
				message: `macOS stopped ${program}: it was downloaded and is not notarized, so Gatekeeper keeps it in quarantine. Allow it once, in Terminal with xattr -d ${QUARANTINE_ATTRIBUTE} ${posixQuoted(program)}, or in System Settings → Privacy & Security with Open Anyway after trying to run it, then check again.`,
			};
		}
		const failure = ran.failure;
		const how = failure.signal !== null ? `it was stopped (${failure.signal})` : failure.message;
		return {
			ok: false,
			message: `${program} is there but did not run: ${how}${failure.stderr === "" ? "" : ` (${failure.stderr})`}. Check that it is the vaultlink program built for this computer and may be executed.`,
		};
	}
	const found = parseVersionLine(ran.output);
	if (found === null) {
		return { ok: false, message: `${program} runs but is not the vaultlink program: its --version printed "${ran.output}". Give the path of vaultlink.` };
	}
	const skew = incompatibility(found, plugin);
	if (skew !== null) return { ok: false, message: `${program}: ${skew}` };
	return {
		ok: true,
		message: `Found vaultlink ${found.version ?? ""} at ${program}; it speaks bridge protocol ${found.protocol}, as this plugin (${plugin.version ?? "this version"}) does.`,
	};
}

/** A path as Terminal's shell takes it: bare when nothing in it is special, else single-quoted. */
function posixQuoted(text: string): string {
	return /^[A-Za-z0-9_@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** Checks the program `command` names against this plugin (`plugin`: its version and protocol). */
export async function checkSidecar(command: string, plugin: BridgeEnd, environment: SearchEnvironment = currentSearchEnvironment()): Promise<SidecarCheck> {
	return decideCheck(await gatherFacts(command, environment), plugin);
}
