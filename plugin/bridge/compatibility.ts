/**
 * Whether the plugin and a vaultlink program can work together: they must speak the same bridge
 * protocol. A skew is worded once on each side alike (the sidecar's `bridge::incompatibility`),
 * naming both versions and which to update, the one of the older protocol;
 * `tests/vectors/version_skew.json` holds the cases both check.
 */

/** One end of the bridge: its version, when it says it, and the protocol it speaks. */
export interface BridgeEnd {
	version: string | null;
	protocol: number;
}

/** What a skew between `sidecar` and `plugin` says, or null when they speak the same protocol. */
export function incompatibility(sidecar: BridgeEnd, plugin: BridgeEnd): string | null {
	if (sidecar.protocol === plugin.protocol) return null;
	const sidecarVersion = sidecar.version ?? "(version not said)";
	const pluginVersion = plugin.version ?? "(version not said)";
	const skew = `The vaultlink program ${sidecarVersion} speaks bridge protocol ${sidecar.protocol} and the vaultlink plugin ${pluginVersion} in Obsidian speaks bridge protocol ${plugin.protocol}: they cannot work together.`;
	return sidecar.protocol < plugin.protocol
		? `${skew} Update the vaultlink program to ${pluginVersion} or later: \`cargo install vaultlink\`, or the vaultlink program of that release; then restart the agent's MCP client.`
		: `${skew} Update the vaultlink plugin to ${sidecarVersion} or later: in Obsidian, Settings → Community plugins → Check for updates, or the plugin files of that release.`;
}

/**
 * The version and protocol in what `vaultlink --version` prints ("vaultlink 0.1.0 (bridge
 * protocol 1)"), or null when it is not that. A program that says no protocol ("vaultlink
 * 0.1.0", before the version line named it) speaks protocol 1, the only one there was.
 */
export function parseVersionLine(output: string): BridgeEnd | null {
	const match = /^vaultlink (\S+)(?: \(bridge protocol (\d+)\))?$/.exec(output.trim());
	if (match === null) return null;
	return { version: match[1] ?? null, protocol: match[2] === undefined ? 1 : Number(match[2]) };
}
