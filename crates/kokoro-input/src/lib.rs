//! What the Kokoro-82M speech model is fed, with no I/O: text cut into clauses for a
//! phonemizer ([`clauses`]), the phonemizer's IPA turned into the model's symbols and
//! token ids ([`phonemes`]), and voices named, blended and given a speed ([`voice`]).
//!
//! The model takes `tokens` (int64, `[1, n + 2]`, padded with 0 at both ends), `style`
//! (float32 `[1, 256]`, the voice's row for `n` tokens) and `speed` (float32 `[1]`), and
//! returns audio at [`SAMPLE_RATE`].

pub mod clauses;
pub mod phonemes;
pub mod voice;

pub use clauses::{Clause, clauses};
pub use phonemes::{Vocab, VocabError, to_symbols};
pub use voice::{StyleBank, StyleError, VoiceSpec, VoiceSpecError};

/// The rate of the model's audio.
pub const SAMPLE_RATE: u32 = 24_000;

/// The most tokens one call of the model takes (its style tables have a row per length
/// up to this); longer inputs are cut at clause ends ([`phonemes::batches`]).
pub const MAX_TOKENS: usize = 510;
