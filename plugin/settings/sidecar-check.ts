//! The settings tab's check of the configured vaultlink program: is it there (an absolute path,
//! or a name on Obsidian's search path), does it run, which version and bridge protocol does it
//! say (`vaultlink --version`), and can it work with this plugin. Desktop only, as the bridge is.

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

/** How long `--version` may take before the program counts as not running. */
const RUN_TIMEOUT_MS = 10_000;

export function currentSearchEnvironment(): SearchEnvironment {
	return { path: process.env["PATH"] ?? "", platform: process.platform, pathExt: process.env["PATHEXT"] ?? ".EXE;.CMD;.BAT" };
}

/** The file `command` names: itself when it is a path, else the first match on the search path. */
export function locate(command: string, environment: SearchEnvironment): string | null {
	const separators = environment.platform === "win32" ? /[\\/]/ : /\//;
	const windowsExtensions = environment.platform === "win32" ? ["", ...environment.pathExt.split(";").filter((ext) => ext !== "")] : [""];
	if (separators.test(command)) {
		for (const ext of windowsExtensions) if (isFile(`${command}${ext}`)) return `${command}${ext}`;
		return null;
	}
	const delimiter = environment.platform === "win32" ? ";" : ":";
	for (const dir of environment.path.split(delimiter)) {
		if (dir === "") continue;
		for (const ext of windowsExtensions) {
			const candidate = path.join(dir, `${command}${ext}`);
			if (isFile(candidate)) return candidate;
		}
	}
	return null;
}

function isFile(candidate: string): boolean {
	try {
		return fs.statSync(candidate).isFile();
	} catch {
		return false;
	}
}

/** Runs `program --version` and answers its first line of output, or why it did not run. */
function runVersion(program: string): Promise<{ output: string } | { error: string }> {
	return new Promise((resolve) => {
		execFile(program, ["--version"], { timeout: RUN_TIMEOUT_MS, windowsHide: true }, (error, stdout, stderr) => {
			if (error !== null) {
				const said = `${stderr}`.trim().split("\n")[0] ?? "";
				resolve({ error: `${error.message.split("\n")[0] ?? "it failed"}${said === "" ? "" : ` (${said})`}` });
			} else {
				resolve({ output: `${stdout}`.trim().split("\n")[0] ?? "" });
			}
		});
	});
}

/** Checks the program `command` names against this plugin (`plugin`: its version and protocol). */
export async function checkSidecar(command: string, plugin: BridgeEnd, environment: SearchEnvironment = currentSearchEnvironment()): Promise<SidecarCheck> {
	const program = locate(command, environment);
	if (program === null) {
		const where = /[\\/]/.test(command)
			? `There is no file at ${command}.`
			: `\`${command}\` is not on Obsidian's search path (Obsidian started from the desktop may have a shorter one than your terminal).`;
		return {
			ok: false,
			message: `${where} Install the program (\`cargo install vaultlink\`, or the binary of a vaultlink release) and give its absolute path here.`,
		};
	}
	const ran = await runVersion(program);
	if ("error" in ran) {
		return { ok: false, message: `${program} is there but did not run: ${ran.error}. Check that it is the vaultlink program built for this computer and may be executed.` };
	}
	const found = parseVersionLine(ran.output);
	if (found === null) {
		return { ok: false, message: `${program} runs but is not the vaultlink program: \`--version\` printed "${ran.output}". Give the path of vaultlink.` };
	}
	const skew = incompatibility(found, plugin);
	if (skew !== null) return { ok: false, message: `${program}: ${skew}` };
	return {
		ok: true,
		message: `Found vaultlink ${found.version ?? ""} at ${program}; it speaks bridge protocol ${found.protocol}, as this plugin (${plugin.version ?? "this version"}) does.`,
	};
}
