//! What the rehearsal node does around [`crate::Rehearsal`], decided here so that the
//! node only converts messages: question ids for every line, turn and presenter line;
//! the panelists' streamed text assembled into turns; candidate-question requests and
//! the matching of their replies; pacing of the moderator's lines against what was
//! heard; what goes into the agents' context session and the event log; the wait for
//! the closing line before the node leaves. No I/O and no clock: time is passed in
//! (ms since start).

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};

use serde_json::{Value, json};
use voice_protocol::{InterruptKind, SessionStatus, ids, shorten};

use crate::board::Board;
use crate::messages::{self, Control, parse_control};
use crate::phrases::LoadReport;
use crate::{
    Action, CandidatePurpose, ConfigError, Deck, Event, ExchangeRecord, Instruction, PanelConfig,
    Phase, PhraseKind, PhraseLibrary, Rehearsal, briefing,
};

/// The moderator's speaker name (its template folder and voice-map key).
pub const MODERATOR: &str = "moderator";
/// Candidate-question requests remembered at most; older answers would be about an
/// old slide anyway.
const MAX_OPEN_REQUESTS: usize = 32;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Config {
    /// A player reports `playback_done`: a moderator line counts as finished once heard
    /// (else at once), and the node waits for the closing line before leaving.
    pub paced: bool,
}

/// A message the node received, decoded.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// A chunk of a panelist's `text` stream (`agent` is the input id). An unreadable
    /// payload is `Err` with the reason.
    Text {
        agent: String,
        question_id: Option<u64>,
        text: Result<String, String>,
        status: Option<SessionStatus>,
        error: Option<String>,
    },
    /// A bridge's answer to a candidate-question request (`input` is the input id,
    /// e.g. `reply_skeptic`).
    Reply {
        input: String,
        speaker: Option<String>,
        request_id: Option<String>,
        text: String,
        error: Option<String>,
    },
    /// A presenter transcript; `ended` is false for a partial one.
    Presenter {
        speaker: Option<String>,
        text: String,
        ended: bool,
    },
    /// A `control` command, as received.
    Control(String),
    /// The presenter's voice activity began.
    SpeechStarted,
    /// The player's `playback_started`.
    PlaybackStarted { question_id: Option<u64> },
    /// The player's `playback_done`.
    Played { question_id: Option<u64> },
    /// Time passed.
    Tick,
    /// The dataflow is stopping: end the session now and close the files.
    Stop,
    /// The node feeding input `input` restarted (dora's `NodeRestarted`).
    Restarted { input: String },
}

/// A panelist's turn (`turn`); the node adds the assembled context.
#[derive(Debug, Clone, PartialEq)]
pub struct Turn {
    pub agent: String,
    pub question_id: u64,
    pub exchange_id: u64,
    /// What the panelist is asked to do, as sent.
    pub instruction: String,
    /// The panelist's prepared question, when the turn asks it: said as it is.
    pub prepared: Option<String>,
    pub kind: Instruction,
    pub at_ms: u64,
}

impl Turn {
    /// The `call` record of this turn, with what its context was made of.
    pub fn record(&self, context_bytes: usize, context_parts: &[String]) -> Record {
        Record::new(
            self.at_ms,
            "call",
            json!({ "agent": self.agent, "question_id": self.question_id,
                    "exchange_id": self.exchange_id, "instruction": self.kind,
                    "text": self.instruction, "prepared": self.prepared,
                    "context_bytes": context_bytes,
                    "context_parts": context_parts }),
        )
    }
}

