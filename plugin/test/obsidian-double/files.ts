/** The `obsidian` double's files (see `index.ts`). */

import type * as obsidian from "obsidian";
import * as path from "path";
import { Vault } from "./vault";

export abstract class TAbstractFile implements obsidian.TAbstractFile {
	// Typed as Obsidian's Vault so a double file is an Obsidian file to the type checker; at run
	// time it is the double's Vault, the only kind that exists here.
	vault: obsidian.Vault;
	path: string;
	name: string;
	parent: TFolder | null;

	constructor(vault: Vault, filePath: string, parent: TFolder | null) {
		this.vault = vault as unknown as obsidian.Vault;
		this.path = filePath;
		this.name = filePath === "/" ? "" : path.posix.basename(filePath);
		this.parent = parent;
	}

	/** Moves the file to `newPath`; the double's `Vault.rename` keeps its maps in step. */
	setPath(newPath: string, parent: TFolder | null): void {
		this.path = newPath;
		this.name = path.posix.basename(newPath);
		this.parent = parent;
	}
}

export class TFile extends TAbstractFile implements obsidian.TFile {
	stat: obsidian.FileStats;
	basename: string;
	extension: string;

	constructor(vault: Vault, filePath: string, parent: TFolder | null, stat: obsidian.FileStats) {
		super(vault, filePath, parent);
		this.stat = stat;
		this.basename = "";
		this.extension = "";
		this.updateNameParts();
	}

	override setPath(newPath: string, parent: TFolder | null): void {
		super.setPath(newPath, parent);
		this.updateNameParts();
	}

	private updateNameParts(): void {
		const dot = this.name.lastIndexOf(".");
		this.basename = dot > 0 ? this.name.slice(0, dot) : this.name;
		this.extension = dot > 0 ? this.name.slice(dot + 1) : "";
	}
}

export class TFolder extends TAbstractFile implements obsidian.TFolder {
	children: TAbstractFile[] = [];

	isRoot(): boolean {
		return this.path === "/";
	}
}
