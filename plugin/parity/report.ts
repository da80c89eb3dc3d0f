/**
 * The parity report over a vault: the parsing comparison of every note (`compare.ts`) and the
 * resolution comparison (`resolution.ts`), their totals, and the report as words, shared by
 * the modal and the console.
 */

import { LINK_FORMS, type LinkForm } from "../wasm";
import { INTENDED_DIFFERENCES, describeDisagreement, describeIntended, emptyFormCounts, type FormCounts, type NoteComparison } from "./compare";
import { describeAmbiguous, describeCount, describeLinkResolution, type NoteResolution } from "./resolution";
import { count } from "../ui/lists";

/** A note left out of a comparison, and why. */
export interface SkippedNote {
	path: string;
	reason: string;
}

export interface ParityTotals {
	notesCompared: number;
	notesSkipped: number;
	notesWithDisagreements: number;
	notesTruncated: number;
	linksAgreeing: number;
	disagreements: number;
	intendedDifferences: number;
	/** Links of each form read alike and not (see `NoteComparison.forms`). */
	forms: FormCounts;
}

export interface ResolutionTotals {
	notesCompared: number;
	notesSkipped: number;
	notesWithDisagreements: number;
	/** Links both sides resolve to the same file, or both to none. */
	linksAgreeing: number;
	/** Links the two sides resolve differently. */
	linkDisagreements: number;
	/** Destinations (files or unresolved link texts) counted differently. */
	countDisagreements: number;
	ambiguousLinks: number;
	/** Ambiguous links where Obsidian picked another file than vaultlink. */
	ambiguousPicksDiffering: number;
	/** Links of each form resolved alike and not. */
	forms: FormCounts;
}

export interface ResolutionReport {
	totals: ResolutionTotals;
	/** Every note whose resolution was compared, in the order given. */
	notes: NoteResolution[];
	skipped: SkippedNote[];
}

export interface ParityReport {
	/** The parsing comparison. */
	totals: ParityTotals;
	/** Every note whose parsing was compared, in the order given. */
	notes: NoteComparison[];
	skipped: SkippedNote[];
	resolution: ResolutionReport;
}

/** The totals over every compared note. */
export function summarise(
	notes: NoteComparison[],
	skipped: SkippedNote[],
	resolutions: NoteResolution[] = [],
	resolutionSkipped: SkippedNote[] = [],
): ParityReport {
	const totals: ParityTotals = {
		notesCompared: notes.length,
		notesSkipped: skipped.length,
		notesWithDisagreements: notes.filter((note) => note.disagreements.length > 0).length,
		notesTruncated: notes.filter((note) => note.truncated).length,
		linksAgreeing: 0,
		disagreements: 0,
		intendedDifferences: 0,
		forms: emptyFormCounts(),
	};
	for (const note of notes) {
		totals.linksAgreeing += note.agreeing;
		addForms(totals.forms, note.forms);
		totals.disagreements += note.disagreements.length;
		totals.intendedDifferences += note.intended.length;
	}
	const resolutionTotals: ResolutionTotals = {
		notesCompared: resolutions.length,
		notesSkipped: resolutionSkipped.length,
		notesWithDisagreements: resolutions.filter(hasResolutionDisagreements).length,
		linksAgreeing: 0,
		linkDisagreements: 0,
		countDisagreements: 0,
		ambiguousLinks: 0,
		ambiguousPicksDiffering: 0,
		forms: emptyFormCounts(),
	};
	for (const note of resolutions) {
		resolutionTotals.linksAgreeing += note.agreeing;
		addForms(resolutionTotals.forms, note.forms);
		resolutionTotals.linkDisagreements += note.links.length;
		resolutionTotals.countDisagreements += note.counts.length;
		resolutionTotals.ambiguousLinks += note.ambiguous.length;
		resolutionTotals.ambiguousPicksDiffering += note.ambiguous.filter((link) => link.vaultlink !== link.obsidian).length;
	}
	return { totals, notes, skipped, resolution: { totals: resolutionTotals, notes: resolutions, skipped: resolutionSkipped } };
}

function addForms(total: FormCounts, note: FormCounts): void {
	for (const form of LINK_FORMS) {
		total[form].agreeing += note[form].agreeing;
		total[form].disagreeing += note[form].disagreeing;
	}
}

const FORM_NAMES: Record<LinkForm, string> = {
	relative: "relative wikilinks",
	json_frontmatter: "links in JSON frontmatter",
	block_scalar: "links in block scalars",
};

/** `relative wikilinks: 3 alike, 1 not`, for each form the vault has links of. */
function describeForms(forms: FormCounts, alike: string): string[] {
	return LINK_FORMS.filter((form) => forms[form].agreeing + forms[form].disagreeing > 0).map(
		(form) => `${FORM_NAMES[form]}: ${forms[form].agreeing} ${alike}, ${forms[form].disagreeing} not`,
	);
}

