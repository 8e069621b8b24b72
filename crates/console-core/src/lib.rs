//! The browser console's decisions, without I/O: dora inputs (id, text or samples,
//! metadata) and page messages in, page messages and dora outputs out. Time is passed
//! in as milliseconds on the node's clock.
//!
//! ```text
//!  dora input ──▶ Console::input ──▶ [Out::Broadcast | Out::Audio]      (to the pages)
//!  page frame ──▶ Console::page_text / page_audio ──▶ [Out::Dora | Out::To] (control,
//!                                                       human_text, audio)
//! ```

pub mod auth;
pub mod latency;
pub mod page;
pub mod shares;

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use serde::Serialize;
use serde_json::Value;

pub use latency::{Latency, LatencyView, TurnLatency};
pub use page::{ClientMsg, Command};
pub use shares::{Bar, PolicyStatus};

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
pub enum Out {
    /// A JSON message for every page.
    Broadcast(String),
    /// A JSON message for one page.
    To(ClientId, String),
    /// A binary audio frame ([`page::encode_audio`]) for the pages listening.
    Audio {
        frame: Vec<u8>,
        to: Vec<ClientId>,
    },
    Dora(DoraOut),
    /// Something the node should log: input it could not use.
    Warning(String),
}

/// The console's dora outputs.
#[derive(Debug, Clone, PartialEq)]
pub enum DoraOut {
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
    pub status: Option<PolicyStatus>,
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
    speaking: Option<(String, u64)>,
    next_speaker: Option<(String, u64)>,
    human_speaking: bool,
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
            speaking: None,
            next_speaker: None,
            human_speaking: false,
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
    pub fn connected(&mut self, client: ClientId) -> Vec<Out> {
        let mut out = vec![Out::To(
            client,
            msg(
                "hello",
                serde_json::json!({ "client": client, "human": self.config.human_speaker }),
            ),
        )];
        for line in &self.lines {
            out.push(Out::To(client, line_msg(line)));
        }
        out.push(Out::To(client, self.policy_msg()));
        if let Some(board) = &self.board {
            out.push(Out::To(client, msg("board", Value::Object(board.clone()))));
        }
        out.push(Out::To(client, self.speaking_msg()));
        out.push(Out::To(client, self.latency_msg()));
        out.push(Out::To(client, self.mic_msg(client)));
        out.push(Out::To(client, self.stats_msg()));
        out
    }

