//! The handle: a kernel in the caller's memory, behind a small header, and
//! the one dispatch helper every call goes through ([`call`], [`inspect`]).
//!
//! # Layout
//!
//! A handle's memory is a [`Home`]: the [`Header`] (a magic number, the
//! tier, a busy flag), the error of the latest kernel call, then the
//! tier's kernel. `repr(C)` puts the header first at the same offsets for
//! every tier, so a call reads it before it knows the tier.
//!
//! # Building a kernel where it lies
//!
//! `Kernel::new` returns the kernel by value: for the large tier that is
//! megabytes on the stack, more than a firmware stack has. Instead, `init`
//! sets every byte of the caller's memory to zero and then calls
//! `Kernel::reset`, which empties the tables where they are (it builds
//! nothing larger than a cluster and the policy's small state). That is
//! sound because the all-zero bytes are a valid `Home<K>` of every tier:
//!
//! * *validity*, checked by the compiler: three unnamed constants below
//!   are all-zero `Home`s, one per tier, and the compiler's
//!   constant evaluator validates a constant's value against the type's
//!   actual layout (every enum tag, `bool`, reference, niche), refusing to
//!   build otherwise ("it is undefined behavior to use this value"). A
//!   kernel field whose zero is invalid (a reference, a `NonZero`, an enum
//!   without a zero tag) is therefore a compile error here, never undefined
//!   behaviour;
//! * *library invariants*: `backfill-core` has no `unsafe` code
//!   (`#![forbid(unsafe_code)]`), so no state of its types can make it
//!   misbehave in the memory-safety sense; the only container with
//!   `unsafe` inside that a kernel holds is `heapless::Vec` (0.8), whose
//!   fields are a length and an array of `MaybeUninit`: zero is the empty
//!   vector (`zeroed_heapless_vec_is_empty` checks it). `reset` then sets
//!   every field to what `Kernel::new` gives (`init_equals_new` compares
//!   them).
//!
//! # Reentrancy
//!
//! A call that runs callbacks sets the header's busy flag for its
//! duration, and every call refuses a busy handle with `BF_ERR_BUSY`
//! before it makes a reference to the kernel: a callback that calls back
//! into its kernel is refused, never given a second reference to it. The
//! header is only ever read and written through raw pointers.

use crate::abi::bf_kernel;
use crate::model::status::{bf_status, of_kernel, of_restore};
use crate::model::tiers::{KernelL, KernelM, KernelS, Tier, Tiered};
use backfill_core::{KernelError, RestoreError};
use core::mem::{align_of, offset_of, size_of, MaybeUninit};

/// `"BFKERNEL"`: the first word of every initialised handle.
pub(crate) const MAGIC: u64 = u64::from_be_bytes(*b"BFKERNEL");

/// What every handle begins with.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Header {
    /// `MAGIC` once initialised; 0 after `bf_kernel_release`.
    pub magic: u64,
    /// [`Tier::tag`].
    pub tier: u32,
    /// 1 while a call that runs callbacks is under way.
    pub busy: u32,
}

/// A handle's memory: the header, the latest kernel error, the kernel.
#[repr(C)]
pub struct Home<K> {
    /// The header.
    pub header: Header,
    /// The error of the latest kernel call (`None`: it succeeded).
    pub last_error: Option<KernelError>,
    /// The kernel.
    pub kernel: K,
}

// The compile-time proof that zero bytes are a valid handle of each tier
// (see the module docs): never used, evaluated and validated at build time.
// SAFETY: if the all-zero bytes were not a valid value, the evaluation of
// this constant would be refused by the compiler (a build error).
const _: Home<KernelS> = unsafe { MaybeUninit::zeroed().assume_init() };
// SAFETY: as above, the medium tier.
const _: Home<KernelM> = unsafe { MaybeUninit::zeroed().assume_init() };
// SAFETY: as above, the large tier.
const _: Home<KernelL> = unsafe { MaybeUninit::zeroed().assume_init() };

/// Every tier's handle has the same alignment, so a call can check a
/// handle's alignment before it knows the tier.
pub(crate) const ALIGN: usize = align_of::<Home<KernelS>>();
const _: () = assert!(ALIGN == align_of::<Home<KernelM>>() && ALIGN == align_of::<Home<KernelL>>());
const _: () = assert!(ALIGN >= align_of::<Header>());

/// Bytes of a tier's handle.
#[must_use]
pub const fn size_of_tier(tier: Tier) -> usize {
    match tier {
        Tier::S => size_of::<Home<KernelS>>(),
        Tier::M => size_of::<Home<KernelM>>(),
        Tier::L => size_of::<Home<KernelL>>(),
    }
}

