// The plugin's start, measured on the built main.js under the renderer host's rules (the test
// host, build/plugin-host.cjs, as the end-to-end tests run it): for each vault, several fresh
// processes each load the plugin and report its `StartupTimings` on their ready line; the
// medians are printed. Beside them, in this plain Node process, the synchronous compile of the
// wasm module that `onload` used to block on (`initSync`: `new WebAssembly.Module` of the bytes,
// which Obsidian's window refuses over 4 KB) and the asynchronous compile that replaced it.
//
//   npm run bench:startup -- <vault folder>...   (after npm run build and npm run build:host)
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const host = path.join(root, "build", "plugin-host.cjs");
const RUNS = Number(process.env["VAULTLINK_STARTUP_RUNS"] ?? 7);

function median(values) {
	const sorted = [...values].sort((a, b) => a - b);
	return sorted[Math.floor(sorted.length / 2)];
}

const ms = (value) => `${value.toFixed(1)} ms`;

/** One process: the plugin loaded on `vault` until its ready line, then stopped. */
function startOnce(vault) {
	const runtime = mkdtempSync(path.join(tmpdir(), "vaultlink-startup-"));
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [host, vault], {
			env: { ...process.env, VAULTLINK_RUNTIME_DIR: path.join(runtime, "run") },
			stdio: ["ignore", "pipe", "pipe"],
		});
		let stdout = "";
		let stderr = "";
		child.stderr.setEncoding("utf8").on("data", (chunk) => (stderr += chunk));
		child.stdout.setEncoding("utf8").on("data", (chunk) => {
			stdout += chunk;
			const newline = stdout.indexOf("\n");
			if (newline < 0) return;
			const ready = JSON.parse(stdout.slice(0, newline));
			child.kill("SIGTERM");
			child.on("exit", () => {
				rmSync(runtime, { recursive: true, force: true });
				if (/Uncaught/.test(stderr)) reject(new Error(`the host logged an uncaught error:\n${stderr}`));
				else resolve(ready.startup);
			});
		});
		child.on("exit", (code) => {
			if (stdout.indexOf("\n") < 0) reject(new Error(`the host exited with ${code} before it was ready:\n${stderr}`));
		});
	});
}

async function compiles() {
	const bytes = readFileSync(path.join(root, "plugin", "wasm", "vaultlink_wasm_bg.wasm"));
	const sync = [];
	const async = [];
	for (let run = 0; run < RUNS; run += 1) {
		let start = performance.now();
		new WebAssembly.Module(bytes);
		sync.push(performance.now() - start);
		start = performance.now();
		await WebAssembly.compile(bytes);
		async.push(performance.now() - start);
	}
	console.log(`wasm module: ${(bytes.length / 1024).toFixed(0)} KiB`);
	console.log(`  synchronous compile (what onload blocked on with initSync): median ${ms(median(sync))} of ${RUNS}`);
	console.log(`  asynchronous compile (WebAssembly.compile), to its promise:  median ${ms(median(async))} of ${RUNS}`);
}

const vaults = process.argv.slice(2);
if (vaults.length === 0) {
	console.error("usage: npm run bench:startup -- <vault folder>...");
	process.exit(2);
}
await compiles();
for (const vault of vaults) {
	const runs = [];
	for (let run = 0; run < RUNS; run += 1) runs.push(await startOnce(path.resolve(vault)));
	const pick = (key) => {
		const values = runs.map((timings) => timings[key]);
		return `${ms(median(values))} (${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)})`;
	};
	console.log(`vault ${path.basename(path.resolve(vault))}: median (and range) of ${RUNS} fresh processes, in ms after onload began`);
	console.log(`  onload returned:           ${pick("onloadMs")}`);
	console.log(`  link engine loaded:        ${pick("engineLoadedMs")}`);
	console.log(`  first index started:       ${pick("firstIndexStartedMs")}`);
	console.log(`  first index done:          ${pick("firstIndexDoneMs")}`);
}
