//! The "organic auction" conversation mode: agents spend tokens to win the floor,
//! interject briefly under a ducked speaker, and occasionally cut each other off.
//!
//! Everything here is pure and deterministic: time comes in as monotonic milliseconds,
//! randomness from an explicit seed. The format is one state machine, [`AuctionDebate`]:
//! its node hands it messages ([`Input`]: streamed text, replies, the player's clip
//! reports) and sends what it returns ([`Output`]: turns, side requests, clips and
//! commands, utterances, records); underneath, it decides on [`Event`]s (segments ready,
//! beats reached with measured times, clips finished, model answers) and decides
//! [`Action`]s (request segments, bids, kickers and interjections from the models; play,
//! duck, fade clips; write records), the level the offline simulation drives.
//!
//! Sub-managers, one module each:
//! - [`tokens`]: accrual, bank limits, anti-hoarding decay, reserve expiry, stipends;
//! - [`bidding`]: the desire formula and its softmax mapping to bids;
//! - [`resolver`]: first-price resolution, tie-breaks and pricing;
//! - [`fairness`]: talk-time shares, EMA pacing, underspoke subsidy;
//! - [`lead_time`]: the resolve lead adapted to measured misses (AIMD);
//! - [`governor`]: limits on model requests in flight and per minute;
//! - [`interrupt`]: hard-interrupt eligibility, cooldowns, budgets, escalating fees;
//! - [`interjection`]: interjection kinds, caps, cooldowns, acknowledgements;
//! - [`emotion`], [`reputation`], [`evidence`]: mood, standing and the evidence lane;
//! - [`llm`]: strict parsers for model bids and mood reports;
//! - [`sanitize`]: spoken-text cleaning for kickers and interjections;
//! - [`config`]: the YAML configuration and presets; [`ids`]: deterministic ids;
//! - [`records`], [`table`]: serializable event records and the per-auction log table;
//! - [`debate`]: the state machine; [`sim`]: an offline simulated session.

pub mod bidding;
pub mod config;
pub mod debate;
pub mod emotion;
pub mod evidence;
pub mod fairness;
pub mod governor;
pub mod ids;
pub mod interjection;
pub mod interrupt;
pub mod lead_time;
pub mod llm;
pub mod records;
pub mod reputation;
pub mod resolver;
pub mod rng;
pub mod sanitize;
pub mod sim;
pub mod table;
pub mod tokens;

pub use config::{AuctionConfig, ConfigError};
pub use debate::{
    AUCTION_FORMAT, Acknowledgement, Action, AgentSnapshot, AuctionDebate, AuctionSetup, BeatPlan,
    DebateError, EndReason, Event, HintKind, Input, Output, SegmentHint, SegmentRequest, Timeouts,
};
pub use emotion::Mood;
pub use llm::{SegmentPayload, parse_bid, parse_mood, parse_segment_payload};
pub use records::{ClipRole, EventRecord, RecordKind, SessionEndRecord};
pub use sanitize::sanitize_spoken;
pub use table::render_auction_table;
