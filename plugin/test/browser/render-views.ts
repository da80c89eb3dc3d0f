/**
 * The page headless Chromium runs for `views.test.ts`: draws the lint report, the move preview
 * and the delete preview with the plugin's own drawing functions on a real DOM, from the
 * answers the test computed on the sample vault (in `window.VAULTLINK_VIEWS`), and writes each
 * drawing, serialised as the DOM snapshots are, into `<pre id="result">` as JSON.
 */

import { renderDeletePreview } from "../../delete/modals";
import { renderLintReport, type LintReport } from "../../lint/report";
import { renderMovePreview } from "../../move/modals";
import type { DeleteAnswer, MoveAnswer } from "../../wasm";
import { installObsidianDomHelpers, snapshotHTML } from "./dom-helpers";

/** What the test hands the page. */
export interface ViewsData {
	lint: { report: LintReport; notes: string[] };
	move: MoveAnswer;
	delete: DeleteAnswer;
}

declare global {
	interface Window {
		VAULTLINK_VIEWS: ViewsData;
	}
}

function drawn(draw: (container: HTMLElement) => void): string {
	const container = document.body.createDiv();
	draw(container);
	return snapshotHTML(container);
}

installObsidianDomHelpers();
const data = window.VAULTLINK_VIEWS;
const notes = new Set(data.lint.notes);
const result = {
	lint: drawn((container) => {
		renderLintReport(container, data.lint.report, (path) => notes.has(path), () => undefined);
	}),
	move: drawn((container) => renderMovePreview(container, data.move)),
	delete: drawn((container) => renderDeletePreview(container, data.delete)),
};
document.body.createEl("pre", { attr: { id: "result" }, text: JSON.stringify(result) });