/// A file of the agents' context session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContextFile {
    Shared(SharedFile),
    Agent { agent: String, file: AgentFile },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SharedFile {
    SessionConfig,
    DeckContent,
    ExternalIntel,
    BoardDossier,
    PresenterTranscript,
    ExchangeHistory,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AgentFile {
    FocusBrief,
    ExchangeNotes,
    CandidateQuestion,
    PresenterProfile,
    DebriefNotes,
    SessionState,
}

impl ContextFile {
    fn agent(agent: &str, file: AgentFile) -> Self {
        ContextFile::Agent {
            agent: agent.to_owned(),
            file,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    Overwrite,
    Append,
}

/// One line of `rehearsal-events.jsonl`.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub t_ms: u64,
    pub event: &'static str,
    pub fields: Value,
}

impl Record {
    fn new(t_ms: u64, event: &'static str, fields: Value) -> Self {
        Self {
            t_ms,
            event,
            fields,
        }
    }

    /// The JSON line, stamped with the wall clock the node reads.
    pub fn to_json(&self, unix_ms: u64) -> String {
        let mut record = json!({ "t_ms": self.t_ms, "unix_ms": unix_ms, "event": self.event });
        if let (Some(obj), Value::Object(extra)) = (record.as_object_mut(), self.fields.clone()) {
            obj.extend(extra);
        }
        record.to_string()
    }
}

/// What the files of a session start with, read by the node.
#[derive(Debug, Clone, Default)]
pub struct Briefing<'a> {
    pub deck_path: &'a str,
    pub deck_text: &'a str,
    /// Research notes for `external-intel.md`, if any.
    pub intel: Option<&'a str>,
    /// Each panelist's persona style, from its template.
    pub styles: BTreeMap<String, String>,
}

/// What the node must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    /// `turn`: Utf8 panelist name.
    Turn(Turn),
    /// `text`: a moderator line, complete.
    Line {
        question_id: u64,
        text: String,
        kind: PhraseKind,
    },
    /// `utterance`: what the bridges and the recorder hear.
    Utterance {
        speaker: String,
        question_id: u64,
        text: String,
        human: bool,
    },
    /// `presenter_text`: the presenter's line, re-sent for the player.
    PresenterText {
        speaker: String,
        question_id: u64,
        text: String,
    },
    /// `request`: a candidate-question request (Utf8 JSON) for every bridge.
    Request(String),
    /// `interrupt`: generations older than `question_id` stop.
    Interrupt {
        question_id: u64,
        kind: InterruptKind,
    },
    /// `phase`: the phase entered.
    Phase(Phase),
    /// Write a file of the context session.
    Context {
        file: ContextFile,
        text: String,
        mode: WriteMode,
    },
    /// Append to `rehearsal-events.jsonl`.
    Record(Record),
    /// Write `debrief.md`.
    Debrief(String),
    /// `board`: what the presenter's screen shows, sent when it changed.
    Board(Board),
    /// Freeze the context session (no more writes follow).
    FreezeContext,
}

/// A turn handed to a panelist, by wire question id.
#[derive(Debug, Clone)]
struct Call {
    agent: String,
    core_question_id: u64,
    text: ::conductor::Utterance,
}

/// A candidate-question request in flight.
#[derive(Debug, Clone)]
struct Request {
    agents: Vec<String>,
    slide: usize,
    purpose: CandidatePurpose,
}

/// The control command that opened Q&A, for the trigger → audio latency.
#[derive(Debug, Clone)]
struct Opening {
    at_ms: u64,
    command: String,
}

#[derive(Debug, Clone, Copy)]
struct Closing {
    /// The last line said, if it waits to be heard.
    line: Option<u64>,
    since_ms: u64,
}

/// The node's state around the rehearsal engine.
pub struct Conductor {
    core: Rehearsal,
    config: Config,
    next_question_id: u64,
    /// Moderator lines waiting to be heard: wire question id → the core's line id. Each
    /// report finishes exactly its own line (the engine counts every line).
    lines: ::conductor::Unheard<u64>,
    calls: BTreeMap<u64, Call>,
    requests: ::conductor::Requests<Request>,
    last_answer: Option<String>,
    /// The exchange under way, as text (for pile-on prompts).
    exchange_text: Vec<String>,
    /// The slide the exchange under way is about.
    exchange_slide: Option<usize>,
    /// While a slide change is handled: the slide left (a section break is about it).
    break_slide: Option<usize>,
    /// While a control command is handled: it, and when it came.
    opening: Option<Opening>,
    /// Notices said while the presenter presents ("Priya has a question.", an engagement
    /// prompt) and not heard yet, by wire question id: moot once an exchange starts.
    unheard_notices: BTreeSet<u64>,
    /// Transition lines waiting for their first audio, by wire question id.
    awaiting_audio: HashMap<u64, Opening>,
    closing: Option<Closing>,
    finished: bool,
    /// The debrief as written, for the board.
    debrief: Option<String>,
    /// The board as last sent.
    board: Option<Board>,
    frozen: bool,
}

impl Conductor {
    pub fn new(
        panel: PanelConfig,
        deck: Deck,
        phrases: PhraseLibrary,
        config: Config,
    ) -> Result<Self, ConfigError> {
        Ok(Self {
            core: Rehearsal::new(panel, deck, phrases)?,
            config,
            next_question_id: 1,
            lines: ::conductor::Unheard::new(),
            calls: BTreeMap::new(),
            requests: ::conductor::Requests::new(MAX_OPEN_REQUESTS),
            last_answer: None,
            exchange_text: Vec::new(),
            exchange_slide: None,
            break_slide: None,
            opening: None,
            unheard_notices: BTreeSet::new(),
            awaiting_audio: HashMap::new(),
            closing: None,
            finished: false,
            debrief: None,
            board: None,
            frozen: false,
        })
    }

