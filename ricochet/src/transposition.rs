//! The transposition table of the iterative-deepening search.
//!
//! Maps a canonical state key to the largest remaining depth at which the state was
//! already searched without success. The key is spread by a bijective hash; its top bits
//! pick a bucket of 16 four-byte slots, one cache line, and each slot keeps the hash's
//! other bits above six bits of depth (0 = empty). So a probe touches one line and stores
//! the key exactly in half the bytes of a full one. The table starts small, so that short
//! puzzles cost only a few kilobytes to clear, doubles while it fills, and past its size
//! limit replaces the shallowest entry of the bucket: a lost entry only means a state is
//! searched again. Memory it grew into is kept for the next puzzle, since first touching
//! fresh pages costs more than clearing warm ones.

/// Slots in a bucket.
const SLOTS: usize = 16;
/// Bits of a slot holding the depth.
const DEPTH_BITS: u32 = 6;
const DEPTH_MASK: u32 = (1 << DEPTH_BITS) - 1;
/// Initial size: 2^9 buckets, 32 KiB (more for keys too wide for a slot to keep the rest).
const INITIAL_BITS: u32 = 9;
/// Buckets a reset clears one by one rather than all at once: up to half the table (a
/// table for wide keys starts at a megabyte, and clearing it whole after each search of a
/// few thousand states cost a tenth of a short search), within a bound on the list.
fn dirty_limit(bits: u32) -> usize {
    ((1usize << bits) / 2).clamp(1024, 1 << 16)
}

#[derive(Clone, Copy, Default)]
#[repr(C, align(64))]
struct Bucket([u32; SLOTS]);

pub(crate) struct TransTable {
    buckets: Vec<Bucket>,
    /// Where `grow` keeps the old entries while it spreads them out again.
    spare: Vec<Bucket>,
    /// Bits of the hash choosing the bucket.
    bits: u32,
    max_bits: u32,
    /// Bits of a key (and of its hash).
    key_bits: u32,
    len: usize,
    /// The buckets holding entries, while there are at most [`dirty_limit`] of them: short
    /// puzzles then clear only what they used.
    dirty: Vec<u32>,
    /// More buckets hold entries than `dirty` lists, or entries moved: a reset clears all.
    dirty_overflow: bool,
}

impl TransTable {
    pub(crate) fn new(max_bytes: usize) -> TransTable {
        let max_buckets = (max_bytes / size_of::<Bucket>()).max(1 << INITIAL_BITS);
        TransTable {
            buckets: Vec::new(),
            spare: Vec::new(),
            bits: 0,
            max_bits: usize::BITS - 1 - max_buckets.leading_zeros(),
            key_bits: 0,
            len: 0,
            dirty: Vec::new(),
            dirty_overflow: false,
        }
    }

    /// Empties the table for keys of `key_bits` bits.
    pub(crate) fn reset(&mut self, key_bits: u32) {
        // The slot keeps `key_bits - bits` bits of hash above the depth.
        // No more buckets than keys: a bucket's index is the hash's top bits.
        let min_bits = INITIAL_BITS
            .max((key_bits + DEPTH_BITS).saturating_sub(32))
            .min(key_bits);
        if self.bits != min_bits || self.dirty_overflow {
            self.buckets.clear();
            self.buckets.resize(1 << min_bits, Bucket::default());
        } else {
            for &index in &self.dirty {
                self.buckets[index as usize] = Bucket::default();
            }
        }
        self.dirty.clear();
        self.dirty_overflow = false;
        self.bits = min_bits;
        self.key_bits = key_bits;
        self.len = 0;
    }

    /// Empties the table for keys as wide as the last.
    pub(crate) fn clear(&mut self) {
        self.reset(self.key_bits);
    }

