//! A counting global allocator, for tests that prove code does not allocate.
//!
//! [`Counting`] wraps [`std::alloc::System`] and counts, **per thread**,
//! every `alloc`, `alloc_zeroed` and `realloc` call (frees are not
//! counted: freeing needs an earlier allocation, which is counted). Install
//! it in a test binary:
//!
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: backfill_alloc_counter::Counting = backfill_alloc_counter::Counting;
//! ```
//!
//! then read [`allocations`] before and after the code under test, or use
//! [`count`]. The count is per thread because the test harness runs tests
//! on several threads (and its main thread allocates while a test runs):
//! a process-wide counter would see their allocations too. A process-wide
//! total is kept as well ([`total_allocations`]) for reports.
//!
//! Why a crate of its own: the workspace forbids `unsafe_code`, `forbid`
//! cannot be relaxed inside a test file, and implementing
//! [`GlobalAlloc`] is `unsafe` by definition. This crate contains that
//! single impl, which only forwards to `System` after bumping a counter.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

thread_local! {
    // `const` initialisation and no destructor: reading or writing it never
    // allocates and never registers a TLS destructor, so it is safe to touch
    // from inside the allocator.
    static THREAD_ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

static TOTAL_ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

fn bump() {
    TOTAL_ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    // `try_with`: during thread teardown the slot may be gone; that
    // allocation is then counted in the total only.
    let _ = THREAD_ALLOCATIONS.try_with(|c| c.set(c.get().wrapping_add(1)));
}

/// The system allocator, counting allocation calls (see the crate docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct Counting;

// SAFETY: every method forwards its arguments unchanged to `System`, which
// upholds the `GlobalAlloc` contract; the counters are atomics and
// allocation-free thread-locals, so counting never re-enters the allocator.
#[allow(unsafe_code)]
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: same contract as ours, forwarded unchanged.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        bump();
        // SAFETY: same contract as ours, forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        bump();
        // SAFETY: same contract as ours, forwarded unchanged.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours, forwarded unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Allocation calls made so far by the calling thread (0 forever if
/// [`Counting`] is not the global allocator).
#[must_use]
pub fn allocations() -> usize {
    THREAD_ALLOCATIONS.try_with(Cell::get).unwrap_or(0)
}

/// Allocation calls made so far by all threads.
#[must_use]
pub fn total_allocations() -> usize {
    TOTAL_ALLOCATIONS.load(Ordering::Relaxed)
}

/// Runs `f` and returns its result with the number of allocation calls the
/// calling thread made meanwhile.
pub fn count<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = allocations();
    let value = f();
    (value, allocations().wrapping_sub(before))
}
