//! Text → speakable segments.
//!
//! - [`split`]: the streaming sentence splitter of one utterance ([`TurnSegmenter`]).
//! - [`sanitize`]: what never reaches a voice (Markdown, emoji, speaker tags and labels,
//!   stage directions) and math markup spoken as words.
//! - [`core`]: the segmenter node's state machine (a [`conductor::Core`]): turns in
//!   question-id order, stale turns dropped, segment metadata.

pub mod core;
mod labels;
mod math;
pub mod sanitize;
pub mod split;
mod stage;

pub use crate::core::{
    SEGMENTER_FORMAT, Segment, SegmenterCore, SegmenterInput, SegmenterNotice, SegmenterOutput,
};
pub use sanitize::sanitize;
pub use split::{SegmenterConfig, TurnSegmenter, ends_sentence, phrases};
