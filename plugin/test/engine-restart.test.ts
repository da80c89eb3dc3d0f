/**
 * The engine's worker failing. The host's `Worker` behaves as a browser's does (`worker.ts`): an
 * error thrown uncaught inside it is an `error` event on the `Worker` and the worker keeps
 * running; after `terminate()` nothing it posts arrives. The engine then ends that worker,
 * rejects what was on its way with a retryable `EngineRestartedError`, starts a new worker from
 * the same compiled module, refuses calls until the plugin says the index is built again, and
 * after a crash loop runs on this thread instead. The plugin says so in a notice, indexes the
 * vault again, and agents' calls meanwhile answer `plugin_unavailable`, retryable.
 */

import assert from "node:assert/strict";
import { test, type TestContext } from "node:test";
import { EngineRestartedError } from "../engine/client";
import { workerSource } from "../engine/start";
import { MAX_CRASHES, WorkerEngine, type EngineRestart } from "../engine/worker-engine";
import type { EngineMessage } from "../engine/protocol";
import { compiledModule } from "../wasm";
import { runTool } from "../tools";
import { shownNotices } from "./obsidian-double";
import { loadPlugin, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

/**
 * Makes the engine's worker throw uncaught: its message handler reads `op` of what it is sent,
 * and `null` has none. Nothing in the plugin sends such a message; it stands for any error the
 * worker's code did not catch.
 */
function crash(engine: WorkerEngine): void {
	(engine as unknown as { post(message: EngineMessage | null): void }).post(null);
}

/** Notes enough that indexing them keeps the worker busy while its error reaches this thread. */
function manyNotes(count: number): { paths: string[]; texts: string[] } {
	const paths: string[] = [];
	const texts: string[] = [];
	for (let at = 0; at < count; at += 1) {
		paths.push(`n/Note ${at}.md`);
		texts.push(`# Note ${at}\n${"Some prose about a topic. ".repeat(40)}[[Note ${(at * 7) % count}]] [[Missing ${at % 50}]]\n`);
	}
	return { paths, texts };
}

async function startedEngine(t: TestContext): Promise<{ engine: WorkerEngine; restarts: EngineRestart[] }> {
	const engine = new WorkerEngine(workerSource, await compiledModule());
	t.after(() => engine.dispose());
	await engine.loaded;
	const restarts: EngineRestart[] = [];
	engine.onRestart((restart) => restarts.push(restart));
	return { engine, restarts };
}

/** Resolves once `engine` has restarted `count` times in all. */
async function restarted(engine: WorkerEngine, restarts: EngineRestart[], count: number): Promise<void> {
	if (restarts.length >= count) return;
	await new Promise<void>((resolve) => {
		const stop = engine.onRestart(() => {
			if (restarts.length < count) return;
			stop();
			resolve();
		});
	});
}

test("a worker that throws uncaught is replaced: what was on its way fails retryably, calls wait for the index, then work", async (t) => {
	const { engine, restarts } = await startedEngine(t);
	await engine.upsert("A.md", "[[B]]");
	// An update under way when the worker fails is rejected, not left waiting.
	const { paths, texts } = manyNotes(4000);
	crash(engine);
	const onItsWay = engine.upsertMany(paths, texts);
	await assert.rejects(onItsWay, (error: unknown) => error instanceof EngineRestartedError && /failed .*started again/.test(error.message));
	await restarted(engine, restarts, 1);
	assert.equal(restarts[0]?.onThisThread, false);
	assert.match(restarts[0]?.reason ?? "", /TypeError/);
	assert.equal(engine.kind, "worker");
	// The new worker holds an empty index, built again by whoever listens; calls are refused until then.
	assert.equal(await engine.noteCount(), 0);
	await assert.rejects(engine.call("vault_summary", {}), EngineRestartedError);
	await engine.upsert("A.md", "[[B]]");
	await engine.upsert("B.md", "");
	engine.rebuilt();
	const summary = await engine.call("vault_summary", {});
	assert.ok(summary.ok);
	assert.equal((summary.result as { notes: number }).notes, 2);
});

test("a crash loop moves the engine to this thread instead of restarting forever", async (t) => {
	const { engine, restarts } = await startedEngine(t);
	for (let crashes = 1; crashes <= MAX_CRASHES; crashes += 1) {
		crash(engine);
		await restarted(engine, restarts, crashes);
	}
	assert.deepEqual(
		restarts.map((restart) => restart.onThisThread),
		[...Array<boolean>(MAX_CRASHES - 1).fill(false), true],
	);
	assert.equal(engine.kind, "direct");
	await engine.upsert("A.md", "[[Gone]]");
	engine.rebuilt();
	assert.equal(await engine.noteCount(), 1);
	assert.equal(await engine.unresolvedCount(), 1);
	const summary = await engine.call("vault_summary", {});
	assert.ok(summary.ok);
});

test("the plugin says its engine restarted, indexes the vault again, and agents' calls meanwhile are retryable", async (t) => {
	const vault = writeFixtureVault(`
//- Home.md
[[A]] and [[Missing]]
//- A.md
back to [[Home]]
`);
	const { plugin } = await loadPlugin(vault);
	t.after(() => plugin.unload());
	const engine = plugin.index;
	assert.ok(engine instanceof WorkerEngine);
	const host = plugin.toolHost;
	assert.ok(host !== null);
	const notices = shownNotices.length;
	const restarts: EngineRestart[] = [];
	engine.onRestart((restart) => restarts.push(restart));
	crash(engine);
	await restarted(engine, restarts, 1);
	assert.match(shownNotices.slice(notices).map((notice) => notice.message).join("\n"), /link engine failed .* started again; it is indexing the vault again/);
	// Until the vault is indexed again, a call answers plugin_unavailable, retryable, with a hint.
	const during = await runTool(host, "vault_summary", {});
	assert.ok(!during.ok);
	assert.equal(during.error.code, "plugin_unavailable");
	assert.equal(during.error.retryable, true);
	assert.match(during.error.hint ?? "", /Call again/);
	// Once indexed again, the calls answer from the whole vault.
	let after = await runTool(host, "vault_summary", {});
	for (let tries = 0; !after.ok && tries < 1000; tries += 1) {
		await new Promise((resolve) => setImmediate(resolve));
		after = await runTool(host, "vault_summary", {});
	}
	assert.ok(after.ok, JSON.stringify(after));
	assert.equal((after.result as { notes: number; unresolved_links: number }).notes, 2);
	assert.equal((after.result as { notes: number; unresolved_links: number }).unresolved_links, 1);
	assert.equal(await engine.unresolvedCount(), 1);
});
