//! MT19937 with CPython 2.7's seeding and `random()`, `choice`, `shuffle`, `randint`.
//!
//! The Fogleman generator draws from Python 2's `random` module; reproducing a seed's game
//! bit for bit needs the same integer seeding (`init_by_array` over 32-bit words of the
//! seed) and the same float-based derived operations (Python 3's differ).

const N: usize = 624;
const M: usize = 397;

/// A Mersenne Twister seeded the way CPython 2.7 seeds it from an integer.
pub struct PyRandom {
    state: [u32; N],
    index: usize,
}

impl PyRandom {
    /// Seeds like `random.seed(seed)` in Python 2.7 for a non-negative integer.
    pub fn new(seed: u64) -> Self {
        let mut key = vec![seed as u32];
        if seed >> 32 != 0 {
            key.push((seed >> 32) as u32);
        }
        let mut rng = PyRandom {
            state: [0; N],
            index: N,
        };
        rng.init_by_array(&key);
        rng
    }

    fn init_genrand(&mut self, seed: u32) {
        self.state[0] = seed;
        for i in 1..N {
            let prev = self.state[i - 1];
            self.state[i] = 1_812_433_253u32
                .wrapping_mul(prev ^ (prev >> 30))
                .wrapping_add(i as u32);
        }
    }

    fn init_by_array(&mut self, key: &[u32]) {
        self.init_genrand(19_650_218);
        let mt = &mut self.state;
        let (mut i, mut j) = (1usize, 0usize);
        for _ in 0..N.max(key.len()) {
            let prev = mt[i - 1];
            mt[i] = (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_664_525))
                .wrapping_add(key[j])
                .wrapping_add(j as u32);
            i += 1;
            j += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
            if j >= key.len() {
                j = 0;
            }
        }
        for _ in 0..N - 1 {
            let prev = mt[i - 1];
            mt[i] =
                (mt[i] ^ (prev ^ (prev >> 30)).wrapping_mul(1_566_083_941)).wrapping_sub(i as u32);
            i += 1;
            if i >= N {
                mt[0] = mt[N - 1];
                i = 1;
            }
        }
        mt[0] = 0x8000_0000;
        self.index = N;
    }

    fn regenerate(&mut self) {
        let mt = &mut self.state;
        for k in 0..N {
            let y = (mt[k] & 0x8000_0000) | (mt[(k + 1) % N] & 0x7fff_ffff);
            let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
            mt[k] = mt[(k + M) % N] ^ (y >> 1) ^ mag;
        }
        self.index = 0;
    }

    /// The next tempered 32-bit output word.
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.regenerate();
        }
        let mut y = self.state[self.index];
        self.index += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// `random.random()`: a double in [0, 1) with 53 random bits from two words.
    pub fn random(&mut self) -> f64 {
        let a = (self.next_u32() >> 5) as f64;
        let b = (self.next_u32() >> 6) as f64;
        (a * 67_108_864.0 + b) / 9_007_199_254_740_992.0
    }

    /// Python 2's `int(random() * n)`, the index drawn by `choice` and `shuffle`.
    fn below(&mut self, n: usize) -> usize {
        (self.random() * n as f64) as usize
    }

    /// `random.choice(seq)` of Python 2.
    pub fn choice<T: Copy>(&mut self, seq: &[T]) -> T {
        seq[self.below(seq.len())]
    }

    /// `random.shuffle(list)` of Python 2.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// `random.randint(a, b)` of Python 2 (both ends included).
    pub fn randint(&mut self, a: u32, b: u32) -> u32 {
        a + self.below((b - a + 1) as usize) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_one_matches_cpython_words_and_floats() {
        let mut rng = PyRandom::new(1);
        let words: Vec<u32> = (0..4).map(|_| rng.next_u32()).collect();
        assert_eq!(
            words,
            [577_090_037, 2_444_712_010, 3_639_700_191, 3_445_702_192]
        );
        let mut rng = PyRandom::new(1);
        assert_eq!(rng.random(), 0.134_364_244_112_401_22);
        assert_eq!(rng.random(), 0.847_433_736_937_232_7);
        assert_eq!(rng.random(), 0.763_774_618_976_614);
    }

    #[test]
    fn large_seed_uses_two_key_words() {
        let mut small = PyRandom::new(5);
        let mut large = PyRandom::new((1 << 32) + 5);
        assert_ne!(small.next_u32(), large.next_u32());
    }
}
