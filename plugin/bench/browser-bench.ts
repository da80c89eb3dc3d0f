/**
 * The wasm index in a browser page, for `plugin/bench/chromium-bench.mjs`: the page holds the
 * vault's files in `window.VAULTLINK_BENCH_VAULT`, this script builds the index from them
 * several times with one `upsertMany`, as the Node bench and the native bench do, then parses
 * every note with `parseNote` as the plugin's own calls do (the answer crossing to JavaScript
 * included), and writes the times into `<pre id="result">` for `chromium --dump-dom` to read.
 */

// The glue itself, compiled synchronously: a page of its own, where Chromium allows that, and
// only the index's build is timed. The plugin loads it asynchronously (plugin/wasm.ts).
import { initSync, parseNote, Vault } from "../wasm/vaultlink_wasm";
import wasmBytes from "../wasm/vaultlink_wasm_bg.wasm";

interface BenchVault {
	paths: string[];
	texts: string[];
	runs: number;
}

declare global {
	interface Window {
		VAULTLINK_BENCH_VAULT?: BenchVault;
	}
}

function run(): unknown {
	const vault = window.VAULTLINK_BENCH_VAULT;
	if (vault === undefined) return { error: "the page holds no vault" };
	delete window.VAULTLINK_BENCH_VAULT;
	initSync({ module: wasmBytes });
	const times: number[] = [];
	let notes = 0;
	for (let run = 0; run < vault.runs; run += 1) {
		const index = new Vault();
		const start = performance.now();
		index.upsertMany(vault.paths, vault.texts);
		times.push(performance.now() - start);
		notes = index.noteCount();
		index.free();
	}
	const parseTimes: number[] = [];
	for (let run = 0; run < vault.runs; run += 1) {
		const start = performance.now();
		vault.paths.forEach((path, i) => {
			if (path.endsWith(".md")) parseNote(path, vault.texts[i] ?? "");
		});
		parseTimes.push(performance.now() - start);
	}
	return { times, parseTimes, notes, userAgent: navigator.userAgent };
}

// The page's own copy of the vault would come back in `--dump-dom`: drop it once read.
for (const script of Array.from(document.querySelectorAll("script"))) script.remove();
const result = document.createElement("pre");
result.id = "result";
try {
	result.textContent = JSON.stringify(run());
} catch (error) {
	result.textContent = JSON.stringify({ error: String(error) });
}
document.body.appendChild(result);
