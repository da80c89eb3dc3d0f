/**
 * The bridge's paths: discovery folder, key, socket and discovery file, as docs/bridge.md
 * states them (the sidecar derives the same ones on its side).
 */

import assert from "node:assert/strict";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { MAX_SOCKET_PATH_BYTES, bridgePaths, canonicalForm, canonicalVaultPath, discoveryDirectory, keyOfCanonicalPath, runtimeDirectory, type PathEnvironment } from "../bridge/paths";
import { stateDirectory, userHome } from "../state";
import { REPO_ROOT, temporaryDirectory } from "./support";

function environment(env: Record<string, string>, platform: NodeJS.Platform = "linux", home = "/home/ada"): PathEnvironment {
	return { env, platform, uid: 1000, tmpdir: platform === "win32" ? "C:\\Temp" : "/tmp", home };
}

function checkDiscoveryDirectory(env: Record<string, string>, platform: NodeJS.Platform, home: string, expected: string): void {
	assert.equal(discoveryDirectory(environment(env, platform, home)), expected, `${platform} ${JSON.stringify(env)}`);
}

test("the discovery folder is found from the home folder alone, in the user's vaultlink folder; VAULTLINK_RUNTIME_DIR overrides it", () => {
	// A desktop session's XDG_RUNTIME_DIR, which an MCP client's sidecar does not get, changes nothing.
	checkDiscoveryDirectory({ XDG_RUNTIME_DIR: "/run/user/1000" }, "linux", "/home/ada", "/home/ada/.local/state/vaultlink/bridge");
	checkDiscoveryDirectory({}, "linux", "/home/ada", "/home/ada/.local/state/vaultlink/bridge");
	checkDiscoveryDirectory({ VAULTLINK_RUNTIME_DIR: "" }, "freebsd", "/home/ada", "/home/ada/.local/state/vaultlink/bridge");
	checkDiscoveryDirectory({ XDG_RUNTIME_DIR: "/run/user/501" }, "darwin", "/Users/ada", "/Users/ada/Library/Application Support/vaultlink/bridge");
	checkDiscoveryDirectory({ LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local" }, "win32", "C:\\Users\\ada", "C:\\Users\\ada\\AppData\\Local\\vaultlink\\bridge");
	checkDiscoveryDirectory({ USERPROFILE: "C:\\Users\\ada" }, "win32", "C:\\Users\\ada", "C:\\Users\\ada\\AppData\\Local\\vaultlink\\bridge");
	checkDiscoveryDirectory({ VAULTLINK_RUNTIME_DIR: "/custom", XDG_RUNTIME_DIR: "/run/user/1000" }, "linux", "/home/ada", "/custom");
	checkDiscoveryDirectory({ VAULTLINK_RUNTIME_DIR: "D:\\rt", LOCALAPPDATA: "C:\\x" }, "win32", "C:\\Users\\ada", "D:\\rt");
});

test("a socket too long for its path beside the discovery file goes to the private runtime directory", () => {
	assert.equal(runtimeDirectory(environment({ XDG_RUNTIME_DIR: "/run/user/1000" })), "/run/user/1000/vaultlink");
	// Without one there is no fixed fallback: a folder of a fresh random name is made (below).
	assert.equal(runtimeDirectory(environment({})), null);
	const vault = temporaryDirectory("paths");
	const short = bridgePaths(vault, environment({ XDG_RUNTIME_DIR: "/run/user/1000" }, "linux", "/home/ada"));
	assert.equal(short.socketPath, `/home/ada/.local/state/vaultlink/bridge/${short.key}.sock`);
	assert.equal(short.socketDir, short.discoveryDir);
	const deep = `/home/${"a".repeat(60)}`;
	const long = bridgePaths(vault, environment({ XDG_RUNTIME_DIR: "/run/user/1000" }, "linux", deep));
	assert.equal(long.discoveryPath, `${deep}/.local/state/vaultlink/bridge/${long.key}.json`);
	assert.equal(long.socketPath, `/run/user/1000/vaultlink/${long.key}.sock`);
	assert.ok(Buffer.byteLength(long.socketPath) <= MAX_SOCKET_PATH_BYTES);
});

// Issue 34: the fallback `<tmpdir>/vaultlink-<uid>` could be made first by another user (a
// squatted folder the plugin then refused, or used). Without XDG_RUNTIME_DIR, a socket too long
// beside the discovery file goes to a folder of a fresh random name, made private (0700) by
// mkdtemp, which the discovery file names.
test("without XDG_RUNTIME_DIR a long socket path goes to a fresh private folder of a random name", () => {
	const vault = temporaryDirectory("paths");
	const tmpdir = temporaryDirectory("tmp");
	const uid = process.getuid?.() ?? 1000;
	fs.mkdirSync(path.join(tmpdir, `vaultlink-${uid}`), { mode: 0o777 });
	const deep = `/home/${"a".repeat(60)}`;
	const fresh = (): ReturnType<typeof bridgePaths> => bridgePaths(vault, { env: {}, platform: "linux", uid, tmpdir, home: deep });
	const first = fresh();
	const second = fresh();
	for (const paths of [first, second]) {
		assert.equal(path.dirname(paths.socketDir), tmpdir);
		assert.match(path.basename(paths.socketDir), /^vaultlink-[A-Za-z0-9]{6}$/);
		assert.equal(paths.socketPath, `${paths.socketDir}/${paths.key}.sock`);
		assert.ok(paths.socketDirIsFresh);
		const stat = fs.lstatSync(paths.socketDir);
		assert.ok(stat.isDirectory() && !stat.isSymbolicLink());
		assert.equal(stat.mode & 0o777, 0o700);
		assert.equal(stat.uid, uid);
	}
	assert.notEqual(first.socketDir, second.socketDir, "a new name each time");
	// A path that fits beside the discovery file, or a desktop session's runtime folder, makes none.
	const beside = bridgePaths(vault, { env: {}, platform: "linux", uid, tmpdir, home: "/home/ada" });
	assert.ok(!beside.socketDirIsFresh && beside.socketDir === beside.discoveryDir);
	const before = fs.readdirSync(tmpdir).length;
	assert.ok(!bridgePaths(vault, environment({ XDG_RUNTIME_DIR: "/run/user/1000" }, "linux", deep)).socketDirIsFresh);
	assert.equal(fs.readdirSync(tmpdir).length, before);
});

test("a Snap's home of its own gives way to the real home the sidecar sees", () => {
	assert.equal(userHome({ SNAP_REAL_HOME: "/home/ada" }, "/home/ada/snap/obsidian/42"), "/home/ada");
	assert.equal(userHome({ SNAP_REAL_HOME: "" }, "/home/ada"), "/home/ada");
	assert.equal(userHome({}, "/home/ada"), "/home/ada");
});

/** The cases the sidecar's `discovery::tests` reads too. */
interface VaultKeyCase {
	style: "posix" | "windows";
	input: string;
	canonical: string;
	key: string;
}

test("the shared vectors give the sidecar's canonical forms and keys, Windows paths included", () => {
	const file = path.join(__dirname, "..", "..", "tests", "vectors", "vault_keys.json");
	const { cases } = JSON.parse(fs.readFileSync(file, "utf8")) as { cases: VaultKeyCase[] };
	assert.ok(cases.length >= 20);
	for (const { style, input, canonical, key } of cases) {
		const platform = style === "windows" ? "win32" : "linux";
		const form = canonicalForm(input, platform);
		assert.equal(form, canonical, input);
		assert.equal(keyOfCanonicalPath(form), key, input);
		assert.equal(canonicalForm(form, platform), form, `a canonical form is its own: ${input}`);
	}
});

test("the key is the first 16 hex digits of the SHA-256 of the canonical path", () => {
	// The same pair as the sidecar's test in crates/sidecar/src/discovery.rs.
	assert.equal(keyOfCanonicalPath("/vault"), "27d33c883a0ee639");
	const unicode = "/home/ada/Notizbücher/Tresor";
	assert.equal(keyOfCanonicalPath(unicode), crypto.createHash("sha256").update(Buffer.from(unicode, "utf8")).digest("hex").slice(0, 16));
});

test("every name of a vault, through symbolic links or relative segments, gives one key", () => {
	const base = temporaryDirectory("paths");
	const vault = path.join(base, "vault");
	fs.mkdirSync(vault);
	fs.symlinkSync(vault, path.join(base, "link"));
	const env = environment({ VAULTLINK_RUNTIME_DIR: "/rt" });
	const canonical = fs.realpathSync(vault);
	const expected = {
		vaultPath: canonical,
		key: keyOfCanonicalPath(canonical),
		discoveryDir: "/rt",
		socketDir: "/rt",
		socketDirIsFresh: false,
		socketPath: `/rt/${keyOfCanonicalPath(canonical)}.sock`,
		discoveryPath: `/rt/${keyOfCanonicalPath(canonical)}.json`,
	};
	for (const name of [vault, path.join(base, "link"), path.join(base, "link", "..", "vault"), `${vault}/`]) {
		assert.deepEqual(bridgePaths(name, env), expected, name);
	}
});

/**
 * macOS's disk ignores case and keeps it: a vault handed in as `/users/ada/vault` is the folder
 * `/Users/Ada/Vault`. Node's `realpathSync` answers with the casing it was handed; the native
 * call (realpath(3)), as the sidecar's `canonicalize`, with the disk's. This Linux disk heeds
 * case, so the native call is given macOS's answer for the test.
 */
test("the vault key is taken from the disk's casing, as the sidecar takes it (issue 35, macOS)", () => {
	const vectors = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "tests", "vectors", "vault_keys.json"), "utf8")) as { cases: { input: string; key: string }[] };
	const keyOf = (input: string) => vectors.cases.find((found) => found.input === input)?.key;
	const onDisk = "/Users/Ada/Vault";
	const handed = "/users/ada/vault";
	assert.ok(keyOf(onDisk) !== undefined && keyOf(handed) !== undefined && keyOf(onDisk) !== keyOf(handed), "the two casings have two keys");
	// Only the native call is given macOS's answer; Node's own, on this disk, finds no `/users`.
	const asSystem = fs.realpathSync.native;
	const mutableRealpath = fs.realpathSync as { native: (input: fs.PathLike) => string };
	mutableRealpath.native = (input) => (String(input).toLowerCase() === onDisk.toLowerCase() ? onDisk : asSystem(input));
	try {
		assert.equal(canonicalVaultPath(handed, "darwin"), onDisk);
		assert.equal(bridgePaths(handed, { ...environment({ VAULTLINK_RUNTIME_DIR: "/rt" }, "darwin"), home: "/Users/ada" }).key, keyOf(onDisk), "the sidecar's key");
	} finally {
		mutableRealpath.native = asSystem;
	}
});

