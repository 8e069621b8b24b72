//! The shape every core that decides has (crates/conductor/README.md): a sans-IO state
//! machine fed decoded inputs with the time, answering with what to send or write, and
//! telling when it must be woken ([`Core`]). The conductors, the cores that hand out
//! turns, share the rest of this crate. The conference controller
//! (`conference_core::Conference`), the roundtable moderator (`moderator_core::Roundtable`),
//! the pitch-rehearsal moderator (`rehearsal_core::Rehearsal`) and the organic auction
//! (`auction_core::AuctionDebate`) implement it. Each starts from what its format needs
//! ([`Core::Opening`]: nothing for the controller, the roundtable and the auction,
//! the briefing texts for the rehearsal).
//!
//! [`drive`] runs any of them over timed inputs the way its node does (due wake-ups
//! first, then the input: [`tick_due`], the rule both follow), for tests and for
//! re-driving a recorded session.

pub mod floor;
pub mod phrases;
pub mod playback;
pub mod requests;

pub use floor::{Floor, FloorChange};
pub use playback::Unheard;
pub use requests::{Requests, Round, RoundReply};

/// How loud a core's notice (what it reports without deciding) is in its node's log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    /// Routine: a stray or stale message ignored.
    Debug,
    Info,
    /// The listener may miss something by it.
    Warning,
}

/// A core: one sans-IO state machine that decides, with no I/O and no clock (time is
/// passed in, in milliseconds of the run). Every node that decides runs one: the
/// conductors (who hands out turns) and the segmenter so far. A core without waits of its
/// own keeps the defaults of `start`, `tick`, `next_wake` and `finished`.
pub trait Core {
    /// A decoded input (a chunk, a reply, a playback report, a control, ...).
    type Input;
    /// Something to send or write (a turn, a line, a request, a record, a notice, ...).
    type Output;
    /// What the core opens the session with, besides its own configuration.
    type Opening;

    /// Opens the session at `now_ms` (first lines, first turn, files to write).
    fn start(&mut self, _opening: &Self::Opening, _now_ms: u64) -> Vec<Self::Output> {
        Vec::new()
    }

    /// Decides on one input at `now_ms`.
    fn handle(&mut self, input: Self::Input, now_ms: u64) -> Vec<Self::Output>;

    /// Time passed: the waits that ran out by `now_ms` give up.
    fn tick(&mut self, _now_ms: u64) -> Vec<Self::Output> {
        Vec::new()
    }

    /// When [`Core::tick`] must be called at the latest; `None`: nothing waits.
    fn next_wake(&self) -> Option<u64> {
        None
    }

    /// The conversation is over: the node may leave.
    fn finished(&self) -> bool {
        false
    }
}

/// The most characters an utterance keeps, the controller's and every conductor's: far
/// above any spoken turn, low enough that a runaway stream cannot grow a core's memory.
pub const MAX_UTTERANCE_CHARS: usize = 8_000;

/// A speaker's streamed chunks assembled into one utterance, kept to
/// [`MAX_UTTERANCE_CHARS`] characters (what does not fit is dropped).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Utterance {
    text: String,
    chars: usize,
    truncated: bool,
}

