//! Conversation quality of one recorded session, measured on the agents' lines.
//!
//! Small language models in a group conversation fail in recognisable ways: they echo
//! what was just said, drift off the subject, read their prompt aloud, take another
//! participant's name, ignore the human, speak Markdown, or thank each other in a loop.
//! [`Scorer::assess`] counts each of these over a parsed transcript, so that a model or a
//! prompt change can be compared on numbers rather than impressions. Nothing here reads
//! files: [`inputs`] parses text the caller has read.
//!
//! Every metric is over agent lines (`human` false). A human line counts as context (for
//! echoes) and as a question (for the answers to the human).

pub mod answers;
pub mod echo;
pub mod identity;
pub mod inputs;
pub mod markup;
pub mod pleasantry;
pub mod recital;
mod report;
pub mod topic;

use std::collections::{HashMap, HashSet};

use identity::Participant;
pub use inputs::{Agenda, Persona, SessionEvent, Utterance, parse_events, parse_transcript};
use recital::Instructions;
pub use report::{Finding, Ratio, Reason, Report};
use topic::Lexicon;

/// Why parsed input could not be had.
#[derive(Debug, thiserror::Error)]
pub enum QualityError {
    #[error("line {number}: {source}")]
    Line {
        number: usize,
        source: serde_json::Error,
    },
    #[error("bad agenda: {0}")]
    Agenda(serde_yaml::Error),
    #[error("bad persona: {0}")]
    Persona(&'static str),
}

/// One recorded session, parsed.
#[derive(Debug, Clone, Default)]
pub struct Session {
    pub lines: Vec<Utterance>,
    /// The turns and interrupts of `events.jsonl`, when there is one: turns handed out
    /// that never produced a line are empty turns too.
    pub events: Option<Vec<SessionEvent>>,
}

/// What to leave out.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Lines (and turns) that start before this time are context only: not scored, but
    /// a later line echoing them is still an echo.
    pub skip_before_ms: u64,
}

/// The subject and the participants' characters, ready to score sessions against.
#[derive(Debug, Clone)]
pub struct Scorer {
    lexicon: Lexicon,
    instructions: Instructions,
    personas: Vec<Persona>,
    /// Speakers scored as context only (the agenda's `conductors`).
    conductors: Vec<String>,
    /// The language asked for (the agenda's `language`).
    language: Option<String>,
}

/// What is known of one line while scoring.
struct LineFacts {
    words: Vec<String>,
    scored: bool,
    /// An agent line cut off before any of it was heard.
    unheard: bool,
    pleasantry_only: bool,
}

impl Scorer {
    pub fn new(agenda: &Agenda, personas: &[Persona]) -> Self {
        Self {
            lexicon: Lexicon::from_agenda(agenda),
            instructions: Instructions::new(personas),
            personas: personas.to_vec(),
            conductors: agenda.conductors.clone(),
            language: agenda.language.clone(),
        }
    }

    /// The metrics of `session`, and the reasons of every line that failed one.
    pub fn assess(&self, session: &Session, options: Options) -> Report {
        let lines = &session.lines;
        let facts: Vec<LineFacts> = lines
            .iter()
            .map(|line| {
                let words = text::words::words(&line.text);
                // Cut off before a word was heard: no line a listener heard, like a
                // turn cut before its first word (counted apart, not scored).
                let unheard = !line.human && line.interrupted && words.is_empty();
                // A conductor's scripted line is context, never a model's contribution.
                let conducting = !line.human && self.conductors.contains(&line.speaker);
                LineFacts {
                    scored: line.start_ms >= options.skip_before_ms && !unheard && !conducting,
                    unheard,
                    words,
                    pleasantry_only: !line.human && pleasantry::is_pleasantry_only(&line.text),
                }
            })
            .collect();
        let participants = self.participants(lines);
        let mut report = Report {
            in_language: self.language.as_ref().map(|_| Ratio::default()),
            ..Report::default()
        };
        let mut reasons: HashMap<usize, Vec<Reason>> = HashMap::new();
        let mut bigrams = HashSet::new();
        for (i, line) in lines.iter().enumerate() {
            if facts[i].unheard && line.start_ms >= options.skip_before_ms {
                report.cut_before_heard += 1;
            }
            if !facts[i].scored {
                continue;
            }
            if line.human {
                report.human_lines += 1;
                continue;
            }
            report.agent_lines += 1;
            let found = self.line_reasons(i, lines, &facts, &participants, &mut report);
            for pair in facts[i].words.windows(2) {
                report.distinct_2.total += 1;
                if bigrams.insert(pair) {
                    report.distinct_2.count += 1;
                }
            }
            if !found.is_empty() {
                reasons.entry(i).or_default().extend(found);
            }
        }
        for (questions, answer) in answers_to_the_human(lines, &facts, &self.conductors) {
            report.human_answers_addressed.total += 1;
            let words: Vec<String> = questions
                .iter()
                .flat_map(|&q| facts[q].words.iter().cloned())
                .collect();
            if answers::addresses(&words, &facts[answer].words) {
                report.human_answers_addressed.count += 1;
            } else {
                let asked = questions
                    .iter()
                    .map(|&q| lines[q].text.as_str())
                    .collect::<Vec<_>>()
                    .join(" ");
                reasons
                    .entry(answer)
                    .or_default()
                    .push(Reason::Unaddressed { asked });
            }
        }
        let mut findings: Vec<Finding> = reasons
            .into_iter()
            .map(|(i, reasons)| Finding::of_line(&lines[i], reasons))
            .collect();
        if let Some(events) = &session.events {
            let silent = silent_turns(lines, events, options);
            report.silent_turns = Some(silent.len());
            findings.extend(silent);
        }
        findings.sort_by_key(|f| f.question_id);
        report.findings = findings;
        report
    }

