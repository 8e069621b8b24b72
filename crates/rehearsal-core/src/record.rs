//! What the moderator logs about each exchange, and the end-of-session debrief.

use std::collections::BTreeMap;
use std::fmt::Write as _;

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

fn cell(text: &str) -> String {
    excerpt(text, 80).replace('|', "\\|")
}

fn quote(text: &str) -> String {
    format!("\u{201c}{}\u{201d}", excerpt(text, 160))
}

fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

/// Renders the debrief in Markdown.
/// The debrief's section on the panel's ratings: each rated (or unrated) answer, then the
/// weakest one quoted with what a stronger answer would have used (the slide's figures).
/// How the panel calls `agent` (its display name, else the identifier).
/// The panelist's name as the debrief writes it (its identifier if the panel lacks it).
pub(crate) fn spoken_name(config: &PanelConfig, agent: &str) -> String {
    config
        .agent_index(agent)
        .map(|i| config.agents[i].spoken_name().to_owned())
        .unwrap_or_else(|| agent.to_owned())
}

pub fn render_ratings(ratings: &[RatingRecord], deck: &Deck, config: &PanelConfig) -> String {
    let name = |agent: &str| spoken_name(config, agent);
    let mut out = String::from("## Answers as the panel rated them\n\n");
    if ratings.is_empty() {
        out.push_str("No answer was rated.\n");
        return out;
    }
    out.push_str("| exchange | asked by | slide | rating | why |\n|---:|---|---|---|---|\n");
    for r in ratings {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} |",
            r.exchange,
            name(&r.agent),
            deck.title_of(r.slide),
            r.rating.map_or("unrated", Rating::as_str),
            r.why.replace('|', "/")
        );
    }
    let Some(weakest) = ratings
        .iter()
        .filter(|r| r.rating.is_some_and(|x| x != Rating::Answered))
        .min_by_key(|r| (r.rating, r.exchange))
    else {
        out.push_str("\nEvery rated answer met its question.\n");
        return out;
    };
    let _ = write!(
        out,
        "\n**The weakest answer** (exchange {}, {} by {}):\n\n> {}: {}\n>\n> Presenter: {}\n\nWhy: {}\n",
        weakest.exchange,
        weakest.rating.map_or("unrated", Rating::as_str),
        name(&weakest.agent),
        name(&weakest.agent),
        weakest.question,
        weakest.answer,
        if weakest.why.is_empty() {
            "no reason given"
        } else {
            &weakest.why
        }
    );
    let figures: Vec<&str> = deck
        .slides
        .get(weakest.slide)
        .map(|s| {
            s.body
                .split_inclusive(['.', '!', '?'])
                .map(str::trim)
                .filter(|s| s.chars().any(|c| c.is_ascii_digit()))
                .take(2)
                .collect()
        })
        .unwrap_or_default();
    if !figures.is_empty() {
        let _ = writeln!(
            out,
            "A stronger answer would have used the slide's own figures: {}",
            figures.join(" ").replace('\n', " ")
        );
    }
    out
}

