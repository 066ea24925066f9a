//! What the Rust tests of the C functions share: kernel memory, the three
//! tiers' size and init functions, and a kernel set up on given machines.

use backfill_core::Policy;
use backfill_ffi::abi::memory::*;
use backfill_ffi::model::policy::to_c;
use backfill_ffi::model::status::bf_status::{self, BF_OK};
use backfill_ffi::model::types::{bf_license_pool, bf_machine};
use backfill_ffi::{bf_cluster, bf_kernel, bf_policy};
use std::ffi::c_void;
use std::ptr::{null, null_mut};

/// Memory for a kernel of `size` bytes, aligned to 16.
pub struct Mem(pub Vec<u128>);

impl Mem {
    pub fn new(size: usize) -> Self {
        Self(vec![0; size.div_ceil(16)])
    }
    pub fn ptr(&mut self) -> *mut c_void {
        self.0.as_mut_ptr().cast()
    }
    pub fn bytes(&self) -> usize {
        self.0.len() * 16
    }
}

/// A tier's `bf_kernel_*_init`.
pub type Init = unsafe extern "C" fn(
    *mut c_void,
    usize,
    *const bf_cluster,
    *const bf_policy,
    *mut *mut bf_kernel,
) -> bf_status;

/// The three tiers, small to large: size, init.
pub const TIERS: [(extern "C" fn() -> usize, Init); 3] = [
    (bf_kernel_s_size, bf_kernel_s_init),
    (bf_kernel_m_size, bf_kernel_m_init),
    (bf_kernel_l_size, bf_kernel_l_init),
];

/// The C description of `machines` and `pools` (a null pointer for no
/// pools).
pub fn c_cluster(machines: &[bf_machine], pools: &[bf_license_pool]) -> bf_cluster {
    bf_cluster {
        machines: machines.as_ptr(),
        machine_count: machines.len(),
        pools: if pools.is_empty() {
            null()
        } else {
            pools.as_ptr()
        },
        pool_count: pools.len(),
    }
}

/// A kernel of the tier `init` sets up, in `mem`, on `machines` without
/// license pools, under `policy`.
pub fn kernel(
    mem: &mut Mem,
    init: Init,
    machines: &[bf_machine],
    policy: Policy,
) -> *mut bf_kernel {
    let cluster = c_cluster(machines, &[]);
    let policy = to_c(policy).unwrap();
    let mut k = null_mut();
    let s = unsafe { init(mem.ptr(), mem.bytes(), &cluster, &policy, &mut k) };
    assert_eq!(s, BF_OK);
    k
}
