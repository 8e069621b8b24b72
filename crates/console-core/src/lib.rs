//! The browser console's decisions, without I/O: dora inputs (id, text or samples,
//! metadata) and page messages in, page messages and dora outputs out, a
//! [`conductor::Core`] fed one [`ConsoleInput`] at a time. Time is passed in as
//! milliseconds on the node's clock.
//!
//! ```text
//!  ConsoleInput::Dora ──▶ Console::input ──▶ [PageOutput::Broadcast | PageOutput::Audio]
//!                                                         (to the pages)
//!  ConsoleInput::Page* ──▶ Console::page_text / page_audio ──▶ [PageOutput::Dora | To]
//!                                                         (control, human_text, audio)
//! ```

pub mod auth;
mod handle;
mod inputs;
pub mod latency;
pub mod page;
mod page_frames;
pub mod shares;
mod to_pages;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use serde::Serialize;
use serde_json::Value;

pub use handle::{ConsoleInput, Payload};
pub use inputs::{levels, split_heard};
pub use latency::{Latency, LatencyView, TurnLatency};
pub use page::{ClientMsg, Command};
pub use shares::{Bar, StatusView};
use to_pages::line_msg;
pub use to_pages::msg;

/// A page connection.
pub type ClientId = u64;

/// The metadata of a dora input the console reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Meta {
    pub question_id: Option<u64>,
    pub speaker: Option<String>,
    pub interrupted: Option<bool>,
    pub is_human: Option<bool>,
    pub session_status: Option<String>,
    pub chars_played: Option<i64>,
    pub sample_rate: Option<i64>,
    /// `kind` or `line_kind` (a moderator's line).
    pub kind: Option<String>,
}

/// The data of a dora input.
#[derive(Debug, Clone, Copy)]
pub enum Data<'a> {
    Text(&'a str),
    Samples(&'a [f32]),
    /// Neither text nor Float32 samples (or unreadable).
    Other,
}

/// What the console does.
#[derive(Debug, Clone, PartialEq)]
pub enum PageOutput {
    /// A JSON message for every page.
    Broadcast(String),
    /// A JSON message for one page.
    To(ClientId, String),
    /// A binary audio frame ([`page::encode_audio`]) for the pages listening.
    Audio {
        frame: Vec<u8>,
        to: Vec<ClientId>,
    },
    Dora(DoraOutput),
    /// Something the node should log: input it could not use.
    Warning(String),
}

/// The console's dora outputs.
#[derive(Debug, Clone, PartialEq)]
pub enum DoraOutput {
    /// `control`: a command for the decision node (controller or moderator).
    Control(String),
    /// `human_text`: the human's typed words, as a final transcript (`speaker`,
    /// `session_status: ended`).
    HumanText { speaker: String, text: String },
    /// `audio`: the page's microphone, Float32 with `sample_rate`.
    Audio { sample_rate: u32, samples: Vec<f32> },
}

#[derive(Debug, Clone)]
pub struct Config {
    /// The speaker name of typed messages and the microphone.
    pub human_speaker: String,
    /// The least time between two level messages of one source.
    pub level_interval_ms: u64,
    /// Transcript lines kept for pages that connect later.
    pub max_lines: usize,
    /// Silence appended when the microphone is released, so the recognizer's voice
    /// detector closes the utterance.
    pub release_silence_ms: u64,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            human_speaker: "human".to_owned(),
            level_interval_ms: 50,
            max_lines: 500,
            release_silence_ms: 1200,
        }
    }
}

/// One line of the transcript as heard.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Line {
    /// Position in the transcript; a later message with the same `seq` replaces the line.
    pub seq: u64,
    /// `agent`, `human`, `moderator`, `decision`, `auction`, `interrupt`, `backchannel`,
    /// `phase`.
    pub kind: &'static str,
    pub speaker: String,
    pub question_id: Option<u64>,
    pub text: String,
    /// What was heard, once the player reported it.
    pub played: Option<String>,
    /// What was not heard of an interrupted line.
    pub cut: Option<String>,
    pub interrupted: bool,
    pub at_ms: u64,
}

/// The policy panel.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct PolicyView {
    pub status: Option<StatusView>,
    pub last_decision: Option<String>,
    pub phase: Option<String>,
    pub exchange: Option<String>,
    pub moderator_action: Option<String>,
    /// Auction: agent → (tokens, last bid).
    pub auction: BTreeMap<String, AuctionAgent>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct AuctionAgent {
    pub tokens: Option<u64>,
    pub bid: Option<u64>,
}

