//! Who speaks next in a multi-participant conversation.
//!
//! - [`grammar`]: the `DORA_POLICY_PATTERN` language (`[A → B → C]`,
//!   `[(judge, *), (defense, 1), (prosecution, 1)]`), parsed with nom into a [`Policy`].
//! - [`engine`]: the deterministic selection algorithm (sequential round robin,
//!   ratio/priority balancing, cold start, no back-to-back, human reset).
//! - [`words`]: the word-counting rule used for ratio balancing (CJK aware).
//!
//! Nothing here reads a clock or performs I/O.

pub mod engine;
pub mod grammar;
pub mod sim;

pub use engine::{HUMAN, LastSpeaker, PolicyEngine, PolicyStats, Viability};
pub use grammar::{Participant, Policy, PolicyError, PolicyErrorKind, Weight};
pub use text::count_words;
