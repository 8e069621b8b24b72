//! A scripted presenter for pitch rehearsals: presentation lines, slide changes and
//! answers to the panel's questions, in script order. The script is the one script
//! format ([`crate::script`]), in its map form with the presenter's settings:
//!
//! ```yaml
//! speaker: presenter
//! steps:
//!   - say: "Good morning, we are Acme Robotics."
//!   - slide: 1                 # sent as the control command `slide 1`
//!   - say: "Warehouses lose margin to manual picking."
//!   - slide: 2                 # a section break: the panel may ask now
//!     answers:                 # answers to the questions of this break, in order
//!       - "Picking is 55 percent of labour cost; that is from our pilot sites."
//!       - "Let's move on, please."
//!   - at_secs: 120             # not before two minutes into the session
//!     control: end             # any control command: `open_qa`, `end`, `hand skeptic`...
//! ```
//!
//! Steps run one after another (a step with `at_secs` also waits for its time). A
//! question heard from a panelist is answered first (the next answer of the latest
//! step's `answers`, else `fallback_answer`); while the moderator is not in the
//! `presenting` phase, the presenter waits for questions instead of going on with the
//! script. Speaking a line takes its `speak_ms`, else `ms_per_word` per word (text
//! sessions), or, in a spoken session, until the player reports the line heard. Every
//! wait has a limit (`qa_timeout_ms`, `heard_timeout_ms`).

use std::collections::VecDeque;
use std::time::Duration;
use voice_protocol::messages::RehearsalPhase;

mod script_file;

pub use script_file::{
    PresenterScriptError, PresenterScriptFile, PresenterStep, parse_presenter_script,
};

/// The moderator's speaker name when the session names none other.
pub const MODERATOR: &str = "moderator";

/// How the scripted presenter delivers its script, so that the rehearsal's measures of
/// delivery (pace, fillers, pauses, answers taking up the question) can be seen to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Style {
    /// The script as written.
    #[default]
    Plain,
    /// Quicker: two words in the time of three in text sessions, short pauses between
    /// steps (in spoken sessions the voice sets the pace of the words themselves).
    Fast,
    /// Fillers in every line ("Um, …, uh, …") and a long pause before each presenting line.
    Hesitant,
    /// Answers that talk about something else than the question.
    Evasive,
    /// Answers as soon as a question is written, over the panelist's voice (a spoken
    /// session's barge-in: the panel's voice is held, then cut).
    Eager,
}

impl Style {
    /// `plain`, `fast`, `hesitant`, `evasive` or `eager`.
    pub fn parse(text: &str) -> Option<Self> {
        match text.trim().to_lowercase().as_str() {
            "plain" | "" => Some(Style::Plain),
            "fast" => Some(Style::Fast),
            "hesitant" => Some(Style::Hesitant),
            "evasive" => Some(Style::Evasive),
            "eager" => Some(Style::Eager),
            _ => None,
        }
    }
}

/// The pause a hesitant presenter takes before each presenting line.
pub const HESITANT_PAUSE_MS: u64 = 2_500;
/// A hesitant presenter says a filler after this many words.
const HESITANT_FILLER_EVERY: usize = 6;
/// What an evasive presenter answers, in turn.
const EVASIONS: &[&str] = &[
    "That's a fair point. Our team has decades of experience, and we will share more after the session.",
    "We get that a lot. What matters is our vision and the momentum we already have.",
    "Great question. Let me come back to that once we have shown the rest of the story.",
];

/// `text` as a hesitant speaker says it: an "Um," first, an "uh," every few words.
fn hesitant(text: &str) -> String {
    let mut out = String::from("Um,");
    for (i, word) in text.split_whitespace().enumerate() {
        if i > 0 && i % HESITANT_FILLER_EVERY == 0 && !out.ends_with(['.', '?', '!']) {
            out.push_str(" uh,");
        }
        out.push(' ');
        if i == 0 {
            out.extend(word.chars().next().map(|c| c.to_ascii_lowercase()));
            out.push_str(&word[word.chars().next().map_or(0, char::len_utf8)..]);
        } else {
            out.push_str(word);
        }
    }
    out
}

/// Which report of a line reached the presenter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineReport {
    /// The line is finished (the moderator's `utterance`).
    Finished,
    /// The line was heard (the player's `played`).
    Heard,
}