    /// Checks agent line `i` for every per-line metric, counting into `report`.
    fn line_reasons(
        &self,
        i: usize,
        lines: &[Utterance],
        facts: &[LineFacts],
        participants: &[Participant],
        report: &mut Report,
    ) -> Vec<Reason> {
        let line = &lines[i];
        let words = &facts[i].words;
        let mut found = Vec::new();
        let context: Vec<&[String]> = facts[i.saturating_sub(echo::ECHO_WINDOW)..i]
            .iter()
            .map(|f| f.words.as_slice())
            .collect();
        report.echo.total += 1;
        if let Some(share) = echo::echoed_share(words, &context)
            && share >= echo::ECHO_SHARE
        {
            report.echo.count += 1;
            found.push(Reason::Echo { share });
        }
        report.on_topic.total += 1;
        if self.lexicon.matches(words) {
            report.on_topic.count += 1;
        } else {
            found.push(Reason::OffTopic);
        }
        if let Some(recital) = self.instructions.recited(words) {
            report.recited += 1;
            found.push(Reason::Recited(recital));
        }
        if let Some(name) = identity::identity_slip(&line.speaker, &line.text, participants) {
            report.identity_slips += 1;
            found.push(Reason::IdentitySlip { name });
        }
        if words.is_empty() {
            report.empty_lines += 1;
            found.push(Reason::Empty);
        }
        if let Some(language) = &self.language
            && let Some(ratio) = report.in_language.as_mut()
        {
            ratio.total += 1;
            match in_language(language, &line.text) {
                Some(true) => ratio.count += 1,
                _ => found.push(Reason::OtherLanguage {
                    asked: language.clone(),
                }),
            }
        }
        if let Some(markup) = markup::markup(&line.text) {
            report.markup += 1;
            found.push(Reason::Markup(markup));
        }
        let previous_is_pleasantry =
            i > 0 && !lines[i - 1].human && facts[i - 1].scored && facts[i - 1].pleasantry_only;
        if facts[i].pleasantry_only && previous_is_pleasantry {
            report.pleasantry_pairs += 1;
            found.push(Reason::PleasantryPair);
        }
        found
    }

    /// The personas that speak in this session (an agent line's speaker is a persona's
    /// `name`): only their names can be taken by mistake.
    fn participants(&self, lines: &[Utterance]) -> Vec<Participant> {
        let speakers: HashSet<&str> = lines
            .iter()
            .filter(|l| !l.human)
            .map(|l| l.speaker.as_str())
            .collect();
        self.personas
            .iter()
            .filter(|p| speakers.contains(p.name.as_str()))
            .map(Participant::new)
            .collect()
    }
}

/// Whether `text` is written in `language` (`zh` or `en`; `None` for a line without
/// letters or a language this crate cannot tell).
fn in_language(language: &str, text: &str) -> Option<bool> {
    let chinese = text::words::mostly_chinese(text)?;
    match language {
        "zh" => Some(chinese),
        "en" => Some(!chinese),
        _ => None,
    }
}

/// `(questions, answer)` indices: every run of human lines (one or more in a row, as a
/// person who pauses mid-sentence is heard twice) holding a scored line with a content
/// word, with the next agent line heard after it. A question the session ended before
/// answering (no agent line follows) is not counted.
fn answers_to_the_human(
    lines: &[Utterance],
    facts: &[LineFacts],
    conductors: &[String],
) -> Vec<(Vec<usize>, usize)> {
    let mut pairs = Vec::new();
    let mut asked: Vec<usize> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if conductors.contains(&line.speaker) && !line.human {
            // A moderator's "Mm-hmm" answers nobody: the participant after it does.
            continue;
        }
        if line.human {
            if facts[i].scored && !answers::content_stems(&facts[i].words).is_empty() {
                asked.push(i);
            }
        } else if !facts[i].unheard && !asked.is_empty() {
            pairs.push((std::mem::take(&mut asked), i));
        }
    }
    pairs
}

/// Agent turns handed out (`turn` events; a human is never handed one) that produced no
/// line at all: no line carries the turn's question id, the floor moved on to a later
/// turn with no interrupt in between, and a later line was written. A turn still running
/// when the session ended, or cut by an interrupt, is not counted.
fn silent_turns(lines: &[Utterance], events: &[SessionEvent], options: Options) -> Vec<Finding> {
    let answered: HashSet<u64> = lines.iter().map(|l| l.question_id).collect();
    let last_line = lines.iter().map(|l| l.question_id).max().unwrap_or(0);
    let humans: HashSet<&str> = lines
        .iter()
        .filter(|l| l.human)
        .map(|l| l.speaker.as_str())
        .collect();
    let mut silent = Vec::new();
    for (k, event) in events.iter().enumerate() {
        let SessionEvent::Turn {
            speaker,
            question_id,
            t_ms,
        } = event
        else {
            continue;
        };
        if *t_ms < options.skip_before_ms
            || humans.contains(speaker.as_str())
            || answered.contains(question_id)
            || *question_id >= last_line
        {
            continue;
        }
        let floor_moved_on = events[k + 1..]
            .iter()
            .find(|e| !matches!(e, SessionEvent::Turn { question_id: q, .. } if q == question_id))
            .is_some_and(|e| matches!(e, SessionEvent::Turn { .. }));
        if floor_moved_on {
            silent.push(Finding::silent_turn(speaker, *question_id));
        }
    }
    silent
}

#[cfg(test)]
mod tests;
