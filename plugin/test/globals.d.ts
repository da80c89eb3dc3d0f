/**
 * Defined by plugin/test/build.mjs: the repository's root, for fixtures such as examples/vault.
 */
declare const VAULTLINK_REPO_ROOT: string;
