//! What an assessment says: counts, ratios, and the reasons of every failing line.

use std::fmt;

use serde::Serialize;

use crate::inputs::Utterance;
use crate::markup::Markup;
use crate::recital::Recital;

/// `count` out of `total`; the rate is undefined with nothing to count.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Ratio {
    pub count: usize,
    pub total: usize,
}

impl Ratio {
    pub fn rate(&self) -> Option<f64> {
        (self.total > 0).then(|| self.count as f64 / self.total as f64)
    }
}

/// The metrics of one session (every count is over scored agent lines unless named).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Report {
    pub agent_lines: usize,
    pub human_lines: usize,
    /// Lines whose word 3-grams were mostly said in the 8 lines before.
    pub echo: Ratio,
    /// Lines holding a word of the subject's lexicon.
    pub on_topic: Ratio,
    /// Lines reciting a persona's instructions or an instruction phrase.
    pub recited: usize,
    /// Lines where a participant presents itself under another's name.
    pub identity_slips: usize,
    /// Human lines whose next agent line shares a content word with them, out of the
    /// human lines (with a content word) that an agent line followed.
    pub human_answers_addressed: Ratio,
    /// Agent lines with no word.
    pub empty_lines: usize,
    /// Agent lines cut off by an interrupt before a word of them was heard: not scored,
    /// as no listener heard them.
    pub cut_before_heard: usize,
    /// Turns handed out that produced no line (`None` without `events.jsonl`).
    pub silent_turns: Option<usize>,
    /// Lines with Markdown, LaTeX, a stage direction or a leading tag.
    pub markup: usize,
    /// Places where two adjacent lines are both agents' pleasantries only.
    pub pleasantry_pairs: usize,
    /// Distinct word bigrams out of all word bigrams (within lines).
    pub distinct_2: Ratio,
    /// Lines written in the language the agenda asks for (`None` when it asks none).
    pub in_language: Option<Ratio>,
    #[serde(skip)]
    pub findings: Vec<Finding>,
}

impl Report {
    /// Empty lines and silent turns together.
    pub fn empty_turns(&self) -> usize {
        self.empty_lines + self.silent_turns.unwrap_or(0)
    }
}

/// Why one agent line (or turn) failed.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    pub speaker: String,
    pub question_id: u64,
    /// The line's text; `None` for a turn that produced no line.
    pub text: Option<String>,
    pub reasons: Vec<Reason>,
}

impl Finding {
    pub(crate) fn of_line(line: &Utterance, reasons: Vec<Reason>) -> Self {
        Self {
            speaker: line.speaker.clone(),
            question_id: line.question_id,
            text: Some(line.text.clone()),
            reasons,
        }
    }

    pub(crate) fn silent_turn(speaker: &str, question_id: u64) -> Self {
        Self {
            speaker: speaker.to_owned(),
            question_id,
            text: None,
            reasons: vec![Reason::SilentTurn],
        }
    }
}

/// One failed metric.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    Echo {
        share: f64,
    },
    OffTopic,
    Recited(Recital),
    IdentitySlip {
        name: String,
    },
    Empty,
    SilentTurn,
    Markup(Markup),
    PleasantryPair,
    /// The first agent line after the human's does not take up their words.
    Unaddressed {
        asked: String,
    },
    /// The line is not in the language the agenda asks for.
    OtherLanguage {
        asked: String,
    },
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Echo { share } => {
                write!(f, "echo ({:.0}% of its 3-grams just said)", share * 100.0)
            }
            Reason::OffTopic => write!(f, "off topic"),
            Reason::Recited(Recital::Persona { persona, run }) => {
                write!(f, "recites {persona}'s instructions (\"{run}\")")
            }
            Reason::Recited(Recital::Phrase(phrase)) => {
                write!(f, "recites an instruction (\"{phrase}\")")
            }
            Reason::IdentitySlip { name } => write!(f, "presents itself as {name}"),
            Reason::Empty => write!(f, "empty"),
            Reason::SilentTurn => write!(f, "turn handed out, no line"),
            Reason::Markup(Markup::Markdown(c)) => write!(f, "markdown ({c})"),
            Reason::Markup(Markup::Latex(l)) => write!(f, "latex ({l})"),
            Reason::Markup(Markup::Dollar) => write!(f, "latex ($)"),
            Reason::Markup(Markup::StageDirection(d)) => write!(f, "stage direction {d}"),
            Reason::Markup(Markup::Tag(t)) => write!(f, "leading tag {t}"),
            Reason::PleasantryPair => write!(f, "second pleasantry-only line in a row"),
            Reason::Unaddressed { asked } => {
                write!(f, "does not take up the human's \"{asked}\"")
            }
            Reason::OtherLanguage { asked } => write!(f, "not in the language asked ({asked})"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratio_has_no_rate_without_a_total() {
        assert_eq!(Ratio::default().rate(), None);
        assert_eq!(Ratio { count: 1, total: 4 }.rate(), Some(0.25));
    }

    #[test]
    fn reasons_read_as_short_phrases() {
        assert_eq!(
            Reason::Echo { share: 0.75 }.to_string(),
            "echo (75% of its 3-grams just said)"
        );
        assert_eq!(
            Reason::Markup(Markup::StageDirection("(smirking)".into())).to_string(),
            "stage direction (smirking)"
        );
    }
}
