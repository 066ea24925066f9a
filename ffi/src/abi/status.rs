//! Status messages, the library's version, and the machine speed rule.

use crate::abi::handle;
use crate::model::status::bf_status;
use crate::model::types::bf_machine;
use backfill_core::Machine;
use core::ffi::c_char;

/// The fixed message of status `status` (a `bf_status`), as a static C
/// string; `"unknown status"` for any other value. For the kernel's full
/// message naming the job, see `bf_kernel_last_error_text`.
#[no_mangle]
pub extern "C" fn bf_status_message(status: i32) -> *const c_char {
    bf_status::from_code(status)
        .map_or(c"unknown status", bf_status::message)
        .as_ptr()
}

/// The library's version, `"MAJOR.MINOR.PATCH"`, as a static C string (the
/// header's `BF_VERSION_*` macros are those it was generated with).
#[no_mangle]
pub extern "C" fn bf_version() -> *const c_char {
    crate::VERSION.as_ptr()
}

/// How long `reference` seconds on a reference machine take on machine
/// `*machine`: `ceil(reference * 1000 / speed)`, the rule the kernel
/// applies to estimates (a controller applies it to actual run times).
/// Returns `BF_OK`, `BF_ERR_TIME_OVERFLOW` when it exceeds 32 bits,
/// `BF_ERR_BAD_MACHINE` for a zero speed, or a pointer error.
///
/// # Safety
/// `machine` is NULL or valid; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_machine_scale(
    machine: *const bf_machine,
    reference: u32,
    out: *mut u32,
) -> bf_status {
    let run = || {
        // SAFETY: the caller's promise.
        let m = Machine::from(*unsafe { handle::input(machine) }?);
        if m.speed == 0 {
            return Err(bf_status::BF_ERR_BAD_MACHINE);
        }
        let scaled = m.scale(reference).ok_or(bf_status::BF_ERR_TIME_OVERFLOW)?;
        // SAFETY: the caller's promise.
        unsafe { handle::output(out, scaled) }
    };
    crate::abi::code(run())
}