/// What the presenter is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PresenterInput {
    /// A line of `speaker` was reported (finished or heard).
    Line {
        report: LineReport,
        speaker: String,
        text: String,
    },
    /// The moderator entered a phase.
    Phase(RehearsalPhase),
    /// Time passed: whatever is due now.
    Tick,
}

/// What the presenter node must do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PresenterOutput {
    /// The presenter begins to speak (voice activity).
    SpeechStarted,
    /// A final transcript of what the presenter said.
    Said { text: String, answer: bool },
    /// A control command for the moderator (`slide 2`, `open_qa`, `end`).
    Control(String),
    /// The script is over.
    Finished,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Busy {
    /// Waiting until the given time before the next thing.
    Pause(Duration),
    /// Speaking `text` until the given time.
    Speaking {
        until: Duration,
        text: String,
        answer: bool,
    },
    /// The line left; waiting for the player to report it heard.
    AwaitHeard(Duration),
}

/// The presenter's state machine: feed it phases, questions and reports; it says what
/// to do and when.
#[derive(Debug, Clone)]
pub struct Presenter {
    script: PresenterScriptFile,
    spoken: bool,
    moderator: String,
    next_step: usize,
    busy: Option<Busy>,
    answers: VecDeque<String>,
    questions: VecDeque<Duration>,
    qa_open: bool,
    qa_since: Duration,
    ended: bool,
    finished_sent: bool,
    style: Style,
    /// Answers given so far (an evasive presenter's evasions rotate on it).
    answered: usize,
    /// The step a hesitant presenter last paused before.
    hesitated_before: Option<usize>,
}

impl Presenter {
    /// `spoken`: lines count as said at once and the presenter waits until the player
    /// reports each one heard; otherwise a line takes `ms_per_word` per word.
    pub fn new(script: PresenterScriptFile, spoken: bool) -> Self {
        Self {
            script,
            spoken,
            moderator: MODERATOR.to_owned(),
            next_step: 0,
            busy: None,
            answers: VecDeque::new(),
            questions: VecDeque::new(),
            qa_open: false,
            qa_since: Duration::ZERO,
            ended: false,
            finished_sent: false,
            style: Style::Plain,
            answered: 0,
            hesitated_before: None,
        }
    }

    /// Delivers the script in `style`.
    pub fn with_style(mut self, style: Style) -> Self {
        if style == Style::Fast {
            self.script.ms_per_word = self.script.ms_per_word * 2 / 3;
            self.script.pause_ms /= 3;
            self.script.answer_delay_ms /= 3;
        }
        self.style = style;
        self
    }

    /// The moderator's speaker name is `name` (default [`MODERATOR`]): its lines are no
    /// questions.
    pub fn with_moderator(mut self, name: &str) -> Self {
        self.moderator = name.to_owned();
        self
    }

    pub fn speaker(&self) -> &str {
        &self.script.speaker
    }

    /// Whether `speaker` sits on the panel: anyone named but the presenter and the
    /// moderator.
    pub fn is_panelist(&self, speaker: &str) -> bool {
        !speaker.is_empty() && speaker != self.script.speaker && speaker != self.moderator
    }

    /// A line of `speaker` was reported finished or heard. A panelist's line with words
    /// is a question, counted on the report the session goes by: once heard in a
    /// spoken session, once finished otherwise (each line is reported both ways). The
    /// presenter's own line heard lets it go on.
    fn on_line(&mut self, report: LineReport, speaker: &str, text: &str, now: Duration) {
        if report == LineReport::Heard && speaker == self.script.speaker {
            self.on_own_line_heard(now);
            return;
        }
        let counted_on = if self.spoken && self.style != Style::Eager {
            LineReport::Heard
        } else {
            LineReport::Finished
        };
        if report == counted_on && self.is_panelist(speaker) && !text.trim().is_empty() {
            self.on_question(now);
        }
    }

    /// The moderator entered `phase`.
    fn on_phase(&mut self, phase: RehearsalPhase, now: Duration) {
        match phase {
            RehearsalPhase::Presenting => self.qa_open = false,
            RehearsalPhase::Ended => {
                self.ended = true;
                self.qa_open = false;
            }
            RehearsalPhase::QaTrigger | RehearsalPhase::Exchange | RehearsalPhase::Resolving => {
                if !self.qa_open {
                    self.qa_since = now;
                }
                self.qa_open = true;
            }
        }
    }

