//! Text → speakable segments.
//!
//! - [`split`]: the streaming sentence splitter of one utterance ([`TurnSegmenter`]).
//! - [`sanitize`]: what never reaches a voice (Markdown, emoji, speaker tags).
//! - [`core`]: the segmenter node's state machine: turns in question-id order, stale turns
//!   dropped, segment metadata.

pub mod core;
pub mod sanitize;
pub mod split;

pub use crate::core::{Segment, SegmenterCore, SegmenterInput, SegmenterNotice};
pub use sanitize::sanitize;
pub use split::{SegmenterConfig, TurnSegmenter};
