/**
 * A host for the built plugin outside Obsidian, for end-to-end tests: loads the root `main.js`
 * with `require("obsidian")` answered by the test double, loads the plugin on a vault folder,
 * prints one line of JSON once it is ready, and unloads it on SIGTERM or SIGINT. The host runs
 * under the rules of Obsidian's renderer window (`renderer.ts`, installed by the bundle's first
 * line): main.js gets Blink's timers and `window`, may not compile its wasm synchronously, and
 * an uncaught error is logged on stderr ("Uncaught …") while the host goes on.
 *
 *     node build/plugin-host.cjs <vault-dir>
 *     -> {"ready":true,"discovery":"<discovery file>","socket":"<socket path>","startup":{…}}
 *
 * `startup` is the plugin's `StartupTimings` (milliseconds after onload began). On SIGTERM or
 * SIGINT the host exits 0, or 3 when anything was thrown uncaught or rejected unhandled while
 * the plugin ran (each is on stderr).
 *
 * stdout carries that line only; logs go to stderr. `VAULTLINK_PLUGIN_MAIN` overrides which
 * main.js is loaded. `VAULTLINK_PLUGIN_DIR=<folder>` loads the plugin installed there, as
 * Obsidian does from `<vault>/.obsidian/plugins/<id>/`: its main.js and its manifest.json (whose
 * id must be the folder's name), and its styles.css must be there.
 *
 * `VAULTLINK_HOST_STALL_READ=<vault path>` makes every read of that file after the ready line
 * wait forever, and print `{"stalled":"<path>"}` on stdout when the first one starts, so that a
 * test can kill the plugin in the middle of a call that reads the file.
 *
 * `VAULTLINK_HOST_CASE_INSENSITIVE=1` gives the vault a folder that ignores case, as on macOS
 * and Windows (the double's `caseInsensitive` adapter).
 *
 * `VAULTLINK_HOST_JOURNAL_COPY=<file>` appends every journal the plugin writes to that file (as
 * it takes the lock, and through the adapter), one per line, as the sidecar's debug build does with `VAULTLINK_DEBUG_JOURNAL_COPY`, so a test can
 * hold the journals of both edges side by side.
 *
 * `VAULTLINK_HOST_HOLD_INDEX=1` makes every read of a note wait from the start until the host
 * gets SIGUSR2, so the first index does not complete before then: the host prints
 * `{"ready":false,"announced":true,"discovery":…,"socket":…}` once the bridge has announced the
 * plugin (`"state": "starting"`).
 */

import * as fs from "fs";
import * as path from "path";
import manifest from "../../manifest.json";
import { redirectObsidian } from "./obsidian-redirect";
import type VaultlinkPlugin from "../main";
import * as double from "./obsidian-double";
import { describeRendererFaults, rendererFaults } from "./renderer";

function fail(message: string): never {
	console.error(`plugin-host: ${message}`);
	process.exit(1);
}


async function main(): Promise<void> {
	const vaultDir = process.argv[2];
	if (vaultDir === undefined || process.argv.length > 3) fail("usage: node build/plugin-host.cjs <vault-dir>");
	if (!fs.statSync(vaultDir, { throwIfNoEntry: false })?.isDirectory()) fail(`${vaultDir} is not a directory`);
	// The plugin may log with console.log, as plugins do; stdout is kept for the ready line.
	console.log = console.error;
	console.info = console.error;
	console.debug = console.error;

	const installed = installedPlugin(process.env["VAULTLINK_PLUGIN_DIR"]);
	const mainPath = installed?.main ?? path.resolve(process.env["VAULTLINK_PLUGIN_MAIN"] ?? path.join(__dirname, "..", "main.js"));
	if (!fs.existsSync(mainPath)) fail(`${mainPath} does not exist; run \`npm run build\` first`);
	redirectObsidian();
	const exported = require(mainPath) as { default?: typeof VaultlinkPlugin } & typeof VaultlinkPlugin;
	const PluginClass = exported.default ?? exported;

	// A folder that ignores case, as on macOS and Windows, when asked.
	const app = new double.App(vaultDir, { caseInsensitive: process.env["VAULTLINK_HOST_CASE_INSENSITIVE"] === "1" });
	const plugin = new PluginClass(double.asObsidianApp(app), { ...(installed?.manifest ?? manifest) });
	let stopping = false;
	const stop = (signal: string) => {
		if (stopping) return;
		stopping = true;
		console.error(`plugin-host: ${signal}, unloading`);
		plugin.unload();
		// The renderer only logged what was thrown uncaught or rejected unhandled; the exit code
		// tells the end-to-end tests (which expect 0) that it happened.
		const faults = rendererFaults().length;
		if (faults > 0) {
			console.error(`plugin-host: ${faults} uncaught error(s) while the plugin ran:\n${describeRendererFaults()}`);
			process.exit(3);
		}
		process.exit(0);
	};
	process.on("SIGTERM", () => stop("SIGTERM"));
	process.on("SIGINT", () => stop("SIGINT"));

	if (process.env["VAULTLINK_HOST_HOLD_INDEX"] === "1") {
		// Every read waits for SIGUSR2, which lets the first index finish.
		let release: () => void = () => undefined;
		const held = new Promise<void>((resolve) => {
			release = resolve;
		});
		process.on("SIGUSR2", () => release());
		const cachedRead = app.vault.cachedRead.bind(app.vault);
		const read = app.vault.read.bind(app.vault);
		app.vault.cachedRead = (file) => held.then(() => cachedRead(file));
		app.vault.read = (file) => held.then(() => read(file));
		plugin.load();
		for (;;) {
			const announced = plugin.bridgeInfo;
			if (announced !== null) {
				process.stdout.write(`${JSON.stringify({ ready: false, announced: true, discovery: announced.discoveryPath, socket: announced.socketPath })}\n`);
				return;
			}
			await new Promise((resolve) => setTimeout(resolve, 10));
		}
	}
	plugin.load();
	await plugin.ready;
	const bridge = plugin.bridgeInfo;
	if (bridge === null) fail("the plugin is ready but its bridge is not up");
	stallReads(app, process.env["VAULTLINK_HOST_STALL_READ"]);
	copyJournals(app, process.env["VAULTLINK_HOST_JOURNAL_COPY"]);
	if (process.env["VAULTLINK_HOST_NOTICE_DISK"] === "1") noticeDiskOnRequest(app);
	process.stdout.write(`${JSON.stringify({ ready: true, discovery: bridge.discoveryPath, socket: bridge.socketPath, startup: plugin.startup })}\n`);
	// The bridge's server keeps the process alive until a signal arrives.
}

