//! The calls that read a kernel: its clock and next wakeup, capacities,
//! policy, queue, running set, plan, counters, invariants and last error.
//! None changes the kernel.

use crate::abi::bf_kernel;
use crate::abi::code as ok_or;
use crate::abi::handle::{self, inspect};
use crate::model::policy::{bf_policy, to_c};
use crate::model::status::{bf_status, job_of, of_kernel};
use crate::model::text;
use crate::model::types::{
    bf_capacity, bf_counters, bf_error, bf_job, bf_queued_job, bf_resource, bf_running_job,
    bf_slowdown_average, bf_step, bf_waiting, BF_MAX_MACHINES, BF_MAX_POOLS,
};
use backfill_core::{Job, KernelError};
use core::ffi::c_char;

/// Reads `f` of kernel `k` and writes it to `out`.
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
unsafe fn read_into<T>(
    k: *const bf_kernel,
    out: *mut T,
    f: impl FnOnce(&dyn crate::model::tiers::Tiered) -> T,
) -> bf_status {
    // SAFETY: the caller's promise.
    let value = unsafe { inspect(k, |kernel, _| f(kernel)) };
    // SAFETY: the caller's promise.
    ok_or(value.and_then(|v| unsafe { handle::output(out, v) }))
}

/// Writes the item `f` picks from kernel `k` to `out`: `BF_ERR_OUT_OF_RANGE`
/// when it picks none (an index past the end).
///
/// # Safety
/// As [`read_into`].
unsafe fn read_item<T>(
    k: *const bf_kernel,
    out: *mut T,
    f: impl FnOnce(&dyn crate::model::tiers::Tiered) -> Option<T>,
) -> bf_status {
    // SAFETY: the caller's promise.
    let item = unsafe { inspect(k, |kernel, _| f(kernel)) };
    let run = || {
        let item = item?.ok_or(bf_status::BF_ERR_OUT_OF_RANGE)?;
        // SAFETY: the caller's promise.
        unsafe { handle::output(out, item) }
    };
    ok_or(run())
}

/// The caller's array `out` of `cap` entries (empty when `cap` is 0), once
/// it and the `count` it goes with are checked: `BF_ERR_NULL_POINTER` or
/// `BF_ERR_BAD_ALIGNMENT` naming a bad one.
///
/// # Safety
/// `count` is NULL or writable; when `cap > 0`, `out` is NULL or holds
/// `cap` writable entries.
unsafe fn output_array<'a, T>(
    out: *mut T,
    cap: usize,
    count: *mut usize,
) -> Result<&'a mut [T], bf_status> {
    if count.is_null() || (cap > 0 && out.is_null()) {
        return Err(bf_status::BF_ERR_NULL_POINTER);
    }
    if !count.is_aligned() || (cap > 0 && !out.is_aligned()) {
        return Err(bf_status::BF_ERR_BAD_ALIGNMENT);
    }
    if cap == 0 {
        return Ok(&mut []);
    }
    // SAFETY: not NULL and aligned (checked above); the caller promises
    // `cap` writable entries.
    Ok(unsafe { core::slice::from_raw_parts_mut(out, cap) })
}

/// Writes the number of items, `total`, to `*count`, then refuses with
/// `BF_ERR_BAD_SIZE` when they were more than the `cap` written.
///
/// # Safety
/// `count` as [`output_array`] accepted it.
unsafe fn output_total(count: *mut usize, total: usize, cap: usize) -> Result<(), bf_status> {
    // SAFETY: the caller's promise.
    unsafe { handle::output(count, total) }?;
    if total > cap {
        return Err(bf_status::BF_ERR_BAD_SIZE);
    }
    Ok(())
}

/// The caller's text buffer `buf` of `cap` bytes (empty when `cap` is 0).
///
/// # Safety
/// When `cap > 0`, `buf` is NULL or points to `cap` writable bytes.
unsafe fn text_buffer<'a>(buf: *mut c_char, cap: usize) -> Result<&'a mut [u8], bf_status> {
    if cap == 0 {
        return Ok(&mut []);
    }
    if buf.is_null() {
        return Err(bf_status::BF_ERR_NULL_POINTER);
    }
    // SAFETY: not NULL, and the caller promises `cap` writable bytes
    // (bytes need no alignment).
    Ok(unsafe { core::slice::from_raw_parts_mut(buf.cast::<u8>(), cap) })
}