test("on Windows the socket is a named pipe named by the key", () => {
	const vault = temporaryDirectory("paths");
	const paths = bridgePaths(vault, environment({ LOCALAPPDATA: "C:\\Local" }, "win32"));
	assert.equal(paths.socketPath, `\\\\.\\pipe\\vaultlink-${paths.key}`);
	assert.equal(paths.discoveryPath, `C:\\Local\\vaultlink\\bridge\\${paths.key}.json`);
});

test("on Windows the user's folder is the real %LOCALAPPDATA%'s, also when an MSIX package's private copy is named (issue 41, the shared vectors)", () => {
	const file = path.join(REPO_ROOT, "tests", "vectors", "state_dirs.json");
	const vectors = JSON.parse(fs.readFileSync(file, "utf8")) as { cases: { LOCALAPPDATA: string | null; USERPROFILE: string; state: string }[] };
	assert.ok(vectors.cases.length >= 5);
	for (const vector of vectors.cases) {
		const env: Record<string, string> = { USERPROFILE: vector.USERPROFILE };
		if (vector.LOCALAPPDATA !== null) env["LOCALAPPDATA"] = vector.LOCALAPPDATA;
		assert.equal(stateDirectory({ platform: "win32", home: "C:\\Users\\Someone", env }), vector.state, JSON.stringify(vector));
	}
	// The discovery file a sidecar of Claude Desktop's package looks for is the one the plugin wrote.
	const packaged = { LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local\\Packages\\Claude_pzs8sxrjxfjjc\\LocalCache\\Local" };
	checkDiscoveryDirectory(packaged, "win32", "C:\\Users\\ada", "C:\\Users\\ada\\AppData\\Local\\vaultlink\\bridge");
});
