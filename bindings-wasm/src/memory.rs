//! The global allocator, watched: a failed allocation is recorded before Rust aborts on it, so
//! `index.js` can tell "out of memory" from a bug after the trap, and tests can set a limit.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

/// [`System`] (the default allocator), plus: a failed allocation is recorded ([`failed`])
/// before Rust aborts on it, and a limit on the bytes allocated at a time can be set for
/// tests ([`set_limit`]). The bookkeeping is two relaxed atomics (plain loads and stores on
/// single-threaded wasm).
pub(crate) struct Watched;

static FAILED: AtomicBool = AtomicBool::new(false);
static LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
static LIVE: AtomicUsize = AtomicUsize::new(0);

pub(crate) fn failed() -> bool {
    FAILED.load(Relaxed)
}

pub(crate) fn set_limit(bytes: usize) {
    LIMIT.store(bytes, Relaxed);
}

/// Whether `more` bytes may be allocated on top of those allocated now.
fn fits(more: usize) -> bool {
    LIVE.load(Relaxed)
        .checked_add(more)
        .is_some_and(|total| total <= LIMIT.load(Relaxed))
}

/// Records the outcome of allocating `size` bytes at `ptr`.
fn allocated(ptr: *mut u8, size: usize) -> *mut u8 {
    if ptr.is_null() {
        FAILED.store(true, Relaxed);
    } else {
        LIVE.fetch_add(size, Relaxed);
    }
    ptr
}

fn refuse() -> *mut u8 {
    FAILED.store(true, Relaxed);
    std::ptr::null_mut()
}

// SAFETY: every method forwards to `System` with the caller's own arguments, so `System`'s
// guarantees hold; besides that they only update the counters (or return null, which
// `GlobalAlloc` allows for any allocation that cannot be satisfied).
unsafe impl GlobalAlloc for Watched {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !fits(layout.size()) {
            return refuse();
        }
        // SAFETY: forwarded as is (see the impl).
        allocated(unsafe { System.alloc(layout) }, layout.size())
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !fits(layout.size()) {
            return refuse();
        }
        // SAFETY: forwarded as is (see the impl).
        allocated(unsafe { System.alloc_zeroed(layout) }, layout.size())
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        // SAFETY: forwarded as is (see the impl).
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let old = layout.size();
        if new_size > old && !fits(new_size - old) {
            return refuse();
        }
        // SAFETY: forwarded as is (see the impl).
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if new.is_null() {
            return refuse();
        }
        LIVE.fetch_sub(old, Relaxed);
        LIVE.fetch_add(new_size, Relaxed);
        new
    }
}
