/**
 * Notes open in an editor. Obsidian keeps what is typed in the editor and saves it about two
 * seconds later; a tool that rewrote such a note from its file would plan from stale text, and
 * the editor's save would then write over the rewrite. So before a writing tool plans, it saves
 * the open editors of the notes it reads (`saveOpenEditors`), and refuses if one cannot be saved.
 */

import { MarkdownView, TFile, type App } from "obsidian";
import type { ToolError } from "./wasm";
import { ErrorCode } from "./error-codes";
import { messageOf } from "./ui/notice";

/** The Markdown editors open on a note among `paths`. */
function editorsOf(app: App, paths: ReadonlySet<string>): MarkdownView[] {
	const views: MarkdownView[] = [];
	app.workspace.iterateAllLeaves((leaf) => {
		const view = leaf.view;
		if (view instanceof MarkdownView && view.file instanceof TFile && paths.has(view.file.path)) views.push(view);
	});
	return views;
}

/**
 * Saves every open editor of a note among `paths` that holds text its file does not, so that
 * what a plan reads is what the user sees. Returns the paths saved (the caller lets the index
 * catch up with them), or the error to answer when one could not be saved.
 */
export async function saveOpenEditors(app: App, paths: Iterable<string>): Promise<{ ok: true; saved: string[] } | { ok: false; error: ToolError }> {
	const saved: string[] = [];
	for (const view of editorsOf(app, new Set(paths))) {
		const file = view.file;
		if (file === null) continue;
		let unsaved: boolean;
		try {
			unsaved = view.getViewData() !== (await app.vault.read(file));
		} catch {
			// The file cannot be read: whatever the editor holds is the only copy; save it.
			unsaved = true;
		}
		if (!unsaved) continue;
		try {
			await view.save();
		} catch (error) {
			return {
				ok: false,
				error: {
					code: ErrorCode.WriteFailed,
					message: `\`${file.path}\` is open in an editor with unsaved changes, which could not be saved (${messageOf(error)}); nothing was changed`,
					hint: "Save the note in Obsidian (or close its tab), then try again.",
					retryable: true,
				},
			};
		}
		saved.push(file.path);
	}
	return { ok: true, saved };
}
