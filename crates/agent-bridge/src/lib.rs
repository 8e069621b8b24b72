//! A participant's side of the conference, without I/O.
//!
//! - [`persona`]: persona files (TOML).
//! - [`history`]: the shared conversation, as a model call's prompt with speaker
//!   attribution.
//! - [`prompt`]: a request's prompt as its parts, rendered by each backend.
//! - [`core`]: the bridge state machine: which turns to answer, when to cancel, and how a
//!   backend's chunks become the `text` stream (`started` / `ongoing` / `ended`).
//! - [`scripted`]: the scripted stand-in, a deterministic template model for tests.
//! - [`local`]: prompts and output filtering for a small embedded model.
//! - [`guard`]: sentences a participant must not say (echoes, filler, another's name).
//! - [`reply`]: what of a model's reply may be said, the same for every backend.
//! - [`request`]: side requests (intents, bids, short lines) answered on `reply`.
//! - [`host`]: what a bridge asks of the model host, as it travels.

pub mod core;
pub mod guard;
pub mod history;
pub mod host;
pub mod local;
pub mod openai;
pub mod opener;
pub mod persona;
pub mod prompt;
pub mod reply;
pub mod request;
pub mod scripted;

pub use crate::core::{
    BRIDGE_FORMAT, BridgeCore, BridgeInput, BridgeOutput, BridgeSetup, GenerationRequest,
};
pub use history::{Entry, History};
pub use persona::{Persona, PersonaError};
pub use prompt::{ChatMessage, ChatRole, Prompt, PromptLine};
pub use request::{Answering, SideRequest};