export function hasResolutionDisagreements(note: NoteResolution): boolean {
	return note.links.length > 0 || note.counts.length > 0;
}

/** The lines of a note's resolution disagreements: the links first, then the counts. */
export function describeResolutionDisagreements(note: NoteResolution): string[] {
	return [...note.links.map(describeLinkResolution), ...note.counts.map(describeCount)];
}

/** The parsing counts as short phrases: `12 notes compared`, `3 disagreements`. */
export function describeTotals(totals: ParityTotals): string[] {
	return [
		count(totals.notesCompared, "note compared", "notes compared"),
		count(totals.linksAgreeing, "link read alike", "links read alike"),
		`${count(totals.disagreements, "disagreement", "disagreements")} in ${count(totals.notesWithDisagreements, "note", "notes")}`,
		count(totals.intendedDifferences, "intended difference", "intended differences"),
		count(totals.notesSkipped, "note skipped", "notes skipped"),
		count(totals.notesTruncated, "note over vaultlink's link limit", "notes over vaultlink's link limit"),
		...describeForms(totals.forms, "read alike"),
	];
}

/** The resolution counts as short phrases. */
export function describeResolutionTotals(totals: ResolutionTotals): string[] {
	return [
		count(totals.notesCompared, "note compared", "notes compared"),
		count(totals.linksAgreeing, "link resolved alike", "links resolved alike"),
		`${count(totals.linkDisagreements, "link resolved differently", "links resolved differently")} and ${count(totals.countDisagreements, "destination counted differently", "destinations counted differently")}, in ${count(totals.notesWithDisagreements, "note", "notes")}`,
		`${count(totals.ambiguousLinks, "ambiguous link", "ambiguous links")}, ${totals.ambiguousPicksDiffering} where Obsidian picks another file`,
		count(totals.notesSkipped, "note skipped", "notes skipped"),
		...describeForms(totals.forms, "resolved alike"),
	];
}

/** The whole report as plain text, for the console. */
export function formatReport(report: ParityReport): string {
	const lines = ["vaultlink: link parsing compared with Obsidian", ...describeTotals(report.totals).map((phrase) => `  ${phrase}`)];
	lines.push("", "Disagreements:");
	const withDisagreements = report.notes.filter((note) => note.disagreements.length > 0);
	if (withDisagreements.length === 0) lines.push("  none");
	for (const note of withDisagreements) {
		lines.push(`  ${note.path}${note.truncated ? " (over vaultlink's link limit)" : ""}`);
		for (const disagreement of note.disagreements) lines.push(`    ${describeDisagreement(disagreement)}`);
	}
	lines.push("", "Intended differences:");
	for (const explanation of Object.values(INTENDED_DIFFERENCES)) lines.push(`  (${explanation})`);
	const withIntended = report.notes.filter((note) => note.intended.length > 0);
	if (withIntended.length === 0) lines.push("  none");
	for (const note of withIntended) {
		lines.push(`  ${note.path}`);
		for (const difference of note.intended) lines.push(`    ${describeIntended(difference)}`);
	}
	if (report.skipped.length > 0) {
		lines.push("", "Skipped:");
		for (const skipped of report.skipped) lines.push(`  ${skipped.path}: ${skipped.reason}`);
	}

	const resolution = report.resolution;
	lines.push("", "vaultlink: link resolution compared with Obsidian", ...describeResolutionTotals(resolution.totals).map((phrase) => `  ${phrase}`));
	lines.push("", "Resolution disagreements:");
	const withResolutionDisagreements = resolution.notes.filter(hasResolutionDisagreements);
	if (withResolutionDisagreements.length === 0) lines.push("  none");
	for (const note of withResolutionDisagreements) {
		lines.push(`  ${note.path}${note.countsCompared ? "" : " (over vaultlink's link limit: counts not compared)"}`);
		for (const line of describeResolutionDisagreements(note)) lines.push(`    ${line}`);
	}
	lines.push("", "Ambiguous links:");
	const withAmbiguous = resolution.notes.filter((note) => note.ambiguous.length > 0);
	if (withAmbiguous.length === 0) lines.push("  none");
	for (const note of withAmbiguous) {
		lines.push(`  ${note.path}`);
		for (const link of note.ambiguous) lines.push(`    ${describeAmbiguous(link)}`);
	}
	if (resolution.skipped.length > 0) {
		lines.push("", "Resolution skipped:");
		for (const skipped of resolution.skipped) lines.push(`  ${skipped.path}: ${skipped.reason}`);
	}
	return lines.join("\n");
}
