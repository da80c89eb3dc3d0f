// The one-click bundle for Claude Desktop: an MCP Bundle (`.mcpb`, a zip with a manifest.json
// per the MCPB specification, https://github.com/modelcontextprotocol/mcpb) holding the
// sidecar built for one system, `server.type: "binary"`, asking the user once for the vault.
// scripts/release-assets.mjs builds one per target with the maintained packer
// (`@anthropic-ai/mcpb`, a devDependency, so it runs offline once `npm ci` has run), after
// `mcpb validate` has accepted the manifest; tests/test_release.py validates the manifest of
// every target and the bundle of this machine's.
//
//   node scripts/mcpb.mjs manifest <target triple> <out file>   the manifest alone, for a test
import { spawnSync } from "node:child_process";
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The MCPB manifest version written; Claude Desktop reads 0.3 and every later one. */
export const MANIFEST_VERSION = "0.3";

/** The operating system of a Rust target triple, as MCPB names it (Node's `process.platform`). */
export function platformOf(target) {
	if (target.includes("apple-darwin")) return "darwin";
	if (target.includes("windows")) return "win32";
	if (target.includes("linux")) return "linux";
	throw new Error(`${target} is no target vaultlink is released for (Linux, macOS or Windows); name one of the release workflow's targets`);
}

/**
 * The bundle's manifest for `target`: its version and description from server.json (which
 * `npm version` keeps equal to the crates'), its tools as server.json lists them (a test holds
 * those to `vaultlink mcp`'s), and the command Claude Desktop runs, the bundled program with
 * the vault the user chose when installing.
 */
export function bundleManifest(target) {
	const server = JSON.parse(readFileSync(join(ROOT, "server.json"), "utf8"));
	const published = server._meta["io.modelcontextprotocol.registry/publisher-provided"];
	const program = `server/vaultlink${platformOf(target) === "win32" ? ".exe" : ""}`;
	return {
		manifest_version: MANIFEST_VERSION,
		name: "vaultlink",
		display_name: "vaultlink",
		version: server.version,
		description: server.description,
		long_description:
			"Answers an agent's questions about an Obsidian vault's links (backlinks, unresolved links, orphans, lint) and makes its moves, renames and edits with every link kept whole, each change proven, all-or-nothing and reversible. With the vaultlink plugin enabled in Obsidian, calls go through Obsidian's live index; otherwise vaultlink works on the vault folder.",
		author: { name: "vaultlink developers" },
		repository: { type: "git", url: server.repository.url },
		homepage: server.websiteUrl,
		license: "MIT",
		keywords: ["obsidian", "markdown", "wikilinks", "notes"],
		server: {
			type: "binary",
			entry_point: program,
			mcp_config: {
				command: `\${__dirname}/${program}`,
				args: ["mcp", "--vault", "${user_config.vault}"],
			},
		},
		tools: published.tools.map((name) => ({ name })),
		compatibility: { platforms: [platformOf(target)] },
		user_config: {
			vault: {
				type: "directory",
				title: "Obsidian vault",
				description: "The vault folder the agent may read and change (the folder that holds .obsidian).",
				required: true,
			},
		},
	};
}

/** Runs the packer's `mcpb` with `args`; throws with its output when it does not succeed. */
export function mcpb(args) {
	const cli = join(ROOT, "node_modules", "@anthropic-ai", "mcpb", "dist", "cli", "cli.js");
	const run = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8" });
	if (run.error !== undefined || run.status !== 0) {
		throw new Error(
			`mcpb ${args.join(" ")} failed (${run.error?.message ?? `exit ${run.status}`}); run \`npm ci\` if the packer is missing:\n${run.stdout}${run.stderr}`,
		);
	}
	return run.stdout;
}

/** Builds `<outDir>/<name>`, the bundle of `sidecar` for `target`, its manifest validated first. */
export function buildBundle(outDir, name, sidecar, target) {
	const staging = join(outDir, `.mcpb-${target}`);
	rmSync(staging, { recursive: true, force: true });
	mkdirSync(join(staging, "server"), { recursive: true });
	const manifest = bundleManifest(target);
	writeFileSync(join(staging, "manifest.json"), `${JSON.stringify(manifest, null, "\t")}\n`);
	copyFileSync(sidecar, join(staging, manifest.server.entry_point));
	if (process.platform !== "win32") chmodSync(join(staging, manifest.server.entry_point), 0o755);
	try {
		mcpb(["validate", join(staging, "manifest.json")]);
		mcpb(["pack", staging, join(outDir, name)]);
	} finally {
		rmSync(staging, { recursive: true, force: true });
	}
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
	const [command, target, out] = process.argv.slice(2);
	if (command !== "manifest" || target === undefined || out === undefined) {
		process.stderr.write("usage: node scripts/mcpb.mjs manifest <target triple> <out file>\n");
		process.exit(2);
	}
	writeFileSync(out, `${JSON.stringify(bundleManifest(target), null, "\t")}\n`);
}
