/**
 * The presence lease in the vault: written at load, renewed on the window's timer, removed on
 * unload, in the format and with the timings core judges (`tests/vectors/presence.json`).
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";
import manifest from "../../manifest.json";
import VaultlinkPlugin from "../main";
import { PRESENCE_EXPIRE_MS, PRESENCE_FILE, PRESENCE_RENEW_MS } from "../presence";
import { App, asObsidianApp } from "./obsidian-double";
import { REPO_ROOT, temporaryDirectory, useTemporaryRuntimeDirectory } from "./support";

const runtimeDir = useTemporaryRuntimeDirectory();

const vector = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "tests", "vectors", "presence.json"), "utf8")) as {
	file: string;
	renew_ms: number;
	expire_ms: number;
	lease: Record<string, unknown>;
};

function vaultWithANote(): string {
	const vaultDir = temporaryDirectory("vault");
	fs.writeFileSync(path.join(vaultDir, "A.md"), "# A\n");
	return vaultDir;
}

/** Resolves once `check` holds, polling; fails the test if it never does within `limitMs`. */
async function until(what: string, check: () => boolean, limitMs = 10_000): Promise<void> {
	const started = Date.now();
	while (!check()) {
		if (Date.now() - started > limitMs) assert.fail(`${what}: not within ${limitMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

test("the lease's place and timings are the shared vector's, which core reads too", () => {
	assert.equal(PRESENCE_FILE, vector.file);
	assert.equal(PRESENCE_RENEW_MS, vector.renew_ms);
	assert.equal(PRESENCE_EXPIRE_MS, vector.expire_ms);
	assert.ok(PRESENCE_RENEW_MS * 5 < PRESENCE_EXPIRE_MS, "several renewals may be missed before a lease runs out");
});

test("the lease is written at load, renewed on the window's timer, and removed on unload", async () => {
	const vaultDir = vaultWithANote();
	const leaseFile = path.join(vaultDir, ...PRESENCE_FILE.split("/"));
	const app = new App(vaultDir);
	const plugin = new VaultlinkPlugin(asObsidianApp(app), { ...manifest });
	plugin.presenceRenewMs = 25;
	plugin.load();
	// Written before onload returns: from the start, a sidecar that cannot reach the bridge sees Obsidian.
	const lease = JSON.parse(fs.readFileSync(leaseFile, "utf8")) as Record<string, unknown>;
	assert.deepEqual(Object.keys(lease).sort(), Object.keys(vector.lease).sort(), "the fields core reads");
	assert.equal(lease["version"], 1);
	assert.equal(lease["machine"], os.hostname());
	assert.equal(lease["platform"], process.platform);
	assert.equal(lease["plugin_version"], manifest.version);
	assert.equal(lease["discovery_dir"], runtimeDir);
	assert.equal(lease["instance"], plugin.presenceKeeper?.instance);
	assert.ok(!JSON.stringify(lease).includes(plugin.bridgeInfo?.token ?? "no token yet"), "nothing secret");

	// Renewed: a modification time set an hour back becomes fresh again by the timer alone.
	const anHourAgo = new Date(Date.now() - 3_600_000);
	fs.utimesSync(leaseFile, anHourAgo, anHourAgo);
	await until("the lease is renewed", () => Date.now() - fs.statSync(leaseFile).mtimeMs < 60_000);
	await plugin.ready;
	// Once the settings are read the lease says whether the bridge is on.
	await until("the lease says the bridge is on", () => (JSON.parse(fs.readFileSync(leaseFile, "utf8")) as { bridge: boolean }).bridge);

	plugin.unload();
	assert.ok(!fs.existsSync(leaseFile), "removed on unload");
	assert.ok(!fs.existsSync(path.join(vaultDir, ".vaultlink")), "and the folder it made, now empty");
	// The timer went with the plugin: nothing writes the lease again.
	await new Promise((resolve) => setTimeout(resolve, 100));
	assert.ok(!fs.existsSync(leaseFile), "the renewal stopped with the plugin");
});

test("a temporary lease file a killed load left is removed at the next load, once old", async () => {
	const vaultDir = vaultWithANote();
	fs.mkdirSync(path.join(vaultDir, ".vaultlink"));
	const stale = path.join(vaultDir, ".vaultlink", "presence.json.00112233445566aa.tmp");
	const recent = path.join(vaultDir, ".vaultlink", "presence.json.00112233445566bb.tmp");
	fs.writeFileSync(stale, "{}");
	fs.writeFileSync(recent, "{}");
	const aMinuteAgo = new Date(Date.now() - 60_000);
	fs.utimesSync(stale, aMinuteAgo, aMinuteAgo);
	const plugin = new VaultlinkPlugin(asObsidianApp(new App(vaultDir)), { ...manifest });
	plugin.load();
	try {
		assert.ok(!fs.existsSync(stale), "a killed load's");
		assert.ok(fs.existsSync(recent), "another window's, being renamed now");
		await plugin.ready;
	} finally {
		plugin.unload();
	}
});

test("an unload leaves another window's lease in place", async () => {
	const vaultDir = vaultWithANote();
	const leaseFile = path.join(vaultDir, ...PRESENCE_FILE.split("/"));
	const plugin = new VaultlinkPlugin(asObsidianApp(new App(vaultDir)), { ...manifest });
	plugin.load();
	await plugin.ready;
	const others = JSON.stringify({ ...vector.lease, instance: "another-window" });
	fs.writeFileSync(leaseFile, others);
	plugin.unload();
	assert.equal(fs.readFileSync(leaseFile, "utf8"), others, "not this load's to remove");
});

test("a .vaultlink folder swapped for a link gets no lease through it", async () => {
	const vaultDir = vaultWithANote();
	const elsewhere = temporaryDirectory("elsewhere");
	fs.symlinkSync(elsewhere, path.join(vaultDir, ".vaultlink"));
	const plugin = new VaultlinkPlugin(asObsidianApp(new App(vaultDir)), { ...manifest });
	const warned: string[] = [];
	const warn = console.warn;
	console.warn = (message: string) => warned.push(message);
	try {
		plugin.load();
		await plugin.ready;
	} finally {
		console.warn = warn;
		plugin.unload();
	}
	assert.deepEqual(fs.readdirSync(elsewhere), [], "nothing written outside the vault");
	assert.ok(warned.some((message) => message.includes("symbolic link")), warned.join("\n"));
});
