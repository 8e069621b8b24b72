//! What a bridge is built from: written at the head of its decision log, so that
//! `replay` builds the same bridge and feeds it the recorded inputs.

use dialogue_planner::{Agenda, Participant};
use serde::{Deserialize, Serialize};

use super::{BridgeCore, BridgeInput, BridgeOutput};
use crate::persona::Persona;

/// The format name of a bridge's decision log (`decisions/<node-id>.jsonl`).
pub const BRIDGE_FORMAT: &str = "bridge";

/// Everything [`BridgeCore`] is built from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BridgeSetup {
    pub persona: Persona,
    pub topic: Option<String>,
    /// Utterances the history keeps.
    pub history: usize,
    /// Participants known by name and role ([`BridgeCore::with_plan`]).
    pub directory: Vec<Participant>,
    /// The agenda file's, if one was given.
    pub agenda: Option<Agenda>,
    /// The conversation's participants ([`BridgeCore::with_participants`]).
    pub participants: Vec<String>,
    pub openers: bool,
    pub read_along: bool,
    pub scripted_requests: bool,
}

impl BridgeSetup {
    /// The participant with its persona and nothing else known or switched on.
    pub fn new(persona: Persona, topic: Option<String>, history: usize) -> Self {
        Self {
            persona,
            topic,
            history,
            directory: Vec::new(),
            agenda: None,
            participants: Vec::new(),
            openers: false,
            read_along: false,
            scripted_requests: false,
        }
    }

    pub fn build(&self) -> BridgeCore {
        BridgeCore::new(self.persona.clone(), self.topic.clone(), self.history)
            .with_plan(self.directory.clone(), self.agenda.clone())
            .with_participants(self.participants.clone())
            .with_openers(self.openers)
            .with_read_along(self.read_along)
            .with_scripted_requests(self.scripted_requests)
    }
}

/// The bridge has no waits of its own: its inputs, whatever the time.
impl conductor::Core for BridgeCore {
    type Input = BridgeInput;
    type Output = BridgeOutput;
    type Opening = ();

    fn handle(&mut self, input: BridgeInput, _now_ms: u64) -> Vec<BridgeOutput> {
        self.decide(input)
    }
}
