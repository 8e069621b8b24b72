//! The conference controller's decisions, without I/O.
//!
//! The node feeds [`Input`]s with the current monotonic time and sends out the returned
//! [`Output`]s; [`Conference::next_deadline`] tells it when to call back with
//! [`Input::Tick`] so that a silent speaker or a vanished human never stalls the
//! conversation.

use std::time::Duration;

mod events;
mod floor;
mod lifecycle;
use turn_policy::{PolicyEngine, PolicyStats, count_words};

mod setup;
pub use setup::{CONTROLLER_FORMAT, ControllerSetup, SetupError};
use voice_protocol::{
    ControlCommand, InterruptKind, StreamStatus,
    messages::{HeardSpan, PrepareFor},
};

/// Text kept per utterance; longer utterances still count all their words.
pub use conductor::MAX_UTTERANCE_CHARS;

/// How long the human's floor is held at most: the voice detector's longest utterance
/// (30 s) and the time to recognise it. The player's own limit on a held voice (a safety
/// net should the controller vanish) is longer.
pub const HOLD_LIMIT: Duration = Duration::from_secs(35);

/// How long a turn may go without a word from its speaker before it is sent again
/// ([`ConferenceConfig::turn_resend`]): longer than a turn's first words usually take
/// on a slow machine, short beside the turn timeout.
pub const TURN_RESEND: Duration = Duration::from_secs(12);

/// Timeouts of the controller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConferenceConfig {
    /// A speaker that has not finished its turn after this long is skipped.
    pub turn_timeout: Duration,
    /// How long the human's floor is held (after `speech_started`) without a transcript
    /// or a backchannel: longer than the voice detector's longest utterance plus its
    /// recognition ([`HOLD_LIMIT`]).
    pub human_timeout: Duration,
    /// With a player reporting `playback_done`: how many finished utterances may wait
    /// unheard before the next turn is handed out (`Some(1)`: the next speaker generates
    /// while the current one is heard, no further). `None`: no waiting for playback.
    pub max_unplayed: Option<usize>,
    /// A participant skipped for not answering is offered a turn again after this many
    /// turns of the others (it may only have been slow, or its turn lost): `None` never.
    /// One whose input closed is gone for good and never retried.
    pub absent_retry_turns: Option<u32>,
    /// A turn its speaker has sent nothing of after this long is sent again, as it was
    /// (a bridge ignores a turn it already works on): between two machines a message can
    /// be lost under load, and a lost turn would otherwise cost the whole turn timeout
    /// and hand the answer to the next speaker. `None`: never.
    pub turn_resend: Option<Duration>,
}

impl Default for ConferenceConfig {
    fn default() -> Self {
        Self {
            turn_timeout: Duration::from_secs(60),
            human_timeout: HOLD_LIMIT,
            max_unplayed: None,
            absent_retry_turns: Some(8),
            turn_resend: Some(TURN_RESEND),
        }
    }
}

/// Something that happened, as seen by the controller (serialisable: a session's
/// decision log records them, and a replay feeds them again).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Input {
    /// The node is up: the cold-start turn goes out.
    Start,
    /// A chunk (or a complete message, when `status` is `None`) from input `from`.
    Text {
        from: String,
        text: String,
        status: Option<StreamStatus>,
        question_id: Option<u64>,
    },
    /// A final human utterance.
    Human {
        speaker: String,
        text: String,
        /// When its words were spoken, as the recognizer heard them: passed on with the
        /// utterance (the player puts the human on the recording's clock).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        heard: Option<HeardSpan>,
    },
    /// Voice activity: the human began to speak. The agents' voice is held.
    SpeechStarted {
        /// When the voice detector sent it (µs since the epoch): passed on with the hold,
        /// so that the player measures the human's first sound → silence over both hops.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        onset_us: Option<i64>,
    },
    /// What the human said was only a backchannel ("mm-hm"): the held voice goes on.
    Backchannel,
    /// The player finished (or cut off) the utterance of `question_id`. (Logs recorded
    /// before it had its one name wrote `playback_done`.)
    #[serde(alias = "playback_done")]
    Played {
        question_id: u64,
    },
    Control(ControlCommand),
    /// An input of the node closed: its sender is gone (crashed, killed or done).
    InputClosed {
        input: String,
    },
    /// The sender of an input crashed and was restarted (dora's restart policy): what it
    /// was doing is lost, but it is there again.
    Restarted {
        input: String,
    },
    /// Time passed; deadlines are checked.
    Tick,
}

/// The controller is a conductor like the others (crates/conductor/README.md):
/// its node runs on the same loop, its calls are recorded and replayed the same way.
/// [`Input::Start`] and [`Input::Tick`] are the trait's own calls.
impl conductor::Core for Conference {
    type Input = Input;
    type Output = Output;
    type Opening = ();

    fn start(&mut self, _: &(), now_ms: u64) -> Vec<Output> {
        Conference::handle(self, Input::Start, now_ms)
    }

    fn handle(&mut self, input: Input, now_ms: u64) -> Vec<Output> {
        Conference::handle(self, input, now_ms)
    }

