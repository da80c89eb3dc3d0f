/**
 * The "Check links of the current note" command: the note open in the editor, its outgoing
 * links with the ones that need attention first, and how many links point to it, from the
 * plugin's index (`outgoingLinks`, `get_backlinks`). Only offered while a note is open.
 */

import { Notice, Plugin, type App, type TFile } from "obsidian";
import type { LinkEngine } from "../engine/client";
import { LinkCheckModal } from "./modal";
import { checkLinks, type LinkCheck } from "./report";
import { messageOf, ERROR_NOTICE_MS, noticeIndexNotLoaded } from "../ui/notice";

/** Stable: users bind hotkeys to it. */
export const CHECK_LINKS_COMMAND_ID = "check-links-of-current-note";

export function registerCheckLinksCommand(plugin: Plugin, settledIndex: () => Promise<LinkEngine | null>): { running: Promise<void> | null } {
	const state: { running: Promise<void> | null } = { running: null };
	plugin.addCommand({
		id: CHECK_LINKS_COMMAND_ID,
		name: "Check links of the current note",
		checkCallback: (checking) => {
			const file = plugin.app.workspace.getActiveFile();
			if (file === null || file.extension !== "md") return false;
			if (!checking) {
				state.running = showLinkCheck(plugin.app, settledIndex, file).catch((error: unknown) => {
					console.error("vaultlink: could not check the note's links", error);
					new Notice(`vaultlink: could not check the links of ${file.path}: ${messageOf(error)}`, ERROR_NOTICE_MS);
				});
			}
			return true;
		},
	});
	return state;
}

/** Checks `file`'s links on the index and opens the modal, or says why it cannot. */
export async function showLinkCheck(app: App, settledIndex: () => Promise<LinkEngine | null>, file: TFile): Promise<void> {
	const index = await settledIndex();
	if (index === null) {
		noticeIndexNotLoaded();
		return;
	}
	const check = await linkCheckOf(index, file.path);
	if (typeof check === "string") {
		new Notice(`vaultlink: ${check}`, ERROR_NOTICE_MS);
		return;
	}
	new LinkCheckModal(app, check, (line) => void app.workspace.openLinkText(file.path, "", false, { eState: { line: line - 1 } })).open();
}

/** The check of the note at `path`, or a sentence saying why there is none. */
export async function linkCheckOf(index: LinkEngine, path: string): Promise<LinkCheck | string> {
	let outgoing;
	try {
		outgoing = await index.outgoingLinks(path);
	} catch {
		return `${path} is not in the link index yet; wait for indexing to finish, then run the command again.`;
	}
	const backlinks = await index.call("get_backlinks", { path, limit: 1 });
	if (!backlinks.ok) return `could not count the links to ${path}: ${backlinks.error.message}. ${backlinks.error.hint}`;
	return checkLinks(path, outgoing.links, (backlinks.result as { total: number }).total, outgoing.truncated);
}