    /// A page went away: its microphone is released.
    pub fn disconnected(&mut self, client: ClientId) -> Vec<Out> {
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

    /// One dora input.
    pub fn input(&mut self, id: &str, data: Data<'_>, meta: &Meta, now: u64) -> Vec<Out> {
        *self.inputs_seen.entry(shorten_id(id)).or_default() += 1;
        let text = match data {
            Data::Text(t) => Some(t),
            _ => None,
        };
        let mut out = Vec::new();
        match id {
            "status" => {
                if let Some(status) = text.and_then(|t| shares::parse_status(t).ok()) {
                    self.policy.status = Some(status);
                    out.push(Out::Broadcast(self.policy_msg()));
                }
            }
            "utterance" => {
                if let Some(text) = text {
                    self.utterance(text, meta, now, &mut out);
                }
            }
            "turn" => {
                let speaker = meta
                    .speaker
                    .clone()
                    .or_else(|| text.map(str::to_owned))
                    .unwrap_or_default();
                if let Some(q) = meta.question_id {
                    if self.latency.turn(q, &speaker, now) {
                        out.push(Out::Broadcast(self.latency_msg()));
                    }
                    self.next_speaker = Some((speaker, q));
                    out.push(Out::Broadcast(self.speaking_msg()));
                }
            }
            "interrupt" => {
                let kind = text.unwrap_or_default().trim();
                // Question 0 is older than anything: a no-op (test keep-alives).
                if meta.question_id.is_some_and(|q| q > 0) {
                    let line = self.push_line(
                        "interrupt",
                        String::new(),
                        meta.question_id,
                        page::shorten(kind, 20),
                        now,
                    );
                    out.push(Out::Broadcast(line));
                }
            }
            "playback_started" => {
                let speaker = meta
                    .speaker
                    .clone()
                    .or_else(|| text.map(str::to_owned))
                    .unwrap_or_default();
                let q = meta.question_id.unwrap_or(0);
                if self.latency.voice_started(q, &speaker, now) {
                    out.push(Out::Broadcast(self.latency_msg()));
                }
                if self.next_speaker.as_ref().is_some_and(|(_, nq)| *nq == q) {
                    self.next_speaker = None;
                }
                self.speaking = Some((speaker, q));
                out.push(Out::Broadcast(self.speaking_msg()));
            }
            "playback_done" | "played" => {
                let report = PlayedReport {
                    interrupted: meta.interrupted.unwrap_or(false),
                    chars: meta.chars_played.and_then(|c| usize::try_from(c).ok()),
                };
                if let Some(q) = meta.question_id {
                    self.played(q, text.unwrap_or_default(), report, &mut out);
                }
                if self.latency.voice_done(meta.question_id, now) {
                    out.push(Out::Broadcast(self.latency_msg()));
                }
                if self.speaking.as_ref().map(|s| s.1) == meta.question_id {
                    self.speaking = None;
                    out.push(Out::Broadcast(self.speaking_msg()));
                }
            }
            "audio" => {
                if let Data::Samples(samples) = data {
                    self.voice_audio(samples, meta, now, &mut out);
                }
            }
            "human_audio" | "mic" => {
                if let Data::Samples(samples) = data {
                    self.human_audio(samples, now, &mut out);
                }
            }
            "speech_started" => {
                self.latency.speech_started(now);
                self.human_speaking = true;
                out.push(Out::Broadcast(self.speaking_msg()));
            }
            "transcript" => {
                self.latency.human_words(false, now);
                out.push(Out::Broadcast(self.latency_msg()));
                self.human_speaking = false;
                out.push(Out::Broadcast(self.speaking_msg()));
            }
            "backchannel" => {
                self.human_speaking = false;
                if self.latency.backchannel() {
                    out.push(Out::Broadcast(self.latency_msg()));
                }
                let speaker = meta
                    .speaker
                    .clone()
                    .unwrap_or_else(|| self.config.human_speaker.clone());
                let line = self.push_line(
                    "backchannel",
                    speaker,
                    None,
                    text.unwrap_or_default().trim().to_owned(),
                    now,
                );
                out.push(Out::Broadcast(line));
                out.push(Out::Broadcast(self.speaking_msg()));
            }
            "decision" => {
                if let Some(text) = text {
                    self.decision(text, now, &mut out);
                }
            }
            "auction" => {
                if let Some(text) = text {
                    self.auction(text, now, &mut out);
                }
            }
            "board" => match text.map(serde_json::from_str::<Value>) {
                Some(Ok(Value::Object(board))) => {
                    out.push(Out::Broadcast(msg("board", Value::Object(board.clone()))));
                    self.board = Some(board);
                }
                _ => out.push(Out::Warning(
                    "a board that is not a JSON object ignored".to_owned(),
                )),
            },
            "phase" => {
                let phase = text.unwrap_or_default().trim().to_owned();
                if !phase.is_empty() {
                    self.policy.phase = Some(phase.clone());
                    let line = self.push_line("phase", String::new(), None, phase, now);
                    out.push(Out::Broadcast(line));
                    out.push(Out::Broadcast(self.policy_msg()));
                }
            }
            _ if id == "text" || id.starts_with("text_") => {
                if let Some(q) = meta.question_id
                    && text.is_some_and(|t| !t.trim().is_empty())
                    && self.latency.token(q, now)
                {
                    out.push(Out::Broadcast(self.latency_msg()));
                }
            }
            other => out.push(Out::Warning(format!(
                "unknown input {:?} ignored",
                other.chars().take(64).collect::<String>()
            ))),
        }
        out
    }

    /// One text frame from a page.
    pub fn page_text(&mut self, client: ClientId, text: &str, now: u64) -> Vec<Out> {
        let message = match page::parse_client(text) {
            Ok(m) => m,
            Err(problem) => {
                self.rejected_page_messages += 1;
                return vec![Out::To(client, notice(&problem))];
            }
        };
        match message {
            ClientMsg::Control(command) => {
                let mut out = vec![Out::Dora(DoraOut::Control(command.wire()))];
                if command == Command::Stats {
                    out.push(Out::To(client, self.stats_msg()));
                }
                out
            }
            ClientMsg::Say(text) => {
                self.latency.human_words(true, now);
                vec![
                    Out::Dora(DoraOut::HumanText {
                        speaker: self.config.human_speaker.clone(),
                        text: text.clone(),
                    }),
                    Out::To(client, msg("sent", serde_json::json!({ "text": text }))),
                ]
            }
            ClientMsg::Mic(true) => {
                if self.mic_holder.is_none_or(|h| h == client) {
                    self.mic_holder = Some(client);
                    vec![
                        Out::To(client, self.mic_msg(client)),
                        Out::Broadcast(msg("mic_state", serde_json::json!({ "held": true }))),
                    ]
                } else {
                    vec![
                        Out::To(client, self.mic_msg(client)),
                        Out::To(client, notice("another page holds the microphone")),
                    ]
                }
            }
            ClientMsg::Mic(false) => {
                if self.mic_holder == Some(client) {
                    let mut out = self.release_mic(client);
                    out.push(Out::To(client, self.mic_msg(client)));
                    out
                } else {
                    vec![Out::To(client, self.mic_msg(client))]
                }
            }
            ClientMsg::Listen(on) => {
                if on {
                    self.listeners.insert(client);
                } else {
                    self.listeners.remove(&client);
                }
                vec![Out::To(
                    client,
                    msg("listen", serde_json::json!({ "on": on })),
                )]
            }
            ClientMsg::Ping => vec![Out::To(client, msg("pong", Value::Null))],
        }
    }

    /// One binary frame from a page: its microphone. Only the holder's frames pass.
    pub fn page_audio(&mut self, client: ClientId, frame: &[u8], now: u64) -> Vec<Out> {
        if self.mic_holder != Some(client) {
            self.rejected_page_messages += 1;
            return vec![Out::To(
                client,
                notice("audio ignored: this page does not hold the microphone"),
            )];
        }
        match page::decode_audio(frame) {
            Ok((sample_rate, samples)) => {
                let mut out = Vec::new();
                self.human_audio(&samples, now, &mut out);
                out.push(Out::Dora(DoraOut::Audio {
                    sample_rate,
                    samples,
                }));
                out
            }
            Err(problem) => {
                self.rejected_page_messages += 1;
                vec![Out::To(client, notice(&problem))]
            }
        }
    }

    fn release_mic(&mut self, _client: ClientId) -> Vec<Out> {
        self.mic_holder = None;
        let rate = 16_000u32;
        let samples = vec![0.0; (u64::from(rate) * self.config.release_silence_ms / 1000) as usize];
        let mut out = Vec::new();
        if !samples.is_empty() {
            out.push(Out::Dora(DoraOut::Audio {
                sample_rate: rate,
                samples,
            }));
        }
        out.push(Out::Broadcast(msg(
            "mic_state",
            serde_json::json!({ "held": false }),
        )));
        out
    }

    fn utterance(&mut self, text: &str, meta: &Meta, now: u64, out: &mut Vec<Out>) {
        let speaker = meta.speaker.clone().unwrap_or_default();
        let human = meta.is_human.unwrap_or(false);
        let kind = if human {
            "human"
        } else if speaker == "moderator" {
            "moderator"
        } else {
            "agent"
        };
        let seq = self.next_seq;
        let line = Line {
            seq,
            kind,
            speaker,
            question_id: meta.question_id,
            text: text.to_owned(),
            played: None,
            cut: None,
            interrupted: meta.interrupted.unwrap_or(false),
            at_ms: now,
        };
        self.next_seq += 1;
        self.lines.push_back(line);
        self.trim_lines();
        if !human
            && let Some(q) = meta.question_id
            && let Some((played, report)) = self.early_played.remove(&q)
        {
            self.played(q, &played, report, out);
        }
        if let Some(line) = self.lines.iter().find(|l| l.seq == seq) {
            out.push(Out::Broadcast(line_msg(line)));
        }
        if human {
            self.human_speaking = false;
            out.push(Out::Broadcast(self.speaking_msg()));
        }
    }

    /// The player reported what was heard of question `q`.
    fn played(&mut self, q: u64, played: &str, report: PlayedReport, out: &mut Vec<Out>) {
        let Some(line) = self
            .lines
            .iter_mut()
            .rev()
            .find(|l| l.question_id == Some(q) && l.kind != "human" && l.kind != "interrupt")
        else {
            self.early_played.insert(q, (played.to_owned(), report));
            if self.early_played.len() > 64
                && let Some(&oldest) = self.early_played.keys().min()
            {
                self.early_played.remove(&oldest);
            }
            return;
        };
        let (heard, cut) = split_heard(&line.text, played, report.chars);
        line.interrupted |= report.interrupted;
        line.played = Some(heard);
        line.cut = (line.interrupted && !cut.is_empty()).then_some(cut);
        out.push(Out::Broadcast(line_msg(line)));
    }

    fn voice_audio(&mut self, samples: &[f32], meta: &Meta, now: u64, out: &mut Vec<Out>) {
        let (rms, peak) = levels(samples);
        if self.latency.voice_block(meta.question_id, rms, now) {
            out.push(Out::Broadcast(self.latency_msg()));
        }
        if self.level_due("voice", now) {
            out.push(Out::Broadcast(msg(
                "level",
                serde_json::json!({
                    "source": "voice",
                    "speaker": meta.speaker,
                    "rms": round3(rms),
                    "peak": round3(peak),
                }),
            )));
        }
        if !self.listeners.is_empty()
            && let Ok(rate) = voice_rate(meta.sample_rate)
        {
            out.push(Out::Audio {
                frame: page::encode_audio(rate, samples),
                to: self.listeners.iter().copied().collect(),
            });
        }
    }

    fn human_audio(&mut self, samples: &[f32], now: u64, out: &mut Vec<Out>) {
        let (rms, peak) = levels(samples);
        self.latency.human_audio(rms, now);
        if self.level_due("human", now) {
            out.push(Out::Broadcast(msg(
                "level",
                serde_json::json!({
                    "source": "human",
                    "speaker": self.config.human_speaker,
                    "rms": round3(rms),
                    "peak": round3(peak),
                }),
            )));
        }
    }

    fn level_due(&mut self, source: &'static str, now: u64) -> bool {
        let due = self
            .last_level
            .get(source)
            .is_none_or(|&t| now.saturating_sub(t) >= self.config.level_interval_ms || now < t);
        if due {
            self.last_level.insert(source, now);
        }
        due
    }

    fn decision(&mut self, text: &str, now: u64, out: &mut Vec<Out>) {
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            return;
        };
        let field = |k: &str| value.get(k).and_then(Value::as_str).unwrap_or_default();
        let action = field("action");
        let target = field("target");
        let reason = field("reason");
        let mut summary = action.to_owned();
        if !target.is_empty() {
            summary.push_str(" → ");
            summary.push_str(target);
        }
        if !reason.is_empty() {
            summary.push_str(": ");
            summary.push_str(reason);
        }
        let summary = page::shorten(&summary, 300);
        self.policy.last_decision = Some(summary.clone());
        self.policy.moderator_action = (!action.is_empty()).then(|| action.to_owned());
        if let Some(phase) = value
            .get("next_phase")
            .and_then(Value::as_str)
            .or_else(|| value.get("phase").and_then(Value::as_str))
        {
            self.policy.phase = Some(phase.to_owned());
        }
        let line = self.push_line("decision", "moderator".to_owned(), None, summary, now);
        out.push(Out::Broadcast(line));
        out.push(Out::Broadcast(self.policy_msg()));
    }