    /// Bytes the table uses now.
    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.buckets.len() * size_of::<Bucket>()
    }

    /// The key's hash, what `prefetch` and `visit` take: a bijection of `key_bits`-bit
    /// numbers whose top bits depend on all.
    #[inline(always)]
    pub(crate) fn hash(&self, key: u64) -> u64 {
        key.wrapping_mul(KEY_SPREAD) & ((1 << self.key_bits) - 1)
    }

    /// The bucket of a hash and what its slot keeps of it.
    #[inline(always)]
    fn split(&self, hash: u64) -> (usize, u32) {
        let rest = self.key_bits - self.bits;
        ((hash >> rest) as usize, (hash & ((1 << rest) - 1)) as u32)
    }

    /// Starts loading the bucket of the key with hash `hash` into cache ahead of `visit`.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        prefetch_line(self.buckets.as_ptr().wrapping_add(self.split(hash).0));
    }

    /// Records that the key with hash `hash` is about to be searched with `remaining`
    /// moves left. Returns false when it was already searched with at least as many (so
    /// the search skips it).
    #[inline(always)]
    pub(crate) fn visit(&mut self, hash: u64, remaining: u8) -> bool {
        debug_assert!(
            remaining > 0,
            "a zero-depth entry would read as an empty slot"
        );
        // Deeper searches are recorded as DEPTH_MASK deep, which never lets them be skipped.
        let depth = (remaining as u32).min(DEPTH_MASK);
        let (index, rest) = self.split(hash);
        let entry = rest << DEPTH_BITS | depth;
        let bucket = &mut self.buckets[index].0;
        // Compared all at once (vectorised): slots fill from the front and are never
        // emptied, so the first empty one follows the last entry.
        let (mut hits, mut empties) = (0u32, 0u32);
        for (i, &slot) in bucket.iter().enumerate() {
            hits |= ((slot >> DEPTH_BITS == rest && slot != 0) as u32) << i;
            empties |= ((slot == 0) as u32) << i;
        }
        if hits != 0 {
            let i = hits.trailing_zeros() as usize;
            if bucket[i] & DEPTH_MASK >= remaining as u32 {
                return false;
            }
            bucket[i] = entry;
            return true;
        }
        if empties != 0 {
            let free = empties.trailing_zeros() as usize;
            bucket[free] = entry;
            if free == 0 && !self.dirty_overflow {
                if self.dirty.len() < dirty_limit(self.bits) {
                    self.dirty.push(index as u32);
                } else {
                    self.dirty_overflow = true;
                }
            }
            self.len += 1;
            if self.len * 2 > self.buckets.len() * SLOTS && self.bits < self.max_bits {
                self.grow();
            }
            return true;
        }
        let shallowest = (0..SLOTS)
            .min_by_key(|&i| bucket[i] & DEPTH_MASK)
            .unwrap_or(0);
        bucket[shallowest] = entry;
        true
    }

    fn grow(&mut self) {
        std::mem::swap(&mut self.buckets, &mut self.spare);
        let old_bits = self.bits;
        self.bits += 1;
        self.len = 0;
        // Entries move to other buckets: a reset must clear them all.
        self.dirty.clear();
        self.dirty_overflow = true;
        self.buckets.clear();
        if self.buckets.capacity() < 1 << self.bits {
            self.buckets = with_huge_pages(1 << self.bits);
        }
        self.buckets.resize(1 << self.bits, Bucket::default());
        let old_rest = self.key_bits - old_bits;
        for (index, bucket) in self.spare.iter().enumerate() {
            for &slot in bucket.0.iter().filter(|&&slot| slot != 0) {
                let hash = (index as u64) << old_rest | (slot >> DEPTH_BITS) as u64;
                let (new_index, rest) = self.split(hash);
                let target = &mut self.buckets[new_index].0;
                if let Some(free) = target.iter_mut().find(|s| **s == 0) {
                    *free = rest << DEPTH_BITS | slot & DEPTH_MASK;
                    self.len += 1;
                }
            }
        }
    }
}

/// An odd multiplier whose product's top bits depend on every bit of a state key.
pub(crate) const KEY_SPREAD: u64 = 0x9E37_79B9_7F4A_7C15;

/// Starts loading the cache line at `at` ahead of its use, so that table probes' misses
/// overlap.
#[inline(always)]
pub(crate) fn prefetch_line<T>(at: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint; it never faults, even on a bad address.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(at.cast())
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = at;
}