    /// A panelist's question was heard.
    fn on_question(&mut self, now: Duration) {
        if !self.ended {
            self.questions.push_back(now);
            self.qa_since = now;
        }
    }

    /// The player reports the presenter's own line heard (spoken sessions).
    fn on_own_line_heard(&mut self, now: Duration) {
        if matches!(self.busy, Some(Busy::AwaitHeard(_))) {
            self.busy = Some(Busy::Pause(now + ms(self.script.pause_ms)));
        }
    }

    /// Whether every step is done.
    pub fn finished(&self) -> bool {
        self.finished_sent
    }

    /// One input at `now` (the time since the start), then everything due at `now`.
    pub fn handle(&mut self, input: PresenterInput, now: Duration) -> Vec<PresenterOutput> {
        match input {
            PresenterInput::Line {
                report,
                speaker,
                text,
            } => self.on_line(report, &speaker, &text, now),
            PresenterInput::Phase(phase) => self.on_phase(phase, now),
            PresenterInput::Tick => {}
        }
        self.poll(now)
    }

    /// When something is due next ([`PresenterInput::Tick`]).
    pub fn next_wake(&self) -> Option<Duration> {
        if self.finished_sent {
            return None;
        }
        match &self.busy {
            Some(Busy::Pause(t)) => Some(*t),
            Some(Busy::Speaking { until, .. }) => Some(*until),
            Some(Busy::AwaitHeard(t)) => Some(*t),
            None => {
                if let Some(q) = self.questions.front() {
                    Some(*q + ms(self.script.answer_delay_ms))
                } else if self.qa_open {
                    Some(self.qa_since + ms(self.script.qa_timeout_ms))
                } else {
                    Some(Duration::ZERO)
                }
            }
        }
    }

    /// Everything due at `now`.
    fn poll(&mut self, now: Duration) -> Vec<PresenterOutput> {
        let mut out = Vec::new();
        loop {
            match self.busy.clone() {
                Some(Busy::Pause(t)) | Some(Busy::AwaitHeard(t)) if now < t => break,
                Some(Busy::Pause(_)) | Some(Busy::AwaitHeard(_)) => self.busy = None,
                Some(Busy::Speaking { until, .. }) if now < until => break,
                Some(Busy::Speaking { text, answer, .. }) => {
                    out.push(PresenterOutput::Said { text, answer });
                    self.busy = Some(if self.spoken {
                        Busy::AwaitHeard(now + ms(self.script.heard_timeout_ms))
                    } else {
                        Busy::Pause(now + ms(self.script.pause_ms))
                    });
                    continue;
                }
                None => {}
            }
            if self.finished_sent {
                break;
            }
            // Questions first.
            if let Some(&q) = self.questions.front() {
                if now < q + ms(self.script.answer_delay_ms) {
                    break;
                }
                self.questions.pop_front();
                let scripted = self
                    .answers
                    .pop_front()
                    .unwrap_or_else(|| self.script.fallback_answer.clone());
                let text = match self.style {
                    Style::Evasive => EVASIONS[self.answered % EVASIONS.len()].to_owned(),
                    Style::Hesitant => hesitant(&scripted),
                    Style::Plain | Style::Fast | Style::Eager => scripted,
                };
                self.answered += 1;
                self.speak(text, true, None, now, &mut out);
                continue;
            }
            if self.ended {
                self.finish(&mut out);
                break;
            }
            if self.qa_open && now < self.qa_since + ms(self.script.qa_timeout_ms) {
                break;
            }
            let Some(step) = self.script.steps.get(self.next_step).cloned() else {
                self.finish(&mut out);
                break;
            };
            if let Some(p) = step.pause_ms.filter(|p| *p > 0) {
                // Pause once, then run the step.
                self.script.steps[self.next_step].pause_ms = None;
                self.busy = Some(Busy::Pause(now + ms(p)));
                continue;
            }
            if let Some(at) = step.at_secs.map(Duration::from_secs_f64)
                && now < at
            {
                self.busy = Some(Busy::Pause(at));
                continue;
            }
            // A hesitant presenter pauses long before each line it presents.
            if self.style == Style::Hesitant
                && step.say.is_some()
                && self.hesitated_before != Some(self.next_step)
            {
                self.hesitated_before = Some(self.next_step);
                self.busy = Some(Busy::Pause(now + ms(HESITANT_PAUSE_MS)));
                continue;
            }
            self.next_step += 1;
            if let Some(answers) = step.answers {
                self.answers = answers.into();
            }
            if let Some(text) = step.say {
                let text = match self.style {
                    Style::Hesitant => hesitant(&text),
                    _ => text,
                };
                self.speak(text, false, step.speak_ms, now, &mut out);
            } else {
                let command = match (step.slide, step.control) {
                    (Some(n), _) => format!("slide {n}"),
                    (None, Some(c)) => c.trim().to_owned(),
                    (None, None) => continue,
                };
                out.push(PresenterOutput::Control(command));
                self.qa_since = now;
                self.busy = Some(Busy::Pause(now + ms(self.script.settle_ms)));
            }
        }
        out
    }

