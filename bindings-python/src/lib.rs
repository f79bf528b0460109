#![cfg(not(target_family = "wasm"))]
