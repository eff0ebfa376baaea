//! The transposition table of the iterative-deepening search.
//!
//! Maps a canonical state key (at most 40 bits) to the largest remaining depth at which
//! the state was already searched without success. Entries pack `key << 8 | remaining`
//! into one `u64` (0 = empty). The table starts small, so that short puzzles cost only a
//! few kilobytes to clear, doubles while it fills, and past its size limit replaces the
//! shallowest entry of the probed run: a lost entry only means a state is searched again.

/// Slots looked at before an insertion replaces an entry.
const PROBES: usize = 16;
/// Initial size: 2^12 slots, 32 KiB.
const INITIAL_BITS: u32 = 12;

pub(crate) struct TransTable {
    slots: Vec<u64>,
    bits: u32,
    max_bits: u32,
    len: usize,
}

impl TransTable {
    pub(crate) fn new(max_bytes: usize) -> TransTable {
        let max_slots = (max_bytes / 8).max(1 << INITIAL_BITS);
        let max_bits = usize::BITS - 1 - max_slots.leading_zeros();
        TransTable {
            slots: zeroed_slots(INITIAL_BITS),
            bits: INITIAL_BITS,
            max_bits,
            len: 0,
        }
    }

    /// Empties the table, giving back memory a hard puzzle made it take.
    pub(crate) fn reset(&mut self) {
        if self.bits > INITIAL_BITS {
            *self = TransTable {
                slots: zeroed_slots(INITIAL_BITS),
                bits: INITIAL_BITS,
                max_bits: self.max_bits,
                len: 0,
            };
        } else if self.len > 0 {
            self.slots.fill(0);
            self.len = 0;
        }
    }

    /// Bytes the table holds now.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.slots.len() * 8
    }

    #[inline(always)]
    fn home(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as usize
    }

    /// Starts loading the slot of `key` into cache ahead of `visit`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            let slot = self.slots.as_ptr().wrapping_add(self.home(key));
            // SAFETY: a prefetch is a hint; it never faults, even on a bad address.
            unsafe {
                std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(slot.cast())
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Records that `key` is about to be searched with `remaining` moves left. Returns
    /// false when it was already searched with at least as many (so the search skips it).
    #[inline(always)]
    pub(crate) fn visit(&mut self, key: u64, remaining: u8) -> bool {
        let entry = key << 8 | remaining as u64;
        let mask = self.slots.len() - 1;
        let mut index = self.home(key);
        let mut shallowest = index;
        for _ in 0..PROBES {
            let slot = self.slots[index];
            if slot == 0 {
                self.slots[index] = entry;
                self.len += 1;
                if self.len * 2 > self.slots.len() && self.bits < self.max_bits {
                    self.grow();
                }
                return true;
            }
            if slot >> 8 == key {
                if (slot & 0xff) as u8 >= remaining {
                    return false;
                }
                self.slots[index] = entry;
                return true;
            }
            if slot & 0xff < self.slots[shallowest] & 0xff {
                shallowest = index;
            }
            index = (index + 1) & mask;
        }
        self.slots[shallowest] = entry;
        true
    }

    fn grow(&mut self) {
        let old = std::mem::replace(&mut self.slots, zeroed_slots(self.bits + 1));
        self.bits += 1;
        self.len = 0;
        let mask = self.slots.len() - 1;
        for entry in old.into_iter().filter(|&e| e != 0) {
            let mut index = self.home(entry >> 8);
            for _ in 0..PROBES {
                if self.slots[index] == 0 {
                    self.slots[index] = entry;
                    self.len += 1;
                    break;
                }
                index = (index + 1) & mask;
            }
        }
    }
}

/// `2^bits` empty slots. Large tables ask for transparent huge pages: the search probes
/// them at random, and 4 KiB pages would make nearly every probe a TLB miss too.
fn zeroed_slots(bits: u32) -> Vec<u64> {
    let slots = vec![0u64; 1 << bits];
    #[cfg(target_os = "linux")]
    if slots.len() * 8 >= 4 << 20 {
        // madvise wants a page-aligned start; the allocator's header shifts ours a little.
        const PAGE: usize = 4096;
        let start = slots.as_ptr() as usize;
        let aligned = start.next_multiple_of(PAGE);
        let len = (start + slots.len() * 8 - aligned) / PAGE * PAGE;
        // SAFETY: the range lies inside this vector's own allocation; advice changes no contents.
        unsafe { libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_a_state_searched_as_deep_and_grows() {
        let mut table = TransTable::new(1 << 20);
        assert!(table.visit(7, 3));
        assert!(!table.visit(7, 3));
        assert!(!table.visit(7, 2));
        assert!(table.visit(7, 4));
        for key in 100..20_000u64 {
            assert!(table.visit(key, 5));
        }
        assert!(table.bytes() > 1 << 15);
        assert!(!table.visit(7, 4), "entries survive growth");
        table.reset();
        assert!(table.visit(7, 1));
        assert_eq!(table.bytes(), 1 << 15);
    }

    #[test]
    fn full_table_replaces_instead_of_failing() {
        let mut table = TransTable::new(1 << 15);
        for key in 0..100_000u64 {
            assert!(table.visit(key + 1, 2));
        }
        assert_eq!(table.bytes(), 1 << 15);
    }
}
