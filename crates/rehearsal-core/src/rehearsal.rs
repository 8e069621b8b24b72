//! The pitch-rehearsal moderator as one state machine: [`Rehearsal`], the
//! [`conductor::Core`] the `rehearsal-moderator` node runs
//! (`handle(input, now_ms) -> Vec<Output>`). Its state is a handful of sub-states, each
//! an owned type in the module of the rules that use it:
//!
//! - [`phases`]: the phases (PRESENTING → QA_TRIGGER → EXCHANGE → RESOLVING) and the
//!   cycle they make, the deadlines;
//! - [`presenting`]: the presenter's words, silences, slides and commands, what opens
//!   Q&A, the notices said at pauses ([`presenting::Timers`], the one timer table;
//!   [`presenting::SlideNotes`]);
//! - [`exchange`]: the exchange under way, the intervention rule, the pile-on
//!   ([`exchange::Qa`]);
//! - [`panel`]: the panelists' prepared questions, raised hands, who is asked next, the
//!   moderator's phrases ([`panel::Panel`]);
//! - [`decisions`]: what the phase rules react to and decide, and how each decision is
//!   carried out;
//! - [`turns`]: the panelists' turns, assembled from their streamed chunks;
//! - [`requests`]: candidate-question requests and their replies;
//! - [`lines`]: the moderator's lines paced against what was heard, the voices held,
//!   the closing wait ([`lines::OnAir`]);
//! - [`files`]: the context files and event records, and what each says;
//! - [`setup`]: what a rehearsal is built and started from (its decision log's head).
//!
//! No I/O and no clock: time is passed in (ms since start).

mod debrief;
mod decisions;
mod exchange;
mod files;
mod lines;
mod notice;
mod panel;
mod phases;
mod presenting;
mod queries;
mod requests;
mod setup;
mod turns;

use std::collections::BTreeMap;

pub use voice_protocol::messages::SideRequest;
use voice_protocol::{InterruptKind, StreamStatus};

pub use debrief::DebriefFigures;
#[cfg(test)]
pub(crate) use decisions::Action;
pub(crate) use decisions::Event;
pub use decisions::{CandidatePurpose, Instruction};
pub use files::{AgentFile, ContextFile, MODERATOR, Record, RecordEvent, SharedFile, WriteMode};
pub use notice::Notice;
pub use phases::Phase;
pub use setup::{Briefing, REHEARSAL_FORMAT, RehearsalSetup};
pub use turns::Turn;

use crate::board::Board;
use crate::briefing;
use crate::history::{self, PastSession};
use crate::messages::parse_control;
use crate::phrases::{PhraseKind, PhrasePicker};
use crate::rating::RatingRecord;
use crate::{ConfigError, Deck, ExchangeRecord, PanelConfig, PhraseLibrary};
use exchange::Qa;
use lines::OnAir;
use panel::Panel;
use presenting::{PresenterTrack, SlideNotes, Timers};
use requests::{MAX_OPEN_REQUESTS, Request};
use turns::Call;

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
        status: Option<StreamStatus>,
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
    /// The presenter's voice activity began; `onset_us`: when the detector sent it (µs
    /// since the epoch), passed on with the hold for the player's measure.
    SpeechStarted {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        onset_us: Option<i64>,
    },
    /// The presenter's speech was only an acknowledgement ("mm-hm"): a held voice goes on.
    Backchannel,
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
    /// `request`: a candidate-question request for every bridge.
    Request(SideRequest),
    /// `interrupt`: generations older than `question_id` stop.
    Interrupt {
        question_id: u64,
        kind: InterruptKind,
    },
    /// `pause` or `resume`: the agents' voice held while the presenter speaks over it,
    /// or let go on ([`::conductor::Floor`]).
    Floor(::conductor::FloorChange),
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
    /// Write `debrief.md` (the Markdown) and `debrief.json` (its figures), and add
    /// `remembered` to the presenter's history (the node names the session and its time).
    Debrief {
        markdown: String,
        figures: String,
        remembered: PastSession,
    },
    /// `board`: what the presenter's screen shows, sent when it changed.
    Board(Board),
    /// Freeze the context session (no more writes follow).
    FreezeContext,
    /// Something ignored, missing or under way, for the log.
    Notice(Notice),
}

