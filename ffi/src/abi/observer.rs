//! The callbacks: the C side of the kernel's `Observer`.

use crate::model::types::{bf_job, bf_slot};
use backfill_core::{Job, Observer, Slot};
use core::ffi::c_void;

/// A decision callback: `job` starts now, or got (or moved) a reservation,
/// at `slot`. Both pointers are valid only during the call.
pub type bf_decision_fn =
    Option<unsafe extern "C" fn(user: *mut c_void, job: *const bf_job, slot: *const bf_slot)>;

/// The budget callback: whether a bounded search (CONS+RS's iterations)
/// goes on; `false` stops it there, keeping what it found.
pub type bf_keep_searching_fn = Option<unsafe extern "C" fn(user: *mut c_void) -> bool>;

/// The callbacks of a kernel call, and the caller's pointer they get back.
/// Any callback may be NULL (that decision is not reported; a NULL
/// `keep_searching` never stops a search). Callbacks run during the call
/// that was given them and only then; they must return (no `longjmp` out)
/// and must not call back into the same kernel (refused: `BF_ERR_BUSY`).
/// The kernel keeps none of the pointers.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct bf_observer {
    /// `job` starts now at `slot` (the caller puts it on `slot.machine`).
    pub started: bf_decision_fn,
    /// `job` got a reservation at `slot`, or its reservation moved there.
    pub reserved: bf_decision_fn,
    /// Asked before each step of a bounded search.
    pub keep_searching: bf_keep_searching_fn,
    /// Passed to every callback as `user`, never read by the kernel.
    pub user: *mut c_void,
}

impl bf_observer {
    /// No callbacks.
    pub const NONE: Self = Self {
        started: None,
        reserved: None,
        keep_searching: None,
        user: core::ptr::null_mut(),
    };
}

/// The kernel's observer calling `bf_observer`'s callbacks.
pub struct CObserver(pub bf_observer);

/// Calls decision callback `f`, if any, with copies of `job` and `slot`
/// that live for the call.
fn decide(f: bf_decision_fn, user: *mut c_void, job: &Job, slot: Slot) {
    if let Some(f) = f {
        let (job, slot) = (bf_job::from(job), bf_slot::from(slot));
        // SAFETY: the C caller gave `f` as a function of this signature
        // (its promise, as for every function pointer); both pointers are
        // to locals that outlive the call, and `user` is passed back as
        // given.
        unsafe { f(user, &job, &slot) };
    }
}

impl Observer for CObserver {
    fn started(&mut self, job: &Job, slot: Slot) {
        decide(self.0.started, self.0.user, job, slot);
    }

    fn reserved(&mut self, job: &Job, slot: Slot) {
        decide(self.0.reserved, self.0.user, job, slot);
    }

    fn keep_searching(&mut self) -> bool {
        match self.0.keep_searching {
            // SAFETY: as in `decide`.
            Some(f) => unsafe { f(self.0.user) },
            None => true,
        }
    }
}
