// Bundles the plugin's tests, the test host and the index benchmark with esbuild, `obsidian`
// aliased to the test double and the wasm inlined as in main.js.
//
//   node plugin/test/build.mjs tests   every plugin/test/**/*.test.ts -> build/plugin-tests/*.test.cjs,
//                                      and the views' browser page -> build/views-page/render.js
//   node plugin/test/build.mjs host    plugin/test/host.ts -> build/plugin-host.cjs
//   node plugin/test/build.mjs bench   plugin/bench/index-bench.ts -> build/plugin-bench.cjs
//   node plugin/test/build.mjs ui-block plugin/bench/ui-block-bench.ts -> build/plugin-ui-block-bench.cjs
import esbuild from "esbuild";
import { readdirSync, rmSync } from "node:fs";
import path from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { deflatedWasm } from "../engine/inline-wasm.mjs";
import { inlineWorker } from "../engine/inline-worker.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const testDir = path.join(root, "plugin", "test");

// Every test bundle, the host and the bench run under the rules of Obsidian's renderer window
// (plugin/test/renderer.ts) from their first line.
const inRenderer = { inject: [path.join(testDir, "renderer-install.ts")] };

const common = {
	absWorkingDir: root,
	bundle: true,
	platform: "node",
	format: "cjs",
	target: "node20",
	alias: { obsidian: path.join(testDir, "obsidian-double", "index.ts") },
	loader: { ".wasm": "binary" },
	define: { VAULTLINK_REPO_ROOT: JSON.stringify(root) },
	logOverride: { "empty-import-meta": "silent" },
	// The link engine's Web Worker, inlined as text, and the wasm module, inlined deflated, as in main.js.
	plugins: [inlineWorker(), deflatedWasm()],
	sourcemap: "inline",
	logLevel: "warning",
};

async function buildTests() {
	const entryPoints = readdirSync(testDir, { recursive: true, encoding: "utf8" })
		.filter((name) => name.endsWith(".test.ts"))
		.map((name) => path.join(testDir, name));
	if (entryPoints.length === 0) throw new Error(`no *.test.ts under ${testDir}`);
	const outdir = path.join(root, "build", "plugin-tests");
	// Start clean, so a deleted test does not keep running from an old bundle.
	rmSync(outdir, { recursive: true, force: true });
	await esbuild.build({
		...common,
		...inRenderer,
		entryPoints,
		outbase: testDir,
		outdir,
		outExtension: { ".js": ".cjs" },
	});
	console.error(`built ${entryPoints.length} test bundles into ${path.relative(root, outdir)}/`);
	await buildViewsPage();
}

/**
 * The script of the page views.test.ts opens in headless Chromium: the plugin's drawing code on
 * a real DOM, `obsidian` answered by a stub (the page constructs none of its classes).
 */
async function buildViewsPage() {
	const outfile = path.join(root, "build", "views-page", "render.js");
	await esbuild.build({
		absWorkingDir: root,
		bundle: true,
		platform: "browser",
		format: "iife",
		target: "es2020",
		alias: { obsidian: path.join(testDir, "browser", "obsidian-stub.ts") },
		entryPoints: [path.join(testDir, "browser", "render-views.ts")],
		outfile,
		logLevel: "warning",
	});
}

async function buildHost() {
	const outfile = path.join(root, "build", "plugin-host.cjs");
	await esbuild.build({ ...common, ...inRenderer, entryPoints: [path.join(testDir, "host.ts")], outfile });
	console.error(`built ${path.relative(root, outfile)}`);
}

async function buildBench() {
	const outfile = path.join(root, "build", "plugin-bench.cjs");
	// No inline source map: the bench is measured, and a smaller bundle loads faster.
	await esbuild.build({ ...common, ...inRenderer, sourcemap: false, entryPoints: [path.join(root, "plugin", "bench", "index-bench.ts")], outfile });
	console.error(`built ${path.relative(root, outfile)}`);
}

async function buildUiBlockBench() {
	const outfile = path.join(root, "build", "plugin-ui-block-bench.cjs");
	await esbuild.build({ ...common, ...inRenderer, sourcemap: false, entryPoints: [path.join(root, "plugin", "bench", "ui-block-bench.ts")], outfile });
	console.error(`built ${path.relative(root, outfile)}`);
}

const targets = process.argv.slice(2);
if (targets.length === 0) targets.push("tests", "host");
for (const target of targets) {
	if (target === "tests") await buildTests();
	else if (target === "host") await buildHost();
	else if (target === "bench") await buildBench();
	else if (target === "ui-block") await buildUiBlockBench();
	else throw new Error(`unknown target ${target}; expected "tests", "host", "bench" or "ui-block"`);
}
