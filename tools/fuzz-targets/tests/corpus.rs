//! Every input in `fuzz/corpus/<target>/` (seeds, and any crash ever found, kept as a
//! regression) runs through its target; then a few thousand seeded mutations of them, so
//! the test command fuzzes a little too (the coverage-guided runs are `scripts/fuzz.sh`).

use std::path::{Path, PathBuf};

use fuzz_targets::TARGETS;

fn corpus_dir(target: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target)
}

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = corpus_dir(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.expect("a corpus entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let bytes = std::fs::read(&p).expect("a readable corpus file");
            (p, bytes)
        })
        .collect()
}

#[test]
fn every_target_has_a_corpus_and_survives_it() {
    for target in TARGETS {
        let inputs = corpus(target.name);
        assert!(!inputs.is_empty(), "fuzz/corpus/{} is empty", target.name);
        for (path, bytes) in inputs {
            let result = std::panic::catch_unwind(|| (target.run)(&bytes));
            assert!(
                result.is_ok(),
                "{} panicked on {}",
                target.name,
                path.display()
            );
        }
    }
}

/// xorshift64*: reproducible mutations without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Tokens the parsers care about, spliced into inputs.
const TOKENS: &[&[u8]] = &[
    b"(",
    b")",
    b"[",
    b"]",
    b",",
    b"*",
    b"\xe2\x86\x92",
    b"->",
    b"\n",
    b"\r\n",
    b": ",
    b"- ",
    b"---\n",
    b"+++",
    b"data: ",
    b"[DONE]",
    b"{",
    b"}",
    b"\"",
    b"\\u0000",
    b"[[",
    b"]]",
    b"RIFF",
    b"WAVE",
    b"fmt ",
    b"data",
    b"\xff\xff\xff\xff",
    b"0",
    b"-1",
    b"1e309",
    b"NaN",
    b"#",
    b"##",
    b"\x00",
    b"\xc3\x28",
    b"\xe4\xbd\xa0\xe5\xa5\xbd",
];

fn mutate(rng: &mut Rng, input: &mut Vec<u8>, other: &[u8]) {
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(input.len() + 1);
        match rng.below(6) {
            0 if !input.is_empty() => {
                let i = rng.below(input.len());
                input[i] ^= 1 << rng.below(8);
            }
            1 if !input.is_empty() => {
                let end = (at + 1 + rng.below(16)).min(input.len());
                input.drain(at.min(end)..end);
            }
            2 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                input.splice(at..at, token.iter().copied());
            }
            3 if !other.is_empty() => {
                let from = rng.below(other.len());
                let end = (from + 1 + rng.below(64)).min(other.len());
                input.splice(at..at, other[from..end].iter().copied());
            }
            4 if !input.is_empty() => {
                // Repeat a slice: deep nesting, long lines.
                let end = (at + 1 + rng.below(8)).min(input.len());
                let slice = input[at.min(end)..end].to_vec();
                for _ in 0..rng.below(64) {
                    input.splice(at..at, slice.iter().copied());
                }
            }
            _ => input.insert(at, rng.next() as u8),
        }
    }
    input.truncate(64 * 1024);
}

#[test]
fn seeded_mutations_of_the_corpus_never_panic() {
    for (n, target) in TARGETS.iter().enumerate() {
        let seeds: Vec<Vec<u8>> = corpus(target.name).into_iter().map(|(_, b)| b).collect();
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (n as u64 + 1));
        for round in 0..2_000 {
            let mut input = seeds[rng.below(seeds.len())].clone();
            let other = &seeds[rng.below(seeds.len())];
            mutate(&mut rng, &mut input, other);
            let result = std::panic::catch_unwind(|| (target.run)(&input));
            assert!(
                result.is_ok(),
                "{} panicked on mutation {round}: {:?}",
                target.name,
                String::from_utf8_lossy(&input)
            );
        }
    }
}