/// The pitch-rehearsal moderator.
pub struct Rehearsal {
    // The panel, the deck and the phrases the session runs on.
    config: PanelConfig,
    deck: Deck,
    phrasing: Phrasing,
    // Where the session is.
    phase: Phase,
    now: u64,
    slide: usize,
    /// The panelists as the moderator sees them.
    panel: Panel,
    /// The exchange under way and the section break it belongs to.
    qa: Qa,
    /// What the presenter said and when, as the rules read it.
    presenter: PresenterTrack,
    /// Numbers of the moderator's lines, its calls and exchanges.
    numbers: Numbers,
    /// When the phase began and the presenting rules last acted.
    timers: Timers,
    /// Per slide: breaks taken, who asked, moving on encouraged.
    slide_notes: SlideNotes,
    /// The moderator's lines on the wire, the voices held, the closing wait.
    on_air: OnAir,
    /// The panel's turns called and side requests open.
    pending: Pending,
    /// What the session leaves: delivery, exchanges, ratings, the debrief.
    results: Results,
}

/// What the session leaves: how the presenter spoke, the exchanges logged, the panel's
/// rating of each answer, the debrief as written, the board as last sent, and whether
/// the agents' context files are frozen (the session is archived).
#[derive(Debug, Default)]
struct Results {
    /// How the presenter spoke: pace, pauses, fillers, time per slide, answers.
    delivery: delivery::Delivery,
    records: Vec<ExchangeRecord>,
    ratings: Vec<RatingRecord>,
    debrief: Option<crate::board::WrittenDebrief>,
    board: Option<Board>,
    frozen: bool,
}

/// The moderator's phrases and which of each kind comes next.
#[derive(Debug)]
struct Phrasing {
    library: PhraseLibrary,
    picker: PhrasePicker,
}

impl Phrasing {
    /// The next phrase of `kind`, in turn with those said before.
    fn pick(&mut self, kind: PhraseKind) -> &str {
        self.picker.pick(&self.library, kind)
    }
}

/// The panel's turns called and its side requests open, by id.
#[derive(Debug)]
struct Pending {
    calls: BTreeMap<u64, Call>,
    requests: ::conductor::Requests<Request>,
}

impl Default for Pending {
    fn default() -> Self {
        Self {
            calls: BTreeMap::new(),
            requests: ::conductor::Requests::new(MAX_OPEN_REQUESTS),
        }
    }
}

/// Numbers of the moderator's lines, its calls and exchanges, apart from the wire's
/// question ids (the say records and the session state name them): each counts from 1.
#[derive(Debug, Default)]
struct Numbers {
    lines: u64,
    calls: u64,
    exchanges: u64,
}

impl Numbers {
    fn next(counter: &mut u64) -> u64 {
        *counter += 1;
        *counter
    }

    fn line(&mut self) -> u64 {
        Self::next(&mut self.lines)
    }

    fn call(&mut self) -> u64 {
        Self::next(&mut self.calls)
    }

    fn exchange(&mut self) -> u64 {
        Self::next(&mut self.exchanges)
    }
}

impl Rehearsal {
    /// A session starting at time 0 on slide 0. The configuration is validated.
    pub fn new(
        config: PanelConfig,
        deck: Deck,
        phrases: PhraseLibrary,
        node: Config,
    ) -> Result<Self, ConfigError> {
        config.validate()?;
        let agents = config.agents.len();
        let picker = PhrasePicker::new(config.language);
        Ok(Self {
            config,
            deck,
            phrasing: Phrasing {
                library: phrases,
                picker,
            },
            phase: Phase::Presenting,
            now: 0,
            slide: 0,
            panel: Panel::new(agents),
            presenter: PresenterTrack::default(),
            numbers: Numbers::default(),
            qa: Qa::default(),
            timers: Timers::default(),
            slide_notes: SlideNotes::default(),
            on_air: OnAir::new(node.paced),
            pending: Pending::default(),
            results: Results::default(),
        })
    }

    /// The session is over and its closing line was heard (or the wait timed out):
    /// the node may leave.
    pub fn finished(&self) -> bool {
        self.on_air.finished
    }