/// Writes `args` to the caller's buffer as a C string and the full length
/// to `len` (when not NULL): `BF_ERR_BAD_SIZE` when it was truncated.
///
/// # Safety
/// As [`text_buffer`]; `len` is NULL or writable.
unsafe fn write_text(
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
    args: core::fmt::Arguments<'_>,
) -> Result<(), bf_status> {
    // SAFETY: the caller's promise.
    let bytes = unsafe { text_buffer(buf, cap) }?;
    let total = text::write(bytes, args);
    // SAFETY: the caller's promise.
    unsafe { handle::optional_output(len, total) }?;
    if total >= cap {
        return Err(bf_status::BF_ERR_BAD_SIZE);
    }
    Ok(())
}

/// The kernel's clock: the `now` of its latest call (0 after init).
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_now(k: *const bf_kernel, out: *mut u32) -> bf_status {
    // SAFETY: the caller's promise.
    unsafe { read_into(k, out, |kernel| kernel.now()) }
}

/// The next instant after the kernel's clock at which `bf_kernel_schedule`
/// must be called even if no job arrives or ends (a reservation starts, an
/// estimate runs out, a job is promoted): `*has_wakeup` says whether there
/// is one, `*at` is it (0 when there is none). Set the timer for the
/// earliest of this, the next arrival and the next end of a running job.
///
/// # Safety
/// `k` is NULL or a handle; `has_wakeup` and `at` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_next_wakeup(
    k: *const bf_kernel,
    has_wakeup: *mut bool,
    at: *mut u32,
) -> bf_status {
    let run = || {
        // SAFETY: the caller's promise.
        let wakeup = unsafe { inspect(k, |kernel, _| kernel.next_wakeup()) }?;
        if has_wakeup.is_null() || at.is_null() {
            return Err(bf_status::BF_ERR_NULL_POINTER);
        }
        // SAFETY: the caller's promise.
        unsafe { handle::output(has_wakeup, wakeup.is_some()) }?;
        // SAFETY: the caller's promise.
        unsafe { handle::output(at, wakeup.unwrap_or(0)) }
    };
    ok_or(run())
}

/// Checks the kernel's invariants (every profile valid, the plan equal to
/// what jobs hold, reservations no later than their guarantees, ...).
/// Costs `O(steps * jobs)`: for tests and fuzzing. Returns `BF_OK` or
/// `BF_ERR_INTERNAL`, and then writes the broken invariant's description to
/// `why` as a C string (when `cap > 0`; truncated to fit). Or a handle
/// error.
///
/// # Safety
/// `k` is NULL or a handle; `why` is NULL or holds `cap` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_validate(
    k: *const bf_kernel,
    why: *mut c_char,
    cap: usize,
) -> bf_status {
    let run = || {
        // SAFETY: the caller's promise.
        let result = unsafe { inspect(k, |kernel, _| kernel.validate()) }?;
        let Err(e) = result else {
            return Ok(());
        };
        if cap > 0 {
            // SAFETY: the caller's promise; a truncated text is still the
            // text, so only a NULL buffer is reported.
            let written =
                unsafe { write_text(why, cap, core::ptr::null_mut(), format_args!("{e}")) };
            if written == Err(bf_status::BF_ERR_NULL_POINTER) {
                return written;
            }
        }
        Err(of_kernel(&e))
    };
    ok_or(run())
}

/// The kernel's capacities (its tier's, and the queue limit in force).
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_capacity(
    k: *const bf_kernel,
    out: *mut bf_capacity,
) -> bf_status {
    // SAFETY: the caller's promise.
    unsafe {
        read_into(k, out, |kernel| {
            let (queued, running, steps) = kernel.capacity();
            bf_capacity {
                queued,
                queue_limit: kernel.queue_limit(),
                running,
                steps,
                machines: BF_MAX_MACHINES,
                pools: BF_MAX_POOLS,
            }
        })
    }
}

/// The kernel's policy, with its options. `BF_ERR_BAD_OPTION` (and
/// `*out` unchanged) when the policy has no `bf_policy_kind`: a kernel
/// restored from a checkpoint that a Rust host wrote under one of the
/// kernel's option variants (Conservative with the rebuild compression,
/// the Alea flavour of CONS+RS) runs it, but C cannot name it.
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_policy(k: *const bf_kernel, out: *mut bf_policy) -> bf_status {
    // SAFETY: the caller's promise.
    let policy = unsafe { inspect(k, |kernel, _| to_c(kernel.policy())) };
    let run = || {
        let c = policy?.ok_or(bf_status::BF_ERR_BAD_OPTION)?;
        // SAFETY: the caller's promise.
        unsafe { handle::output(out, c) }
    };
    ok_or(run())
}