    fn auction(&mut self, text: &str, now: u64, out: &mut Vec<Out>) {
        let Ok(value) = serde_json::from_str::<Value>(text) else {
            return;
        };
        let event = value
            .get("event")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let str_of = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_owned);
        match event.as_str() {
            "bid" => {
                if let Some(agent) = str_of("agent_id") {
                    let entry = self.policy.auction.entry(agent).or_default();
                    entry.bid = value.get("bid").and_then(Value::as_u64);
                    entry.tokens = value.get("tokens").and_then(Value::as_u64).or(entry.tokens);
                    out.push(Out::Broadcast(self.policy_msg()));
                }
            }
            "segment" | "timing" | "bid_fallback" => {}
            _ => {
                if let Some(rows) = value.get("rows").and_then(Value::as_array) {
                    for row in rows {
                        if let Some(agent) = row.get("agent_id").and_then(Value::as_str) {
                            let entry = self.policy.auction.entry(agent.to_owned()).or_default();
                            if let Some(t) = row.get("tokens_left").and_then(Value::as_u64) {
                                entry.tokens = Some(t);
                            }
                        }
                    }
                }
                let summary = auction_summary(&event, &value);
                self.policy.last_decision = Some(summary.clone());
                let line = self.push_line("auction", event, None, summary, now);
                out.push(Out::Broadcast(line));
                out.push(Out::Broadcast(self.policy_msg()));
            }
        }
    }

    fn push_line(
        &mut self,
        kind: &'static str,
        speaker: String,
        question_id: Option<u64>,
        text: String,
        now: u64,
    ) -> String {
        let line = Line {
            seq: self.next_seq,
            kind,
            speaker,
            question_id,
            text,
            played: None,
            cut: None,
            interrupted: false,
            at_ms: now,
        };
        self.next_seq += 1;
        let json = line_msg(&line);
        self.lines.push_back(line);
        self.trim_lines();
        json
    }

    fn trim_lines(&mut self) {
        while self.lines.len() > self.config.max_lines.max(1) {
            self.lines.pop_front();
        }
    }

    fn policy_msg(&self) -> String {
        msg(
            "policy",
            serde_json::to_value(&self.policy).unwrap_or_default(),
        )
    }

    fn latency_msg(&self) -> String {
        msg(
            "latency",
            serde_json::to_value(self.latency.view()).unwrap_or_default(),
        )
    }

    fn speaking_msg(&self) -> String {
        msg(
            "speaking",
            serde_json::json!({
                "now": self.speaking.as_ref().map(|s| &s.0),
                "now_question_id": self.speaking.as_ref().map(|s| s.1),
                "next": self.next_speaker.as_ref().map(|s| &s.0),
                "human_speaking": self.human_speaking,
            }),
        )
    }

    fn mic_msg(&self, client: ClientId) -> String {
        msg(
            "mic",
            serde_json::json!({
                "granted": self.mic_holder == Some(client),
                "busy": self.mic_holder.is_some_and(|h| h != client),
            }),
        )
    }
}

