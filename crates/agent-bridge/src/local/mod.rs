//! Prompting a small embedded model, without I/O: which lines of the conversation it
//! sees ([`PromptWindow`]), how a turn is worded for it ([`LocalPrompt`]), and how its
//! raw stream becomes spoken words ([`OutputFilter`]), and what sampling steers away from
//! before the filter would have to refuse it ([`steer`]).
//!
//! A model of a hundred million parameters follows a transcript plus one plain request
//! far better than a long multi-turn chat, and it tends to continue the transcript as
//! other speakers, to put a name tag first and to decorate with markdown. The filter
//! removes all of that before any text leaves the bridge.

mod filter;
mod prompt;
mod spoken;
pub mod steer;
mod window;

use crate::{
    guard::{Refusal, SentenceGuard},
    prompt::{ChatMessage, ChatRole, Prompt, PromptLine},
};

pub use filter::{Filtered, OutputFilter};
pub use prompt::{
    AFRESH_LINES, COMMON_SPEAKERS, FitError, LocalPrompt, MAX_SYSTEM_CHARS, prepared_words,
    quoted_spans, speaker_names,
};
pub use spoken::{budget_slack, strip_tag};
pub use window::{PromptWindow, reusable_prefix};

#[cfg(test)]
mod tests;
