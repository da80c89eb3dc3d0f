/**
 * The vault's first batch takes the lock before it makes the vault's sealing key: a batch refused
 * because another process took the lock a moment after the plugin looked for one leaves
 * `.vaultlink` byte for byte as it was, with no key of its own behind.
 */

import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { JOURNAL_PATH, beginJournal, finishJournal, machineName } from "../batch/journal";
import type { Journal } from "../wasm";
import { BATCH } from "./killing";
import { loadPlugin, snapshotVault, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

function journal(started: number): Journal {
	return { version: 4, pid: process.pid, tool: "move_note", started_unix_ms: started, machine: machineName(), writes: [], moves: [], made_folders: [], change_id: "" };
}

test("a first batch refused because another process took the lock just after the plugin looked leaves .vaultlink as it was, with no key made", async (t) => {
	const vaultDir = writeFixtureVault(BATCH);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const adapter = app.vault.adapter;
	const keys = path.join(vaultDir, ".vaultlink", "keys");
	assert.equal(fs.existsSync(keys), false, "the vault has no key yet");
	// Another process takes the lock the moment after the plugin looked for one: its journal is
	// there, being written (its lease fresh), as a holder without hard links writes it.
	const looked = adapter.exists.bind(adapter);
	let taken = false;
	adapter.exists = async (file: string, sensitive?: boolean) => {
		const found = await looked(file, sensitive);
		if (file === JOURNAL_PATH && !taken) {
			taken = true;
			fs.mkdirSync(path.join(vaultDir, ".vaultlink"), { recursive: true });
			fs.writeFileSync(path.join(vaultDir, JOURNAL_PATH), "");
		}
		return found;
	};
	// The whole vault, byte for byte, but the plugin's presence lease (renewed on its own timer).
	const seen = () => Object.fromEntries(Object.entries(snapshotVault(vaultDir)).filter(([file]) => file !== ".vaultlink/presence.json"));
	const before = seen();
	const refused = await beginJournal(adapter, journal(1));
	assert.ok(taken, "the lock was taken after the plugin looked");
	assert.equal(refused?.code, "change_in_progress", JSON.stringify(refused));
	assert.equal(fs.existsSync(keys), false, "no key was made by the refused batch");
	assert.deepEqual(seen(), { ...before, ".vaultlink/": "", [JOURNAL_PATH]: "" }, "the vault is as it was but for the other holder's lock, untouched");
});

test("a first batch that takes the lock makes the key while it holds it, and its journal is sealed whole in the lock", async (t) => {
	const vaultDir = writeFixtureVault(BATCH);
	const { app, plugin } = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => plugin.unload());
	const made = await beginJournal(app.vault.adapter, journal(2));
	assert.equal(made, null);
	assert.equal(fs.readdirSync(path.join(vaultDir, ".vaultlink", "keys")).filter((name) => name.endsWith(".key")).length, 1);
	const sealed = JSON.parse(fs.readFileSync(path.join(vaultDir, JOURNAL_PATH), "utf8")) as { journal: { started_unix_ms: number } };
	assert.equal(sealed.journal.started_unix_ms, 2);
	await finishJournal(app.vault.adapter, journal(2));
	assert.equal(fs.existsSync(path.join(vaultDir, JOURNAL_PATH)), false);
});
