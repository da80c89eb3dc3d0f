/**
 * esbuild's "binary" loader turns an imported .wasm file into its bytes.
 */
declare module "*.wasm" {
	const bytes: Uint8Array;
	export default bytes;
}

// `deflated-wasm:<path>` imports a .wasm file's bytes compressed with zlib's deflate
// (plugin/engine/inline-wasm.mjs, an esbuild plugin of the build and of the test build).
declare module "deflated-wasm:*" {
	const bytes: Uint8Array;
	export default bytes;
}