/// `p` as a shared reference: refused when NULL or misaligned.
///
/// # Safety
/// When `p` is not NULL, it points to a `T` that stays valid and unchanged
/// for `'a` (the C caller's promise: a pointer to its own object).
pub unsafe fn input<'a, T>(p: *const T) -> Result<&'a T, bf_status> {
    if p.is_null() {
        return Err(bf_status::BF_ERR_NULL_POINTER);
    }
    if !p.is_aligned() {
        return Err(bf_status::BF_ERR_BAD_ALIGNMENT);
    }
    // SAFETY: not NULL and aligned; the caller promises it points to a
    // valid `T` (every input type is made of integers and nullable
    // pointers, so any bits C left there are a value).
    Ok(unsafe { &*p })
}

/// `count` `T`s from `p` as a slice: an empty one when `count` is 0 (`p`
/// may then be NULL), else refused when NULL or misaligned.
///
/// # Safety
/// When `count > 0` and `p` is not NULL, `p` points to `count` valid `T`s
/// that stay unchanged for `'a`.
pub unsafe fn input_array<'a, T>(p: *const T, count: usize) -> Result<&'a [T], bf_status> {
    if count == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(bf_status::BF_ERR_NULL_POINTER);
    }
    if !p.is_aligned() {
        return Err(bf_status::BF_ERR_BAD_ALIGNMENT);
    }
    // SAFETY: not NULL, aligned, and the caller promises `count` valid
    // `T`s there; a count that large is the caller's promise too.
    Ok(unsafe { core::slice::from_raw_parts(p, count) })
}

/// Writes `value` to `p`: refused when NULL or misaligned.
///
/// # Safety
/// When `p` is not NULL, it points to memory the caller owns, writable for
/// a `T`.
pub unsafe fn output<T>(p: *mut T, value: T) -> Result<(), bf_status> {
    if p.is_null() {
        return Err(bf_status::BF_ERR_NULL_POINTER);
    }
    if !p.is_aligned() {
        return Err(bf_status::BF_ERR_BAD_ALIGNMENT);
    }
    // SAFETY: not NULL, aligned, writable by the caller's promise.
    unsafe { p.write(value) };
    Ok(())
}

/// As [`output`], but a NULL `p` means "not wanted": nothing is written.
///
/// # Safety
/// As [`output`].
pub unsafe fn optional_output<T>(p: *mut T, value: T) -> Result<(), bf_status> {
    if p.is_null() {
        return Ok(());
    }
    // SAFETY: passed on.
    unsafe { output(p, value) }
}

/// Reads the header of the handle `k` and checks it: not NULL, aligned,
/// initialised (the magic number and a known tier), not busy.
///
/// # Safety
/// When `k` is not NULL and aligned, it points to at least a [`Header`]'s
/// bytes that the caller owns (a handle from `init`, or memory it passes
/// as one by mistake).
unsafe fn open(k: *const bf_kernel) -> Result<(Tier, *mut Header), bf_status> {
    if k.is_null() {
        return Err(bf_status::BF_ERR_NULL_POINTER);
    }
    if (k as usize) % ALIGN != 0 {
        return Err(bf_status::BF_ERR_BAD_ALIGNMENT);
    }
    let header = k.cast::<Header>().cast_mut();
    // SAFETY: not NULL, aligned (ALIGN is at least a header's alignment),
    // and the caller promises a header's bytes there; every bit pattern is
    // a `Header` (integers only). Read by value: no reference is made.
    let read = unsafe { header.read() };
    if read.magic != MAGIC {
        return Err(bf_status::BF_ERR_BAD_HANDLE);
    }
    let tier = Tier::of_tag(read.tier).ok_or(bf_status::BF_ERR_BAD_HANDLE)?;
    if read.busy != 0 {
        return Err(bf_status::BF_ERR_BUSY);
    }
    Ok((tier, header))
}

/// Where the kernel and the last error of a `Home<K>` at `header` lie
/// (pointer arithmetic only: nothing is read).
fn parts<K: Tiered + 'static>(header: *mut Header) -> (*mut dyn Tiered, *mut Option<KernelError>) {
    let base = header.cast::<u8>();
    let kernel = base.wrapping_add(offset_of!(Home<K>, kernel)).cast::<K>();
    let last_error = base
        .wrapping_add(offset_of!(Home<K>, last_error))
        .cast::<Option<KernelError>>();
    (kernel as *mut dyn Tiered, last_error)
}

