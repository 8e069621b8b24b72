//! What the moderator logs about each exchange, and the end-of-session debrief.

mod render;

pub(crate) use render::spoken_name;
pub use render::{render_debrief, render_ratings};

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::config::{Intensity, InteractionMode, PanelConfig};
use crate::deck::Deck;
use crate::rating::{Rating, RatingRecord};
use crate::text::{excerpt, word_count};

/// What opened an exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trigger {
    /// The presenter advanced past a slide (section breaks).
    SectionBreak,
    /// The presenter asked for Q&A.
    OpenQa,
    /// The presenter acknowledged a raised hand.
    HandRaise,
    /// A pause in the presenter's speech (free flow).
    Silence,
}

impl Trigger {
    /// Words for the debrief.
    pub fn label(self) -> &'static str {
        match self {
            Trigger::SectionBreak => "section break",
            Trigger::OpenQa => "open Q&A",
            Trigger::HandRaise => "raised hand",
            Trigger::Silence => "pause",
        }
    }
}

/// How an exchange ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Friendly style: the moderator closed after the first follow-up.
    FriendlyClose,
    /// Moderate style: the last two answers or questions went in circles.
    Circular,
    /// The agent used all its turns; the challenge stays open.
    TurnLimit,
    /// The presenter asked to move on.
    PresenterMovedOn,
    /// The agent did not deliver its turn in time.
    AgentTimedOut,
    /// The presenter did not answer in time.
    NoAnswer,
    /// The session ended mid-exchange.
    SessionEnded,
}

impl Outcome {
    /// Exchanges the debrief lists as unresolved challenges.
    pub fn is_unresolved(self) -> bool {
        matches!(self, Outcome::TurnLimit | Outcome::SessionEnded)
    }

    /// Whether the moderator cut in to end the exchange.
    pub fn moderator_stepped_in(self) -> bool {
        matches!(
            self,
            Outcome::FriendlyClose | Outcome::Circular | Outcome::TurnLimit
        )
    }

    fn describe(self) -> &'static str {
        match self {
            Outcome::FriendlyClose => "moderator closed after the first follow-up",
            Outcome::Circular => "moderator stepped in: the exchange went in circles",
            Outcome::TurnLimit => "cut at the turn limit",
            Outcome::PresenterMovedOn => "presenter asked to move on",
            Outcome::AgentTimedOut => "panelist did not answer in time",
            Outcome::NoAnswer => "presenter did not answer",
            Outcome::SessionEnded => "session ended mid-exchange",
        }
    }
}

/// Who spoke a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Speaker {
    Agent(String),
    Presenter,
}

/// One turn of an exchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnRecord {
    pub speaker: Speaker,
    pub text: String,
    pub at_ms: u64,
    /// For presenter answers: no content word in common with the question answered
    /// (which had at least two), and not a request to move on.
    pub dodged: bool,
}

/// The pile-on after an exchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PileOnStatus {
    /// Asked; the answer, if one came.
    Asked { answer: Option<String> },
    /// Skipped because too little time remained; flagged for the debrief.
    SkippedTimeTight { remaining_ms: u64 },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PileOnRecord {
    pub agent: String,
    pub question: String,
    pub status: PileOnStatus,
}

/// One finished exchange.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExchangeRecord {
    pub id: u64,
    pub slide: usize,
    pub slide_title: String,
    /// The agent's name (identifier).
    pub agent: String,
    pub trigger: Trigger,
    pub started_ms: u64,
    pub ended_ms: u64,
    /// Agent turns and presenter answers of the primary exchange, in order.
    pub turns: Vec<TurnRecord>,
    pub outcome: Outcome,
    pub pile_on: Option<PileOnRecord>,
}

impl ExchangeRecord {
    /// The first agent turn (the question that opened the exchange).
    pub fn question(&self) -> Option<&str> {
        self.turns
            .iter()
            .find(|t| matches!(t.speaker, Speaker::Agent(_)))
            .map(|t| t.text.as_str())
    }

