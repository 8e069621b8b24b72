//! The moderator of a spoken multi-agent roundtable, as deterministic logic.
//!
//! - [`scenario`]: the YAML scenario (topic, agents, phases, knobs) and its validation.
//! - [`intent`]: agents' intents, the strict parser of a model's JSON answer and the
//!   deterministic heuristic used offline and as the fallback.
//! - [`roundtable`]: [`Roundtable`], the one state machine a `moderator` node runs (a
//!   [`conductor::Core`]): rounds and phases, intents, the floor, pacing; its
//!   [`roundtable::decide`] holds the spec's `decide_next_action(state, intents,
//!   recent_events)` (phases with rollback, the nine moderator actions, intervention
//!   levels) and [`roundtable::state`] the state updates.
//! - [`phrases`] and [`summary`]: the moderator's built-in lines and the extractive
//!   phase summary, so the moderator speaks without a model.
//!
//! Nothing here reads a clock, performs I/O or draws random numbers.

pub mod intent;
pub mod phrases;
pub mod roundtable;
pub mod scenario;
pub mod summary;

pub use intent::{
    HeuristicContext, Intent, IntentError, IntentKind, heuristic_intent, mentions_name,
    parse_intent,
};
pub use phrases::{Language, LineKind};
pub use roundtable::Roundtable;
pub use roundtable::decision::{Decision, ModeratorAction, RecentEvent};
pub use roundtable::state::ModeratorState;
pub use scenario::{
    Agent, MAX_CONSECUTIVE_SPEAKS, MIN_INTERRUPT_URGENCY, ModeratorConfig, Phase, PhaseConfig,
    PhaseType, RollbackRule, SAMPLE_SCENARIO, Scenario, ScenarioError, ScenarioFile, SpeakingOrder,
};

#[cfg(test)]
mod properties;
#[cfg(test)]
mod tests;
