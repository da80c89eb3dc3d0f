// The wasm index in headless Chromium: a benchmark, not a test. For each vault folder, writes a
// page holding its files and the bundled plugin/bench/browser-bench.ts, opens it with
// `chromium --headless --dump-dom`, and prints the median of the in-page times (7 runs, 3 from
// 50,000 notes on). Each figure is appended to $VAULTLINK_BENCH_FIGURES when set, for
// `vaultlink-bench targets`.
//
//   node plugin/bench/chromium-bench.mjs <vault folder>...
import esbuild from "esbuild";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const outdir = path.join(root, "build", "chromium-bench");
const RUNS = 7;
// From this many notes on, one run of the two figures takes half a minute: three runs still give
// a median, and seven would hold the whole benchmark for minutes.
const LARGE_NOTES = 50_000;
const LARGE_RUNS = 3;

function chromium() {
	for (const candidate of [process.env.VAULTLINK_CHROMIUM, "chromium", "chromium-browser", "google-chrome"]) {
		if (!candidate) continue;
		try {
			execFileSync(candidate, ["--version"], { stdio: "ignore" });
			return candidate;
		} catch {
			// Not this one.
		}
	}
	throw new Error("no Chromium: run scripts/setup.sh test, or set VAULTLINK_CHROMIUM");
}

/** Every file below `dir` but hidden ones, sorted; a note's text, "" for any other file. */
function readVault(dir) {
	const files = [];
	const walk = (relative) => {
		for (const entry of fs.readdirSync(path.join(dir, relative), { withFileTypes: true })) {
			if (entry.name.startsWith(".")) continue;
			const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
			if (entry.isDirectory()) walk(child);
			else files.push([child, child.endsWith(".md") ? fs.readFileSync(path.join(dir, child), "utf8") : ""]);
		}
	};
	walk("");
	files.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
	return { paths: files.map(([file]) => file), texts: files.map(([, text]) => text) };
}

fs.mkdirSync(outdir, { recursive: true });
await esbuild.build({
	absWorkingDir: root,
	bundle: true,
	platform: "browser",
	format: "iife",
	target: "es2020",
	loader: { ".wasm": "binary" },
	// The glue's fallback loader names `import.meta.url`; the bytes are inlined, so it never runs.
	logOverride: { "empty-import-meta": "silent" },
	entryPoints: [path.join(root, "plugin", "bench", "browser-bench.ts")],
	outfile: path.join(outdir, "bench.js"),
	logLevel: "warning",
});
const browser = chromium();
console.log("| vault | notes | wasm index in headless Chromium, one upsertMany (median) | runs | every note through parseNote (median) | runs |");
console.log("|---|---:|---:|---|---:|---|");
for (const vaultDir of process.argv.slice(2)) {
	const files = readVault(vaultDir);
	const notes = files.paths.filter((file) => file.endsWith(".md")).length;
	const vault = { ...files, runs: notes >= LARGE_NOTES ? LARGE_RUNS : RUNS };
	const page = path.join(outdir, "bench.html");
	// In a <script>, "</" would end it early; JSON allows the escaped form.
	const json = JSON.stringify(vault).replace(/<\//g, "<\\/");
	fs.writeFileSync(page, `<!doctype html>\n<html><head><meta charset="utf-8"></head><body><script>window.VAULTLINK_BENCH_VAULT = ${json};</script><script src="bench.js"></script></body></html>\n`);
	let dom;
	try {
		dom = execFileSync(browser, ["--headless", "--no-sandbox", "--disable-gpu", "--js-flags=--max-old-space-size=4096", "--dump-dom", `file://${page}`], {
			encoding: "utf8",
			maxBuffer: 64 * 1024 * 1024,
			stdio: ["ignore", "pipe", "ignore"],
			timeout: 600_000,
		});
	} catch (error) {
		console.log(`| ${path.basename(path.resolve(vaultDir))} | | failed: ${String(error?.code ?? error?.message ?? error)} | |`);
		fs.rmSync(page, { force: true });
		continue;
	}
	const found = /<pre id="result">([^]*?)<\/pre>/.exec(dom);
	const result = found === null ? { error: "the page wrote no result" } : JSON.parse(found[1].replace(/&quot;/g, '"').replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&"));
	const name = path.basename(path.resolve(vaultDir));
	if (result.error !== undefined) {
		console.log(`| ${name} | | failed: ${result.error} | |`);
		continue;
	}
	const sorted = [...result.times].sort((a, b) => a - b);
	const median = sorted[Math.floor(sorted.length / 2)];
	const parseSorted = [...result.parseTimes].sort((a, b) => a - b);
	const parseMedian = parseSorted[Math.floor(parseSorted.length / 2)];
	const list = (times) => `${times.map((time) => time.toFixed(0)).join(", ")} ms`;
	console.log(`| ${name} | ${result.notes} | ${median.toFixed(1)} ms | ${list(sorted)} | ${parseMedian.toFixed(1)} ms | ${list(parseSorted)} |`);
	const figures = process.env.VAULTLINK_BENCH_FIGURES;
	if (figures) {
		fs.appendFileSync(figures, `${JSON.stringify({ vault: name, figure: "wasm_chromium_in_memory_ms", value: median })}\n`);
		fs.appendFileSync(figures, `${JSON.stringify({ vault: name, figure: "wasm_chromium_parse_ms", value: parseMedian })}\n`);
	}
	fs.rmSync(page);
}
