//! What goes into the agents' context session and the event log: the files and
//! records themselves, and what each of them says.

use serde::Serialize;

use super::Instruction;
use super::Output;
use super::Rehearsal;
use super::notice::Notice;
use crate::messages;
use crate::rating::Rating;
use crate::record::ExchangeRecord;

/// The moderator's speaker name (its template folder and voice-map key).
pub const MODERATOR: &str = "moderator";

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
    pub(super) fn agent(agent: &str, file: AgentFile) -> Self {
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

/// One line of `rehearsal-events.jsonl`: when, and what happened.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub t_ms: u64,
    pub event: RecordEvent,
}

/// What a line of `rehearsal-events.jsonl` says: its `event` name and its fields.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum RecordEvent {
    /// The session moved from one phase to another.
    Phase {
        from: &'static str,
        to: &'static str,
    },
    /// A presenter's control command (a slide change, the end).
    Control { command: String },
    /// A moderator line went out.
    Say {
        kind: &'static str,
        question_id: u64,
        line_id: u64,
        text: String,
    },
    /// The line that opens Q&A left the moderator, `latency_ms` after its trigger.
    QaLineOut {
        command: String,
        question_id: u64,
        latency_ms: f64,
    },
    /// That line's first sound, `latency_ms` after its trigger.
    QaFirstAudio {
        command: String,
        question_id: u64,
        latency_ms: f64,
    },
    /// A turn handed to a panelist, with what its context was made of.
    Call {
        agent: String,
        question_id: u64,
        exchange_id: u64,
        instruction: Instruction,
        text: String,
        prepared: Option<String>,
        context_bytes: usize,
        context_parts: Vec<String>,
    },
    /// A panelist's candidate question and how much it holds of its slide.
    Candidate {
        agent: String,
        slide: usize,
        relevance: f64,
        text: String,
    },
    /// A finished exchange.
    Exchange(ExchangeRecord),
    /// The asking panelist's rating of an answer (`None`: unrated, `why` says why).
    Rating {
        exchange: u64,
        agent: String,
        rating: Option<Rating>,
        why: String,
    },
    /// The debrief was written.
    Debrief { file: &'static str },
}

impl RecordEvent {
    /// The `event` name of its line.
    pub fn name(&self) -> &'static str {
        match self {
            RecordEvent::Phase { .. } => "phase",
            RecordEvent::Control { .. } => "control",
            RecordEvent::Say { .. } => "say",
            RecordEvent::QaLineOut { .. } => "qa_line_out",
            RecordEvent::QaFirstAudio { .. } => "qa_first_audio",
            RecordEvent::Call { .. } => "call",
            RecordEvent::Candidate { .. } => "candidate",
            RecordEvent::Exchange(_) => "exchange",
            RecordEvent::Rating { .. } => "rating",
            RecordEvent::Debrief { .. } => "debrief",
        }
    }
}

impl Record {
    pub(super) fn new(t_ms: u64, event: RecordEvent) -> Self {
        Self { t_ms, event }
    }

    /// The JSON line, stamped with the wall clock the node reads. A record that cannot be
    /// written as JSON (none can today: its fields are plain data) leaves a line that
    /// says so, with the error, not a stopped moderator.
    pub fn to_json(&self, unix_ms: u64) -> String {
        #[derive(Serialize)]
        struct Line<'a> {
            t_ms: u64,
            unix_ms: u64,
            #[serde(flatten)]
            event: &'a RecordEvent,
        }
        serde_json::to_string(&Line {
            t_ms: self.t_ms,
            unix_ms,
            event: &self.event,
        })
        .unwrap_or_else(|error| {
            serde_json::json!({ "t_ms": self.t_ms, "unix_ms": unix_ms,
                "event": self.event.name(), "error": error.to_string() })
            .to_string()
        })
    }
}

impl Rehearsal {
    /// A context file write; none after the session is frozen.
    pub(super) fn write(
        &self,
        out: &mut Vec<Output>,
        file: ContextFile,
        text: String,
        mode: WriteMode,
    ) {
        if !self.results.frozen {
            out.push(Output::Context { file, text, mode });
        }
    }

    pub(super) fn record(out: &mut Vec<Output>, now_ms: u64, event: RecordEvent) {
        out.push(Output::Record(Record::new(now_ms, event)));
    }

    pub(super) fn write_exchange(
        &mut self,
        record: &ExchangeRecord,
        now_ms: u64,
        out: &mut Vec<Output>,
    ) {
        let outcome = messages::outcome_label(record.outcome);
        out.push(Output::Notice(Notice::ExchangeLogged {
            exchange: record.id,
            agent: record.agent.clone(),
            outcome,
        }));
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
        Self::record(out, now_ms, RecordEvent::Exchange(record.clone()));
    }

    /// The moderator's `session-state.md`.
    pub(super) fn session_state(&self, now_ms: u64) -> String {
        let slide = self.current_slide();
        let mut s = format!(
            "# Session state\n\nstate: {}\nslide: {slide} ({})\nelapsed: {}\nexchanges logged: {}\n",
            self.phase().name().to_uppercase(),
            self.deck().title_of(slide),
            messages::clock(now_ms),
            self.records().len()
        );
        if let Some((agent, q)) = self.speaking() {
            s.push_str(&format!("speaking: {agent} (call {q})\n"));
        }
        if let Some(n) = self.exchange_agent_turns() {
            s.push_str(&format!(
                "exchange turns: {n} of {}\n",
                self.config().intensity.max_agent_turns()
            ));
        }
        let hands = self.hands_raised();
        if !hands.is_empty() {
            s.push_str(&format!("hands raised: {}\n", hands.join(", ")));
        }
        s
    }

    /// The debrief as written, and its figures as they were then, for the board.
    pub(super) fn keep_debrief(&mut self, markdown: String) {
        self.results.debrief = Some(crate::board::WrittenDebrief {
            markdown,
            dashboard: self.dashboard(),
        });
    }

    /// At the end: the debrief (if the rules have not written it) and the frozen context;
    /// not while the debrief waits for ratings.
    pub(super) fn finish_files(&mut self, out: &mut Vec<Output>) {
        if self.results.frozen || self.on_air.debrief_due.is_some() {
            return;
        }
        if self.results.debrief.is_none() {
            let markdown = self.debrief_markdown();
            out.push(Output::Debrief {
                markdown: markdown.clone(),
                figures: self.debrief_figures_json(),
                remembered: self.remembered(),
            });
            self.keep_debrief(markdown);
        }
        out.push(Output::FreezeContext);
        self.results.frozen = true;
    }
}