    fn speak(
        &mut self,
        text: String,
        answer: bool,
        speak_ms: Option<u64>,
        now: Duration,
        out: &mut Vec<PresenterOutput>,
    ) {
        out.push(PresenterOutput::SpeechStarted);
        let words = text.split_whitespace().count() as u64;
        let took = if self.spoken {
            Duration::ZERO
        } else {
            ms(speak_ms.unwrap_or(self.script.ms_per_word * words.max(1)))
        };
        self.busy = Some(Busy::Speaking {
            until: now + took,
            text,
            answer,
        });
    }

    fn finish(&mut self, out: &mut Vec<PresenterOutput>) {
        if !self.finished_sent {
            self.finished_sent = true;
            out.push(PresenterOutput::Finished);
        }
    }
}

fn ms(n: u64) -> Duration {
    Duration::from_millis(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_counts_once_on_the_report_the_session_goes_by() {
        for spoken in [false, true] {
            let mut p = Presenter::new(parse_presenter_script(SCRIPT).unwrap(), spoken)
                .with_moderator("Diana");
            assert!(p.is_panelist("skeptic"));
            assert!(
                !p.is_panelist("Diana")
                    && !p.is_panelist("")
                    && !p.is_panelist(p.speaker().to_owned().as_str())
            );
            // The moderator's lines, blank lines and nameless ones are no questions.
            for report in [LineReport::Finished, LineReport::Heard] {
                p.on_line(report, "Diana", "Marcus, over to you.", t(1));
                p.on_line(report, "skeptic", "  ", t(1));
                p.on_line(report, "", "Who said this?", t(1));
            }
            assert!(p.questions.is_empty());
            // A panelist's line is reported finished, then heard: one question.
            p.on_line(LineReport::Finished, "skeptic", "What margin?", t(2));
            p.on_line(LineReport::Heard, "skeptic", "What margin?", t(3));
            let expected = if spoken { t(3) } else { t(2) };
            assert_eq!(p.questions, [expected], "spoken: {spoken}");
        }
    }

    #[test]
    fn an_eager_presenter_answers_a_question_before_it_is_heard() {
        let mut p =
            Presenter::new(parse_presenter_script(SCRIPT).unwrap(), true).with_style(Style::Eager);
        p.on_line(LineReport::Finished, "skeptic", "What margin?", t(2));
        p.on_line(LineReport::Heard, "skeptic", "What margin?", t(5));
        assert_eq!(p.questions, [t(2)]);
        assert_eq!(Style::parse("eager"), Some(Style::Eager));
    }

    #[test]
    fn the_presenters_own_line_heard_lets_it_go_on() {
        let mut p = Presenter::new(parse_presenter_script(SCRIPT).unwrap(), true);
        let said = p.poll(t(0));
        assert!(
            matches!(said.last(), Some(PresenterOutput::Said { .. })),
            "{said:?}"
        );
        let me = p.speaker().to_owned();
        p.on_line(LineReport::Finished, &me, "Hello panel.", t(10));
        assert!(
            matches!(p.busy, Some(Busy::AwaitHeard(_))),
            "a finished line is not heard"
        );
        p.on_line(LineReport::Heard, &me, "Hello panel.", t(20));
        assert!(matches!(p.busy, Some(Busy::Pause(_))));
        assert!(p.questions.is_empty(), "its own line is no question");
    }

    const SCRIPT: &str = r#"
steps:
  - say: "Hello panel."
  - slide: 1
    answers: ["First answer.", "Second answer."]
  - say: "Back to the deck."
  - control: end
"#;

    fn t(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// Runs the presenter until `until`, polling at every deadline.
    fn run(p: &mut Presenter, from: u64, until: u64) -> Vec<(u64, PresenterOutput)> {
        let mut out = Vec::new();
        let mut now = from;
        while now <= until {
            for a in p.poll(t(now)) {
                out.push((now, a));
            }
            match p.next_wake() {
                Some(d) if d.as_millis() as u64 > now => now = d.as_millis() as u64,
                _ => now += 1,
            }
        }
        out
    }

    const PITCH: &str = r#"
steps:
  - say: "Good morning, we build picking robots for mid-size warehouses."
  - say: "Picking is more than half of the labour cost in a warehouse."
  - slide: 1
    answers: ["Our margin per site is forty percent after the first year."]
  - say: "Our robots cut the picking cost by half in six pilot sites."
  - control: end
"#;
    const QUESTION: &str = "What margin per site do you make?";

    /// A text session of [`PITCH`] in `style`, measured as the rehearsal measures it.
    fn delivered(style: Style) -> delivery::DeliveryReport {
        use delivery::{Delivery, Part};
        let mut p = Presenter::new(parse_presenter_script(PITCH).unwrap(), false).with_style(style);
        let mut d = Delivery::new();
        let (mut now, mut slide, mut line, mut asked) = (0u64, 0usize, 0u64, false);
        d.slide_shown(0, 0);
        while now < 120_000 && !p.finished() {
            for action in p.poll(t(now)) {
                match action {
                    PresenterOutput::SpeechStarted => d.speech_started(now),
                    PresenterOutput::Said { text, answer } => {
                        line += 1;
                        let part = if answer {
                            p.on_phase(RehearsalPhase::Presenting, t(now));
                            Part::Answering {
                                exchange: 1,
                                asker: "skeptic".into(),
                                question: QUESTION.into(),
                            }
                        } else {
                            Part::Presenting { slide }
                        };
                        d.heard(line, &text, part, now);
                    }
                    PresenterOutput::Control(command) => {
                        if let Some(n) = command.strip_prefix("slide ") {
                            slide = n.parse().unwrap();
                            d.slide_shown(slide, now);
                            if !asked {
                                asked = true;
                                p.on_phase(RehearsalPhase::QaTrigger, t(now));
                                p.on_line(LineReport::Finished, "skeptic", QUESTION, t(now + 100));
                            }
                        }
                    }
                    PresenterOutput::Finished => {}
                }
            }
            now = match p.next_wake() {
                Some(d) if d.as_millis() as u64 > now => d.as_millis() as u64,
                _ => now + 1,
            };
        }
        d.report(now, |_| None)
    }

    #[test]
    fn each_style_moves_the_measures_of_delivery_its_way() {
        let plain = delivered(Style::Plain);
        assert!(
            plain.fillers.is_empty() && plain.long_pauses.is_empty(),
            "{plain:?}"
        );
        assert!(plain.answers[0].takes_up_question, "{plain:?}");
        let fast = delivered(Style::Fast);
        assert!(fast.words_per_minute > plain.words_per_minute, "{fast:?}");
        let hesitant = delivered(Style::Hesitant);
        assert!(hesitant.fillers_per_minute.unwrap() >= 5.0, "{hesitant:?}");
        assert!(!hesitant.long_pauses.is_empty(), "{hesitant:?}");
        assert!(hesitant.answers[0].takes_up_question);
        let evasive = delivered(Style::Evasive);
        assert!(!evasive.answers[0].takes_up_question, "{evasive:?}");
        assert_eq!(evasive.fillers, plain.fillers);
        assert_eq!(Style::parse(" Hesitant "), Some(Style::Hesitant));
        assert_eq!(Style::parse("shy"), None);
    }

    #[test]
    fn validates_steps() {
        assert!(parse_presenter_script(SCRIPT).is_ok());
        assert!(matches!(
            parse_presenter_script("steps:\n  - say: a\n    slide: 1\n"),
            Err(PresenterScriptError::Kind { step: 1 })
        ));
        assert!(matches!(
            parse_presenter_script("steps:\n  - say: ' '\n"),
            Err(PresenterScriptError::Empty { step: 1 })
        ));
        assert!(matches!(
            parse_presenter_script("steps:\n  - sing: a\n"),
            Err(PresenterScriptError::Yaml(_))
        ));
    }

    #[test]
    fn waits_for_questions_while_qa_is_open_and_answers_in_order() {
        let mut p = Presenter::new(parse_presenter_script(SCRIPT).unwrap(), false);
        // "Hello panel." takes 500 ms, then a 300 ms pause: the slide change at 800 ms.
        let out = run(&mut p, 0, 1_000);
        let said: Vec<&PresenterOutput> = out.iter().map(|(_, a)| a).collect();
        assert!(said.contains(&&PresenterOutput::Said {
            text: "Hello panel.".into(),
            answer: false
        }));
        assert!(said.contains(&&PresenterOutput::Control("slide 1".into())));
        // The moderator opened Q&A (during the settle time): the script waits.
        p.on_phase(RehearsalPhase::QaTrigger, t(1_000));
        assert!(
            run(&mut p, 1_000, 10_000)
                .iter()
                .all(|(_, a)| !matches!(a, PresenterOutput::Said { .. }))
        );
        p.on_question(t(10_000));
        let out = run(&mut p, 10_000, 12_000);
        assert!(out.iter().any(|(_, a)| *a
            == PresenterOutput::Said {
                text: "First answer.".into(),
                answer: true
            }));
        p.on_question(t(12_000));
        p.on_question(t(12_100));
        let out = run(&mut p, 12_000, 20_000);
        let answers: Vec<&str> = out
            .iter()
            .filter_map(|(_, a)| match a {
                PresenterOutput::Said { text, answer: true } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(answers[0], "Second answer.");
        assert!(answers[1].contains("move on"), "fallback: {answers:?}");
        p.on_phase(RehearsalPhase::Presenting, t(20_000));
        let out = run(&mut p, 20_000, 30_000);
        let tail: Vec<&PresenterOutput> = out.iter().map(|(_, a)| a).collect();
        assert!(tail.contains(&&PresenterOutput::Control("end".into())));
        assert_eq!(tail.last(), Some(&&PresenterOutput::Finished));
        assert!(p.finished());
    }

    #[test]
    fn spoken_lines_wait_until_heard_with_a_limit() {
        let mut p = Presenter::new(parse_presenter_script(SCRIPT).unwrap(), true);
        let out = p.poll(t(0));
        assert!(out.contains(&PresenterOutput::Said {
            text: "Hello panel.".into(),
            answer: false
        }));
        assert!(p.poll(t(5_000)).is_empty(), "waits for the report");
        p.on_own_line_heard(t(5_000));
        let out = run(&mut p, 5_000, 5_400);
        assert!(
            out.iter()
                .any(|(_, a)| *a == PresenterOutput::Control("slide 1".into()))
        );
        // Nothing heard: the limit lets the script go on.
        let mut q = Presenter::new(parse_presenter_script(SCRIPT).unwrap(), true);
        q.poll(t(0));
        let out = run(&mut q, 1, 31_000);
        assert!(
            out.iter()
                .any(|(_, a)| *a == PresenterOutput::Control("slide 1".into()))
        );
    }

    #[test]
    fn a_timed_step_waits_for_its_time_and_a_line_for_its_length() {
        let script =
            "steps:\n  - say: Hi.\n    speak_ms: 2000\n  - at_secs: 10\n    control: end\n";
        let mut p = Presenter::new(parse_presenter_script(script).unwrap(), false);
        let out = run(&mut p, 0, 9_999);
        let said_at = out
            .iter()
            .find(|(_, a)| matches!(a, PresenterOutput::Said { .. }))
            .map(|(at, _)| *at);
        assert_eq!(said_at, Some(2_000));
        assert!(
            out.iter()
                .all(|(_, a)| !matches!(a, PresenterOutput::Control(_)))
        );
        let out = run(&mut p, 10_000, 10_000);
        assert_eq!(out[0], (10_000, PresenterOutput::Control("end".into())));
    }

    #[test]
    fn qa_that_stays_silent_times_out() {
        let mut p = Presenter::new(parse_presenter_script(SCRIPT).unwrap(), false);
        run(&mut p, 0, 1_000);
        p.on_phase(RehearsalPhase::Exchange, t(1_000));
        let out = run(&mut p, 1_000, 70_000);
        assert!(out.iter().any(|(_, a)| *a
            == PresenterOutput::Said {
                text: "Back to the deck.".into(),
                answer: false
            }));
    }
}
