#![cfg(target_family = "wasm")]
