/**
 * The `LinkEngine` on the calling thread: the same requests answered by the same
 * `EngineService`, without a worker. The fallback where a worker cannot be made (each call then
 * holds up the UI thread while it runs), and the reference the worker path is tested against.
 * Needs `loadEngine` to have finished.
 */

import { engineMemoryBytes } from "../wasm";
import { LinkEngine } from "./client";
import type { EngineMessage } from "./protocol";
import { EngineHost, EngineService } from "./service";

export class DirectEngine extends LinkEngine {
	readonly kind = "direct";
	/** Why the engine runs on this thread rather than in a worker, when it is the fallback. */
	readonly reason: string | null;
	private readonly host: EngineHost;

	constructor(reason: string | null = null) {
		super();
		this.reason = reason;
		this.host = new EngineHost(new EngineService(engineMemoryBytes), (reply) => this.receive(reply));
	}

	protected post(message: EngineMessage): void {
		this.host.answer(message);
	}

	dispose(): void {
		this.host.free();
	}
}