/// Where the kernel and the last error of the handle of `tier` at `header`
/// lie: the one place a tier becomes a kernel type. Both exclude the
/// header, which is only ever used through raw pointers.
fn dispatch(tier: Tier, header: *mut Header) -> (*mut dyn Tiered, *mut Option<KernelError>) {
    match tier {
        Tier::S => parts::<KernelS>(header),
        Tier::M => parts::<KernelM>(header),
        Tier::L => parts::<KernelL>(header),
    }
}

/// Where the busy flag of the header at `header` lies.
fn busy_flag(header: *mut Header) -> *mut u32 {
    header
        .cast::<u8>()
        .wrapping_add(offset_of!(Header, busy))
        .cast::<u32>()
}

/// Clears the busy flag when a call ends, however it ends.
struct Busy(*mut Header);

impl Drop for Busy {
    fn drop(&mut self) {
        // SAFETY: the header of a handle `call` opened, which lives for the
        // whole call; written through the raw pointer, as every header
        // access.
        unsafe { busy_flag(self.0).write(0) };
    }
}

/// Runs the kernel call `f` on handle `k`: checks the handle, marks it busy
/// while `f` runs (callbacks run inside), records the kernel's error as the
/// handle's last and turns it into a status.
///
/// # Safety
/// `k` is NULL or a pointer the caller owns at least a header's bytes at
/// (see `open`); an initialised handle is not used by another thread
/// meanwhile.
pub unsafe fn call<T>(
    k: *mut bf_kernel,
    f: impl FnOnce(&mut dyn Tiered) -> Result<T, KernelError>,
) -> Result<T, bf_status> {
    // SAFETY: the caller's promise.
    let (tier, header) = unsafe { open(k) }?;
    // SAFETY: an initialised handle of that tier; the flag is written
    // before any reference to the kernel exists.
    unsafe { busy_flag(header).write(1) };
    let _busy = Busy(header);
    let (kernel, last_error) = dispatch(tier, header);
    // SAFETY: an initialised kernel of that tier (checked by `open`); while
    // the flag is set no other call makes a reference to it.
    let result = f(unsafe { &mut *kernel });
    let error = result.as_ref().err().copied();
    // SAFETY: as above; the kernel's reference is dead.
    unsafe { last_error.write(error) };
    result.map_err(|e| of_kernel(&e))
}

/// Restores handle `k`'s kernel by `f`, as [`call`] runs a kernel call,
/// but its last error is cleared only when `f` succeeds: a refused restore
/// leaves the kernel, and so its last error, as they were.
///
/// # Safety
/// As [`call`].
pub unsafe fn restore_call(
    k: *mut bf_kernel,
    f: impl FnOnce(&mut dyn Tiered) -> Result<(), RestoreError>,
) -> Result<(), bf_status> {
    // SAFETY: the caller's promise.
    let (tier, header) = unsafe { open(k) }?;
    // SAFETY: as in `call`.
    unsafe { busy_flag(header).write(1) };
    let _busy = Busy(header);
    let (kernel, last_error) = dispatch(tier, header);
    // SAFETY: as in `call`.
    let result = f(unsafe { &mut *kernel });
    if result.is_ok() {
        // SAFETY: as in `call`; the kernel's reference is dead.
        unsafe { last_error.write(None) };
    }
    result.map_err(|e| of_restore(&e))
}

/// Runs the query `f` on handle `k` (nothing changes; no callback runs).
///
/// # Safety
/// As [`call`].
pub unsafe fn inspect<T>(
    k: *const bf_kernel,
    f: impl FnOnce(&dyn Tiered, Option<KernelError>) -> T,
) -> Result<T, bf_status> {
    // SAFETY: the caller's promise.
    let (tier, header) = unsafe { open(k) }?;
    let (kernel, last_error) = dispatch(tier, header);
    // SAFETY: initialised (checked by `open`) and not busy, so no mutable
    // reference to it exists.
    let error = unsafe { last_error.read() };
    // SAFETY: as above.
    Ok(f(unsafe { &*kernel }, error))
}

