// Carries the version `npm version` has just written into package.json to every other place
// that names it, as Obsidian's sample plugin does (its version-bump.mjs), and to the crates:
//
//   manifest.json   "version"; "minAppVersion" is kept (raise it by hand before bumping)
//   versions.json   "<version>": "<minAppVersion>", so an older Obsidian finds the last release it can run
//   Cargo.toml      [workspace.package] version, and the version of the vaultlink-core dependency
//   Cargo.lock      the workspace's own packages
//   server.json     the MCP registry's description of the sidecar (its version and its packages')
//
// `npm version <new>` runs it through package.json's "version" script, then commits the lot and
// tags the commit with the bare version (.npmrc: no "v", as Obsidian's releases are named).
// Run by hand it takes the version as its argument: `node scripts/version-bump.mjs 1.2.3`.
import { readFileSync, writeFileSync, existsSync } from "node:fs";
import process from "node:process";

const version = process.argv[2] ?? process.env.npm_package_version;
// Semantic versioning's core and pre-release forms; Obsidian compares the three numbers.
if (version === undefined || !/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?$/.test(version)) {
	process.stderr.write(
		`version-bump: "${version ?? ""}" is not a version: run \`npm version <major|minor|patch|x.y.z>\`, or give x.y.z as the argument\n`,
	);
	process.exit(2);
}

/** Replaces the one match of `pattern` (whose first group is the old version) in `file`. */
function replaceOnce(file, text, pattern, what) {
	const matches = [...text.matchAll(new RegExp(pattern.source, "gm"))];
	if (matches.length !== 1) {
		process.stderr.write(`version-bump: expected one ${what} in ${file}, found ${matches.length}\n`);
		process.exit(1);
	}
	return text.replace(new RegExp(pattern.source, "m"), (_match, before, _old, after) => `${before}${version}${after}`);
}

const manifest = JSON.parse(readFileSync("manifest.json", "utf8"));
manifest.version = version;
writeFileSync("manifest.json", `${JSON.stringify(manifest, null, "\t")}\n`);

const versions = JSON.parse(readFileSync("versions.json", "utf8"));
versions[version] = manifest.minAppVersion;
writeFileSync("versions.json", `${JSON.stringify(versions, null, "\t")}\n`);

let cargo = readFileSync("Cargo.toml", "utf8");
cargo = replaceOnce("Cargo.toml", cargo, /^(\[workspace\.package\]\nversion = ")([^"]+)(")/, "[workspace.package] version");
cargo = replaceOnce("Cargo.toml", cargo, /^(vaultlink-core = \{ path = "crates\/core", version = ")([^"]+)(")/, "vaultlink-core dependency");
writeFileSync("Cargo.toml", cargo);

let lock = readFileSync("Cargo.lock", "utf8");
for (const crate of ["vaultlink", "vaultlink-bench", "vaultlink-core", "vaultlink-wasm"]) {
	lock = replaceOnce("Cargo.lock", lock, new RegExp(`^(name = "${crate}"\\nversion = ")([^"]+)(")`), `package ${crate}`);
}
writeFileSync("Cargo.lock", lock);

if (existsSync("server.json")) {
	const server = JSON.parse(readFileSync("server.json", "utf8"));
	server.version = version;
	for (const entry of server.packages ?? []) entry.version = version;
	writeFileSync("server.json", `${JSON.stringify(server, null, "\t")}\n`);
}
