// An esbuild plugin: `import source from "inline-worker:./worker"` bundles that entry on its own
// (an IIFE for a classic dedicated worker, for the browser: no Node inside a worker) and imports
// the bundle as text, so main.js can make the worker from a blob: URL. Used by
// esbuild.config.mjs and plugin/test/build.mjs alike.
//
// The worker gets the wasm module, compiled once by main.js from the bytes it holds, in a message:
// importing a .wasm file into the worker's bundle is refused, so they are never inlined twice.
import esbuild from "esbuild";
import path from "node:path";

const PREFIX = "inline-worker:";

/** @param {{ minify?: boolean }} options */
export function inlineWorker(options = {}) {
	return {
		name: "inline-worker",
		setup(build) {
			build.onResolve({ filter: /^inline-worker:/ }, (args) => {
				const entry = path.resolve(args.resolveDir, args.path.slice(PREFIX.length));
				return { path: entry, namespace: "inline-worker" };
			});
			build.onLoad({ filter: /.*/, namespace: "inline-worker" }, async (args) => {
				const result = await esbuild.build({
					entryPoints: [args.path],
					resolveExtensions: [".ts", ".js"],
					bundle: true,
					write: false,
					metafile: true,
					format: "iife",
					platform: "browser",
					target: "es2020",
					minify: options.minify ?? false,
					// The glue builds a URL from import.meta.url only when it is given no module;
					// the worker always passes the bytes it was sent.
					logOverride: { "empty-import-meta": "silent" },
					logLevel: "warning",
					plugins: [
						{
							name: "no-wasm-in-worker",
							setup(inner) {
								inner.onResolve({ filter: /\.wasm$/ }, (wasm) => ({
									errors: [{ text: `the worker's bundle may not import ${wasm.path}: main.js posts the compiled module to the worker, so the bytes are inlined once` }],
								}));
							},
						},
					],
				});
				const [output] = result.outputFiles;
				return {
					contents: output.text,
					loader: "text",
					watchFiles: Object.keys(result.metafile.inputs).map((input) => path.resolve(input)),
				};
			});
		},
	};
}