impl Utterance {
    /// Appends a chunk, or as much of it as fits. `true` the first time something is
    /// dropped, for the caller's one warning.
    pub fn push(&mut self, chunk: &str) -> bool {
        let room = MAX_UTTERANCE_CHARS - self.chars;
        let n = chunk.chars().count();
        if n <= room {
            self.text.push_str(chunk);
            self.chars += n;
            return false;
        }
        self.text.extend(chunk.chars().take(room));
        self.chars = MAX_UTTERANCE_CHARS;
        !std::mem::replace(&mut self.truncated, true)
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn into_string(self) -> String {
        self.text
    }

    pub fn is_truncated(&self) -> bool {
        self.truncated
    }
}

/// Makes one recorded [`Call`]: how a node calls its conductor, and how a replay calls it
/// again.
pub fn call<C: Core>(
    conductor: &mut C,
    opening: &C::Opening,
    call: Call<C::Input>,
    now_ms: u64,
) -> Vec<C::Output> {
    match call {
        Call::Start => conductor.start(opening, now_ms),
        Call::Input(input) => conductor.handle(input, now_ms),
        Call::Tick => conductor.tick(now_ms),
    }
}

/// Ticks every wake-up of `conductor` that is due by `now_ms`, each at the time
/// `tick_at(wake)` gives, until none is due or the conductor has finished: the one rule
/// of time for [`drive`] and for the nodes' loop (which ticks at the time it is, before
/// each input and whenever its wait runs out). A conductor that keeps asking for the same
/// instant is ticked once for it. Returns what the ticks decided, with their times.
pub fn tick_due<C: Core>(
    conductor: &mut C,
    now_ms: u64,
    mut tick_at: impl FnMut(u64) -> u64,
) -> Vec<(u64, C::Output)> {
    let mut out = Vec::new();
    let mut last = None;
    while let Some(wake) = conductor.next_wake() {
        if wake > now_ms || last == Some(wake) || conductor.finished() {
            break;
        }
        last = Some(wake);
        let at = tick_at(wake);
        out.extend(conductor.tick(at).into_iter().map(|o| (at, o)));
    }
    out
}

/// Feeds `inputs` (with their times, in order) to `conductor` as its node would: before
/// each input, and after the last until `until_ms`, every wake-up that falls due is
/// ticked ([`tick_due`], at the wake-up's own time: the clock of a run without waits
/// jumps to it). Returns every output with the time it was decided at.
pub fn drive<C: Core>(
    conductor: &mut C,
    inputs: impl IntoIterator<Item = (u64, C::Input)>,
    until_ms: u64,
) -> Vec<(u64, C::Output)> {
    let mut out = Vec::new();
    for (at, input) in inputs {
        out.extend(tick_due(conductor, at, |wake| wake));
        out.extend(conductor.handle(input, at).into_iter().map(|o| (at, o)));
    }
    out.extend(tick_due(conductor, until_ms, |wake| wake));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Says "late" when an answer does not come within 100 ms of a question.
    #[derive(Default)]
    struct Asker {
        waiting_since: Option<u64>,
        done: bool,
    }

    impl Core for Asker {
        type Input = &'static str;
        type Output = String;
        type Opening = ();

        fn start(&mut self, _: &(), _: u64) -> Vec<String> {
            Vec::new()
        }

        fn handle(&mut self, input: &'static str, now_ms: u64) -> Vec<String> {
            match input {
                "ask" => {
                    self.waiting_since = Some(now_ms);
                    vec![format!("asked at {now_ms}")]
                }
                "answer" if self.waiting_since.take().is_some() => vec!["thanks".into()],
                "end" => {
                    self.done = true;
                    Vec::new()
                }
                _ => Vec::new(),
            }
        }

        fn tick(&mut self, now_ms: u64) -> Vec<String> {
            match self.waiting_since {
                Some(since) if now_ms >= since + 100 => {
                    self.waiting_since = None;
                    vec![format!("late at {now_ms}")]
                }
                _ => Vec::new(),
            }
        }

        fn next_wake(&self) -> Option<u64> {
            self.waiting_since.map(|since| since + 100)
        }

        fn finished(&self) -> bool {
            self.done
        }
    }

    #[test]
    fn due_wake_ups_come_before_the_next_input_and_after_the_last() {
        let mut asker = Asker::default();
        let out = drive(
            &mut asker,
            [(0, "ask"), (50, "answer"), (60, "ask"), (300, "ask")],
            1_000,
        );
        let said: Vec<(u64, &str)> = out.iter().map(|(t, o)| (*t, o.as_str())).collect();
        assert_eq!(
            said,
            [
                (0, "asked at 0"),
                (50, "thanks"),
                (60, "asked at 60"),
                (160, "late at 160"),
                (300, "asked at 300"),
                (400, "late at 400"),
            ]
        );
    }

    #[test]
    fn an_utterance_keeps_its_chunks_up_to_the_limit_and_says_once_when_it_drops() {
        let mut u = Utterance::default();
        assert!(!u.push("Héllo, "));
        assert!(!u.push("world."));
        assert_eq!(u.as_str(), "Héllo, world.");
        let long = "é".repeat(MAX_UTTERANCE_CHARS);
        assert!(u.push(&long));
        assert!(!u.push("more"), "told once");
        assert!(u.is_truncated());
        assert_eq!(u.as_str().chars().count(), MAX_UTTERANCE_CHARS);
        assert!(u.as_str().starts_with("Héllo, world.é"));
    }

    #[test]
    fn due_wake_ups_are_ticked_at_the_time_given_and_once_per_instant() {
        let mut asker = Asker::default();
        asker.handle("ask", 0);
        assert!(tick_due(&mut asker, 99, |_| 99).is_empty(), "not due yet");
        // A live node ticks at the time it is, after the wake-up.
        assert_eq!(
            tick_due(&mut asker, 130, |_| 130),
            [(130, "late at 130".to_owned())]
        );
        assert!(
            tick_due(&mut asker, 1_000, |_| 1_000).is_empty(),
            "nothing waits"
        );

        /// Asks for instant 5 whatever happens.
        struct Stuck(u32);
        impl Core for Stuck {
            type Input = ();
            type Output = u32;
            type Opening = ();
            fn start(&mut self, _: &(), _: u64) -> Vec<u32> {
                Vec::new()
            }
            fn handle(&mut self, _: (), _: u64) -> Vec<u32> {
                Vec::new()
            }
            fn tick(&mut self, _: u64) -> Vec<u32> {
                self.0 += 1;
                vec![self.0]
            }
            fn next_wake(&self) -> Option<u64> {
                Some(5)
            }
            fn finished(&self) -> bool {
                false
            }
        }
        assert_eq!(tick_due(&mut Stuck(0), 10, |_| 10), [(10, 1)]);
    }

    #[test]
    fn a_finished_conductor_is_not_woken() {
        let mut asker = Asker::default();
        let out = drive(&mut asker, [(0, "ask"), (10, "end")], 1_000);
        assert_eq!(out.len(), 1);
    }
}

/// One call of a conductor as a decision log records it (a replay makes the same call):
/// its format's own start, a decoded input, or a tick.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Call<I> {
    Start,
    Input(I),
    Tick,
}