/// `{"type": kind, ...fields}`.
pub fn msg(kind: &str, fields: Value) -> String {
    let mut obj = match fields {
        Value::Object(map) => map,
        Value::Null => serde_json::Map::new(),
        other => {
            let mut m = serde_json::Map::new();
            m.insert("value".to_owned(), other);
            m
        }
    };
    obj.insert("type".to_owned(), Value::String(kind.to_owned()));
    Value::Object(obj).to_string()
}

fn line_msg(line: &Line) -> String {
    msg("line", serde_json::to_value(line).unwrap_or_default())
}

fn notice(text: &str) -> String {
    msg("notice", serde_json::json!({ "text": text }))
}

/// Splits a line's text into what was heard and what was cut: by the heard text when
/// the line starts with it, else by the character count.
pub fn split_heard(text: &str, played: &str, chars: Option<usize>) -> (String, String) {
    if !played.is_empty() && text.starts_with(played) {
        return (played.to_owned(), text[played.len()..].to_owned());
    }
    let n = chars.unwrap_or_else(|| played.chars().count());
    let cut_at = text.char_indices().nth(n).map_or(text.len(), |(i, _)| i);
    if played.is_empty() && chars.is_none() {
        return (String::new(), text.to_owned());
    }
    (text[..cut_at].to_owned(), text[cut_at..].to_owned())
}