    fn answers(&self) -> impl Iterator<Item = &TurnRecord> {
        self.turns
            .iter()
            .filter(|t| t.speaker == Speaker::Presenter)
    }
}

/// How many of a panelist's questions bite.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Bites {
    /// The panelist (its identifier).
    pub agent: String,
    /// Questions that name a figure or take up a claim of their slide or of the
    /// presenter's answer before them ([`conversation_quality::answers::takes_up_claim`]),
    /// the words of the deck's title slide aside.
    pub biting: usize,
    pub asked: usize,
}

/// Each panelist's questions (every turn of its exchanges and its pile-ons) and how many
/// of them bite, in the order the panelists first asked.
pub fn questions_that_bite(records: &[ExchangeRecord], deck: &Deck) -> Vec<Bites> {
    let mut out: Vec<Bites> = Vec::new();
    // The title slide's words are the talk's subject: no claim.
    let subject = deck.subject();
    let mut count = |agent: &str, question: &str, source: &str| {
        let bites = conversation_quality::answers::takes_up_claim(question, source, &subject);
        let at = match out.iter().position(|b| b.agent == agent) {
            Some(at) => at,
            None => {
                out.push(Bites {
                    agent: agent.to_owned(),
                    biting: 0,
                    asked: 0,
                });
                out.len() - 1
            }
        };
        out[at].asked += 1;
        out[at].biting += usize::from(bites);
    };
    for record in records {
        let slide = deck.slide(record.slide).map_or("", |s| s.body.as_str());
        let mut answer = "";
        for turn in &record.turns {
            match &turn.speaker {
                Speaker::Presenter => answer = &turn.text,
                Speaker::Agent(agent) => count(agent, &turn.text, &format!("{slide}\n{answer}")),
            }
        }
        if let Some(pile_on) = &record.pile_on
            && matches!(pile_on.status, PileOnStatus::Asked { .. })
        {
            count(
                &pile_on.agent,
                &pile_on.question,
                &format!("{slide}\n{answer}"),
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(speaker: Speaker, text: &str) -> TurnRecord {
        TurnRecord {
            speaker,
            text: text.into(),
            at_ms: 0,
            dodged: false,
        }
    }

    #[test]
    fn a_question_bites_on_its_slide_or_on_the_answer_before_it() {
        let deck = Deck::parse(
            "## Unit economics\nGross margin of 62% at 50 robots, payback in 9 months.\n",
        );
        let skeptic = || Speaker::Agent("skeptic".into());
        let record = ExchangeRecord {
            id: 1,
            slide: 0,
            slide_title: "Unit economics".into(),
            agent: "skeptic".into(),
            trigger: Trigger::SectionBreak,
            started_ms: 0,
            ended_ms: 1,
            turns: vec![
                // The slide's figure.
                turn(skeptic(), "Does the 62% hold below fifty robots?"),
                turn(
                    Speaker::Presenter,
                    "Yes, our pilot with 12 warehouses shows it.",
                ),
                // The answer's figure.
                turn(skeptic(), "Were the 12 warehouses paying customers?"),
                turn(Speaker::Presenter, "Most of them."),
                // Nothing of either.
                turn(skeptic(), "What keeps you up at night?"),
            ],
            outcome: Outcome::TurnLimit,
            pile_on: Some(PileOnRecord {
                agent: "analyst".into(),
                question: "How was the payback in 9 months measured?".into(),
                status: PileOnStatus::Asked { answer: None },
            }),
        };
        assert_eq!(
            questions_that_bite(&[record], &deck),
            [
                Bites {
                    agent: "skeptic".into(),
                    biting: 2,
                    asked: 3
                },
                Bites {
                    agent: "analyst".into(),
                    biting: 1,
                    asked: 1
                }
            ]
        );
    }
}