/// Counts the node adds to the console's own (sockets, queues).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Transport {
    pub clients: usize,
    pub frames_sent: u64,
    pub frames_dropped: u64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct PlayedReport {
    interrupted: bool,
    chars: Option<usize>,
}

/// Who speaks, as the page shows it: the participant speaking now and the one due
/// next (name, question id), and whether the human holds the floor.
#[derive(Debug, Clone, Default)]
struct Voices {
    speaking: Option<(String, u64)>,
    next_speaker: Option<(String, u64)>,
    human_speaking: bool,
}

#[derive(Debug)]
pub struct Console {
    config: Config,
    lines: VecDeque<Line>,
    next_seq: u64,
    /// Player reports that arrived before their utterance: question id → (text, report).
    early_played: HashMap<u64, (String, PlayedReport)>,
    policy: PolicyView,
    /// A rehearsal moderator's board (the presenter's view), as last received.
    board: Option<serde_json::Map<String, Value>>,
    latency: Latency,
    /// Who speaks now and next, as the page shows them.
    voices: Voices,
    last_level: HashMap<&'static str, u64>,
    mic_holder: Option<ClientId>,
    listeners: BTreeSet<ClientId>,
    inputs_seen: BTreeMap<String, u64>,
    rejected_page_messages: u64,
    transport: Transport,
}

impl Console {
    pub fn new(config: Config) -> Self {
        Self {
            config,
            lines: VecDeque::new(),
            next_seq: 0,
            early_played: HashMap::new(),
            policy: PolicyView::default(),
            board: None,
            latency: Latency::default(),
            voices: Voices::default(),
            last_level: HashMap::new(),
            mic_holder: None,
            listeners: BTreeSet::new(),
            inputs_seen: BTreeMap::new(),
            rejected_page_messages: 0,
            transport: Transport::default(),
        }
    }

    pub fn lines(&self) -> impl Iterator<Item = &Line> {
        self.lines.iter()
    }

    pub fn policy(&self) -> &PolicyView {
        &self.policy
    }

    /// The rehearsal board as last received.
    pub fn board(&self) -> Option<&serde_json::Map<String, Value>> {
        self.board.as_ref()
    }

    pub fn latency(&self) -> LatencyView {
        self.latency.view()
    }

    pub fn mic_holder(&self) -> Option<ClientId> {
        self.mic_holder
    }

    pub fn set_transport(&mut self, transport: Transport) {
        self.transport = transport;
    }

    /// Everything a page that just connected needs to show the session so far.
    pub fn connected(&mut self, client: ClientId) -> Vec<PageOutput> {
        let mut out = vec![PageOutput::To(
            client,
            msg(
                "hello",
                serde_json::json!({ "client": client, "human": self.config.human_speaker }),
            ),
        )];
        for line in &self.lines {
            out.push(PageOutput::To(client, line_msg(line)));
        }
        out.push(PageOutput::To(client, self.policy_msg()));
        if let Some(board) = &self.board {
            out.push(PageOutput::To(
                client,
                msg("board", Value::Object(board.clone())),
            ));
        }
        out.push(PageOutput::To(client, self.speaking_msg()));
        out.push(PageOutput::To(client, self.latency_msg()));
        out.push(PageOutput::To(client, self.mic_msg(client)));
        out.push(PageOutput::To(client, self.stats_msg()));
        out
    }

    /// A page went away: its microphone is released.
    pub fn disconnected(&mut self, client: ClientId) -> Vec<PageOutput> {
        self.listeners.remove(&client);
        if self.mic_holder == Some(client) {
            return self.release_mic(client);
        }
        Vec::new()
    }

    /// The stats panel (inputs seen, transport counts, the microphone).
    pub fn stats_msg(&self) -> String {
        msg(
            "stats",
            serde_json::json!({
                "inputs": self.inputs_seen,
                "lines": self.lines.len(),
                "rejected_page_messages": self.rejected_page_messages,
                "clients": self.transport.clients,
                "frames_sent": self.transport.frames_sent,
                "frames_dropped": self.transport.frames_dropped,
                "mic_held": self.mic_holder.is_some(),
                "listeners": self.listeners.len(),
            }),
        )
    }
}

#[cfg(test)]
mod tests;