    fn tick(&mut self, now_ms: u64) -> Vec<Output> {
        Conference::handle(self, Input::Tick, now_ms)
    }

    fn next_wake(&self) -> Option<u64> {
        self.next_deadline()
    }

    /// The controller runs as long as its dataflow does.
    fn finished(&self) -> bool {
        false
    }
}

/// A finished (or cut-short) utterance, for history and transcripts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Utterance {
    pub speaker: String,
    pub text: String,
    pub question_id: u64,
    pub interrupted: bool,
    pub human: bool,
    /// A human's: when its words were spoken (its input's, passed on).
    pub heard: Option<HeardSpan>,
}

/// What the node must do.
#[derive(Debug, Clone, PartialEq)]
pub enum Output {
    Turn {
        speaker: String,
        question_id: u64,
    },
    Interrupt {
        kind: InterruptKind,
        question_id: u64,
    },
    Status(PolicyStats),
    Utterance(Utterance),
    Notice(Notice),
    /// The human is speaking: the player holds the agents' voice (fades it out, keeps its
    /// place). `onset_us`: the speech start's, passed on for the player's measure.
    Hold {
        onset_us: Option<i64>,
    },
    /// The hold is over without a new question (a backchannel, no words, the hold's
    /// limit): the held voice plays on.
    Resume,
    /// `speaker` speaks soon and may read ahead for it: for an answer, it will answer
    /// the human if they are asking something (the conversation so far is read while the
    /// human is still talking, so that only the question is left to read when the turn
    /// comes); for a turn, it is handed the next turn once the voice has caught up with
    /// the lines already written, unless a human speaks first (it reads its whole turn
    /// ahead, the others only the conversation).
    Prepare {
        speaker: String,
        ahead_of: PrepareFor,
    },
}

/// Things worth logging. [`Notice::is_warning`] tells warnings from routine drops.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Notice {
    #[error("text from `{from}`, which is not a participant of the policy; ignored")]
    UnknownParticipant { from: String },
    #[error("text from `{from}` while the turn belongs to {holder}; ignored")]
    NotTheirTurn { from: String, holder: String },
    #[error("dropped stale text from `{from}` (question {question_id}, current {current})")]
    Stale {
        from: String,
        question_id: u64,
        current: u64,
    },
    #[error("empty human utterance from `{speaker}`; ignored")]
    EmptyHuman { speaker: String },
    #[error("`{speaker}` did not finish its turn within {secs} s; skipping it")]
    TurnTimeout { speaker: String, secs: u64 },
    #[error("no transcript {secs} s after the human started speaking; the held voice goes on")]
    HumanTimeout { secs: u64 },
    #[error(
        "utterance of `{speaker}` exceeds {MAX_UTTERANCE_CHARS} characters; the rest is counted but not kept"
    )]
    Truncated { speaker: String },
    #[error("nobody can take the turn; waiting for a human to speak")]
    FloorOpen,
    #[error("no playback report within {secs} s; continuing without it")]
    PlaybackTimeout { secs: u64 },
    #[error("`{speaker}` is absent ({reason}); it is skipped until it speaks again")]
    Absent { speaker: String, reason: String },
    #[error("`{speaker}` was skipped for {turns} turns; it is offered the turn again")]
    Retried { speaker: String, turns: u32 },
    #[error("`{speaker}` answers again; it takes turns again")]
    Returned { speaker: String },
    #[error("the player's reports ended (its input closed); turns no longer wait for playback")]
    PlayerGone,
    #[error("`{speaker}` restarted; the turn it was in is over and it takes turns again")]
    ParticipantRestarted { speaker: String },
    #[error("the player restarted; what it had not played yet is not waited for")]
    PlayerRestarted,
    #[error(
        "nothing from `{speaker}` {secs} s after its turn {question_id}; the turn is sent again"
    )]
    TurnResent {
        speaker: String,
        question_id: u64,
        secs: u64,
    },
}

/// How loud a [`Notice`] is in the log.
pub use ::conductor::NoticeLevel;

impl Notice {
    pub fn level(&self) -> NoticeLevel {
        match self {
            Notice::Stale { .. } | Notice::FloorOpen => NoticeLevel::Debug,
            // Also what a normal stop looks like when the player leaves first.
            Notice::Returned { .. }
            | Notice::Retried { .. }
            | Notice::PlayerGone
            | Notice::PlayerRestarted
            | Notice::TurnResent { .. } => NoticeLevel::Info,
            _ => NoticeLevel::Warning,
        }
    }

    pub fn is_warning(&self) -> bool {
        self.level() == NoticeLevel::Warning
    }
}

#[derive(Debug, Clone)]
struct ActiveTurn {
    index: usize,
    question_id: u64,
    started_at: Duration,
    /// When the turn was last sent (at `started_at`, or sent again).
    sent_at: Duration,
    /// Its speaker has sent text of it: it was received.
    heard: bool,
    /// What it said so far, kept to [`MAX_UTTERANCE_CHARS`].
    text: conductor::Utterance,
}

impl ActiveTurn {
    /// When the turn is to be sent again, if it is.
    fn resend_at(&self, resend: Option<Duration>) -> Option<Duration> {
        resend.filter(|_| !self.heard).map(|r| self.sent_at + r)
    }
}

