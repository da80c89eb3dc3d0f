// The release's server.json: the repository's server.json (the MCP registry's description of
// the server) with `packages` listing the release's bundles, so a registry can offer them. A
// binary release can be declared to the registry only as MCP Bundles (`registryType: "mcpb"`):
// each a download URL of the GitHub release, its version and the SHA-256 of the file, which a
// client checks before it runs it (schema 2025-09-29, `Package`). The sums exist only once the
// bundles are built, so the repository's file has no `packages`; scripts/release-assets.mjs
// writes this machine's, and the release workflow writes it again with every system's bundle,
// then checks it against the schema its `$schema` names.
//
//   node scripts/server-json.mjs <assets dir>    writes <assets dir>/server.json
import { createHash } from "node:crypto";
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** server.json with a package for each `vaultlink-<version>-<target>.mcpb` in `assetsDir`. */
export function releasedServerJson(assetsDir) {
	const server = JSON.parse(readFileSync(join(ROOT, "server.json"), "utf8"));
	const version = server.version;
	const bundles = readdirSync(assetsDir)
		.filter((name) => name.startsWith(`vaultlink-${version}-`) && name.endsWith(".mcpb"))
		.sort();
	if (bundles.length === 0) {
		throw new Error(`no vaultlink-${version}-<target>.mcpb in ${assetsDir}: build the bundles first (scripts/release.sh)`);
	}
	const packages = bundles.map((name) => ({
		registryType: "mcpb",
		identifier: `${server.repository.url}/releases/download/${version}/${name}`,
		version,
		fileSha256: createHash("sha256").update(readFileSync(join(assetsDir, name))).digest("hex"),
		transport: { type: "stdio" },
	}));
	// `packages` before `_meta`, as the registry's examples order them.
	const { _meta: meta, ...rest } = server;
	return { ...rest, packages, _meta: meta };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
	const [assetsDir] = process.argv.slice(2);
	if (assetsDir === undefined) {
		process.stderr.write("usage: node scripts/server-json.mjs <assets dir>\n");
		process.exit(2);
	}
	writeFileSync(join(assetsDir, "server.json"), `${JSON.stringify(releasedServerJson(assetsDir), null, "\t")}\n`);
}
