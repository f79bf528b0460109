// The types of `beacon-toolcall/wasm`: the package's WebAssembly module (beacon_wasm_bg.wasm) as
// an asset, for bundlers. What the import gives depends on the bundler's loader for `.wasm`.

/**
 * The WebAssembly module, as your bundler's loader makes it: its URL with esbuild's `file` loader
 * (`--loader:.wasm=file`) or a URL-asset loader (Vite's `?url`, webpack's `asset/resource`); its
 * bytes (a `Uint8Array`) with esbuild's `binary` loader. Pass it to `init` of
 * `beacon-toolcall/init`: `await init({ module_or_path: wasm })` (bytes also to `initSync`).
 */
declare const wasm: string | Uint8Array;
export default wasm;