#[derive(Debug, Clone)]
enum Floor {
    /// Nobody is handed the turn (paused, or not started).
    Idle,
    /// Nobody could take the turn: a human (or a participant coming back) goes on.
    Open,
    Speaking(ActiveTurn),
    /// Enough is generated but unheard: the next turn waits for the player.
    AwaitingPlayback {
        since: Duration,
    },
}

/// The conference controller state machine.
#[derive(Debug, Clone)]
pub struct Conference {
    engine: PolicyEngine,
    config: ConferenceConfig,
    floor: Floor,
    /// Finished agent utterances the player has not reported as heard.
    unplayed: std::collections::BTreeSet<u64>,
    /// The player's report input closed: nothing is waited for any more.
    player_gone: bool,
    /// Participants absent for not answering, with the turns handed out since.
    timed_out: std::collections::BTreeMap<usize, u32>,
    /// The human has been speaking since then: the agents' voice is held and no turn is
    /// handed out until a transcript, a backchannel or the hold's limit.
    held_since: Option<Duration>,
    /// A turn fell due while the floor was held: it goes out when the hold ends.
    turn_due: bool,
    /// The newest question id handed out (a turn's or an interrupt's); the policy only
    /// says who speaks, the controller numbers what it sends.
    question_id: u64,
}

impl Conference {
    pub fn new(engine: PolicyEngine, config: ConferenceConfig) -> Self {
        Self {
            engine,
            config,
            floor: Floor::Idle,
            unplayed: std::collections::BTreeSet::new(),
            player_gone: false,
            timed_out: std::collections::BTreeMap::new(),
            held_since: None,
            turn_due: false,
            question_id: 0,
        }
    }

    /// A fresh question id, strictly greater than every one before.
    fn next_question_id(&mut self) -> u64 {
        self.question_id += 1;
        self.question_id
    }

    /// The published status: the policy's share of the floor and the newest question id.
    pub fn status(&self) -> PolicyStats {
        self.engine.stats(self.question_id)
    }

    /// Whether the human holds the floor (speaking, no transcript yet).
    pub fn is_held(&self) -> bool {
        self.held_since.is_some()
    }

    pub fn engine(&self) -> &PolicyEngine {
        &self.engine
    }

    /// The speaker holding the turn and its question id.
    pub fn current_turn(&self) -> Option<(&str, u64)> {
        match &self.floor {
            Floor::Speaking(t) => Some((self.engine.name(t.index), t.question_id)),
            _ => None,
        }
    }

    /// When the node should send [`Input::Tick`] at the latest, in milliseconds of the
    /// clock `handle` is given.
    pub fn next_deadline(&self) -> Option<u64> {
        // Whole milliseconds already, as every time handed in is; rounded up regardless.
        self.deadline()
            .map(|d| u64::try_from(d.as_nanos().div_ceil(1_000_000)).unwrap_or(u64::MAX))
    }

    fn deadline(&self) -> Option<Duration> {
        let resend = match &self.floor {
            Floor::Speaking(t) => t.resend_at(self.config.turn_resend),
            _ => None,
        };
        match (self.timeout_deadline(), resend) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// When the turn, the wait for playback or the human's hold times out.
    fn timeout_deadline(&self) -> Option<Duration> {
        let floor = match &self.floor {
            Floor::Idle | Floor::Open => None,
            Floor::Speaking(t) => Some(t.started_at + self.config.turn_timeout),
            Floor::AwaitingPlayback { since } => Some(*since + self.config.turn_timeout),
        };
        let hold = self
            .held_since
            .map(|since| since + self.config.human_timeout);
        match (floor, hold) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Processes one input at monotonic time `now_ms` (milliseconds, as every core's
    /// interface; the state keeps `Duration`s of them).
    pub fn handle(&mut self, event: Input, now_ms: u64) -> Vec<Output> {
        let now = Duration::from_millis(now_ms);
        let mut out = Vec::new();
        self.check_deadlines(now, &mut out);
        match event {
            Input::Start => self.give_next_turn(now, &mut out),
            Input::Text {
                from,
                text,
                status,
                question_id,
            } => self.on_text(from, text, status, question_id, now, &mut out),
            Input::Human {
                speaker,
                text,
                heard,
            } => self.on_human(speaker, text, heard, now, &mut out),
            Input::SpeechStarted { onset_us } => self.on_speech_started(onset_us, now, &mut out),
            Input::Backchannel => self.end_hold(now, &mut out),
            Input::Played { question_id } => {
                self.unplayed.remove(&question_id);
                if matches!(self.floor, Floor::AwaitingPlayback { .. }) && !self.too_much_unplayed()
                {
                    self.give_next_turn(now, &mut out);
                }
            }
            Input::Control(command) => self.on_control(command, now, &mut out),
            Input::InputClosed { input } => self.on_input_closed(&input, now, &mut out),
            Input::Restarted { input } => self.on_restarted(&input, now, &mut out),
            Input::Tick => {}
        }
        out
    }
}

#[cfg(test)]
mod tests;
