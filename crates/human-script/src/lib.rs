//! Simulated humans, for offline demos and end-to-end tests: one script format
//! ([`script`]) played by the scripted human of a conversation ([`HumanScript`]) and by
//! the presenter of a pitch rehearsal ([`presenter`]).
//!
//! The scripted human says each line at a moment: during the N-th turn the controller
//! hands out (`during_turn`, counted from 1), a little after that turn began
//! (`delay_ms`, default 1,500, so the agent is mid-sentence: a barge-in), or at a fixed
//! time (`at_secs`). Speaking takes `speak_ms` (default: `ms_per_word`, 300 ms, per
//! word); then the final transcript follows. A ` | ` in a line is a pause mid-sentence
//! ([`MID_LINE_PAUSE_MS`]) in its voice, as a person hesitating: the transcript is the
//! whole line.
//!
//! ```yaml
//! - during_turn: 5
//!   delay_ms: 1500
//!   text: "Sorry to cut in: can you show a concrete example?"
//! - at_secs: 40
//!   text: "Thanks, that helps."
//! ```

pub mod presenter;
pub mod script;

use std::time::Duration;

/// A line of the scripted human, as its player needs it.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptLine {
    pub during_turn: Option<u64>,
    pub at_secs: Option<f64>,
    pub delay_ms: u64,
    pub speak_ms: Option<u64>,
    pub speaker: String,
    /// What is said (without the pause marks).
    pub text: String,
    /// The stretches of voice between pauses: `text` cut at each ` | `.
    pub parts: Vec<String>,
}

/// A pause mid-line: longer than the short pause at which the ASR bridge looks at the words
/// so far, shorter than the silence that ends an utterance.
pub const MID_LINE_PAUSE_MS: u64 = 600;

/// A line's stretches of voice: its text cut at each pause mark `|`, without the empty ones.
pub fn spoken_parts(line: &str) -> Vec<String> {
    line.split('|')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

const DEFAULT_DELAY_MS: u64 = 1500;
const DEFAULT_SPEAKER: &str = "human";
const DEFAULT_MS_PER_WORD: u64 = 300;

#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    #[error("invalid script: {0}")]
    Yaml(#[from] serde_yaml::Error),
    #[error("script line {line}: give exactly one of `during_turn` or `at_secs`")]
    Trigger { line: usize },
    #[error("script line {line}: `at_secs` must be a finite number ≥ 0")]
    Time { line: usize },
    #[error("script line {line}: `text` is empty")]
    EmptyText { line: usize },
    #[error(
        "script line {line}: the scripted human only says lines at turns or times; {keys:?} are for the presenter"
    )]
    NotForHuman {
        line: usize,
        keys: Vec<&'static str>,
    },
    #[error(
        "script line {line}: `delay_ms` counts from a turn; with `at_secs` give the time itself"
    )]
    DelayWithoutTurn { line: usize },
    #[error("{keys:?}: presenter settings; the scripted human has none of them")]
    Settings { keys: Vec<&'static str> },
}

