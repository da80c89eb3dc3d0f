/**
 * A benchmark (not a test) of how long Obsidian's UI thread is blocked while an agent lints the
 * vault through the bridge:
 *
 *     npm run build && npm run bench:ui-block -- <vault folder>
 *
 * The built main.js is loaded as the test host loads it (`plugin/test/host.ts`: the renderer's
 * rules, `obsidian` answered by the test double) on the vault, once with its link engine in a Web
 * Worker (as shipped) and once on the main thread (the fallback where no worker can be made:
 * `Worker` is taken away before the plugin loads). For each, a bridge client says hello and
 * calls `lint_wiki`, one warm-up call and then `VAULTLINK_UI_BLOCK_RUNS` (5) measured ones; while
 * each runs, the main thread's event loop is watched two ways: Node's
 * `perf_hooks.monitorEventLoopDelay` at 1 ms resolution (its largest delay), and a 1 ms
 * `window.setInterval` whose largest gap between ticks is taken. The figure is the longest block
 * seen by either, over every measured call.
 *
 * With `VAULTLINK_BENCH_FIGURES` naming a file, appends `{"vault", "figure": "ui_block_lint_ms",
 * "value"}` (the worker) and `ui_block_lint_direct_ms` (the main thread), as the other benches do.
 */

import * as fs from "fs";
import * as net from "net";
import * as os from "os";
import * as path from "path";
import { monitorEventLoopDelay, performance } from "perf_hooks";
import manifest from "../../manifest.json";
import { redirectObsidian } from "../test/obsidian-redirect";
import type VaultlinkPlugin from "../main";
import * as double from "../test/obsidian-double";

const RUNS = Number(process.env["VAULTLINK_UI_BLOCK_RUNS"] ?? 5);

function fail(message: string): never {
	console.error(`bench:ui-block: ${message}`);
	process.exit(1);
}


/** A bridge client: hello, then one call at a time. */
class Client {
	private buffered = "";
	private waiting: ((line: string) => void) | null = null;
	private nextId = 1;

	private constructor(private readonly socket: net.Socket) {
		socket.setEncoding("utf8");
		socket.on("data", (chunk: string) => {
			this.buffered += chunk;
			const newline = this.buffered.indexOf("\n");
			if (newline < 0) return;
			const line = this.buffered.slice(0, newline);
			this.buffered = this.buffered.slice(newline + 1);
			const waiting = this.waiting;
			this.waiting = null;
			waiting?.(line);
		});
	}

	static connect(socketPath: string): Promise<Client> {
		return new Promise((resolve, reject) => {
			const socket = net.connect(socketPath);
			socket.once("connect", () => resolve(new Client(socket)));
			socket.once("error", reject);
		});
	}

	request(method: string, params: unknown): Promise<{ result?: unknown; error?: { message: string } }> {
		const id = this.nextId++;
		return new Promise((resolve) => {
			this.waiting = (line) => resolve(JSON.parse(line) as { result?: unknown; error?: { message: string } });
			this.socket.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
		});
	}

	close(): void {
		this.socket.destroy();
	}
}

interface Measured {
	/** The longest block of each measured call, in ms. */
	blocksMs: number[];
	/** How long each measured call took, in ms. */
	callsMs: number[];
	engine: string;
}

