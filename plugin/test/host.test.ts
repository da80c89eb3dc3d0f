/**
 * The test host (build/plugin-host.cjs) running the built main.js in its own process, as the
 * end-to-end tests use it: one ready line, a working bridge, a clean exit on SIGTERM.
 */

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import manifest from "../../manifest.json";
import { BridgeClient, REPO_ROOT, readDiscovery, temporaryDirectory, writeFixtureVault } from "./support";

const HOST = path.join(REPO_ROOT, "build", "plugin-host.cjs");
const MAIN = path.join(REPO_ROOT, "main.js");

test("the host serves the built plugin's bridge and cleans up on SIGTERM", { skip: !fs.existsSync(MAIN) && "main.js is not built (npm run build)" }, async () => {
	assert.ok(fs.existsSync(HOST), "build/plugin-host.cjs is built (npm run build:host)");
	const vaultDir = writeFixtureVault("//- A.md\nA links to [[B]].\n//- B.md\nB.\n");
	const runtimeDir = path.join(temporaryDirectory("host"), "run");
	const host = spawn(process.execPath, [HOST, vaultDir], {
		env: { ...process.env, VAULTLINK_RUNTIME_DIR: runtimeDir },
		stdio: ["ignore", "pipe", "pipe"],
	});
	let stdout = "";
	let stderr = "";
	host.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
	const exited = new Promise<number | null>((resolve) => host.on("exit", (code) => resolve(code)));
	try {
		const readyLine = await new Promise<string>((resolve, reject) => {
			host.stdout.setEncoding("utf8").on("data", (chunk: string) => {
				stdout += chunk;
				const newline = stdout.indexOf("\n");
				if (newline >= 0) resolve(stdout.slice(0, newline));
			});
			void exited.then((code) => reject(new Error(`the host exited with ${String(code)} before it was ready:\n${stderr}`)));
		});
		const ready = JSON.parse(readyLine) as { ready: boolean; discovery: string; socket: string };
		assert.equal(ready.ready, true);
		assert.equal(path.dirname(ready.discovery), runtimeDir);
		const discovery = readDiscovery(ready.discovery);
		assert.equal(discovery["socket"], ready.socket);
		assert.equal(discovery["pid"], host.pid);

		const client = await BridgeClient.connect(ready.socket);
		const hello = await client.request("hello", { token: discovery["token"], protocol: 1, client: "host test" });
		assert.equal((hello?.result as { server?: unknown } | undefined)?.server, `vaultlink-plugin ${manifest.version}`);
		const backlinks = await client.request("call", { tool: "get_backlinks", arguments: { path: "B.md" } });
		assert.ok(backlinks?.result !== undefined, JSON.stringify(backlinks));
		assert.ok(JSON.stringify(backlinks.result).includes('"A.md"'), JSON.stringify(backlinks.result));

		host.kill("SIGTERM");
		assert.equal(await exited, 0, stderr);
		await client.closed;
		assert.ok(!fs.existsSync(ready.discovery), "discovery file removed");
		assert.ok(!fs.existsSync(ready.socket), "socket removed");
		assert.equal(stdout, `${readyLine}\n`, "stdout has the ready line only");
	} finally {
		host.kill("SIGKILL");
	}
});