    pub fn rehearsal(&self) -> &Rehearsal {
        &self.core
    }

    /// Whether an input id is a panelist's text stream.
    fn is_panelist(&self, input: &str) -> bool {
        self.core.config().agent_index(input).is_some()
    }

    /// The session is over and its closing line was heard (or the wait timed out):
    /// the node may leave.
    pub fn finished(&self) -> bool {
        self.finished
    }

    /// The session's first files (config, deck, intel, dossier, focus briefs), then the
    /// engine's first tick.
    pub fn start(&mut self, briefing: &Briefing, now_ms: u64) -> Vec<Output> {
        let config = self.core.config();
        let deck = self.core.deck();
        let shared = |file, text| Output::Context {
            file: ContextFile::Shared(file),
            text,
            mode: WriteMode::Overwrite,
        };
        let mut out = vec![
            shared(
                SharedFile::SessionConfig,
                briefing::session_config_markdown(config, deck, briefing.deck_path),
            ),
            shared(SharedFile::DeckContent, briefing.deck_text.to_owned()),
            shared(
                SharedFile::ExternalIntel,
                briefing::external_intel_markdown(deck, config, briefing.intel),
            ),
            shared(
                SharedFile::BoardDossier,
                briefing::board_dossier_markdown(config, &briefing.styles),
            ),
        ];
        for agent in config.agents.iter().filter(|a| a.name != MODERATOR) {
            out.push(Output::Context {
                file: ContextFile::agent(&agent.name, AgentFile::FocusBrief),
                text: briefing::focus_brief_markdown(config, deck, &agent.name),
                mode: WriteMode::Overwrite,
            });
        }
        self.feed(Event::Tick, now_ms, &mut out);
        self.check_closing(now_ms);
        self.board(now_ms, &mut out);
        out
    }

    /// The board, when it changed since it was last sent.
    fn board(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        let board = Board::of(&self.core, self.debrief.as_deref(), now_ms);
        if self.board.as_ref() != Some(&board) {
            out.push(Output::Board(board.clone()));
            self.board = Some(board);
        }
    }

    /// When a [`Input::Tick`] must come at the latest.
    pub fn next_wake(&self) -> Option<u64> {
        if self.finished {
            return None;
        }
        match self.closing {
            Some(c) => Some(c.since_ms.saturating_add(self.line_timeout_ms())),
            None => self.core.next_deadline(),
        }
    }

    pub fn handle(&mut self, input: Input, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        match input {
            Input::Tick if self.closing.is_some() => {}
            Input::Tick => self.feed(Event::Tick, now_ms, &mut out),
            Input::Text {
                agent,
                question_id,
                text,
                status,
                error,
            } => self.agent_text(&agent, question_id, text, status, error, now_ms, &mut out),
            Input::Reply {
                input,
                speaker,
                request_id,
                text,
                error,
            } => self.reply(&input, speaker, request_id, &text, error, now_ms, &mut out),
            Input::Presenter {
                speaker,
                text,
                ended,
            } => self.presenter(speaker, &text, ended, now_ms, &mut out),
            Input::Control(text) => match parse_control(&text) {
                Ok(control) => self.control(control, &text, now_ms, &mut out),
                Err(e) => tracing::warn!("control input ignored: {e}"),
            },
            Input::Restarted { input } => self.restarted(&input, now_ms, &mut out),
            Input::SpeechStarted => self.feed(Event::PresenterSpeechStarted, now_ms, &mut out),
            Input::PlaybackStarted { question_id } => {
                self.playback_started(question_id, now_ms, &mut out)
            }
            Input::Played { question_id } => self.played(question_id, now_ms, &mut out),
            Input::Stop => {
                if self.core.phase() != Phase::Ended {
                    tracing::info!("dataflow stopping: ending the session");
                    self.feed(Event::EndSession, now_ms, &mut out);
                }
                self.finish_files(&mut out);
                self.finished = true;
            }
        }
        self.check_closing(now_ms);
        self.board(now_ms, &mut out);
        out
    }

    fn line_timeout_ms(&self) -> u64 {
        self.core.config().thresholds.line_timeout_ms
    }