/** Loads the plugin on the vault and measures the lint calls; `withWorker` false takes `Worker` away first. */
async function measure(PluginClass: typeof VaultlinkPlugin, vaultDir: string, withWorker: boolean): Promise<Measured> {
	const global = globalThis as unknown as Record<string, unknown>;
	const worker = global["Worker"];
	if (!withWorker) delete global["Worker"];
	const app = new double.App(vaultDir);
	const plugin = new PluginClass(double.asObsidianApp(app), { ...manifest });
	try {
		plugin.load();
		await plugin.ready;
		const engine = plugin.index?.kind ?? "none";
		if (engine !== (withWorker ? "worker" : "direct")) fail(`the plugin's engine runs as ${engine}`);
		const bridge = plugin.bridgeInfo;
		if (bridge === null) fail("the plugin is ready but its bridge is not up");
		const token = (JSON.parse(fs.readFileSync(bridge.discoveryPath, "utf8")) as { token: string }).token;
		const client = await Client.connect(bridge.socketPath);
		const hello = await client.request("hello", { token, protocol: 1, client: "ui-block-bench" });
		if (hello.error !== undefined) fail(`hello failed: ${hello.error.message}`);
		const lint = async () => {
			const answer = await client.request("call", { tool: "lint_wiki", arguments: {} });
			if (answer.error !== undefined) fail(`lint_wiki failed: ${answer.error.message}`);
		};
		await lint();
		const blocksMs: number[] = [];
		const callsMs: number[] = [];
		for (let run = 0; run < RUNS; run += 1) {
			const histogram = monitorEventLoopDelay({ resolution: 1 });
			let last = performance.now();
			let longestGapMs = 0;
			const probe = window.setInterval(() => {
				const now = performance.now();
				longestGapMs = Math.max(longestGapMs, now - last);
				last = now;
			}, 1);
			histogram.enable();
			const started = performance.now();
			await lint();
			callsMs.push(performance.now() - started);
			histogram.disable();
			window.clearInterval(probe);
			longestGapMs = Math.max(longestGapMs, performance.now() - last);
			blocksMs.push(Math.max(histogram.max / 1e6, longestGapMs));
		}
		client.close();
		return { blocksMs, callsMs, engine };
	} finally {
		plugin.unload();
		if (!withWorker) global["Worker"] = worker;
	}
}

function record(vaultDir: string, figure: string, value: number): void {
	const file = process.env["VAULTLINK_BENCH_FIGURES"];
	if (file === undefined || file === "") return;
	fs.appendFileSync(file, `${JSON.stringify({ vault: path.basename(path.resolve(vaultDir)), figure, value })}\n`);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

async function main(): Promise<void> {
	const vaultDir = process.argv[2];
	if (vaultDir === undefined || process.argv.length > 3) fail("usage: npm run bench:ui-block -- <vault folder>");
	if (!fs.statSync(vaultDir, { throwIfNoEntry: false })?.isDirectory()) fail(`${vaultDir} is not a directory`);
	const mainPath = path.resolve(process.env["VAULTLINK_PLUGIN_MAIN"] ?? path.join(__dirname, "..", "main.js"));
	if (!fs.existsSync(mainPath)) fail(`${mainPath} does not exist; run \`npm run build\` first`);
	// The plugin and the double may log; stdout is kept for the figures.
	console.log = console.error;
	console.info = console.error;
	console.debug = () => undefined;
	const runtime = fs.mkdtempSync(path.join(os.tmpdir(), "vaultlink-ui-"));
	process.env["VAULTLINK_RUNTIME_DIR"] = path.join(runtime, "run");
	redirectObsidian();
	const exported = require(mainPath) as { default?: typeof VaultlinkPlugin } & typeof VaultlinkPlugin;
	const PluginClass = exported.default ?? exported;

	const out = (line: string) => process.stdout.write(`${line}\n`);
	out(`vault: ${path.resolve(vaultDir)}`);
	try {
		for (const withWorker of [true, false]) {
			const measured = await measure(PluginClass, vaultDir, withWorker);
			const longest = Math.max(...measured.blocksMs);
			out(
				`  lint_wiki through the bridge, engine ${measured.engine === "worker" ? "in a Web Worker" : "on the main thread"}: longest UI-thread block ${longest.toFixed(1)} ms over ${RUNS} calls (each: ${measured.blocksMs.map((ms) => ms.toFixed(1)).join(", ")} ms); the call took ${median(measured.callsMs).toFixed(0)} ms (median)`,
			);
			record(vaultDir, withWorker ? "ui_block_lint_ms" : "ui_block_lint_direct_ms", longest);
		}
	} finally {
		fs.rmSync(runtime, { recursive: true, force: true });
	}
	process.exit(0);
}

main().catch((error: unknown) => fail(error instanceof Error ? (error.stack ?? error.message) : String(error)));
