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
//! - [`board`]: what the presenter's screen shows (slide, phase, exchange, hands, debrief);
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
//! use rehearsal_core::rehearsal::Config;
//! use rehearsal_core::{Action, Deck, Event, PanelConfig, PhraseLibrary, Rehearsal};
//!
//! let config = PanelConfig::from_yaml("intensity: friendly").unwrap();
//! let deck = Deck::parse("## Problem\nManual picking kills margin.\n## Market\nTAM $40B.");
//! let paced = Config { paced: true };
//! let mut moderator = Rehearsal::new(config, deck, PhraseLibrary::builtin(), paced).unwrap();
//! moderator.decide(Event::PresenterSpeech { text: "Picking is costly.".into(), start_ms: 0, end_ms: 4_000 }, 4_000);
//! // Advancing past "Problem" opens a section break: transition line and call together.
//! let actions = moderator.decide(Event::SlideChanged { index: 1 }, 5_000);
//! assert!(actions.iter().any(|a| matches!(a, Action::Say { .. })));
//! assert!(actions.iter().any(|a| matches!(a, Action::CallAgent { agent, .. } if agent == "skeptic")));
//! ```

pub mod board;
pub mod briefing;
pub mod config;
pub mod deck;
pub mod messages;
pub mod phrases;
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
pub use rehearsal::{
    Action, Candidate, CandidatePurpose, Event, Instruction, Notice, Phase, Rehearsal,
};
