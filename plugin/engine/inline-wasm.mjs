// An esbuild plugin: `import bytes from "deflated-wasm:./wasm/vaultlink_wasm_bg.wasm"` inlines the
// module compressed with zlib's deflate, as bytes (esbuild's binary loader), and plugin/wasm.ts
// inflates them with the DecompressionStream Electron's Chromium and Node have. The module is most
// of main.js, which Obsidian reads on every start, and it deflates to about a third of its size.
// Used by esbuild.config.mjs and plugin/test/build.mjs alike, so the tests load what ships.
//
// The bytes are the same on every machine and every run (scripts/release.sh builds twice and
// compares): zlib's deflate at a fixed level is deterministic, the zlib format's header holds
// no time or system, and Node, whose zlib does it, is pinned in package.json.
import { readFileSync } from "node:fs";
import path from "node:path";
import { deflateSync } from "node:zlib";

const PREFIX = "deflated-wasm:";

export function deflatedWasm() {
	return {
		name: "deflated-wasm",
		setup(build) {
			build.onResolve({ filter: /^deflated-wasm:/ }, (args) => ({
				path: path.resolve(args.resolveDir, args.path.slice(PREFIX.length)),
				namespace: "deflated-wasm",
			}));
			build.onLoad({ filter: /.*/, namespace: "deflated-wasm" }, (args) => ({
				contents: deflateSync(readFileSync(args.path), { level: 9 }),
				loader: "binary",
				watchFiles: [args.path],
			}));
		},
	};
}