/**
 * Obsidian's file watcher, under the test's control: each line `notice` on stdin makes the vault
 * report what changed on the disk behind it (`Vault.noticeDiskChanges`: a move made outside
 * Obsidian as a delete and a create), then answers `{"noticed": true}` on stdout.
 */
function noticeDiskOnRequest(app: InstanceType<typeof double.App>): void {
	let pending = "";
	process.stdin.setEncoding("utf8");
	process.stdin.on("data", (chunk: string) => {
		pending += chunk;
		for (let newline = pending.indexOf("\n"); newline >= 0; newline = pending.indexOf("\n")) {
			const line = pending.slice(0, newline).trim();
			pending = pending.slice(newline + 1);
			if (line !== "notice") continue;
			app.vault.noticeDiskChanges();
			process.stdout.write(`${JSON.stringify({ noticed: true })}\n`);
		}
	});
}

/** The plugin installed in `folder` (see the top of this file), or null when none is named. */
function installedPlugin(folder: string | undefined): { main: string; manifest: typeof manifest } | null {
	if (folder === undefined || folder === "") return null;
	const dir = path.resolve(folder);
	for (const file of ["main.js", "manifest.json", "styles.css"]) {
		if (!fs.statSync(path.join(dir, file), { throwIfNoEntry: false })?.isFile()) fail(`${dir} has no ${file}: it is not an installed vaultlink release`);
	}
	const installedManifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8")) as typeof manifest;
	if (installedManifest.id !== path.basename(dir)) fail(`${dir} holds the plugin ${installedManifest.id}; Obsidian loads a plugin from a folder named as its id`);
	return { main: path.join(dir, "main.js"), manifest: installedManifest };
}

/** Makes reads of `stalledPath` never finish (see the top of this file). */
function stallReads(app: double.App, stalledPath: string | undefined): void {
	if (stalledPath === undefined || stalledPath === "") return;
	const vault = app.vault;
	const read = vault.read.bind(vault);
	let told = false;
	vault.read = (file) => {
		if (file.path !== stalledPath) return read(file);
		if (!told) {
			told = true;
			process.stdout.write(`${JSON.stringify({ stalled: file.path })}\n`);
		}
		return new Promise<string>(() => undefined);
	};
}

function copyJournals(app: double.App, copy: string | undefined): void {
	if (copy === undefined || copy === "") return;
	const adapter = app.vault.adapter;
	const write = adapter.write.bind(adapter);
	adapter.write = async (normalizedPath: string, data: string) => {
		await write(normalizedPath, data);
		if (normalizedPath === ".vaultlink/journal.json") fs.appendFileSync(copy, `${data}\n`);
	};
	// The plugin takes the lock with the journal through Node's `fs`, linking its own file to
	// `journal.json` (batch/journal.ts): the journal is copied as it is linked in place.
	// The module itself (an import's namespace cannot be assigned to), which main.js requires too.
	const nodeFs = require("fs") as typeof fs;
	// A vault's first batch links the lock in empty and writes its sealed journal into the file it
	// holds once the key is made (`beginFirst`): that journal is copied when it is synced.
	let writtenLater: string | null = null;
	const link = nodeFs.linkSync.bind(nodeFs);
	nodeFs.linkSync = (existing: fs.PathLike, target: fs.PathLike) => {
		link(existing, target);
		if (path.basename(String(target)) === "journal.json" && path.basename(path.dirname(String(target))) === ".vaultlink") {
			const text = fs.readFileSync(existing, "utf8");
			if (text === "") writtenLater = String(target);
			else fs.appendFileSync(copy, `${text}\n`);
		}
	};
	const fsync = nodeFs.fsyncSync.bind(nodeFs);
	nodeFs.fsyncSync = (fd: number) => {
		fsync(fd);
		if (writtenLater === null) return;
		const text = fs.readFileSync(writtenLater, "utf8");
		if (text === "") return;
		writtenLater = null;
		fs.appendFileSync(copy, `${text}\n`);
	};
}

main().catch((error: unknown) => fail(error instanceof Error ? (error.stack ?? error.message) : String(error)));
