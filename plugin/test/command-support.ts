/**
 * What the tests of the plugin's commands share: the plugin loaded on a fixture vault with the
 * commands' callbacks, the vault's notes without vaultlink's own folder, and waiting for what a
 * command shows. A command's callback returns nothing to wait on (Obsidian's `Command.callback`
 * returns `void`), so a test waits, as its user does, for the modal or notice it shows.
 */

import assert from "node:assert/strict";
import type { TestContext } from "node:test";
import { NotePickerModal } from "../move/modals";
import { App, doublePluginOf, Modal, Notice, whenModalOpens, whenNoticeShown } from "./obsidian-double";
import { lastModal, loadPlugin, snapshotVault, writeFixtureVault, type LoadedPlugin } from "./support";

/** The vault's notes, without vaultlink's own folder (the kept changes). */
export function vaultNotes(vaultDir: string): Record<string, string> {
	return Object.fromEntries(Object.entries(snapshotVault(vaultDir)).filter(([path]) => !path.startsWith(".vaultlink")));
}

/** The plugin on a fresh vault written from `fixture`, unloaded when the test ends. */
export interface OpenedVault extends LoadedPlugin {
	vaultDir: string;
	/** The callback of each command asked for, by the name the test gave it. */
	commands: Record<string, () => unknown>;
}

/**
 * Loads the plugin on a vault written from `fixture` (its index not updated behind the test's
 * back) and returns the callbacks of the commands `ids` names, each checked to be registered.
 */
export async function openVault<Name extends string>(
	t: TestContext,
	fixture: string,
	ids: Record<Name, string>,
): Promise<OpenedVault & { commands: Record<Name, () => unknown> }> {
	const vaultDir = writeFixtureVault(fixture);
	const loaded = await loadPlugin(vaultDir, { debounceMs: 600_000 });
	t.after(() => loaded.plugin.unload());
	const registered = doublePluginOf(loaded.plugin).commands;
	const commands = {} as Record<Name, () => unknown>;
	for (const [name, id] of Object.entries(ids) as [Name, string][]) {
		const callback = registered.get(id)?.callback;
		assert.ok(callback !== undefined, `the command ${id} is registered`);
		commands[name] = callback;
	}
	return { ...loaded, vaultDir, commands };
}

/**
 * Checks that the command `id` is registered as `name` with no default hotkey, and that `id` is
 * still `stableId`: users bind their own hotkeys to it.
 */
export async function checkStableCommand(t: TestContext, fixture: string, id: string, stableId: string, name: string): Promise<void> {
	assert.equal(id, stableId);
	const { plugin } = await loadPlugin(writeFixtureVault(fixture));
	t.after(() => plugin.unload());
	const command = doublePluginOf(plugin).commands.get(id);
	assert.equal(command?.name, name);
	assert.equal(command?.hotkeys, undefined);
}

/** A command that starts by picking a note (move, delete), on its fixture vault. */
export interface PickerCommand {
	vaultDir: string;
	app: App;
	/** Runs the command and returns its first modal, the picker. */
	run(): Modal & NotePickerModal;
}

/** Loads the plugin on a vault written from `fixture`, for the command `id` that opens a note picker. */
export async function openPickerCommand(t: TestContext, fixture: string, id: string): Promise<PickerCommand> {
	const { vaultDir, app, commands } = await openVault(t, fixture, { command: id });
	return {
		vaultDir,
		app,
		run: () => {
			commands.command();
			return lastModal(NotePickerModal);
		},
	};
}

/** Runs `run` and resolves with the first modal or notice shown after it. */
export function shownBy(run: () => unknown): Promise<Modal | Notice> {
	return new Promise((resolve) => {
		const stopWatching = (): void => {
			stopModals();
			stopNotices();
		};
		const stopModals = whenModalOpens((modal) => {
			stopWatching();
			resolve(modal);
		});
		const stopNotices = whenNoticeShown((notice) => {
			stopWatching();
			resolve(notice);
		});
		run();
	});
}

/** Runs `run` (a command) and resolves with the modal it opens, which must be a `kind`. */
export async function modalOpenedBy<T extends object>(run: () => unknown, kind: abstract new (...args: never[]) => T): Promise<Modal & T> {
	const shown = await shownBy(run);
	assert.ok(!(shown instanceof Notice), `a ${kind.name} opens, not the notice "${shown instanceof Notice ? shown.message : ""}"`);
	assert.ok(shown instanceof kind, `a ${kind.name} opens, not a ${shown.constructor.name}`);
	return shown;
}

/** Runs `run` (a command) and resolves with the message of the notice it shows, which must come before any modal. */
export async function noticeShownBy(run: () => unknown): Promise<string> {
	const shown = await shownBy(run);
	assert.ok(shown instanceof Notice, `a notice is shown, not a ${shown.constructor.name}`);
	return shown.message;
}
