//! Addressed clips: the player's second mode, driven by a conductor (the auction node).
//!
//! A clip is prepared first ([`ClipSpec`] on the player's `clip` input: synthesized and
//! held, answered by [`ClipReady`] on `clip_ready`), then played by a [`ClipCommand`] on
//! `command`. While it sounds the player reports [`ClipStarted`], one [`BeatReached`]
//! per sentence boundary (measured on its sample clock) and [`ClipFinished`]. All of
//! them travel as Utf8 JSON, with the `clip_id` also in the metadata.

use serde::{Deserialize, Serialize};

/// A clip to prepare: its sentences are synthesized one by one, so that the boundaries
/// between them (the beats) are known to the sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClipSpec {
    pub clip_id: String,
    pub speaker: String,
    /// The conductor's id for this clip (increasing), echoed in the timeline.
    pub question_id: u64,
    pub sentences: Vec<String>,
    /// Report the clip ready once its first sentence is synthesized, the rest being
    /// synthesized while it plays: a long main clip then sounds seconds sooner, where
    /// its whole synthesis would keep the floor silent ([`ClipReady::pending`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ready_at_first_sentence: bool,
}

/// What a conductor asks the player to do with a prepared clip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "command", rename_all = "snake_case", deny_unknown_fields)]
pub enum ClipCommand {
    /// Play as the main voice (after the current main voice, if any, has ended).
    Play { clip_id: String },
    /// Play over the main voice, which is ducked first (by the armed duck, or by
    /// [`DEFAULT_DUCK_DB`] when none was armed).
    PlayOverlay { clip_id: String },
    /// Arm a duck of the main clip: it ramps down when the overlay is about to sound
    /// (a cancelled overlay never ducks). A second duck of a ducked clip is refused.
    Duck {
        clip_id: String,
        gain_db: f64,
        ramp_ms: u64,
    },
    /// Release the duck (the end of the overlay releases it too).
    Unduck { clip_id: String, ramp_ms: u64 },
    /// Fade the clip out and stop it (a hard interrupt).
    FadeOut { clip_id: String, fade_ms: u64 },
    /// Start a prepared clip as the main voice after `delay_ms`, fading in over `fade_ms`.
    FadeIn {
        clip_id: String,
        delay_ms: u64,
        fade_ms: u64,
    },
    /// Forget a prepared clip that will not play (or stop it, if it sounds).
    Discard { clip_id: String },
}

impl ClipCommand {
    pub fn clip_id(&self) -> &str {
        match self {
            ClipCommand::Play { clip_id }
            | ClipCommand::PlayOverlay { clip_id }
            | ClipCommand::Duck { clip_id, .. }
            | ClipCommand::Unduck { clip_id, .. }
            | ClipCommand::FadeOut { clip_id, .. }
            | ClipCommand::FadeIn { clip_id, .. }
            | ClipCommand::Discard { clip_id } => clip_id,
        }
    }
}

/// Gain of the main voice under an overlay when no duck was armed.
pub const DEFAULT_DUCK_DB: f64 = -12.0;
/// Ramp of a duck when none was armed.
pub const DEFAULT_DUCK_RAMP_MS: u64 = 60;

/// A clip is synthesized and held (or could not be: `error`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClipReady {
    pub clip_id: String,
    pub speaker: String,
    /// Duration of each sentence synthesized, in order (0 for a sentence that failed).
    pub sentence_ms: Vec<u64>,
    /// The sum of `sentence_ms`.
    pub duration_ms: u64,
    /// Sentences after those of `sentence_ms` still being synthesized (a clip asked
    /// ready at its first sentence): they follow as they come, a gap while one is late.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub pending: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// A clip began to sound at `at_ms` of the player's clock.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClipStarted {
    pub clip_id: String,
    pub speaker: String,
    pub question_id: u64,
    pub overlay: bool,
    pub at_ms: u64,
}

/// The main clip passed the end of sentence `beat` (1-based) at `at_ms`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BeatReached {
    pub clip_id: String,
    pub beat: u32,
    pub at_ms: u64,
}

/// A clip ended, was faded out or discarded while sounding; also a line of `timeline.jsonl`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClipFinished {
    pub speaker: String,
    pub question_id: u64,
    pub start_ms: u64,
    pub end_ms: u64,
    pub interrupted: bool,
    pub chars_played: usize,
    pub text_played: String,
    pub clip_id: String,
    pub overlay: bool,
    /// `[from, to]` windows while the clip was ducked (ramps included).
    pub ducked: Vec<[u64; 2]>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_in_json() {
        let c: ClipCommand =
            serde_json::from_str(r#"{"command":"duck","clip_id":"c1","gain_db":-12,"ramp_ms":60}"#)
                .unwrap();
        assert_eq!(
            c,
            ClipCommand::Duck {
                clip_id: "c1".into(),
                gain_db: -12.0,
                ramp_ms: 60
            }
        );
        let back = serde_json::to_string(&ClipCommand::PlayOverlay {
            clip_id: "c2".into(),
        })
        .unwrap();
        assert_eq!(back, r#"{"command":"play_overlay","clip_id":"c2"}"#);
        assert!(
            serde_json::from_str::<ClipCommand>(r#"{"command":"explode","clip_id":"x"}"#).is_err()
        );
        assert!(serde_json::from_str::<ClipSpec>(r#"{"clip_id":"x"}"#).is_err());
    }
}
