//! The safe part: the C types, their conversions to the kernel's, the
//! status codes, the tiers and the calls every tier answers. No `unsafe`
//! here (each module forbids it).

pub mod policy;
pub mod status;
pub mod text;
pub mod tiers;
pub mod types;