    fn fresh_question_id(&mut self) -> u64 {
        let q = self.next_question_id;
        self.next_question_id += 1;
        q
    }

    /// Once the session has ended, the node leaves when its closing line has been heard
    /// (or after the panel's line timeout): every other node then sees its inputs close.
    fn check_closing(&mut self, now_ms: u64) {
        if self.finished || self.core.phase() != Phase::Ended {
            return;
        }
        let closing = *self.closing.get_or_insert(Closing {
            line: self.lines.newest(),
            since_ms: now_ms,
        });
        if closing.line.is_none_or(|q| !self.lines.contains(q)) {
            tracing::info!("the session is over and its closing line was heard");
            self.finished = true;
        } else if now_ms >= closing.since_ms.saturating_add(self.line_timeout_ms()) {
            tracing::warn!("the closing line was not reported as played in time; leaving");
            self.finished = true;
        }
    }

    /// A context file write; none after the session is frozen.
    fn write(&self, out: &mut Vec<Output>, file: ContextFile, text: String, mode: WriteMode) {
        if !self.frozen {
            out.push(Output::Context { file, text, mode });
        }
    }

    fn record(out: &mut Vec<Output>, now_ms: u64, event: &'static str, fields: Value) {
        out.push(Output::Record(Record::new(now_ms, event, fields)));
    }

    // ----- inputs -------------------------------------------------------------------

    fn presenter(
        &mut self,
        speaker: Option<String>,
        text: &str,
        ended: bool,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        if !ended {
            tracing::debug!(text = %shorten(text), "partial presenter transcript ignored");
            return;
        }
        let text = text.trim().to_owned();
        if text.is_empty() {
            tracing::debug!("empty presenter transcript ignored");
            return;
        }
        self.write(
            out,
            ContextFile::Shared(SharedFile::PresenterTranscript),
            format!("[{}] {text}\n", messages::clock(now_ms)),
            WriteMode::Append,
        );
        if self.core.phase() == Phase::Ended {
            return;
        }
        let speaker = speaker.unwrap_or_else(|| ids::PRESENTER.to_owned());
        let question_id = self.fresh_question_id();
        out.push(Output::Utterance {
            speaker: speaker.clone(),
            question_id,
            text: text.clone(),
            human: true,
        });
        out.push(Output::PresenterText {
            speaker,
            question_id,
            text: text.clone(),
        });
        if self.core.phase() != Phase::Presenting {
            self.last_answer = Some(text.clone());
            self.exchange_text.push(format!("presenter: {text}"));
        }
        self.feed(
            Event::PresenterSpeech {
                text,
                start_ms: now_ms,
                end_ms: now_ms,
            },
            now_ms,
            out,
        );
    }

    fn control(&mut self, control: Control, raw: &str, now_ms: u64, out: &mut Vec<Output>) {
        let command = raw.trim().to_owned();
        tracing::info!(%command, "control");
        Self::record(out, now_ms, "control", json!({ "command": command }));
        let slide = self.core.current_slide();
        let event = match control {
            Control::Slide(index) => Event::SlideChanged { index },
            Control::Next => Event::SlideChanged { index: slide + 1 },
            Control::Prev => Event::SlideChanged {
                index: slide.saturating_sub(1),
            },
            Control::OpenQa => Event::OpenQaRequested,
            Control::Hand { agent, urgency } => Event::HandRaised { agent, urgency },
            Control::Ack(agent) => Event::PresenterAcknowledged { agent },
            Control::Answered => Event::PresenterAnswerFinished {
                text: String::new(),
            },
            Control::MoveOn => Event::MoveOnRequested,
            Control::End => Event::EndSession,
        };
        self.opening = Some(Opening {
            at_ms: now_ms,
            command,
        });
        self.break_slide = matches!(event, Event::SlideChanged { .. }).then_some(slide);
        self.feed(event, now_ms, out);
        self.opening = None;
        self.break_slide = None;
    }

    fn played(&mut self, question_id: Option<u64>, now_ms: u64, out: &mut Vec<Output>) {
        let Some(q) = question_id else {
            tracing::warn!("playback_done without question_id ignored");
            return;
        };
        self.unheard_notices.remove(&q);
        if let Some(line_id) = self.lines.heard_exactly(q)
            && self.config.paced
        {
            self.feed(Event::ModeratorLineFinished { line_id }, now_ms, out);
        }
    }

