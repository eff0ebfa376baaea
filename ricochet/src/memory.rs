//! Large buffers backed by transparent huge pages where the system offers them.

/// An empty vector with room for `len` values. Buffers of 4 MiB or more ask for
/// transparent huge pages: the solver's table and the exhaustive layers are read at
/// random, and with 4 KiB pages nearly every such read would be a TLB miss too.
pub(crate) fn with_huge_pages<T>(len: usize) -> Vec<T> {
    let buffer = Vec::<T>::with_capacity(len);
    #[cfg(target_os = "linux")]
    if len * size_of::<T>() >= 4 << 20 {
        // madvise wants a page-aligned start; the allocator's header shifts ours a little.
        const PAGE: usize = 4096;
        let start = buffer.as_ptr() as usize;
        let aligned = start.next_multiple_of(PAGE);
        let len = (start + len * size_of::<T>() - aligned) / PAGE * PAGE;
        // SAFETY: the range lies inside this vector's own allocation; advice changes no contents.
        unsafe { libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
    }
    buffer
}
