/**
 * Makes `require("obsidian")` answer the test double in a process that loads the built main.js
 * (the test host and the benches that run the plugin as Obsidian loads it).
 */

import Module from "module";
import * as double from "./obsidian-double";

type ModuleLoad = (request: string, parent: unknown, isMain: boolean) => unknown;

/** Makes every `require("obsidian")` return the double bundled into the calling program. */
export function redirectObsidian(): void {
	const loader = Module as unknown as { _load: ModuleLoad };
	const originalLoad = loader._load;
	loader._load = function (this: unknown, request, parent, isMain) {
		if (request === "obsidian") return double;
		return originalLoad.call(this, request, parent, isMain);
	};
}