    fn playback_started(&mut self, question_id: Option<u64>, now_ms: u64, out: &mut Vec<Output>) {
        let Some(q) = question_id else {
            tracing::warn!("playback_started without question_id ignored");
            return;
        };
        if let Some(opening) = self.awaiting_audio.remove(&q) {
            let latency = now_ms.saturating_sub(opening.at_ms) as f64;
            tracing::info!(command = %opening.command, latency_ms = format!("{latency:.1}"), "Q&A trigger → first moderator audio");
            Self::record(
                out,
                now_ms,
                "qa_first_audio",
                json!({ "command": opening.command, "question_id": q, "latency_ms": latency }),
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn reply(
        &mut self,
        input: &str,
        speaker: Option<String>,
        request_id: Option<String>,
        text: &str,
        error: Option<String>,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let agent = speaker.or_else(|| {
            input
                .strip_prefix(ids::REPLY)
                .map(|s| s.trim_start_matches(['_', '-', '/']).to_owned())
                .filter(|s| !s.is_empty())
        });
        let Some(agent) = agent else {
            tracing::warn!(input, "reply without speaker ignored");
            return;
        };
        let Some(request_id) = request_id else {
            tracing::warn!(input, "reply without request_id ignored");
            return;
        };
        let Some(request) = self.requests.get(&request_id) else {
            tracing::debug!(request = %request_id, "reply to an unknown request ignored");
            return;
        };
        if !request.agents.contains(&agent) {
            return;
        }
        if let Some(error) = error {
            tracing::debug!(%agent, request = %request_id, %error, "candidate question not prepared");
            return;
        }
        let text = text.trim().to_owned();
        if text.is_empty() {
            tracing::debug!(%agent, "empty candidate question ignored");
            return;
        }
        let (slide, purpose) = (request.slide, request.purpose);
        let deck = self.core.deck();
        let relevance = messages::relevance(&text, deck.slide(slide));
        let title = messages::slide_label(deck, slide);
        self.write(
            out,
            ContextFile::agent(&agent, AgentFile::CandidateQuestion),
            format!(
                "# Candidate question\n\n- slide {slide} ({title}), {purpose:?}, relevance {relevance:.2}, at {}\n\n{text}\n",
                messages::clock(now_ms)
            ),
            WriteMode::Overwrite,
        );
        Self::record(
            out,
            now_ms,
            "candidate",
            json!({ "agent": agent, "slide": slide, "relevance": relevance, "text": text }),
        );
        if relevance < self.core.config().thresholds.min_candidate_relevance {
            // Not worth asking: the panelist will be called on the slide itself.
            tracing::debug!(%agent, relevance, "candidate question off the slide; not offered");
            return;
        }
        self.feed(
            Event::CandidateReady {
                agent,
                text,
                relevance,
            },
            now_ms,
            out,
        );
    }

    /// A restarted bridge lost the turns it was answering: each ends now with what was said
    /// of it, as a failed generation ends (the exchange need not wait for the answer
    /// timeout).
    fn restarted(&mut self, input: &str, now_ms: u64, out: &mut Vec<Output>) {
        let lost: Vec<u64> = self
            .calls
            .iter()
            .filter(|(_, call)| call.agent == input)
            .map(|(q, _)| *q)
            .collect();
        for q in lost {
            self.agent_text(
                input,
                Some(q),
                Ok(String::new()),
                Some(SessionStatus::Ended),
                Some("the panelist's bridge restarted".into()),
                now_ms,
                out,
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn agent_text(
        &mut self,
        agent: &str,
        question_id: Option<u64>,
        text: Result<String, String>,
        status: Option<SessionStatus>,
        error: Option<String>,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let panelist = self.is_panelist(agent);
        let text = match text {
            Ok(text) if panelist => text,
            Ok(_) => {
                tracing::warn!(input = agent, "unknown input ignored");
                return;
            }
            // An `ended` chunk still ends the turn.
            Err(e) if panelist && status.is_some() => {
                tracing::warn!(input = agent, error = %e, "unreadable text; keeping only its session_status");
                String::new()
            }
            Err(e) => {
                tracing::warn!(input = agent, error = %e, "unreadable input ignored");
                return;
            }
        };
        let Some(q) = question_id else {
            tracing::warn!(input = agent, "text without question_id ignored");
            return;
        };
        let Some(call) = self.calls.get_mut(&q) else {
            tracing::debug!(
                input = agent,
                question_id = q,
                "text of no current call ignored"
            );
            return;
        };
        if call.agent != agent {
            tracing::warn!(input = agent, question_id = q, expected = %call.agent, "text from the wrong panelist ignored");
            return;
        }
        if call.text.push(&text) {
            tracing::warn!(%agent, question_id = q, "panelist turn too long; the rest is not kept");
        }
        if !SessionStatus::ends_utterance(status) {
            return;
        }
        let Some(call) = self.calls.remove(&q) else {
            return;
        };
        if let Some(error) = error {
            tracing::warn!(%agent, question_id = q, %error, "panelist turn failed");
        }
        let spoken = call.text.as_str().trim().to_owned();
        out.push(Output::Utterance {
            speaker: agent.to_owned(),
            question_id: q,
            text: spoken.clone(),
            human: false,
        });
        self.write(
            out,
            ContextFile::agent(agent, AgentFile::ExchangeNotes),
            format!("- [{}] I asked: {spoken}\n", messages::clock(now_ms)),
            WriteMode::Append,
        );
        self.exchange_text.push(format!("{agent}: {spoken}"));
        self.feed(
            Event::AgentTurnFinished {
                agent: agent.to_owned(),
                question_id: call.core_question_id,
                text: spoken,
            },
            now_ms,
            out,
        );
    }

    // ----- the engine and its actions -----------------------------------------------

    /// Feeds the engine and carries out its actions (lines count as finished at once
    /// when no player reports them).
    fn feed(&mut self, event: Event, now_ms: u64, out: &mut Vec<Output>) {
        let mut queue = VecDeque::from([event]);
        while let Some(event) = queue.pop_front() {
            for action in self.core.handle(event, now_ms) {
                if let Some(next) = self.act(action, now_ms, out) {
                    queue.push_back(next);
                }
            }
        }
        if self.core.phase() == Phase::Ended {
            self.finish_files(out);
        }
    }

    fn act(&mut self, action: Action, now_ms: u64, out: &mut Vec<Output>) -> Option<Event> {
        match action {
            Action::Say {
                line_id,
                kind,
                text,
            } => return self.say(line_id, kind, text, now_ms, out),
            Action::CallAgent {
                agent,
                question_id,
                exchange_id,
                instruction,
                candidate,
            } => {
                let q = self.fresh_question_id();
                let slide = self.exchange_slide.unwrap_or(self.core.current_slide());
                let text = messages::instruction_text(
                    instruction,
                    candidate.as_deref(),
                    self.core.deck(),
                    slide,
                    self.last_answer.as_deref(),
                );
                self.calls.insert(
                    q,
                    Call {
                        agent: agent.clone(),
                        core_question_id: question_id,
                        text: ::conductor::Utterance::default(),
                    },
                );
                // A prepared question is said as prepared: its words were made while the
                // presenter spoke, so the panelist asks at once (the transition line
                // covers no generation).
                let prepared = candidate
                    .as_deref()
                    .filter(|_| {
                        matches!(instruction, Instruction::AskQuestion | Instruction::PileOn)
                    })
                    .and_then(messages::prepared_question);
                out.push(Output::Turn(Turn {
                    agent,
                    question_id: q,
                    exchange_id,
                    instruction: text,
                    prepared,
                    kind: instruction,
                    at_ms: now_ms,
                }));
            }
            Action::CancelAgent { agent, question_id } => {
                self.calls
                    .retain(|_, c| !(c.agent == agent && c.core_question_id == question_id));
                let q = self.fresh_question_id();
                tracing::info!(%agent, question_id = q, "panelist turn cancelled");
                out.push(Output::Interrupt {
                    question_id: q,
                    kind: InterruptKind::Cancel,
                });
            }
            Action::RequestCandidates {
                agents,
                slide,
                purpose,
            } => {
                let id = self.requests.open(
                    "r",
                    Request {
                        agents,
                        slide,
                        purpose,
                    },
                    None,
                );
                let exchange =
                    (purpose == CandidatePurpose::PileOn).then(|| self.exchange_text.join("\n"));
                let prompt =
                    messages::request_prompt(purpose, self.core.deck(), slide, exchange.as_deref());
                let kind = match purpose {
                    CandidatePurpose::Question => "candidate_question",
                    CandidatePurpose::PileOn => "pile_on",
                };
                let body = json!({ "id": id, "kind": kind, "prompt": prompt, "json": false, "max_words": 30 });
                out.push(Output::Request(body.to_string()));
                tracing::debug!(request = %id, slide, kind, "candidate questions requested");
            }
            Action::PhaseChanged { from, to } => {
                tracing::info!(from = from.name(), to = to.name(), "phase");
                out.push(Output::Phase(to));
                Self::record(
                    out,
                    now_ms,
                    "phase",
                    json!({ "from": from.name(), "to": to.name() }),
                );
                if to == Phase::QaTrigger {
                    self.exchange_text.clear();
                    self.last_answer = None;
                    self.exchange_slide =
                        Some(self.break_slide.unwrap_or(self.core.current_slide()));
                }
                let state = self.session_state(now_ms);
                self.write(
                    out,
                    ContextFile::agent(MODERATOR, AgentFile::SessionState),
                    state,
                    WriteMode::Overwrite,
                );
            }
            Action::LogExchange(record) => self.log_exchange(&record, now_ms, out),
            Action::WriteDebrief { markdown } => {
                out.push(Output::Debrief(markdown.clone()));
                self.write(
                    out,
                    ContextFile::agent(MODERATOR, AgentFile::DebriefNotes),
                    format!("\n{markdown}"),
                    WriteMode::Append,
                );
                self.debrief = Some(markdown);
                Self::record(out, now_ms, "debrief", json!({ "file": "debrief.md" }));
            }
            Action::Notice(notice) => tracing::warn!("{notice}"),
        }
        None
    }

    fn say(
        &mut self,
        line_id: u64,
        kind: PhraseKind,
        text: String,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) -> Option<Event> {
        // The presenter took a question while notices still wait to be heard: they are
        // moot (the hand is taken), and the transition line should not wait behind them.
        // The cut has an id of its own, so every id names one decision, in order.
        if kind == PhraseKind::Transition && !self.unheard_notices.is_empty() {
            let moot = std::mem::take(&mut self.unheard_notices);
            tracing::info!(lines = ?moot, "notices not heard yet are cut: an exchange starts");
            for notice in &moot {
                self.lines.heard_exactly(*notice);
            }
            let cut = self.fresh_question_id();
            out.push(Output::Interrupt {
                question_id: cut,
                kind: InterruptKind::Cancel,
            });
        }
        let q = self.fresh_question_id();
        tracing::info!(kind = kind.slug(), question_id = q, %text, "moderator says");
        out.push(Output::Line {
            question_id: q,
            text: text.clone(),
            kind,
        });
        out.push(Output::Utterance {
            speaker: MODERATOR.to_owned(),
            question_id: q,
            text: text.clone(),
            human: false,
        });
        if kind == PhraseKind::Transition
            && let Some(opening) = self.opening.clone()
        {
            let latency = now_ms.saturating_sub(opening.at_ms) as f64;
            Self::record(
                out,
                now_ms,
                "qa_line_out",
                json!({ "command": opening.command, "question_id": q, "latency_ms": latency }),
            );
            self.awaiting_audio.insert(q, opening);
        }
        Self::record(
            out,
            now_ms,
            "say",
            json!({ "kind": kind.slug(), "question_id": q, "line_id": line_id, "text": text }),
        );
        if self.config.paced {
            self.lines.said(q, line_id);
            if matches!(
                kind,
                PhraseKind::HandRaiseNotice
                    | PhraseKind::EngagementPrompt
                    | PhraseKind::SuggestPause
                    | PhraseKind::EncourageAdvance
            ) {
                self.unheard_notices.insert(q);
            }
            None
        } else {
            Some(Event::ModeratorLineFinished { line_id })
        }
    }

    fn log_exchange(&mut self, record: &ExchangeRecord, now_ms: u64, out: &mut Vec<Output>) {
        let outcome = messages::outcome_label(record.outcome);
        tracing::info!(exchange = record.id, agent = %record.agent, outcome, "exchange logged");
        self.write(
            out,
            ContextFile::Shared(SharedFile::ExchangeHistory),
            messages::exchange_markdown(record),
            WriteMode::Append,
        );
        let pile_on = record.pile_on.as_ref().map(|p| p.agent.as_str());
        for agent in std::iter::once(record.agent.as_str()).chain(pile_on) {
            self.write(
                out,
                ContextFile::agent(agent, AgentFile::PresenterProfile),
                messages::profile_markdown(record),
                WriteMode::Append,
            );
            self.write(
                out,
                ContextFile::agent(agent, AgentFile::ExchangeNotes),
                format!(
                    "- exchange {} on {}: {outcome}\n",
                    record.id, record.slide_title
                ),
                WriteMode::Append,
            );
        }
        self.write(
            out,
            ContextFile::agent(MODERATOR, AgentFile::DebriefNotes),
            format!(
                "- [{}] exchange {} ({}, slide {} {}): {outcome}\n",
                messages::clock(now_ms),
                record.id,
                record.agent,
                record.slide,
                record.slide_title,
            ),
            WriteMode::Append,
        );
        Self::record(
            out,
            now_ms,
            "exchange",
            serde_json::to_value(record).unwrap_or_default(),
        );
    }

    /// The moderator's `session-state.md`.
    fn session_state(&self, now_ms: u64) -> String {
        let core = &self.core;
        let slide = core.current_slide();
        let mut s = format!(
            "# Session state\n\nstate: {}\nslide: {slide} ({})\nelapsed: {}\nexchanges logged: {}\n",
            core.phase().name().to_uppercase(),
            core.deck().title_of(slide),
            messages::clock(now_ms),
            core.records().len()
        );
        if let Some((agent, q)) = core.speaking() {
            s.push_str(&format!("speaking: {agent} (call {q})\n"));
        }
        if let Some(n) = core.exchange_agent_turns() {
            s.push_str(&format!(
                "exchange turns: {n} of {}\n",
                core.config().intensity.max_agent_turns()
            ));
        }
        let hands = core.hands_raised();
        if !hands.is_empty() {
            s.push_str(&format!("hands raised: {}\n", hands.join(", ")));
        }
        s
    }

    /// At the end: the debrief (if the engine has not written it) and the frozen context.
    fn finish_files(&mut self, out: &mut Vec<Output>) {
        if self.frozen {
            return;
        }
        if self.debrief.is_none() {
            let markdown = self.core.debrief_markdown();
            out.push(Output::Debrief(markdown.clone()));
            self.debrief = Some(markdown);
        }
        out.push(Output::FreezeContext);
        self.frozen = true;
    }
}

/// The format name of a rehearsal moderator's decision log (crate `decision-log`).
pub const REHEARSAL_FORMAT: &str = "rehearsal-moderator";

/// Everything a rehearsal [`Conductor`] is built and started from: recorded at the head
/// of the session's decision log, so a replay builds the same one. The files' texts, not
/// their paths: the replay needs no file.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RehearsalSetup {
    /// The panel configuration (`PANEL`, YAML).
    pub panel_yaml: String,
    /// The deck's path as the session config names it, and its text (`DECK`).
    pub deck_path: String,
    pub deck_text: String,
    /// The phrase library (Markdown); empty: the built-in phrases.
    pub phrases: String,
    /// The research notes (`INTEL`), if any.
    pub intel: Option<String>,
    /// Each panelist's persona style, from its template.
    pub styles: BTreeMap<String, String>,
    pub config: Config,
}

impl RehearsalSetup {
    pub fn build(&self) -> Result<Conductor, ConfigError> {
        self.build_reporting().map(|(conductor, _)| conductor)
    }

    /// [`RehearsalSetup::build`], with what the phrase library skipped or leaves out in
    /// the panel's language, for the node to report.
    pub fn build_reporting(&self) -> Result<(Conductor, LoadReport), ConfigError> {
        let panel = PanelConfig::from_yaml(&self.panel_yaml)?;
        let (phrases, report) = PhraseLibrary::load(&self.phrases, panel.language);
        let conductor = Conductor::new(panel, Deck::parse(&self.deck_text), phrases, self.config)?;
        Ok((conductor, report))
    }

    /// What [`Conductor::start`] is given.
    pub fn briefing(&self) -> Briefing<'_> {
        Briefing {
            deck_path: &self.deck_path,
            deck_text: &self.deck_text,
            intel: self.intel.as_deref(),
            styles: self.styles.clone(),
        }
    }
}

impl ::conductor::Conductor for Conductor {
    type Input = Input;
    type Output = Output;
    /// The setup the conductor was built from holds the briefing it opens with.
    type Opening = RehearsalSetup;

    fn start(&mut self, setup: &RehearsalSetup, now_ms: u64) -> Vec<Output> {
        Conductor::start(self, &setup.briefing(), now_ms)
    }

    fn handle(&mut self, input: Input, now_ms: u64) -> Vec<Output> {
        Conductor::handle(self, input, now_ms)
    }

    fn tick(&mut self, now_ms: u64) -> Vec<Output> {
        Conductor::handle(self, Input::Tick, now_ms)
    }

    fn next_wake(&self) -> Option<u64> {
        Conductor::next_wake(self)
    }

    fn finished(&self) -> bool {
        Conductor::finished(self)
    }
}

#[cfg(test)]
mod tests;