/// Whether the kernel keeps its plan (`bf_kernel_plan_steps`) up to date:
/// always, except FCFS, EASY and SJF-EASY on one machine without license
/// pools, which count free processors instead (same decisions).
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_keeps_plan(k: *const bf_kernel, out: *mut bool) -> bf_status {
    // SAFETY: the caller's promise.
    unsafe { read_into(k, out, |kernel| kernel.keeps_plan()) }
}

/// How many jobs wait.
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_queued_count(k: *const bf_kernel, out: *mut usize) -> bf_status {
    // SAFETY: the caller's promise.
    unsafe { read_into(k, out, |kernel| kernel.queued().len()) }
}

/// Waiting job `index` in the policy's priority order (0 is the head).
/// Returns `BF_ERR_OUT_OF_RANGE` past the last.
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_queued_job(
    k: *const bf_kernel,
    index: usize,
    out: *mut bf_queued_job,
) -> bf_status {
    // SAFETY: the caller's promise.
    unsafe {
        read_item(k, out, |kernel| {
            kernel.queued().get(index).map(bf_queued_job::from)
        })
    }
}

/// How many jobs run.
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_running_count(
    k: *const bf_kernel,
    out: *mut usize,
) -> bf_status {
    // SAFETY: the caller's promise.
    unsafe { read_into(k, out, |kernel| kernel.running().len()) }
}

/// Running job `index`, in start order. Returns `BF_ERR_OUT_OF_RANGE` past
/// the last.
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_running_job(
    k: *const bf_kernel,
    index: usize,
    out: *mut bf_running_job,
) -> bf_status {
    // SAFETY: the caller's promise.
    unsafe {
        read_item(k, out, |kernel| {
            kernel.running().get(index).map(bf_running_job::from)
        })
    }
}

/// The queue as it stands, as a live controller shows it: every waiting
/// job in queue order with its position, why it waits (`bf_reason`) and
/// when it is expected to start (`bf_expected`: its reservation, the
/// EASY family's head's shadow time, or none), by the policy's rules on
/// the kernel's state (`docs/design.md`, "Pending reasons" and "Expected
/// starts"); right after `bf_kernel_schedule`, the reasons of that pass.
/// Writes the first `cap` jobs to `out` (which may be NULL when `cap` is
/// 0) and their number to `*count`; returns `BF_ERR_BAD_SIZE` when `cap`
/// was too small (`*count` says how many to make room for). Costs a fit
/// test or two on the plan per job; changes nothing.
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or holds `cap` writable
/// entries; `count` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_waiting(
    k: *const bf_kernel,
    out: *mut bf_waiting,
    cap: usize,
    count: *mut usize,
) -> bf_status {
    let run = || {
        // SAFETY: the caller's promise.
        let to = unsafe { output_array(out, cap, count) }?;
        // SAFETY: the caller's promise.
        let total = unsafe {
            inspect(k, |kernel, _| {
                let mut total = 0usize;
                let mut slots = to.iter_mut();
                kernel.waiting(&mut |w| {
                    if let Some(slot) = slots.next() {
                        *slot = bf_waiting::from(w);
                    }
                    total = total.saturating_add(1);
                });
                total
            })
        }?;
        // SAFETY: `count` was checked by `output_array`.
        unsafe { output_total(count, total, cap) }
    };
    ok_or(run())
}

/// What the search-based policies did so far (DPSA, CONS+RS, BF_MOD).
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_counters(
    k: *const bf_kernel,
    out: *mut bf_counters,
) -> bf_status {
    // SAFETY: the caller's promise.
    unsafe { read_into(k, out, |kernel| bf_counters::from(kernel.counters())) }
}

/// Selective: the instant waiting job `*job` is (or was) promoted to the
/// guaranteed queue under the current threshold; `UINT32_MAX` under other
/// policies.
///
/// # Safety
/// `k` is NULL or a handle; `job` NULL or valid; `out` NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_promotion_time(
    k: *const bf_kernel,
    job: *const bf_job,
    out: *mut u32,
) -> bf_status {
    let run = || {
        // SAFETY: the caller's promise.
        let job = Job::from(*unsafe { handle::input(job) }?);
        // SAFETY: the caller's promise.
        let at = unsafe { inspect(k, |kernel, _| kernel.promotion_time(&job)) }?;
        // SAFETY: the caller's promise.
        unsafe { handle::output(out, at) }
    };
    ok_or(run())
}

