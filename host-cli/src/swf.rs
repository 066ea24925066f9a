//! SWF reader (being written).