/// Parses a script for the scripted human and checks that it can play every step.
pub fn parse_script(yaml: &str) -> Result<Vec<ScriptLine>, ScriptError> {
    let file = script::parse(yaml)?;
    let settings = file.presenter_settings();
    if !settings.is_empty() {
        return Err(ScriptError::Settings { keys: settings });
    }
    let speaker = file.speaker.as_deref().unwrap_or(DEFAULT_SPEAKER);
    let ms_per_word = file.ms_per_word.unwrap_or(DEFAULT_MS_PER_WORD);
    let mut lines = Vec::with_capacity(file.steps.len());
    for (i, step) in file.steps.into_iter().enumerate() {
        let line = i + 1;
        let foreign: Vec<&'static str> = step
            .keys()
            .into_iter()
            .filter(|k| ["slide", "control", "answers", "pause_ms"].contains(k))
            .collect();
        if !foreign.is_empty() {
            return Err(ScriptError::NotForHuman {
                line,
                keys: foreign,
            });
        }
        if step.during_turn.is_some() == step.at_secs.is_some() {
            return Err(ScriptError::Trigger { line });
        }
        if step.at_secs.is_some_and(|s| !s.is_finite() || s < 0.0) {
            return Err(ScriptError::Time { line });
        }
        if step.at_secs.is_some() && step.delay_ms.is_some() {
            return Err(ScriptError::DelayWithoutTurn { line });
        }
        let parts = spoken_parts(&step.say.unwrap_or_default());
        let text = parts.join(" ");
        if text.is_empty() {
            return Err(ScriptError::EmptyText { line });
        }
        let words = text.split_whitespace().count() as u64;
        lines.push(ScriptLine {
            during_turn: step.during_turn,
            at_secs: step.at_secs,
            delay_ms: step.delay_ms.unwrap_or(DEFAULT_DELAY_MS),
            speak_ms: Some(step.speak_ms.unwrap_or(ms_per_word * words.max(1))),
            speaker: step.speaker.unwrap_or_else(|| speaker.to_owned()),
            text,
            parts,
        });
    }
    Ok(lines)
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum LineState {
    Waiting,
    /// Triggered; speech starts at this time.
    Due(Duration),
    /// Speaking since the given time.
    Speaking(Duration),
    Done,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HumanOutput {
    /// Line `line` (index into the script) begins.
    SpeechStarted { line: usize, speaker: String },
    Transcript {
        line: usize,
        speaker: String,
        text: String,
    },
}

/// What the scripted human is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HumanInput {
    /// The controller handed out a new turn.
    Turn,
    /// Time passed: whatever is due now.
    Tick,
}

/// The script player: feed it turns and time, it says when to speak.
#[derive(Debug, Clone)]
pub struct HumanScript {
    lines: Vec<ScriptLine>,
    states: Vec<LineState>,
    turns_seen: u64,
}

impl HumanScript {
    pub fn new(lines: Vec<ScriptLine>) -> Self {
        let states = lines
            .iter()
            .map(|l| match l.at_secs {
                Some(s) => LineState::Due(Duration::from_secs_f64(s)),
                None => LineState::Waiting,
            })
            .collect();
        Self {
            lines,
            states,
            turns_seen: 0,
        }
    }

    /// One input at `now` (the time since the start), then everything due at `now`.
    pub fn handle(&mut self, input: HumanInput, now: Duration) -> Vec<HumanOutput> {
        if input == HumanInput::Turn {
            self.on_turn(now);
        }
        self.poll(now)
    }

    /// The controller handed out a new turn at `now`.
    fn on_turn(&mut self, now: Duration) {
        self.turns_seen += 1;
        for (line, state) in self.lines.iter().zip(self.states.iter_mut()) {
            if *state == LineState::Waiting && line.during_turn == Some(self.turns_seen) {
                *state = LineState::Due(now + Duration::from_millis(line.delay_ms));
            }
        }
    }

    /// Everything due at `now`.
    fn poll(&mut self, now: Duration) -> Vec<HumanOutput> {
        let mut out = Vec::new();
        // One speaker at a time: a line starts only when no other line is being spoken.
        for i in 0..self.lines.len() {
            match self.states[i] {
                LineState::Speaking(since) if now >= since + self.speak_time(i) => {
                    self.states[i] = LineState::Done;
                    out.push(HumanOutput::Transcript {
                        line: i,
                        speaker: self.lines[i].speaker.clone(),
                        text: self.lines[i].text.clone(),
                    });
                }
                _ => {}
            }
        }
        for i in 0..self.lines.len() {
            let busy = self
                .states
                .iter()
                .any(|s| matches!(s, LineState::Speaking(_)));
            match self.states[i] {
                LineState::Due(at) if now >= at && !busy => {
                    self.states[i] = LineState::Speaking(now);
                    out.push(HumanOutput::SpeechStarted {
                        line: i,
                        speaker: self.lines[i].speaker.clone(),
                    });
                }
                _ => {}
            }
        }
        out
    }

    /// When something is due next ([`HumanInput::Tick`]).
    pub fn next_wake(&self) -> Option<Duration> {
        self.states
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                LineState::Due(at) => Some(*at),
                LineState::Speaking(since) => Some(*since + self.speak_time(i)),
                _ => None,
            })
            .min()
    }

    /// Whether every line has been spoken.
    pub fn finished(&self) -> bool {
        self.states.iter().all(|s| *s == LineState::Done)
    }

    fn speak_time(&self, i: usize) -> Duration {
        let line = &self.lines[i];
        let words = line.text.split_whitespace().count() as u64;
        Duration::from_millis(line.speak_ms.unwrap_or(DEFAULT_MS_PER_WORD * words.max(1)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn barge_in_during_a_turn() {
        let lines = parse_script(
            "- during_turn: 2\n  delay_ms: 500\n  speak_ms: 1000\n  text: Wait, an example please\n",
        )
        .unwrap();
        let mut s = HumanScript::new(lines);
        s.on_turn(ms(0));
        assert_eq!(s.next_wake(), None);
        s.on_turn(ms(2000));
        assert_eq!(s.next_wake(), Some(ms(2500)));
        assert!(s.poll(ms(2499)).is_empty());
        assert_eq!(
            s.poll(ms(2500)),
            [HumanOutput::SpeechStarted {
                line: 0,
                speaker: "human".into()
            }]
        );
        assert!(s.poll(ms(3000)).is_empty());
        assert_eq!(
            s.poll(ms(3500)),
            [HumanOutput::Transcript {
                line: 0,
                speaker: "human".into(),
                text: "Wait, an example please".into()
            }]
        );
        assert!(s.finished());
    }

    #[test]
    fn a_pause_mark_cuts_the_voice_not_the_words() {
        let lines =
            parse_script("- at_secs: 1\n  text: \"What is the slope of | a curve?\"\n").unwrap();
        assert_eq!(lines[0].text, "What is the slope of a curve?");
        assert_eq!(lines[0].parts, ["What is the slope of", "a curve?"]);
        assert!(matches!(
            parse_script("- at_secs: 1\n  text: \" | \"\n"),
            Err(ScriptError::EmptyText { line: 1 })
        ));
    }

    #[test]
    fn timed_lines_do_not_overlap() {
        let lines = parse_script(
            "- at_secs: 1\n  speak_ms: 1000\n  text: one\n- at_secs: 1.5\n  speak_ms: 100\n  text: two\n",
        )
        .unwrap();
        let mut s = HumanScript::new(lines);
        assert_eq!(s.poll(ms(1000)).len(), 1);
        assert!(s.poll(ms(1600)).is_empty(), "second waits for the first");
        let out = s.poll(ms(2000));
        assert_eq!(out.len(), 2, "{out:?}");
        assert!(matches!(out[0], HumanOutput::Transcript { .. }));
        assert!(matches!(out[1], HumanOutput::SpeechStarted { .. }));
    }

    #[test]
    fn validation() {
        assert!(parse_script("").unwrap().is_empty());
        assert!(matches!(
            parse_script("- text: hi\n"),
            Err(ScriptError::Trigger { line: 1 })
        ));
        assert!(matches!(
            parse_script("- at_secs: -1\n  text: hi\n"),
            Err(ScriptError::Time { .. })
        ));
        assert!(matches!(
            parse_script("- at_secs: 1\n  text: ' '\n"),
            Err(ScriptError::EmptyText { .. })
        ));
        assert!(matches!(
            parse_script("- at_secs: 1\n  txt: a\n"),
            Err(ScriptError::Yaml(_))
        ));
        assert!(parse_script("{{{").is_err());
    }

    #[test]
    fn one_format_each_player_refuses_what_it_cannot_play() {
        // The map form, a file-wide speaker and speaking rate.
        let lines = parse_script(
            "speaker: guest\nms_per_word: 100\nsteps:\n  - at_secs: 2\n    say: one two three\n",
        )
        .unwrap();
        assert_eq!(lines[0].speaker, "guest");
        assert_eq!(lines[0].speak_ms, Some(300));
        assert!(matches!(
            parse_script("- at_secs: 1\n  slide: 2\n"),
            Err(ScriptError::NotForHuman { line: 1, .. })
        ));
        assert!(matches!(
            parse_script("fallback_answer: no\nsteps: []\n"),
            Err(ScriptError::Settings { .. })
        ));
        assert!(matches!(
            parse_script("- at_secs: 1\n  delay_ms: 5\n  text: hi\n"),
            Err(ScriptError::DelayWithoutTurn { line: 1 })
        ));
        // The presenter reads the same steps, in order, and has no turns.
        let presenter =
            presenter::parse_presenter_script("- at_secs: 2\n  text: one two three\n").unwrap();
        assert_eq!(presenter.steps[0].say.as_deref(), Some("one two three"));
        assert!(matches!(
            presenter::parse_presenter_script("- during_turn: 1\n  say: hi\n"),
            Err(presenter::PresenterScriptError::NotForPresenter { step: 1, .. })
        ));
    }

    proptest::proptest! {
        #[test]
        fn script_parser_never_panics(s in "\\PC{0,80}") {
            let _ = parse_script(&s);
        }
    }
}
