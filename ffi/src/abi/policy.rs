//! Setting a policy up: defaults per kind, checks, names.

use crate::abi::code;
use crate::abi::handle;
use crate::model::policy::{bf_policy, default_of, name_of, of_c, to_c};
use crate::model::status::bf_status;
use backfill_core::Policy;
use core::ffi::{c_char, CStr};

/// Fills `*out` with the defaults of policy kind `kind` (a
/// `bf_policy_kind`): Selective with thresholds 2.0 (per category 4.0,
/// 8.0, 1.5, 2.0), adaptive from 1.0 (scaled: times 1.5), CONS+RS with seed
/// 0 and 4 iterations per queued job, DPSA with 100,000 nodes, the default
/// heuristics. Then change the options of that kind only.
///
/// Returns `BF_OK`, `BF_ERR_BAD_OPTION` for an unknown kind, or a pointer
/// error.
///
/// # Safety
/// `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_policy_default(kind: u32, out: *mut bf_policy) -> bf_status {
    let run = || {
        let policy = default_of(kind).ok_or(bf_status::BF_ERR_BAD_OPTION)?;
        // SAFETY: the caller's promise.
        unsafe { handle::output(out, policy) }
    };
    code(run())
}

/// Checks `*policy` as `bf_kernel_*_init` does: `BF_OK`, or
/// `BF_ERR_BAD_OPTION` for an unknown kind, an option out of range (a
/// threshold below 1000, a zero scale, a flag neither 0 nor 1, an unknown
/// iteration mode), or an option the kind does not read that differs from
/// the kind's default; `*why` (when `why` is not NULL) then points to a
/// static C string naming the field and the reason, else to `"ok"`.
///
/// # Safety
/// `policy` is NULL or valid; `why` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_policy_check(
    policy: *const bf_policy,
    why: *mut *const c_char,
) -> bf_status {
    let run = || {
        // SAFETY: the caller's promise.
        let p = unsafe { handle::input(policy) }?;
        let (result, text) = match of_c(p) {
            Ok(_) => (Ok(()), c"ok"),
            Err(reason) => (Err(bf_status::BF_ERR_BAD_OPTION), reason),
        };
        // SAFETY: the caller's promise.
        unsafe { handle::optional_output(why, text.as_ptr()) }?;
        result
    };
    code(run())
}

/// Fills `*out` with the policy named `name` (a NUL-terminated string, the
/// names `host-cli` takes: `"easy"`, `"conservative"`, `"selective-d"`,
/// `"cons-rs"`, `"dpsa-p"`, ..., and `"conservative-no-compression"`),
/// with its kind's defaults. Returns `BF_ERR_BAD_OPTION` for an unknown
/// name, and for the names of policies without a `bf_policy_kind`
/// (`"conservative-rebuild"`, `"cons-rs-alea"`).
///
/// # Safety
/// `name` is NULL or a NUL-terminated string; `out` is NULL or writable.
#[no_mangle]
pub unsafe extern "C" fn bf_policy_from_name(
    name: *const c_char,
    out: *mut bf_policy,
) -> bf_status {
    let run = || {
        if name.is_null() {
            return Err(bf_status::BF_ERR_NULL_POINTER);
        }
        // SAFETY: not NULL, and the caller promises a NUL-terminated string.
        let name = unsafe { CStr::from_ptr(name) };
        let policy = name
            .to_str()
            .ok()
            .and_then(Policy::from_name)
            .ok_or(bf_status::BF_ERR_BAD_OPTION)?;
        // SAFETY: the caller's promise.
        let c = to_c(policy).ok_or(bf_status::BF_ERR_BAD_OPTION)?;
        // SAFETY: the caller's promise.
        unsafe { handle::output(out, c) }
    };
    code(run())
}

/// The name of policy kind `kind` (`"easy"`, `"dpsa-w"`, ...) as a static C
/// string, or NULL for an unknown kind.
#[no_mangle]
pub extern "C" fn bf_policy_kind_name(kind: u32) -> *const c_char {
    name_of(kind).map_or(core::ptr::null(), CStr::as_ptr)
}