/// Sets up a kernel of `tier` in `mem` for the already-checked `cluster`
/// and `policy`, returning the handle (the module docs say why zero, then
/// reset).
///
/// # Safety
/// `mem` is not NULL, aligned to `ALIGN`, and points to at least
/// `size_of_tier(tier)` bytes the caller owns and no reference covers (a
/// busy handle there was refused by the caller).
pub unsafe fn build(
    tier: Tier,
    mem: *mut u8,
    cluster: crate::model::types::FarmCluster,
    policy: backfill_core::Policy,
) -> *mut bf_kernel {
    // SAFETY: the caller's promise: `size_of_tier(tier)` writable bytes.
    unsafe { mem.write_bytes(0, size_of_tier(tier)) };
    let header = mem.cast::<Header>();
    let (kernel, last_error) = dispatch(tier, header);
    // SAFETY: all zero, which is a valid `Home` of the tier (the constants
    // above), and nothing else refers to it.
    unsafe { &mut *kernel }.reset(cluster, policy);
    // SAFETY: as above (a zeroed `Option` need not read as `None`).
    unsafe { last_error.write(None) };
    let initialised = Header {
        magic: MAGIC,
        tier: tier.tag(),
        busy: 0,
    };
    // SAFETY: the header of that memory; the kernel's reference is dead.
    unsafe { header.write(initialised) };
    mem.cast::<bf_kernel>()
}

/// Whether `mem` holds a handle that is busy (a callback calling `init` on
/// its own kernel's memory must be refused: the kernel is in use).
///
/// # Safety
/// As `open`.
pub unsafe fn is_busy(mem: *const bf_kernel) -> bool {
    // SAFETY: passed on.
    matches!(unsafe { open(mem) }, Err(bf_status::BF_ERR_BUSY))
}

/// Marks handle `k` as no longer initialised.
///
/// # Safety
/// As [`call`].
pub unsafe fn forget(k: *mut bf_kernel) -> Result<(), bf_status> {
    // SAFETY: the caller's promise.
    let (_, header) = unsafe { open(k) }?;
    // SAFETY: an initialised, idle handle's header (its first field).
    unsafe { header.cast::<u64>().write(0) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::{bf_machine, cluster_of};
    use backfill_core::Policy;
    use std::format;
    use std::vec::Vec;

    /// Zero bytes are the empty `heapless::Vec` (its length comes first and
    /// is zero), the one container with `unsafe` inside a kernel holds.
    #[test]
    fn zeroed_heapless_vec_is_empty() {
        // SAFETY: a test of the very fact the module's argument uses: a
        // length and `MaybeUninit` elements, valid when zero.
        let v: heapless::Vec<u64, 8> = unsafe { MaybeUninit::zeroed().assume_init() };
        assert!(v.is_empty());
        assert_eq!(format!("{v:?}"), "[]");
    }

    /// Memory aligned for a handle, `size` bytes (filled with `fill`, so
    /// that init is seen to overwrite everything).
    fn memory(size: usize, fill: u8) -> Vec<u128> {
        let mut m = std::vec![0_u128; size.div_ceil(16)];
        for word in &mut m {
            *word = u128::from_ne_bytes([fill; 16]);
        }
        m
    }

    /// A kernel built by `build` in memory full of garbage is, field for
    /// field (`Debug`), what `Kernel::new` returns, for every tier and
    /// policy.
    fn init_equals_new<K: Tiered + core::fmt::Debug + 'static>(
        tier: Tier,
        new: impl Fn(crate::model::types::FarmCluster, Policy) -> K,
    ) {
        let machines = [
            bf_machine {
                cpus: 8,
                speed: 1000,
            },
            bf_machine {
                cpus: 4,
                speed: 1500,
            },
        ];
        for (policy, machines) in Policy::ALL
            .into_iter()
            .zip([&machines[..1], &machines[..]].into_iter().cycle())
        {
            let cluster = cluster_of(machines, &[]).unwrap();
            let mut mem = memory(size_of_tier(tier), 0xA5);
            // SAFETY: aligned (u128), large enough, ours.
            let k = unsafe { build(tier, mem.as_mut_ptr().cast(), cluster.clone(), policy) };
            // SAFETY: just built, of this tier.
            let home = unsafe { &*k.cast::<Home<K>>() };
            assert_eq!(
                format!("{:?}", home.kernel),
                format!("{:?}", new(cluster, policy)),
                "{tier:?} {policy}"
            );
            assert!(home.last_error.is_none());
            assert_eq!((home.header.magic, home.header.busy), (MAGIC, 0));
        }
    }

    /// Runs `f` on a thread whose stack holds `Kernel::new`'s copies of a
    /// large kernel (a debug build makes several).
    fn on_big_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(256 << 20)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn init_equals_new_small_and_medium() {
        on_big_stack(|| {
            init_equals_new::<KernelS>(Tier::S, KernelS::new);
            init_equals_new::<KernelM>(Tier::M, KernelM::new);
        });
    }

    #[test]
    fn init_equals_new_large() {
        on_big_stack(|| init_equals_new::<KernelL>(Tier::L, KernelL::new));
    }
}
