//! MT19937 with CPython 2.7's seeding and `random()`, `choice`, `shuffle`, `randint`.
//!
//! The Fogleman generator draws from Python 2's `random` module; reproducing a seed's game
//! bit for bit needs the same integer seeding (`init_by_array` over 32-bit words of the
//! seed) and the same float-based derived operations (Python 3's differ).

const N: usize = 624;
const M: usize = 397;

/// `init_genrand(19650218)`, the state every `init_by_array` starts from.
const GENRAND_19650218: [u32; N] = {
    let mut state = [0u32; N];
    state[0] = 19_650_218;
    let mut i = 1;
    while i < N {
        let prev = state[i - 1];
        state[i] = 1_812_433_253u32
            .wrapping_mul(prev ^ (prev >> 30))
            .wrapping_add(i as u32);
        i += 1;
    }
    state
};

/// A Mersenne Twister seeded the way CPython 2.7 seeds it from an integer.
pub struct PyRandom {
    state: [u32; N],
    index: usize,
}

impl PyRandom {
    /// Seeds like `random.seed(seed)` in Python 2.7 for a non-negative integer.
    pub fn new(seed: u64) -> Self {
        let words = [seed as u32, (seed >> 32) as u32];
        let key = &words[..1 + usize::from(seed >> 32 != 0)];
        let mut rng = PyRandom {
            state: GENRAND_19650218,
            index: N,
        };
        rng.init_by_array(key);
        rng
    }

    fn init_by_array(&mut self, key: &[u32]) {
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

    /// The next tempered 32-bit output word. The state is regenerated one word at a time,
    /// just before the word is read: the same in-place pass as regenerating all 624 at
    /// once, but a game reads only a few dozen.
    pub fn next_u32(&mut self) -> u32 {
        if self.index >= N {
            self.index = 0;
        }
        let k = self.index;
        let mt = &mut self.state;
        let y = (mt[k] & 0x8000_0000) | (mt[(k + 1) % N] & 0x7fff_ffff);
        let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
        mt[k] = mt[(k + M) % N] ^ (y >> 1) ^ mag;
        self.index += 1;
        let mut y = mt[k];
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

    /// Words read past the state's first and second regeneration (CPython 3's
    /// `getrandbits(32)`, which seeds integers the same way): regenerating one word at a
    /// time gives the full pass's words.
    #[test]
    fn words_across_regenerations_match_cpython() {
        let mut rng = PyRandom::new(1_605_212_351);
        let words: Vec<u32> = (0..1250).map(|_| rng.next_u32()).collect();
        assert_eq!(
            words[622..627],
            [
                4_214_698_783,
                4_274_329_360,
                912_526_105,
                3_187_785_543,
                149_697_135
            ]
        );
        assert_eq!(
            words[1246..1250],
            [2_074_070_643, 2_054_935_574, 873_594_217, 2_357_251_971]
        );
        let mut rng = PyRandom::new((1 << 40) + 7);
        let words: Vec<u32> = (0..626).map(|_| rng.next_u32()).collect();
        assert_eq!(words[..2], [2_635_837_658, 3_209_733_218]);
        assert_eq!(words[623..], [1_232_433_674, 2_745_986_973, 966_541_582]);
    }

    #[test]
    fn large_seed_uses_two_key_words() {
        let mut small = PyRandom::new(5);
        let mut large = PyRandom::new((1 << 32) + 5);
        assert_ne!(small.next_u32(), large.next_u32());
    }
}