    /// The session's first files (config, deck, intel, dossier, focus briefs), then the
    /// rules' first tick.
    pub fn start(&mut self, briefing: &Briefing, now_ms: u64) -> Vec<Output> {
        self.results.delivery.slide_shown(self.slide, now_ms);
        let config = self.config();
        let deck = self.deck();
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
            // What this panelist left open with the presenter last time: asked first.
            if let Some(told) = self
                .panel
                .previous
                .as_ref()
                .and_then(|last| history::left_open_for(&agent.name, last))
            {
                out.push(Output::Context {
                    file: ContextFile::agent(&agent.name, AgentFile::PresenterProfile),
                    text: told,
                    mode: WriteMode::Append,
                });
            }
        }
        self.feed(Event::Tick, now_ms, &mut out);
        self.check_closing(now_ms, &mut out);
        self.board(now_ms, &mut out);
        out
    }

    /// The board, when it changed since it was last sent.
    fn board(&mut self, now_ms: u64, out: &mut Vec<Output>) {
        let board = Board::of(self, self.results.debrief.as_ref(), now_ms);
        if self.results.board.as_ref() != Some(&board) {
            out.push(Output::Board(board.clone()));
            self.results.board = Some(board);
        }
    }

    /// When a [`Input::Tick`] must come at the latest.
    pub fn next_wake(&self) -> Option<u64> {
        if self.on_air.finished {
            return None;
        }
        let own = if self.on_air.is_closing() {
            self.on_air.closing_deadline(self.line_timeout_ms())
        } else {
            self.next_deadline()
        };
        [own, self.on_air.floor.next_wake(), self.on_air.debrief_due]
            .into_iter()
            .flatten()
            .min()
    }

    pub fn handle(&mut self, input: Input, now_ms: u64) -> Vec<Output> {
        let mut out = Vec::new();
        if let Some(change) = self.on_air.floor.tick(now_ms) {
            out.push(Output::Notice(Notice::FloorNotTaken));
            out.push(Output::Floor(change));
        }
        match input {
            Input::Tick if self.phase() == Phase::Ended => self.debrief_if_due(now_ms, &mut out),
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
            } => self.presenter_line(speaker, &text, ended, now_ms, &mut out),
            Input::Control(text) => match parse_control(&text) {
                Ok(control) => self.control(control, &text, now_ms, &mut out),
                Err(e) => out.push(Output::Notice(Notice::BadControl {
                    error: e.to_string(),
                })),
            },
            Input::Restarted { input } => self.restarted(&input, now_ms, &mut out),
            Input::SpeechStarted { onset_us } => {
                self.results.delivery.speech_started(now_ms);
                if let Some(change) = self.on_air.floor.speech_started(onset_us, now_ms) {
                    out.push(Output::Notice(Notice::VoiceHeld));
                    out.push(Output::Floor(change));
                }
                self.feed(Event::PresenterSpeechStarted, now_ms, &mut out)
            }
            Input::Backchannel => {
                if let Some(change) = self.on_air.floor.no_words() {
                    out.push(Output::Notice(Notice::VoiceGoesOn));
                    out.push(Output::Floor(change));
                }
            }
            Input::PlaybackStarted { question_id } => {
                self.playback_started(question_id, now_ms, &mut out)
            }
            Input::Played { question_id } => self.played(question_id, now_ms, &mut out),
            Input::Stop => {
                if self.phase() != Phase::Ended {
                    out.push(Output::Notice(Notice::Stopping));
                    self.feed(Event::EndSession, now_ms, &mut out);
                }
                // Stopping: the debrief is written with the ratings that came.
                if let Some(due) = self.on_air.debrief_due {
                    self.debrief_if_due(due, &mut out);
                }
                self.finish_files(&mut out);
                self.on_air.finished = true;
            }
        }
        self.check_closing(now_ms, &mut out);
        self.board(now_ms, &mut out);
        out
    }
}

impl ::conductor::Core for Rehearsal {
    type Input = Input;
    type Output = Output;
    /// The setup the conductor was built from holds the briefing it opens with.
    type Opening = RehearsalSetup;

    fn start(&mut self, setup: &RehearsalSetup, now_ms: u64) -> Vec<Output> {
        Rehearsal::start(self, &setup.briefing(), now_ms)
    }

    fn handle(&mut self, input: Input, now_ms: u64) -> Vec<Output> {
        Rehearsal::handle(self, input, now_ms)
    }

    fn tick(&mut self, now_ms: u64) -> Vec<Output> {
        Rehearsal::handle(self, Input::Tick, now_ms)
    }

    fn next_wake(&self) -> Option<u64> {
        Rehearsal::next_wake(self)
    }

    fn finished(&self) -> bool {
        Rehearsal::finished(self)
    }
}

#[cfg(test)]
mod tests;
