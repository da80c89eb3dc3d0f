/**
 * The vault's sealing keys (issue 35): both edges derive the same key from a key file in the
 * vault (the shared vectors), a sidecar with another home in another pid namespace recovers a
 * journal the plugin left, a copied vault carries no usable key, and a key file that is a link,
 * public or huge is never used.
 */

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { JOURNAL_PATH } from "../batch/journal";
import { keyOf, openIn, sealIn, sealingKey } from "../move/seal-keys";
import { openJournal, sealJournal, sealKey, type Journal, type Purpose } from "../wasm";
import { BATCH, KILL_CHILD, killedAt, leaseRunOut, runKillChild, sidecarBinary } from "./killing";
import { REPO_ROOT, snapshotVault, temporaryDirectory, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

const JOURNAL: Journal = { version: 4, pid: 7, tool: "move_note", started_unix_ms: 1, machine: "here", writes: [], moves: [{ from: "A.md", to: "B.md", via: null }], made_folders: [] };

/** The sidecar run as a user's agent may run it: another home, and (as root, as CI runs) in a pid namespace of its own, as a Flatpak sandbox is. */
function sidecarElsewhere(args: string[]): ReturnType<typeof spawnSync> {
	const home = temporaryDirectory("home");
	const env = { ...process.env, HOME: home, XDG_RUNTIME_DIR: home, VAULTLINK_RUNTIME_DIR: path.join(home, "run") };
	const root = typeof process.getuid === "function" && process.getuid() === 0;
	return root
		? spawnSync("unshare", ["--pid", "--fork", "--mount-proc", sidecarBinary(), ...args], { encoding: "utf8", env })
		: spawnSync(sidecarBinary(), args, { encoding: "utf8", env });
}

if (process.env[KILL_CHILD] !== undefined) {
	void runKillChild(process.env[KILL_CHILD]);
} else {
	test("the shared vectors: a key file's secret and identity give the same key and seal in the plugin as in the sidecar", () => {
		const vectors = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "tests", "vectors", "seals.json"), "utf8")) as {
			cases: { secret: string; identity: string; purpose: Purpose; key: string; derived: string; file: string }[];
		};
		assert.ok(vectors.cases.length >= 4);
		for (const vector of vectors.cases) {
			const derived = sealKey(Uint8Array.from(Buffer.from(vector.secret, "hex")), BigInt(vector.identity));
			assert.equal(Buffer.from(derived).toString("hex"), vector.derived, vector.identity);
			const opened = openJournal(derived, vector.purpose, vector.key, vector.file);
			assert.ok(opened.journal !== undefined && opened.journal !== null, `${vector.identity}: ${opened.refusal ?? ""}`);
			const sealed = sealJournal(derived, vector.purpose, vector.key, opened.journal);
			assert.deepEqual(sealed, { sealed: vector.file });
		}
	});

	test("Obsidian killed mid-move: a sidecar with another home, in another pid namespace, recovers the plugin's journal with the vault's key", async () => {
		const vaultDir = writeFixtureVault(BATCH);
		const before = snapshotVault(vaultDir);
		assert.ok(await killedAt(vaultDir, "move_note", "vault", 2), "the move was killed part way");
		// The killed holder renews its lease no more: as time does, its journal's lease runs out.
		leaseRunOut(vaultDir);
		assert.ok(fs.existsSync(path.join(vaultDir, JOURNAL_PATH)));
		const recovered = sidecarElsewhere(["recover", vaultDir]);
		assert.equal(recovered.status, 0, String(recovered.stderr));
		assert.match(String(recovered.stdout), /^undid an interrupted move_note/);
		assert.deepEqual(snapshotVault(vaultDir), before);
	});

	test("a vault copied with its journal (cp -a, or files written anew as a clone writes them) carries no usable key: its journal is refused, saying what to do", async () => {
		const vaultDir = writeFixtureVault(BATCH);
		assert.ok(await killedAt(vaultDir, "move_note", "vault", 2), "the move was killed part way");
		// The killed holder renews its lease no more: as time does, its journal's lease runs out.
		leaseRunOut(vaultDir);
		const copies = { "cp -a": temporaryDirectory("copy-a"), clone: temporaryDirectory("clone") };
		assert.equal(spawnSync("cp", ["-a", `${vaultDir}/.`, copies["cp -a"]]).status, 0);
		// A clone writes every file anew, with the modes git keeps (0644).
		for (const entry of fs.readdirSync(vaultDir, { recursive: true, encoding: "utf8" })) {
			const from = path.join(vaultDir, entry);
			const to = path.join(copies.clone, entry);
			if (fs.statSync(from).isDirectory()) fs.mkdirSync(to, { recursive: true });
			else fs.writeFileSync(to, fs.readFileSync(from), { mode: 0o644 });
		}
		for (const [how, copy] of Object.entries(copies)) {
			const before = snapshotVault(copy);
			const recovered = sidecarElsewhere(["recover", copy]);
			assert.equal(recovered.status, 2, `${how}: ${String(recovered.stdout)}`);
			assert.match(String(recovered.stderr), how === "cp -a" ? /another copy of this vault/ : /has mode 644, not 0600/, how);
			assert.match(String(recovered.stderr), /run `vaultlink recover` there/, how);
			assert.deepEqual(snapshotVault(copy), before, `${how}: the copy is left as it is`);
			const journal = fs.readFileSync(path.join(copy, JOURNAL_PATH), "utf8");
			assert.ok("refusal" in openIn(copy, "journal", journal), `${how}: the plugin refuses it too`);
		}
		// The vault itself still recovers.
		assert.equal(sidecarElsewhere(["recover", vaultDir]).status, 0);
	});

	test("a key file that is a symbolic link, others may read, or huge is never used: a new key is made beside it, and what it sealed is refused", () => {
		const spoils: [string, (file: string, outside: string) => void, RegExp][] = [
			["link", (file, outside) => {
				fs.renameSync(file, outside);
				fs.symlinkSync(outside, file);
			}, /is not a plain file/],
			["public", (file) => fs.chmodSync(file, 0o644), /has mode 644, not 0600/],
			["huge", (file) => fs.truncateSync(file, 1 << 30), /is 1073741824 bytes/],
		];
		for (const [how, spoil, refusal] of spoils) {
			const vaultDir = temporaryDirectory("keys");
			const first = sealingKey(vaultDir);
			const sealed = sealIn(vaultDir, "journal", JOURNAL);
			assert.ok("sealed" in sealed);
			assert.deepEqual(openIn(vaultDir, "journal", sealed.sealed), { journal: JOURNAL }, how);
			const file = path.join(vaultDir, ".vaultlink", "keys", `${first.id}.key`);
			assert.equal(fs.statSync(file).mode & 0o777, 0o600, `${how}: made private`);
			spoil(file, path.join(temporaryDirectory("outside"), "stolen.key"));
			const opened = openIn(vaultDir, "journal", sealed.sealed);
			assert.ok("refusal" in opened && refusal.test(opened.refusal), `${how}: ${JSON.stringify(opened)}`);
			assert.ok("unusable" in keyOf(vaultDir, first.id), how);
			assert.notEqual(sealingKey(vaultDir).id, first.id, `${how}: another key is made`);
			assert.ok(fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined, `${how}: the spoilt file is left alone`);
		}
	});
}