/// RMS and peak of a block (0 for an empty one; non-finite samples count as 0).
pub fn levels(samples: &[f32]) -> (f32, f32) {
    if samples.is_empty() {
        return (0.0, 0.0);
    }
    let mut sum = 0.0f64;
    let mut peak = 0.0f32;
    for &s in samples {
        let s = if s.is_finite() { s } else { 0.0 };
        sum += f64::from(s) * f64::from(s);
        peak = peak.max(s.abs());
    }
    ((sum / samples.len() as f64).sqrt() as f32, peak)
}

fn voice_rate(rate: Option<i64>) -> Result<u32, ()> {
    match rate {
        Some(r) if (4_000..=384_000).contains(&r) => Ok(r as u32),
        _ => Err(()),
    }
}

fn round3(x: f32) -> f64 {
    (f64::from(x) * 1000.0).round() / 1000.0
}

fn shorten_id(id: &str) -> String {
    page::shorten(id, 40)
}

fn auction_summary(event: &str, value: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(obj) = value.as_object() {
        for (k, v) in obj {
            if matches!(k.as_str(), "event" | "provenance" | "rows") {
                continue;
            }
            let v = match v {
                Value::String(s) => s.clone(),
                Value::Null => continue,
                other => other.to_string(),
            };
            parts.push(format!("{k}={}", page::shorten(&v, 60)));
            if parts.len() >= 6 {
                break;
            }
        }
    }
    page::shorten(&format!("{event} {}", parts.join(" ")), 300)
}

#[cfg(test)]
mod tests;
