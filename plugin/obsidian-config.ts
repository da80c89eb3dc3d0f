//! Makes the link index follow Obsidian's own settings (excluded files, attachment folder, new
//! link format) from `.obsidian/app.json`, read through the adapter. Core reads the text, the
//! same way the sidecar does on the folder, so both paths answer alike.

import { normalizePath, type App } from "obsidian";
import type { Vault as LinkIndex } from "./wasm";

export async function applyObsidianConfig(app: App, index: LinkIndex): Promise<void> {
	const path = normalizePath(`${app.vault.configDir}/app.json`);
	if (!(await app.vault.adapter.exists(path))) return;
	let text: string;
	try {
		text = await app.vault.adapter.read(path);
	} catch (error) {
		console.warn(`vaultlink: could not read ${path}; using Obsidian's defaults`, error);
		return;
	}
	for (const warning of index.configureFromObsidian(text)) {
		console.warn(`vaultlink: ${warning}`);
	}
}
