//! The extension's global allocator: mimalloc.
//!
//! A parse allocates many small blocks (strings, vectors, the call list) and frees them before it
//! returns; mimalloc's thread-local free lists serve those in a fraction of glibc's instructions
//! (pydantic-core makes the same choice). Python objects still come from Python's own allocator.
//!
//! A block whose alignment is at most 16 and at most its size comes from `mi_malloc`, whose
//! blocks are aligned as C's `malloc` (as Rust's `System` does with glibc): `mi_malloc_aligned`
//! takes a slower path for every call (about 600 instructions per parse of a small call).

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc, mi_zalloc_aligned,
};

/// The alignment `mi_malloc` gives every block at least as large as it.
const MALLOC_ALIGN: usize = 16;

struct MiMalloc;

fn plain(layout: Layout) -> bool {
    layout.align() <= MALLOC_ALIGN && layout.align() <= layout.size()
}

// SAFETY: every block comes from mimalloc and goes back to it; `plain` picks the unaligned calls
// only where their alignment suffices.
unsafe impl GlobalAlloc for MiMalloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if plain(layout) {
            mi_malloc(layout.size()).cast()
        } else {
            mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if plain(layout) {
            mi_zalloc(layout.size()).cast()
        } else {
            mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, _: Layout) {
        mi_free(ptr.cast::<c_void>());
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= MALLOC_ALIGN && layout.align() <= new_size {
            mi_realloc(ptr.cast::<c_void>(), new_size).cast()
        } else {
            mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
        }
    }
}

#[global_allocator]
static GLOBAL: MiMalloc = MiMalloc;

/// Returns the memory mimalloc holds free to the system now (it otherwise purges freed pages
/// only at a later arena operation): called after a large parse's own blocks are freed and
/// before the interpreter's objects are made, so the two do not add up in the peak.
pub(crate) fn give_back() {
    // SAFETY: a plain call into mimalloc, which is thread-safe.
    unsafe { mi_collect(true) }
}

// mimalloc's own function, linked with the rest of it (`libmimalloc-sys` declares it only with
// its `extended` feature, which adds a crate for two C type names).
extern "C" {
    fn mi_collect(force: bool);
}
