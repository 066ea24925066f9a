//! The calls that change a kernel: the event API (submit, complete,
//! schedule), reset and the queue limit.

use crate::abi::handle::{self, call};
use crate::abi::observer::{bf_observer, CObserver};
use crate::abi::{bf_cluster, bf_kernel, code, read_cluster, read_policy};
use crate::model::policy::bf_policy;
use crate::model::status::bf_status;
use crate::model::types::{bf_job, bf_running_job};
use backfill_core::Job;

/// The callbacks at `observer`, or none when it is NULL.
///
/// # Safety
/// `observer` is NULL or points to a `bf_observer`.
unsafe fn callbacks(observer: *const bf_observer) -> Result<CObserver, bf_status> {
    if observer.is_null() {
        return Ok(CObserver(bf_observer::NONE));
    }
    // SAFETY: the caller's promise.
    unsafe { handle::input(observer) }.map(|o| CObserver(*o))
}

/// Refuses a misaligned output pointer before the call changes anything
/// (NULL: not wanted).
fn check_optional<T>(p: *mut T) -> Result<(), bf_status> {
    if p.is_null() || p.is_aligned() {
        Ok(())
    } else {
        Err(bf_status::BF_ERR_BAD_ALIGNMENT)
    }
}

/// Empties kernel `k` and sets it up again for `cluster` and `policy`, in
/// place: it is then as `bf_kernel_*_init` left it (time 0, nothing queued
/// or running, the queue limit at the tier's capacity).
///
/// Returns `BF_OK`; a cluster error or `BF_ERR_BAD_OPTION` (the kernel
/// unchanged); or a handle error (`BF_ERR_NULL_POINTER`,
/// `BF_ERR_BAD_ALIGNMENT`, `BF_ERR_BAD_HANDLE`, `BF_ERR_BUSY`).
///
/// # Safety
/// `k` is NULL or a handle; `cluster` and `policy` are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_reset(
    k: *mut bf_kernel,
    cluster: *const bf_cluster,
    policy: *const bf_policy,
) -> bf_status {
    let run = || {
        // SAFETY: the caller's promise.
        let cluster = unsafe { read_cluster(cluster) }?;
        // SAFETY: the caller's promise.
        let policy = unsafe { read_policy(policy) }?;
        // SAFETY: the caller's promise.
        unsafe {
            call(k, |kernel| {
                kernel.reset(cluster, policy);
                Ok(())
            })
        }
    };
    code(run())
}

/// Adds `*job` to the wait queue at time `now` (the kernel's clock moves
/// to `now`). Under the Conservative kinds it gets its reservation at once,
/// reported to `observer->reserved`; nothing starts (call
/// `bf_kernel_schedule` for that).
///
/// Returns `BF_OK`, or the kernel's refusal (nothing changed but the
/// clock): `BF_ERR_TIME_WENT_BACKWARDS`, `BF_ERR_INVALID_JOB`,
/// `BF_ERR_SUBMIT_IN_FUTURE`, `BF_ERR_UNRUNNABLE`, `BF_ERR_DUPLICATE_JOB`,
/// `BF_ERR_QUEUE_FULL`, `BF_ERR_PROFILE_FULL`, `BF_ERR_TIME_OVERFLOW`
/// (`bf_kernel_last_error` tells the job); or a pointer or handle error.
/// `observer` may be NULL.
///
/// # Safety
/// `k` is NULL or a handle; `job` is NULL or valid; `observer` is NULL or
/// valid, its callbacks NULL or functions of their types.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_submit(
    k: *mut bf_kernel,
    now: u32,
    job: *const bf_job,
    observer: *const bf_observer,
) -> bf_status {
    let run = || {
        // SAFETY: the caller's promise.
        let job = Job::from(*unsafe { handle::input(job) }?);
        // SAFETY: the caller's promise.
        let mut observer = unsafe { callbacks(observer) }?;
        // SAFETY: the caller's promise.
        unsafe { call(k, |kernel| kernel.submit(now, job, &mut observer)) }
    };
    code(run())
}

/// Removes running job `id` at time `now`: it ended, or the caller killed
/// it when its estimate ran out (at `slot.start + slot.duration`). What it
/// held is free from `now` on. When `out` is not NULL, the job as it ran
/// is written there.
///
/// Returns `BF_OK`, `BF_ERR_TIME_WENT_BACKWARDS` or `BF_ERR_UNKNOWN_JOB`
/// (nothing changed), or a pointer or handle error.
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_complete(
    k: *mut bf_kernel,
    now: u32,
    id: u32,
    out: *mut bf_running_job,
) -> bf_status {
    let run = || {
        check_optional(out)?;
        // SAFETY: the caller's promise.
        let done = unsafe { call(k, |kernel| kernel.complete(now, id)) }?;
        // SAFETY: the caller's promise; checked above.
        unsafe { handle::optional_output(out, bf_running_job::from(&done)) }
    };
    code(run())
}

/// One scheduling pass at time `now`: starts every job the policy lets
/// start, each reported to `observer->started` (the caller runs it on
/// `slot.machine` and completes it by `slot.start + slot.duration`), and
/// each new or moved reservation to `observer->reserved`. When `started`
/// is not NULL, the number of jobs started is written there.
///
/// Returns `BF_OK`; `BF_ERR_TIME_WENT_BACKWARDS`, `BF_ERR_OVERDUE` (a
/// running job is past its estimate: complete it first),
/// `BF_ERR_RUNNING_FULL`, `BF_ERR_PROFILE_FULL` or `BF_ERR_TIME_OVERFLOW`
/// (jobs started before the refusal stay started and were reported); or a
/// pointer or handle error.
///
/// # Safety
/// As `bf_kernel_submit`; `started` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_schedule(
    k: *mut bf_kernel,
    now: u32,
    observer: *const bf_observer,
    started: *mut u32,
) -> bf_status {
    let run = || {
        check_optional(started)?;
        // SAFETY: the caller's promise.
        let mut observer = unsafe { callbacks(observer) }?;
        // SAFETY: the caller's promise.
        let pass = unsafe { call(k, |kernel| kernel.schedule(now, &mut observer)) }?;
        // SAFETY: the caller's promise; checked above.
        unsafe { handle::optional_output(started, pass.started) }
    };
    code(run())
}

/// Lowers the number of waiting jobs `bf_kernel_submit` accepts to `limit`
/// (at most the tier's capacity, `bf_capacity.queued`), or raises it back:
/// a submit beyond it returns `BF_ERR_QUEUE_FULL`, as a full queue does.
/// Jobs already waiting stay. Bounds the cost of a pass, which grows with
/// the queue; `bf_kernel_*_init` and `bf_kernel_reset` set the capacity.
///
/// Returns `BF_OK`, `BF_ERR_BAD_OPTION` when `limit` is above the capacity
/// (nothing changed), or a handle error.
///
/// # Safety
/// `k` is NULL or a handle.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_set_queue_limit(k: *mut bf_kernel, limit: usize) -> bf_status {
    // SAFETY: the caller's promise.
    let result = unsafe {
        call(k, |kernel| {
            let (queued, _, _) = kernel.capacity();
            Ok((limit <= queued).then(|| kernel.set_queue_limit(limit)))
        })
    };
    match result {
        Ok(Some(_)) => bf_status::BF_OK,
        Ok(None) => bf_status::BF_ERR_BAD_OPTION,
        Err(e) => e,
    }
}
