/**
 * What the fault tests that kill a real process share: the vault they start from, the calls a
 * killed child runs, and the child itself. A test file runs its own bundle again as the child
 * (`KILL_CHILD` set), which loads the plugin on the vault, applies the call and stops before
 * its `step`th change to be killed there.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { JOURNAL_PATH } from "../batch/journal";
import { runTool } from "../tools";
import { REPO_ROOT, loadPlugin } from "./support";

export const BATCH = `
//- A.md
[[Old]] and [[Old]]
//- C.md
![[Old]]
//- Old.md
# Old
`;

export const MOVE = { from: "Old.md", to: "deep/New.md", dry_run: false };

/** A new page in a new folder, with a `link` patch to a note and one appended to another. */
export const COMMIT = {
	page: { path: "wiki/Forest", frontmatter: { related: "[[Old]]" }, body: "# Forest\n[[A]]\n" },
	patches: [
		{ path: "A.md", kind: "link" },
		{ path: "C.md", kind: "append", text: "See [[Forest]]." },
	],
	dry_run: false,
};

/** A and Old swap names: a cycle, made through a third name. */
const SWAP = { moves: [{ from: "A.md", to: "Old.md" }, { from: "Old.md", to: "A.md" }], dry_run: false };

/** What each killed call runs: `undo_change` undoes the move, made (and kept) before. */
export const CALLS = { move_note: MOVE, commit_wiki_page: COMMIT, bulk_move_notes: SWAP, undo_change: { dry_run: false } } as const;

/** Before a killed undo: the move it undoes, made whole by a plugin that then unloads. */
export async function moveFirst(vaultDir: string): Promise<void> {
	const { plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	const host = plugin.toolHost;
	assert.ok(host !== null);
	assert.ok((await runTool(host, "move_note", MOVE)).ok);
	plugin.unload();
}

/** The files of the changes kept for undo_change in the vault, by name. */
export function keptFiles(vaultDir: string): string[] {
	const folder = path.join(vaultDir, ".vaultlink", "changes");
	return fs.existsSync(folder) ? fs.readdirSync(folder).sort() : [];
}

/** A snapshot of the vault without vaultlink's own folder, which is not read (it may hold a file of 1 GiB). */
export function notesOf(vaultDir: string): Record<string, string> {
	const notes: Record<string, string> = {};
	const walk = (relative: string) => {
		for (const entry of fs.readdirSync(path.join(vaultDir, relative), { withFileTypes: true })) {
			const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
			if (child === ".vaultlink") continue;
			if (entry.isDirectory()) walk(child);
			else notes[child] = fs.readFileSync(path.join(vaultDir, child), "utf8");
		}
	};
	walk("");
	return notes;
}

export function sidecarBinary(): string {
	const binary = path.join(REPO_ROOT, "target", "debug", process.platform === "win32" ? "vaultlink.exe" : "vaultlink");
	assert.ok(fs.existsSync(binary), `${binary} is built (scripts/build.sh builds it)`);
	return binary;
}

/** Set in the child process: `<step> <tool> <hooks> <vault folder>`, `<hooks>` being `vault` (the Vault API's changes) or `all` (the adapter's too: the journal's removal, the kept change's folder). */
export const KILL_CHILD = "VAULTLINK_TEST_KILL_CHILD";

/**
 * The child: the plugin on the vault applies the move, and stops before its `step`th write or
 * rename to be killed there.
 */
export async function runKillChild(spec: string): Promise<void> {
	const [stepText = "", tool = "", hooks = "", ...rest] = spec.split(" ");
	const [step, vaultDir] = [Number(stepText), rest.join(" ")];
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	let count = 0;
	const hold = () => {
		if (count++ === step) {
			process.stdout.write("HOLD\n");
			return new Promise<never>(() => setInterval(() => undefined, 60_000));
		}
		return null;
	};
	const process_ = app.vault.process.bind(app.vault);
	const rename = app.vault.rename.bind(app.vault);
	const createFolder = app.vault.createFolder.bind(app.vault);
	const create = app.vault.create.bind(app.vault);
	app.vault.create = (at, data) => hold() ?? create(at, data);
	app.vault.process = (file, fn) => hold() ?? process_(file, fn);
	app.vault.rename = (file, to) => hold() ?? rename(file, to);
	app.vault.createFolder = (folder) => hold() ?? createFolder(folder);
	if (hooks === "all") {
		const adapter = app.vault.adapter;
		const [remove, mkdir, write, rmdir] = [adapter.remove.bind(adapter), adapter.mkdir.bind(adapter), adapter.write.bind(adapter), adapter.rmdir.bind(adapter)];
		adapter.remove = (at) => hold() ?? remove(at);
		adapter.mkdir = (at) => hold() ?? mkdir(at);
		adapter.write = (at, data) => hold() ?? write(at, data);
		adapter.rmdir = (at, recursive) => hold() ?? rmdir(at, recursive);
	}
	const host = plugin.toolHost;
	assert.ok(host !== null);
	const outcome = await runTool(host, tool, CALLS[tool as keyof typeof CALLS]);
	process.stdout.write(`DONE ${JSON.stringify(outcome.ok)}\n`);
	plugin.unload();
}

/** Runs the child applying `tool`, holding before change `step` of `hooks`, and kills it there: whether it held (or ran to its end). */
export async function killedAt(vaultDir: string, tool: string, hooks: "vault" | "all", step: number): Promise<boolean> {
	const running = spawn(process.execPath, [__filename], { env: { ...process.env, [KILL_CHILD]: `${step} ${tool} ${hooks} ${vaultDir}` }, stdio: ["ignore", "pipe", "inherit"] });
	const said = await new Promise<string>((resolve) => {
		let output = "";
		running.stdout.setEncoding("utf8");
		running.stdout.on("data", (chunk: string) => {
			output += chunk;
			if (output.includes("HOLD") || output.includes("DONE")) resolve(output);
		});
		running.on("close", () => resolve(output));
	});
	if (said.includes("HOLD")) running.kill("SIGKILL");
	else assert.match(said, /DONE true/);
	await new Promise((resolve) => running.on("close", resolve));
	return said.includes("HOLD");
}

/** Core's `lease::EXPIRE_MS`, as the shared vectors state it at the limit (read without the engine, which a test's own process may not have loaded). */
function expireMs(): number {
	const vectors = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "tests", "vectors", "liveness.json"), "utf8")) as { name: string; observed: { age_ms: number } }[];
	const limit = vectors.find((vector) => vector.name === "a lease at its limit still holds");
	assert.ok(limit !== undefined);
	return limit.observed.age_ms;
}

/** Sets the time of the journal a killed Obsidian left past its lease, as time does once its holder is gone. */
export function leaseRunOut(vaultDir: string): void {
	const longAgo = new Date(Date.now() - expireMs() - 1_000);
	fs.utimesSync(path.join(vaultDir, JOURNAL_PATH), longAgo, longAgo);
}
