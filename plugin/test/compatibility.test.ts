/**
 * Version skew between the plugin and the vaultlink program: `hello` from a sidecar of another
 * bridge protocol is refused with one message naming both versions and which to update (the
 * sidecar words it alike: tests/vectors/version_skew.json), the settings tab shows it, and the
 * tab's check of the configured program says whether it is there, runs, and which version and
 * protocol it speaks. The programs checked are real files run for real.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { incompatibility, parseVersionLine, type BridgeEnd } from "../bridge/compatibility";
import { PROTOCOL_VERSION } from "../bridge/discovery";
import { BridgeServer } from "../bridge/server";
import { checkSidecar, type SearchEnvironment } from "../settings/sidecar-check";
import { describeBridge } from "../settings/tab";
import type VaultlinkPlugin from "../main";
import { doublePluginOf, settingsIn } from "./obsidian-double";
import { BridgeClient, loadPlugin, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

interface SkewCase {
	sidecar: BridgeEnd;
	plugin: BridgeEnd;
	message: string | null;
}

test("a version skew is worded as the sidecar words it, for every shared case", () => {
	const file = path.join(__dirname, "..", "..", "tests", "vectors", "version_skew.json");
	const cases = (JSON.parse(fs.readFileSync(file, "utf8")) as { cases: SkewCase[] }).cases;
	assert.ok(cases.length >= 4);
	for (const skew of cases) assert.equal(incompatibility(skew.sidecar, skew.plugin), skew.message, JSON.stringify(skew));
});

test("vaultlink --version is read for its version and protocol; a program of before the protocol was named speaks 1", () => {
	assert.deepEqual(parseVersionLine("vaultlink 0.2.0 (bridge protocol 3)\n"), { version: "0.2.0", protocol: 3 });
	assert.deepEqual(parseVersionLine("vaultlink 0.1.0"), { version: "0.1.0", protocol: 1 });
	assert.equal(parseVersionLine("git version 2.39.5"), null);
	assert.equal(parseVersionLine(""), null);
});

function server(t: TestContext, pluginVersion = "0.5.0"): Promise<BridgeServer> {
	const started = BridgeServer.start({
		vaultPath: writeFixtureVault("//- A.md\nA.\n"),
		pluginVersion,
		call: () => ({ ok: true, result: { answered: true } }),
	});
	t.after(async () => (await started).stop());
	return started;
}

test("hello from a sidecar of an older protocol is refused, naming both versions and the program to update; the tab shows it", async (t) => {
	const bridge = await server(t, "0.5.0");
	const client = await BridgeClient.connect(bridge.paths.socketPath);
	const answer = await client.request("hello", { token: bridge.token, protocol: PROTOCOL_VERSION - 1, version: "0.0.9", client: "vaultlink 0.0.9" });
	await client.closed;
	const error = answer?.error as { code: number; message: string; data: unknown } | undefined;
	assert.equal(error?.code, -32002);
	assert.equal(
		error?.message,
		incompatibility({ version: "0.0.9", protocol: PROTOCOL_VERSION - 1 }, { version: "0.5.0", protocol: PROTOCOL_VERSION }),
	);
	assert.match(error?.message ?? "", /The vaultlink program 0\.0\.9 speaks .* the vaultlink plugin 0\.5\.0 .* Update the vaultlink program to 0\.5\.0 or later/);
	assert.deepEqual(error?.data, { protocol: PROTOCOL_VERSION, version: "0.5.0" });
	// Refused, it never counted as a connection; the tab says what it was told.
	assert.equal(bridge.lastConnection, null);
	assert.equal(bridge.lastSkew?.message, error?.message);
	const shown = describeBridge({ state: "listening", socketPath: bridge.paths.socketPath, lastConnection: null, skew: bridge.lastSkew });
	assert.ok(shown.includes(`An agent's vaultlink program was refused at`), shown);
	assert.ok(shown.endsWith(error?.message ?? "-"), shown);

	// A sidecar of the same protocol, after it, connects and clears the skew.
	const next = await BridgeClient.connect(bridge.paths.socketPath);
	const hello = await next.request("hello", { token: bridge.token, protocol: PROTOCOL_VERSION, version: "0.5.0", client: "vaultlink 0.5.0" });
	assert.deepEqual({ ...(hello?.result as object), vault_path: "-" }, { protocol: PROTOCOL_VERSION, version: "0.5.0", vault_path: "-", server: "vaultlink-plugin 0.5.0" });
	assert.equal(bridge.lastSkew, null);
	next.close();
});

test("hello from a sidecar of a newer protocol names the plugin as the one to update; a hello naming no protocol is refused too", async (t) => {
	const bridge = await server(t, "0.1.0");
	const client = await BridgeClient.connect(bridge.paths.socketPath);
	const answer = await client.request("hello", { token: bridge.token, protocol: PROTOCOL_VERSION + 1, version: "2.0.0" });
	assert.match((answer?.error as { message: string }).message, /Update the vaultlink plugin to 2\.0\.0 or later/);
	await client.closed;

	const bare = await BridgeClient.connect(bridge.paths.socketPath);
	const refused = await bare.request("hello", { token: bridge.token });
	assert.equal((refused?.error as { code: number }).code, -32002);
	assert.match((refused?.error as { message: string }).message, /names no bridge protocol.*update the vaultlink program to 0\.1\.0/);
	await bare.closed;
});

test("a wrong token is refused as before, whatever protocol it names: versions are told only to the token's holder", async (t) => {
	const bridge = await server(t);
	const client = await BridgeClient.connect(bridge.paths.socketPath);
	const answer = await client.request("hello", { token: "0".repeat(64), protocol: PROTOCOL_VERSION + 1, version: "9.0.0" });
	assert.equal((answer?.error as { code: number }).code, -32001);
	assert.equal(bridge.lastSkew, null);
	await client.closed;
});

// ---- the settings tab's check of the configured program ----

const PLUGIN: BridgeEnd = { version: "0.5.0", protocol: PROTOCOL_VERSION };

/** A folder of programs: each a real executable file printing `output` for `--version`. */
function programs(t: TestContext, scripts: Record<string, string>): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vaultlink-programs-"));
	t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
	for (const [name, body] of Object.entries(scripts)) {
		fs.writeFileSync(path.join(dir, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
	}
	return dir;
}

const environment = (dir: string): SearchEnvironment => ({ path: dir, platform: process.platform, pathExt: "" });

test("the program check finds a program by its absolute path or on the search path, runs it and reads its version", { skip: process.platform === "win32" ? "the programs here are shell scripts" : false }, async (t) => {
	const dir = programs(t, {
		vaultlink: `echo "vaultlink 0.5.1 (bridge protocol ${PROTOCOL_VERSION})"`,
		newer: `echo "vaultlink 3.0.0 (bridge protocol ${PROTOCOL_VERSION + 1})"`,
		other: `echo "git version 2.39.5"`,
		broken: "exit 3",
	});
	const found = await checkSidecar("vaultlink", PLUGIN, environment(dir));
	assert.deepEqual(found, {
		ok: true,
		message: `Found vaultlink 0.5.1 at ${path.join(dir, "vaultlink")}; it speaks bridge protocol ${PROTOCOL_VERSION}, as this plugin (0.5.0) does.`,
	});
	assert.equal((await checkSidecar(path.join(dir, "vaultlink"), PLUGIN, environment(""))).ok, true);

	const newer = await checkSidecar(path.join(dir, "newer"), PLUGIN, environment(""));
	assert.equal(newer.ok, false);
	assert.equal(newer.message, `${path.join(dir, "newer")}: ${incompatibility({ version: "3.0.0", protocol: PROTOCOL_VERSION + 1 }, PLUGIN) ?? ""}`);
	assert.match(newer.message, /Update the vaultlink plugin to 3\.0\.0 or later/);

	const other = await checkSidecar(path.join(dir, "other"), PLUGIN, environment(""));
	assert.equal(other.ok, false);
	assert.match(other.message, /runs but is not the vaultlink program: its --version printed "git version 2\.39\.5"/);

	const broken = await checkSidecar(path.join(dir, "broken"), PLUGIN, environment(""));
	assert.equal(broken.ok, false);
	assert.match(broken.message, /is there but did not run/);

	fs.chmodSync(path.join(dir, "vaultlink"), 0o644);
	assert.match((await checkSidecar(path.join(dir, "vaultlink"), PLUGIN, environment(""))).message, /is there but did not run/);

	const missing = await checkSidecar(path.join(dir, "absent", "vaultlink"), PLUGIN, environment(""));
	assert.equal(missing.ok, false);
	assert.match(missing.message, /^There is no file at .*absent.*vaultlink\. Install the program \(cargo install vaultlink/);
	const notOnPath = await checkSidecar("vaultlink", PLUGIN, environment(path.join(dir, "absent")));
	assert.match(notOnPath.message, /^"vaultlink" is not on Obsidian's search path/);
});

test("the program check knows the sidecar built from this tree", async () => {
	const built = path.join(__dirname, "..", "..", "target", "debug", process.platform === "win32" ? "vaultlink.exe" : "vaultlink");
	assert.ok(fs.existsSync(built), `${built} is missing: run scripts/build.sh`);
	const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, "..", "..", "manifest.json"), "utf8")) as { version: string };
	const found = await checkSidecar(built, { version: manifest.version, protocol: PROTOCOL_VERSION });
	assert.deepEqual(found, {
		ok: true,
		message: `Found vaultlink ${manifest.version} at ${built}; it speaks bridge protocol ${PROTOCOL_VERSION}, as this plugin (${manifest.version}) does.`,
	});
});

test("the settings tab checks the configured program and says what it found", async (t) => {
	const { plugin } = await loadPlugin(writeFixtureVault("//- A.md\nA.\n"));
	t.after(() => plugin.unload());
	const missing = path.join(os.tmpdir(), "vaultlink-absent-program", "vaultlink");
	await saveProgram(plugin, missing);
	const tab = plugin.settingsTab;
	assert.ok(tab !== null);
	assert.equal(doublePluginOf(plugin).settingTabs.length, 1);
	tab.display();
	await tab.drawing;
	const found = await tab.checking;
	assert.equal(found?.ok, false);
	const row = settingsIn(tab.containerEl).find((candidate) => candidate.findAllWithClass("setting-item-name")[0]?.getText() === "Program check");
	assert.ok(row !== undefined, "a Program check row");
	assert.equal(row.findAllWithClass("setting-item-description")[0]?.getText(), found?.message);
	assert.ok(found?.message.startsWith(`There is no file at ${missing}.`), found?.message);
	assert.ok(row.hasClass("vaultlink-sidecar-problem"));
});

async function saveProgram(plugin: VaultlinkPlugin, command: string): Promise<void> {
	await plugin.saveSettings((settings) => {
		settings.sidecarCommand = command;
	});
}