pub fn render_debrief(
    records: &[ExchangeRecord],
    deck: &Deck,
    config: &PanelConfig,
    elapsed_ms: u64,
) -> String {
    let name = |agent: &str| spoken_name(config, agent);
    let mut out = String::from("# Rehearsal debrief\n\n");
    let _ = writeln!(
        out,
        "Session {} of {} planned · intensity {} · mode {} · {} exchange{}\n",
        clock(elapsed_ms),
        clock(config.duration_ms()),
        match config.intensity {
            Intensity::Friendly => "friendly",
            Intensity::Moderate => "moderate",
            Intensity::Adversarial => "adversarial",
        },
        match config.mode {
            InteractionMode::SectionBreaks => "section breaks",
            InteractionMode::HandRaise => "hand raise",
            InteractionMode::FreeFlow => "free flow",
        },
        records.len(),
        if records.len() == 1 { "" } else { "s" }
    );

    // Exchanges per slide.
    out.push_str(
        "## Exchanges per slide\n\n| # | Slide | Exchanges | Panelists |\n|---|---|---|---|\n",
    );
    let mut per_slide: BTreeMap<usize, (usize, Vec<String>)> = BTreeMap::new();
    for r in records {
        let e = per_slide.entry(r.slide).or_default();
        e.0 += 1;
        for who in std::iter::once(&r.agent).chain(
            r.pile_on
                .as_ref()
                .and_then(|p| matches!(p.status, PileOnStatus::Asked { .. }).then_some(&p.agent)),
        ) {
            let n = name(who);
            if !e.1.contains(&n) {
                e.1.push(n);
            }
        }
    }
    let last = deck
        .len()
        .max(per_slide.keys().next_back().map_or(0, |k| k + 1));
    for index in 0..last {
        let (count, who) = per_slide.remove(&index).unwrap_or_default();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            index,
            cell(&deck.title_of(index)),
            count,
            if who.is_empty() {
                "—".to_owned()
            } else {
                cell(&who.join(", "))
            }
        );
    }

    // Questions that bite.
    let bites = questions_that_bite(records, deck);
    if !bites.is_empty() {
        out.push_str(
            "\n## Questions that bite\n\nA question bites when it names a figure of its \
             slide or of the answer before it, or takes up one of their claims.\n\n",
        );
        for b in &bites {
            let _ = writeln!(out, "- {}: {} of {}.", name(&b.agent), b.biting, b.asked);
        }
    }

    // Unresolved challenges.
    out.push_str("\n## Unresolved challenges\n\n");
    let mut any = false;
    for r in records {
        if r.outcome.is_unresolved() {
            any = true;
            let _ = writeln!(
                out,
                "- **{}** on *{}*: {} ({}).",
                name(&r.agent),
                r.slide_title,
                quote(r.question().unwrap_or("(no question recorded)")),
                r.outcome.describe()
            );
        }
        if let Some(p) = &r.pile_on
            && let PileOnStatus::SkippedTimeTight { remaining_ms } = p.status
        {
            any = true;
            let _ = writeln!(
                out,
                "- **{}** on *{}* (pile-on skipped, {} left): {}.",
                name(&p.agent),
                r.slide_title,
                clock(remaining_ms),
                quote(&p.question)
            );
        }
    }
    if !any {
        out.push_str("None.\n");
    }

    // Presenter profile.
    out.push_str("\n## Presenter profile\n\n");
    let answers: Vec<&TurnRecord> = records.iter().flat_map(|r| r.answers()).collect();
    let pile_answers: Vec<&String> = records
        .iter()
        .filter_map(|r| match &r.pile_on.as_ref()?.status {
            PileOnStatus::Asked { answer } => answer.as_ref(),
            _ => None,
        })
        .collect();
    let total_answers = answers.len() + pile_answers.len();
    let total_words: usize = answers.iter().map(|t| word_count(&t.text)).sum::<usize>()
        + pile_answers.iter().map(|a| word_count(a)).sum::<usize>();
    match total_words.checked_div(total_answers) {
        None => out.push_str("- No answers were recorded.\n"),
        Some(average) => {
            let _ = writeln!(
                out,
                "- Answers given: {total_answers}, {average} words on average."
            );
        }
    }
    let dodged: Vec<(&ExchangeRecord, &TurnRecord)> = records
        .iter()
        .flat_map(|r| r.turns.iter().filter(|t| t.dodged).map(move |t| (r, t)))
        .collect();
    let _ = writeln!(
        out,
        "- Answers that did not touch the question's topic: {}.",
        dodged.len()
    );
    for (r, t) in &dodged {
        let _ = writeln!(out, "  - On *{}*: {}", r.slide_title, quote(&t.text));
    }
    let count = |o: Outcome| records.iter().filter(|r| r.outcome == o).count();
    let stepped = records
        .iter()
        .filter(|r| r.outcome.moderator_stepped_in())
        .count();
    let _ = writeln!(
        out,
        "- The moderator stepped in {stepped} time{} (turn limit {}, circular {}, friendly close {}).",
        if stepped == 1 { "" } else { "s" },
        count(Outcome::TurnLimit),
        count(Outcome::Circular),
        count(Outcome::FriendlyClose)
    );
    let _ = writeln!(
        out,
        "- The presenter asked to move on {} time(s); left {} question(s) unanswered.",
        count(Outcome::PresenterMovedOn),
        count(Outcome::NoAnswer)
    );

    // Exchange log.
    out.push_str("\n## Exchange log\n");
    if records.is_empty() {
        out.push_str("\nNo exchanges.\n");
    }
    for (n, r) in records.iter().enumerate() {
        let _ = writeln!(
            out,
            "\n### {}. {} on {} ({}, {}–{})\n",
            n + 1,
            name(&r.agent),
            r.slide_title,
            r.trigger.label(),
            clock(r.started_ms),
            clock(r.ended_ms)
        );
        for t in &r.turns {
            let who = match &t.speaker {
                Speaker::Agent(a) => name(a),
                Speaker::Presenter => "Presenter".to_owned(),
            };
            let _ = writeln!(
                out,
                "- {who}: {}{}",
                quote(&t.text),
                if t.dodged { " *(off-topic)*" } else { "" }
            );
        }
        if let Some(p) = &r.pile_on {
            match &p.status {
                PileOnStatus::Asked { answer } => {
                    let _ = writeln!(out, "- Pile-on, {}: {}", name(&p.agent), quote(&p.question));
                    if let Some(a) = answer {
                        let _ = writeln!(out, "- Presenter: {}", quote(a));
                    }
                }
                PileOnStatus::SkippedTimeTight { .. } => {
                    let _ = writeln!(
                        out,
                        "- Pile-on by {} skipped: time was tight.",
                        name(&p.agent)
                    );
                }
            }
        }
        let _ = writeln!(out, "- Outcome: {}.", r.outcome.describe());
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
