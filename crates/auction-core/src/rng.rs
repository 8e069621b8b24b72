//! The session's only source of randomness: SplitMix64 from an explicit seed, so a run
//! is reproducible from `(config, seed, events)`.

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast and good enough for choices such
/// as "does this listener feel like interjecting".
#[derive(Debug, Clone)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self { state: seed }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `lo..=hi` (`lo` when `hi < lo`).
    pub fn range_u64(&mut self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return lo;
        }
        lo + self.next_u64() % (hi - lo + 1)
    }

    /// Uniform in `-spread..=spread`.
    pub fn jitter(&mut self, spread: u64) -> i64 {
        self.range_u64(0, spread * 2) as i64 - spread as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reproducible_and_in_range() {
        let mut a = SplitMix64::new(42);
        let mut b = SplitMix64::new(42);
        for _ in 0..1000 {
            let x = a.next_f64();
            assert_eq!(x, b.next_f64());
            assert!((0.0..1.0).contains(&x));
            let r = a.range_u64(3, 5);
            b.range_u64(3, 5);
            assert!((3..=5).contains(&r));
            let j = a.jitter(150);
            b.jitter(150);
            assert!((-150..=150).contains(&j));
        }
    }
}
