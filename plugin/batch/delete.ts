/**
 * Carries out core's decision to delete a note inside Obsidian: moves it to Obsidian's trash with
 * `fileManager.trashFile` (which follows the user's "Deleted files" setting), if it still holds
 * the text core planned the delete on, as the sidecar's `apply::trash_on` does on the folder.
 */

import { TFile, type App } from "obsidian";
import type { StepOutcome } from "./execute";
import { firstLinkOnTheWay } from "../move/links-out";
import { stepError } from "../wasm";
import { messageOf } from "../ui/notice";

/** Where a note deleted inside Obsidian goes, as the answer's `trashed_to` says. */
export const OBSIDIAN_TRASH = "Obsidian's trash (as its Files and links settings choose)";

/**
 * Why the note at `path` may not go to the trash now, or `null`: one of core's `guard` paths is
 * reached through a symbolic link, or the note no longer holds `before` (the text may have
 * changed between the read and now; never trash what was not seen).
 */
export async function trashRefusal(app: App, path: string, before: string, guard: readonly string[]): Promise<StepOutcome | null> {
	const linked = firstLinkOnTheWay(app.vault.adapter, guard);
	if (linked !== null) return { ok: false, error: stepError({ kind: "through_link", ...linked }) };
	const file = app.vault.getAbstractFileByPath(path);
	if (!(file instanceof TFile) || (await app.vault.read(file)) !== before) return { ok: false, error: stepError({ kind: "changed_before_trash", path }) };
	return null;
}

/**
 * Moves the note at `path` to the trash if it still holds `before` and none of core's `guard`
 * paths (the note, the trash folder) is reached through a symbolic link (`../move/links-out.ts`).
 */
export async function trashNote(app: App, path: string, before: string, guard: readonly string[]): Promise<StepOutcome> {
	const refused = await trashRefusal(app, path, before, guard);
	if (refused !== null) return refused;
	const file = app.vault.getAbstractFileByPath(path);
	if (!(file instanceof TFile)) return { ok: false, error: stepError({ kind: "changed_before_trash", path }) };
	try {
		await app.fileManager.trashFile(file);
	} catch (error) {
		return { ok: false, error: stepError({ kind: "trash_failed", path, why: messageOf(error) }) };
	}
	return { ok: true, trashedTo: OBSIDIAN_TRASH };
}
