//! The memory each tier needs on this target, as `bf_kernel_*_size()` and
//! `_align()` give it (`cargo test -p backfill-ffi --test sizes --
//! --nocapture` prints the table `docs/c-abi.md` quotes), and the header's
//! x86_64 constants agree with them.

use backfill_ffi::abi::memory::{
    bf_kernel_l_align, bf_kernel_l_size, bf_kernel_m_align, bf_kernel_m_size, bf_kernel_s_align,
    bf_kernel_s_size,
};

#[test]
fn tier_sizes() {
    let tiers = [
        ("S", bf_kernel_s_size(), bf_kernel_s_align()),
        ("M", bf_kernel_m_size(), bf_kernel_m_align()),
        ("L", bf_kernel_l_size(), bf_kernel_l_align()),
    ];
    println!("tier  bytes       KiB  align");
    for (name, size, align) in tiers {
        println!(
            "{name:<4} {size:>9} {:>9.1} {align:>6}",
            size as f64 / 1024.0
        );
        assert_eq!(size % align, 0);
    }
    assert!(tiers.windows(2).all(|w| w[0].1 < w[1].1));
    #[cfg(target_arch = "x86_64")]
    {
        use backfill_ffi::abi::memory::{
            BF_KERNEL_ALIGN, BF_KERNEL_L_SIZE, BF_KERNEL_M_SIZE, BF_KERNEL_S_SIZE,
        };
        assert_eq!(
            (BF_KERNEL_S_SIZE, BF_KERNEL_M_SIZE, BF_KERNEL_L_SIZE),
            (tiers[0].1, tiers[1].1, tiers[2].1)
        );
        assert_eq!(BF_KERNEL_ALIGN, tiers[0].2);
    }
}
