//! The `delete_note` tool inside Obsidian: core plans the delete from the note's current text
//! and decides on the request, as the sidecar's `apply::delete_note` does on the folder; this
//! module reads the note, moves it to Obsidian's trash with `fileManager.trashFile` (which
//! follows the user's "Deleted files" setting) and hands back what was deleted.

import { TFile } from "obsidian";
import { saveOpenEditors } from "../editors";
import type { ToolHost } from "../host";
import {
	captureNote,
	conciseDeleteAnswer,
	contentHash,
	decideDelete,
	planDelete,
	type DeleteRequest,
	type ToolError,
	type ToolOutcome,
} from "../wasm";

const PARAMETERS = ["path", "confirm", "force", "expected_hash", "expected_mtime", "approved_plan_hash", "response_format"];

/** Where a note deleted inside Obsidian goes, as the answer's `trashed_to` says. */
export const OBSIDIAN_TRASH = "Obsidian's trash (as its Files and links settings choose)";

function invalid(message: string): ToolOutcome {
	return {
		ok: false,
		error: { code: "invalid_arguments", message, hint: "See the input schema of `delete_note` in tools/list.", retryable: false },
	};
}

/** Checks the arguments as the sidecar's schema does, and reads them into core's request. */
function readArguments(args: unknown): { path: string; request: DeleteRequest; concise: boolean } | ToolOutcome {
	const given: unknown = args ?? {};
	if (typeof given !== "object" || given === null || Array.isArray(given)) return invalid("the arguments must be a JSON object");
	const record = given as Record<string, unknown>;
	for (const key of Object.keys(record)) {
		if (!PARAMETERS.includes(key)) return invalid(`unknown parameter \`${key}\`; \`delete_note\` takes: ${PARAMETERS.join(", ")}`);
	}
	if (typeof record["path"] !== "string") return invalid("missing parameter `path`, a string");
	for (const key of ["confirm", "force"]) {
		if (key in record && typeof record[key] !== "boolean") return invalid(`parameter \`${key}\` must be a boolean`);
	}
	for (const key of ["expected_hash", "approved_plan_hash", "response_format"]) {
		if (key in record && typeof record[key] !== "string") return invalid(`parameter \`${key}\` must be a string`);
	}
	const mtime = record["expected_mtime"];
	if (mtime !== undefined && !(typeof mtime === "number" && Number.isInteger(mtime) && mtime >= 0)) {
		return invalid("parameter `expected_mtime` must be a whole number of milliseconds");
	}
	const request: DeleteRequest = { confirm: record["confirm"] === true, force: record["force"] === true };
	if (typeof record["expected_hash"] === "string") request.expected_hash = record["expected_hash"];
	if (typeof mtime === "number") request.expected_mtime = mtime;
	if (typeof record["approved_plan_hash"] === "string") request.approved_plan_hash = record["approved_plan_hash"];
	return { path: record["path"], request, concise: record["response_format"] === "concise" };
}

export async function deleteNote(host: ToolHost, args: unknown): Promise<ToolOutcome> {
	const parsed = readArguments(args);
	if ("ok" in parsed) return parsed;
	await host.settle();
	const vault = host.app.vault;
	// A note open with unsaved text is saved first: the plan, the captured text and the trash get
	// what the user sees, and no editor saves into a note that was just deleted.
	const editing = host.index.findNote(parsed.path);
	if (editing !== undefined) {
		const saved = await saveOpenEditors(host.app, [editing]);
		if (!saved.ok) return saved;
		if (saved.saved.length > 0) await host.settle();
	}
	const found = host.index.findNote(parsed.path);
	const file = found === undefined ? null : vault.getAbstractFileByPath(found);
	const text = file instanceof TFile ? await vault.read(file) : "";
	const planned = planDelete(host.index, found ?? parsed.path, text);
	if (!planned.ok) return planned;
	const decision = decideDelete(planned.plan, parsed.request, file instanceof TFile ? file.stat.mtime : undefined);
	let answer = decision.answer;
	if (decision.delete && file instanceof TFile) {
		// The text may have changed between the read and now; never trash what was not seen.
		if (contentHash(await vault.read(file)) !== planned.plan.content_hash) {
			const error: ToolError = {
				code: "concurrent_modification",
				message: `\`${file.path}\` changed while it was being deleted; nothing was deleted`,
				hint: "Preview the delete again, then confirm.",
				retryable: true,
			};
			return { ok: false, error };
		}
		try {
			await host.app.fileManager.trashFile(file);
		} catch (error) {
			return {
				ok: false,
				error: {
					code: "write_failed",
					message: `moving \`${file.path}\` to the trash failed (${error instanceof Error ? error.message : String(error)}); nothing was deleted`,
					hint: "Check the vault folder's permissions, then try again.",
					retryable: true,
				},
			};
		}
		answer = { ...answer, captured: captureNote(text), trashed_to: OBSIDIAN_TRASH };
		await host.settle();
	}
	return { ok: true, result: parsed.concise ? conciseDeleteAnswer(answer) : answer };
}
