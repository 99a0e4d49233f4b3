//! A counting global allocator for the test binaries whose tests check that code allocates
//! nothing. Each thread counts its own allocations (the harness runs tests on several threads
//! at once), so a test reads the allocations of its own thread only, whatever runs beside it.
//!
//! Not part of `common`: a binary that wants it declares it and installs it in its main.rs,
//!
//! ```ignore
//! #[path = "../common/counting_allocator.rs"]
//! mod counting_allocator;
//! #[global_allocator]
//! static GLOBAL: counting_allocator::Counting = counting_allocator::Counting;
//! ```

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The system allocator, counting each thread's allocations.
pub struct Counting;

thread_local! {
    static THREAD_ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = THREAD_ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// The allocations made so far on the calling thread.
pub fn thread_allocations() -> usize {
    THREAD_ALLOCATIONS.with(Cell::get)
}
