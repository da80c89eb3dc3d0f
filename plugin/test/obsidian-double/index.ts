/**
 * A test double of the `obsidian` module: just enough of Obsidian's API, backed by a real
 * folder on disk, to load the plugin in Node. The test bundles and the test host alias
 * `obsidian` to this file.
 *
 * Each class is held to the real type definitions with `implements` (whole classes where they
 * are small, `Pick<…>` of the members the plugin uses where they are not), so a signature that
 * drifts from Obsidian's fails `tsc`. Each file's import of `obsidian` is type-only and erased,
 * so bundling the double under the alias `obsidian` does not import itself.
 *
 * Its files follow the double's sections: events, paths and timing helpers, files, the adapter
 * and the vault, the app (workspace, metadata cache, file manager), components and plugins,
 * views, elements, keymap scopes and modals, suggest modals, setting components, notices and
 * menus. This file gathers them into the one module the alias names.
 */

export * from "./events";
export * from "./paths";
export * from "./files";
export * from "./vault";
export * from "./app";
export * from "./components";
export * from "./views";
export * from "./elements";
export * from "./modals";
export * from "./suggest";
export * from "./settings";
export * from "./notices";
export * from "./menus";
