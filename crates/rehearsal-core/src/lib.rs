//! The pitch-rehearsal moderator, without I/O.
//!
//! A presenter rehearses a pitch in front of an AI panel (skeptic, analyst,
//! contrarian); a moderator decides when the panel asks, who asks, how long an
//! exchange lasts and when it is time to move on. This crate holds those decisions:
//!
//! - [`deck`]: the Markdown deck (`## Title` per slide) → slides with keywords;
//! - [`config`]: the panel (YAML): agents, intensity, interaction mode, thresholds;
//! - [`phrases`]: the moderator's phrase library (Markdown) and deterministic rotation;
//! - [`select`]: who speaks next (focus match, least recent, relevance, rotation);
//! - [`record`]: exchange records and the Markdown debrief;
//! - [`rating`]: the panel's verdict on each answer (answered, partly, dodged) and why;
//! - [`history`]: what the panel remembers of a presenter from the last session;
//! - [`board`]: what the presenter's screen shows (slide, phase, exchange, hands, debrief);
//! - [`dashboard`]: the debrief's figures as the page draws them;
//! - [`text`]: the word rules (content words, overlap, "move on" detection);
//! - [`rehearsal`]: the state machine, [`Rehearsal`] — `handle(input, now_ms) -> Vec<Output>`:
//!   the phases and their rules, question ids, turn assembly, request/reply matching,
//!   playback pacing, the context files and event records to write.
//!
//! Nothing here reads a clock, performs I/O or draws random numbers; the
//! `rehearsal-moderator` node feeds [`Rehearsal`] with the session time and carries
//! out what it returns.
//!
//! ```
//! use rehearsal_core::rehearsal::{Config, Input, Output};
//! use rehearsal_core::{Deck, PanelConfig, PhraseLibrary, Rehearsal};
//!
//! let config = PanelConfig::from_yaml("intensity: friendly").unwrap();
//! let deck = Deck::parse("## Problem\nManual picking kills margin.\n## Market\nTAM $40B.");
//! let paced = Config { paced: true };
//! let mut moderator = Rehearsal::new(config, deck, PhraseLibrary::builtin(), paced).unwrap();
//! let said = Input::Presenter { speaker: None, text: "Picking is costly.".into(), ended: true };
//! moderator.handle(said, 4_000);
//! // Advancing past "Problem" opens a section break: transition line and call together.
//! let out = moderator.handle(Input::Control("next".into()), 5_000);
//! assert!(out.iter().any(|o| matches!(o, Output::Line { .. })));
//! assert!(out.iter().any(|o| matches!(o, Output::Turn(turn) if turn.agent == "skeptic")));
//! ```

pub mod board;
pub mod briefing;
pub mod config;
pub mod dashboard;
pub mod deck;
pub mod history;
pub mod messages;
pub mod phrases;
pub mod rating;
pub mod record;
pub mod rehearsal;
pub mod select;
pub mod text;

pub use config::{
    AgentConfig, ConfigError, Intensity, InteractionMode, PanelConfig, Role, Thresholds,
};
pub use deck::{Deck, Slide};
pub use phrases::{PhraseContext, PhraseKind, PhraseLibrary, PhrasePicker, PhraseWarning};
pub use record::{
    ExchangeRecord, Outcome, PileOnRecord, PileOnStatus, Speaker, Trigger, TurnRecord,
    render_debrief,
};
#[cfg(test)]
pub(crate) use rehearsal::{Action, Event, Notice};
pub use rehearsal::{CandidatePurpose, DebriefFigures, Instruction, Phase, Rehearsal};