/// Selective with an adaptive threshold: the completed jobs' bounded
/// slowdowns averaged so far (all zero under other policies).
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_slowdown_average(
    k: *const bf_kernel,
    out: *mut bf_slowdown_average,
) -> bf_status {
    // SAFETY: the caller's promise.
    unsafe {
        read_into(k, out, |kernel| {
            bf_slowdown_average::from(kernel.slowdown_average())
        })
    }
}

/// The availability profile of machine or license pool `index`
/// (`resource` is a `bf_resource`): the free processors or copies over
/// time, as steps from the kernel's clock on. Writes the first `cap` steps
/// to `out` (which may be NULL when `cap` is 0) and their number to
/// `*count`; returns `BF_ERR_BAD_SIZE` when `cap` was too small,
/// `BF_ERR_OUT_OF_RANGE` for an index past the cluster's,
/// `BF_ERR_BAD_OPTION` for an unknown resource. Meaningful when
/// `bf_kernel_keeps_plan` says so.
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or holds `cap` writable steps;
/// `count` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_plan_steps(
    k: *const bf_kernel,
    resource: u32,
    index: u32,
    out: *mut bf_step,
    cap: usize,
    count: *mut usize,
) -> bf_status {
    let run = || {
        // SAFETY: the caller's promise.
        let to = unsafe { output_array(out, cap, count) }?;
        let machine = match resource {
            r if r == bf_resource::BF_RESOURCE_MACHINE as u32 => true,
            r if r == bf_resource::BF_RESOURCE_LICENSE as u32 => false,
            _ => return Err(bf_status::BF_ERR_BAD_OPTION),
        };
        let index = usize::try_from(index).map_err(|_| bf_status::BF_ERR_OUT_OF_RANGE)?;
        // SAFETY: the caller's promise.
        let total = unsafe {
            inspect(k, |kernel, _| {
                let steps = if machine {
                    kernel.machine_steps(index)
                } else {
                    kernel.license_steps(index)
                }?;
                for (to, from) in to.iter_mut().zip(steps) {
                    *to = bf_step::from(from);
                }
                Some(steps.len())
            })
        }?
        .ok_or(bf_status::BF_ERR_OUT_OF_RANGE)?;
        // SAFETY: `count` was checked by `output_array`.
        unsafe { output_total(count, total, cap) }
    };
    ok_or(run())
}

/// The error of the kernel's latest call that could fail
/// (`bf_kernel_reset`, `_submit`, `_complete`, `_schedule`,
/// `_set_queue_limit`): its code and the job and times it names; `status`
/// is `BF_OK` when that call succeeded. Calls refused before reaching the
/// kernel (a NULL pointer, a bad option) do not count.
///
/// # Safety
/// `k` is NULL or a handle; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_last_error(
    k: *const bf_kernel,
    out: *mut bf_error,
) -> bf_status {
    // SAFETY: the caller's promise.
    let error = unsafe {
        inspect(k, |_, last| {
            last.map_or_else(bf_error::default, |e| error_of(&e))
        })
    };
    // SAFETY: the caller's promise.
    ok_or(error.and_then(|e| unsafe { handle::output(out, e) }))
}

/// The C form of kernel error `e`.
fn error_of(e: &KernelError) -> bf_error {
    let (now, current) = match *e {
        KernelError::TimeWentBackwards { now, current } => (now, current),
        _ => (0, 0),
    };
    bf_error {
        status: of_kernel(e) as i32,
        has_job: job_of(e).is_some(),
        job: job_of(e).unwrap_or(0),
        now,
        current,
    }
}

/// The message of the kernel's latest error (see `bf_kernel_last_error`),
/// as the Rust kernel words it (`"wait queue full, job 7 refused"`), or
/// `"ok"`: written to `buf` as a C string, truncated to `cap - 1` bytes;
/// its full length (without the NUL) goes to `*len` when `len` is not
/// NULL. Returns `BF_ERR_BAD_SIZE` when it was truncated.
///
/// # Safety
/// `k` is NULL or a handle; `buf` is NULL or holds `cap` writable bytes;
/// `len` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_kernel_last_error_text(
    k: *const bf_kernel,
    buf: *mut c_char,
    cap: usize,
    len: *mut usize,
) -> bf_status {
    let run = || {
        // SAFETY: the caller's promise.
        let last = unsafe { inspect(k, |_, last| last) }?;
        let ok = "ok";
        let text: &dyn core::fmt::Display = match &last {
            Some(e) => e,
            None => &ok,
        };
        // SAFETY: the caller's promise.
        unsafe { write_text(buf, cap, len, format_args!("{text}")) }
    };
    ok_or(run())
}
