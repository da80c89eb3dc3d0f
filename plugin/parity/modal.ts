/**
 * Shows a link parity report: the summary counts, the disagreements grouped by note, and the
 * intended differences with why they are intended; then the same for resolution, and every
 * ambiguous link with the file each side picked. A Modal, so Escape closes it.
 */

import { App, Modal } from "obsidian";
import { INTENDED_DIFFERENCES, describeDisagreement, describeIntended } from "./compare";
import {
	describeResolutionDisagreements,
	describeResolutionTotals,
	describeTotals,
	hasResolutionDisagreements,
	type ParityReport,
} from "./report";
import { describeAmbiguous } from "./resolution";

/**
 * Items listed per section. A vault where every link disagrees could otherwise build a list of
 * many thousands of elements; the console has the full report.
 */
export const MAX_LISTED_ITEMS = 500;

export class LinkParityModal extends Modal {
	private readonly report: ParityReport;

	constructor(app: App, report: ParityReport) {
		super(app);
		this.report = report;
	}

	override onOpen(): void {
		this.setTitle("Link parsing compared with Obsidian");
		renderReport(this.contentEl, this.report);
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}

/** Renders `report` into `container`, replacing what was there. */
export function renderReport(container: HTMLElement, report: ParityReport, maxListedItems = MAX_LISTED_ITEMS): void {
	container.empty();
	const summary = container.createEl("ul", { cls: "vaultlink-parity-summary" });
	for (const phrase of describeTotals(report.totals)) summary.createEl("li", { text: phrase });

	container.createEl("h3", { text: "Disagreements" });
	renderByNote(
		container,
		report.notes
			.filter((note) => note.disagreements.length > 0)
			.map((note) => ({
				heading: note.truncated ? `${note.path} (over vaultlink's link limit)` : note.path,
				lines: note.disagreements.map(describeDisagreement),
			})),
		"None: every link is read alike, apart from the intended differences below.",
		maxListedItems,
	);

	container.createEl("h3", { text: "Intended differences" });
	const explanations = container.createEl("ul");
	for (const explanation of Object.values(INTENDED_DIFFERENCES)) explanations.createEl("li", { text: explanation });
	renderByNote(
		container,
		report.notes
			.filter((note) => note.intended.length > 0)
			.map((note) => ({ heading: note.path, lines: note.intended.map(describeIntended) })),
		"None in this vault.",
		maxListedItems,
	);

	if (report.skipped.length > 0) {
		container.createEl("h3", { text: "Skipped" });
		const list = container.createEl("ul");
		for (const skipped of report.skipped.slice(0, maxListedItems)) list.createEl("li", { text: `${skipped.path}: ${skipped.reason}` });
	}

	renderResolution(container, report, maxListedItems);
}

function renderResolution(container: HTMLElement, report: ParityReport, maxListedItems: number): void {
	const resolution = report.resolution;
	container.createEl("h3", { text: "Resolution" });
	const summary = container.createEl("ul", { cls: "vaultlink-parity-summary" });
	for (const phrase of describeResolutionTotals(resolution.totals)) summary.createEl("li", { text: phrase });

	container.createEl("h3", { text: "Resolution disagreements" });
	renderByNote(
		container,
		resolution.notes.filter(hasResolutionDisagreements).map((note) => ({
			heading: note.countsCompared ? note.path : `${note.path} (over vaultlink's link limit: counts not compared)`,
			lines: describeResolutionDisagreements(note),
		})),
		"None: every link points to the same file on both sides.",
		maxListedItems,
	);

	container.createEl("h3", { text: "Ambiguous links" });
	renderByNote(
		container,
		resolution.notes
			.filter((note) => note.ambiguous.length > 0)
			.map((note) => ({ heading: note.path, lines: note.ambiguous.map(describeAmbiguous) })),
		"None: no link matches more than one file.",
		maxListedItems,
	);

	if (resolution.skipped.length > 0) {
		container.createEl("h3", { text: "Resolution skipped" });
		const list = container.createEl("ul");
		for (const skipped of resolution.skipped.slice(0, maxListedItems)) list.createEl("li", { text: `${skipped.path}: ${skipped.reason}` });
	}
}

/** A heading per note and a list of its lines, at most `maxListedItems` lines in all. */
function renderByNote(container: HTMLElement, notes: { heading: string; lines: string[] }[], none: string, maxListedItems: number): void {
	if (notes.length === 0) container.createEl("p", { text: none });
	let listed = 0;
	for (const note of notes) {
		if (listed >= maxListedItems) break;
		container.createEl("h4", { text: note.heading });
		const list = container.createEl("ul");
		for (const line of note.lines) {
			if (listed >= maxListedItems) break;
			list.createEl("li", { text: line });
			listed += 1;
		}
	}
	const total = notes.reduce((sum, note) => sum + note.lines.length, 0);
	if (listed < total) container.createEl("p", { text: `${total - listed} more not listed here; the developer console has the full report (at its Verbose level).` });
}