/// An empty vector with room for `len` items. Large ones ask for transparent huge pages:
/// the searches probe their tables at random, and 4 KiB pages would make nearly every
/// probe a TLB miss too.
pub(crate) fn with_huge_pages<T>(len: usize) -> Vec<T> {
    let table = Vec::<T>::with_capacity(len);
    #[cfg(target_os = "linux")]
    if len * size_of::<T>() >= 4 << 20 {
        // madvise wants a page-aligned start; the allocator's header shifts ours a little.
        const PAGE: usize = 4096;
        let start = table.as_ptr() as usize;
        let aligned = start.next_multiple_of(PAGE);
        let len = (start + len * size_of::<T>() - aligned) / PAGE * PAGE;
        // SAFETY: the range lies inside this vector's own allocation; advice changes no contents.
        unsafe { libc::madvise(aligned as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skips_a_state_searched_as_deep_and_grows() {
        let mut table = TransTable::new(1 << 20);
        table.reset(32);
        assert!(table.visit(table.hash(7), 3));
        assert!(!table.visit(table.hash(7), 3));
        assert!(!table.visit(table.hash(7), 2));
        assert!(table.visit(table.hash(7), 4));
        for key in 100..20_000u64 {
            assert!(table.visit(table.hash(key), 5));
        }
        assert!(table.bytes() > 1 << 15);
        assert!(!table.visit(table.hash(7), 4), "entries survive growth");
        for key in 100..20_000u64 {
            assert!(!table.visit(table.hash(key), 5));
        }
        table.reset(32);
        assert!(table.visit(table.hash(7), 1));
        assert_eq!(table.bytes(), 1 << 15);
    }

    /// Keys narrower than the least table (one robot's cell): one bucket a key, every
    /// key told apart.
    #[test]
    fn keys_narrower_than_the_table_are_told_apart() {
        let mut table = TransTable::new(1 << 20);
        table.reset(8);
        for key in 0..256u64 {
            assert!(table.visit(table.hash(key), 2), "key {key} is new");
        }
        for key in 0..256u64 {
            assert!(!table.visit(table.hash(key), 2), "key {key} was searched");
            assert!(table.visit(table.hash(key), 3), "key {key} deeper");
        }
    }

    #[test]
    fn reset_after_a_short_search_forgets_its_entries() {
        let mut table = TransTable::new(1 << 20);
        table.reset(40);
        let keys: Vec<u64> = (0..500).map(|i| i << 30 | 5).collect();
        for &key in &keys {
            assert!(table.visit(table.hash(key), 9));
        }
        assert!(keys.iter().all(|&key| !table.visit(table.hash(key), 9)));
        table.reset(40);
        assert!(keys.iter().all(|&key| table.visit(table.hash(key), 9)));
    }

    #[test]
    fn reset_forgets_entries_listed_or_past_the_list() {
        // A megabyte of wide-key buckets: 3,000 keys fill fewer buckets than the list
        // holds (cleared one by one), 30,000 fill more (cleared whole).
        for (count, past_the_list) in [(3_000u64, false), (30_000, true)] {
            let mut table = TransTable::new(1 << 20);
            table.reset(40);
            let keys: Vec<u64> = (1..=count).map(|i| i.wrapping_mul(0x2545_F491)).collect();
            for &key in &keys {
                table.visit(table.hash(key), 9);
            }
            assert_eq!(table.dirty_overflow, past_the_list, "{count} keys");
            table.reset(40);
            assert!(keys.iter().all(|&key| table.visit(table.hash(key), 9)));
        }
    }

    #[test]
    fn searches_deeper_than_the_depth_field_are_never_skipped() {
        let mut table = TransTable::new(1 << 20);
        table.reset(32);
        let hash = table.hash(42);
        assert!(table.visit(hash, 70));
        assert!(table.visit(hash, 70), "recorded as 63 deep, not 70");
        assert!(!table.visit(hash, 63));
    }

    #[test]
    fn full_table_replaces_instead_of_failing() {
        let mut table = TransTable::new(1 << 15);
        table.reset(40);
        for key in 0..100_000u64 {
            assert!(table.visit(table.hash(key + 1), 2));
        }
        assert!(table.bytes() <= 1 << 20);
    }
}
