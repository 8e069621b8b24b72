//! What the rehearsal moderator node reads and writes around the rules: control
//! commands, the texts sent to the panelists, relevance scores and the Markdown of
//! exchanges written into the context session.

use crate::text::{content_set, excerpt, shared};
use crate::{
    CandidatePurpose, Deck, ExchangeRecord, Instruction, Outcome, PileOnStatus, Slide, Speaker,
};

/// A command on the `control` input.
#[derive(Debug, Clone, PartialEq)]
pub enum Control {
    /// `slide N`: the presenter is on slide N (0-based: the title slide is 0).
    Slide(usize),
    /// `next` / `prev`: one slide forward or back.
    Next,
    Prev,
    /// `open_qa`: the presenter opens Q&A.
    OpenQa,
    /// `hand <agent> [urgency]`: a panelist raises a hand (hand-raise mode).
    Hand {
        agent: String,
        urgency: f64,
    },
    /// `ack [agent]`: the presenter takes a raised hand.
    Ack(Option<String>),
    /// `answered`: the presenter finished answering.
    Answered,
    /// `move_on`: the presenter asks to move on (closes the exchange under way).
    MoveOn,
    /// `end`: the session is over.
    End,
}

/// Parses a control command, as text or `{"command": "..."}` (case-insensitive; `_`, `-`
/// and spaces are alike in the command word: `open_qa`, `open-qa`, `open qa`).
pub fn parse_control(text: &str) -> Result<Control, String> {
    let lower = voice_protocol::command_text(text).map_err(|error| error.to_string())?;
    let text = lower.as_str();
    let mut words = lower.split_whitespace();
    let Some(first) = words.next() else {
        return Err("empty control command".to_owned());
    };
    let rest: Vec<&str> = words.collect();
    let key: String = first.chars().filter(|c| c.is_alphanumeric()).collect();
    let joined: String = lower.chars().filter(|c| c.is_alphanumeric()).collect();
    match key.as_str() {
        "slide" => match rest.first().map(|n| n.parse::<usize>()) {
            Some(Ok(n)) => Ok(Control::Slide(n)),
            _ => Err(format!(
                "`{text}`: expected `slide N` with N a slide number from 0"
            )),
        },
        "next" => Ok(Control::Next),
        "prev" | "previous" | "back" => Ok(Control::Prev),
        "end" | "stop" | "finish" => Ok(Control::End),
        "answered" | "done" => Ok(Control::Answered),
        "ack" | "acknowledge" => Ok(Control::Ack(rest.first().map(|s| (*s).to_owned()))),
        "hand" => {
            let Some(agent) = rest.first() else {
                return Err(format!("`{text}`: expected `hand <agent> [urgency]`"));
            };
            let urgency = match rest.get(1) {
                None => 1.0,
                Some(u) => u
                    .parse::<f64>()
                    .map_err(|_| format!("`{text}`: urgency must be a number in 0..1"))?,
            };
            Ok(Control::Hand {
                agent: (*agent).to_owned(),
                urgency,
            })
        }
        _ if joined == "openqa" || joined == "qa" => Ok(Control::OpenQa),
        _ if joined == "moveon" || joined == "letsmoveon" => Ok(Control::MoveOn),
        _ => Err(format!(
            "unknown control command `{text}` (slide N, next, prev, open_qa, hand <agent>, ack, answered, move_on, end)"
        )),
    }
}

/// Text without quotation marks, so that a quoted passage of an instruction is only
/// ever the one the moderator put there.
fn unquoted(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '"' | '\u{201c}' | '\u{201d}'))
        .collect()
}

/// How a slide is named in prompts.
pub fn slide_label(deck: &Deck, slide: usize) -> String {
    unquoted(&deck.title_of(slide))
}

/// The `instruction` of a call: what the panelist is to do. A prepared question is
/// quoted (“...”), so even the offline stand-in model speaks it as prepared.
pub fn instruction_text(
    instruction: Instruction,
    candidate: Option<&str>,
    deck: &Deck,
    slide: usize,
    last_answer: Option<&str>,
) -> String {
    let title = slide_label(deck, slide);
    let body = deck
        .slide(slide)
        .map(|s| unquoted(&excerpt(&s.body, 200)))
        .unwrap_or_default();
    // What the question is about comes first and the task last: a small model acts on
    // the words right before its answer, and asked to "probe" an answer it restates it.
    match (instruction, candidate.map(unquoted)) {
        (Instruction::AskQuestion, Some(c)) => format!(
            "The moderator gives you the floor on {title}. Ask your prepared question, in one or two sentences: \u{201c}{c}\u{201d}"
        ),
        (Instruction::AskQuestion, None) => format!(
            "The slide {title} says: {body}\nAsk the presenter one sharp question that names one of its figures or claims and asks what proves it, in one sentence."
        ),
        (Instruction::FollowUp, _) => match last_answer {
            Some(a) => format!(
                "The presenter answered: {}\nAsk the presenter one short follow-up question that names a figure or a claim of this answer and tests it.",
                unquoted(&excerpt(a, 240))
            ),
            None => format!("Ask the presenter one short follow-up question about {title}."),
        },
        (Instruction::PileOn, Some(c)) => {
            format!("Build on the exchange you just heard with one question: \u{201c}{c}\u{201d}")
        }
        (Instruction::PileOn, None) => format!(
            "Ask the presenter one short question of your own that builds on the exchange about {title}."
        ),
    }
}

/// A candidate question as a panelist says it when called: its first line, at most two
/// sentences of it (a small model sometimes prepares three questions at once), and a
/// second only when it asks too or the first led into it (a small model also comments on
/// its own question: "… profitability? This question builds on the exchange …");
/// `None` if it has no words.
pub fn prepared_question(candidate: &str) -> Option<String> {
    let first_line = candidate
        .trim_start()
        .split(['\n', '\r'])
        .next()
        .unwrap_or_default();
    // A rule (" --- ", " -- ") sets off a comment; "2024--2025" is a range.
    let first_line = first_line
        .split(" --")
        .next()
        .unwrap_or_default()
        .split("---")
        .next()
        .unwrap_or_default();
    let asks = text::words::asks;
    let mut said = String::new();
    for (n, sentence) in first_line
        .split_inclusive(['.', '?', '!'])
        .take(2)
        .enumerate()
    {
        if n == 1 && asks(&said) && !asks(sentence) {
            break;
        }
        said.push_str(sentence);
    }
    let said = unquoted(&said)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (!said.is_empty()).then_some(said)
}

/// The prompt of a candidate-question request.
pub fn request_prompt(
    purpose: CandidatePurpose,
    deck: &Deck,
    slide: usize,
    exchange: Option<&str>,
) -> String {
    let title = slide_label(deck, slide);
    let source = unquoted(&request_takes_up(purpose, deck, slide, exchange));
    match (purpose, exchange) {
        (CandidatePurpose::PileOn, Some(_)) => format!(
            "Prepare one short question that builds on this exchange about {title} and \
             presses on a claim or a figure the presenter gave: {source}"
        ),
        _ => format!(
            "Prepare one sharp question about slide {slide}, {title}, that takes up one of \
             its claims or figures and asks what would prove it: {source}"
        ),
    }
}

/// What a candidate question is to take up, and its prompt quotes: the slide's own
/// words, or, for a pile-on, the exchange it builds on (the presenter's answer among it).
pub fn request_takes_up(
    purpose: CandidatePurpose,
    deck: &Deck,
    slide: usize,
    exchange: Option<&str>,
) -> String {
    match (purpose, exchange) {
        (CandidatePurpose::PileOn, Some(ex)) => excerpt(ex, 400),
        _ => deck
            .slide(slide)
            .map(|s| excerpt(&s.body, 400))
            .unwrap_or_default(),
    }
}

/// What a panelist's question turn is to take up: the answer a follow-up tests, the
/// exchange a pile-on builds on, else the slide's claims. The reply is steered towards
/// those words, and a question quoting them is no echo of the line that said them.
pub fn turn_takes_up(
    instruction: Instruction,
    deck: &Deck,
    slide: usize,
    last_answer: Option<&str>,
    exchange: &str,
) -> Option<String> {
    let text = match (instruction, last_answer) {
        (Instruction::FollowUp, Some(answer)) => excerpt(answer, 400),
        (Instruction::PileOn, _) if !exchange.trim().is_empty() => {
            request_takes_up(CandidatePurpose::PileOn, deck, slide, Some(exchange))
        }
        _ => request_takes_up(CandidatePurpose::Question, deck, slide, None),
    };
    (!text.trim().is_empty()).then_some(text)
}

/// Relevance of a candidate question to a slide, in 0..1, from the content words they
/// share: none 0, one 0.5, two 0.75, three 0.875, ... Deterministic.
pub fn relevance(candidate: &str, slide: Option<&Slide>) -> f64 {
    let Some(slide) = slide else {
        return 0.0;
    };
    let n = shared(&content_set(candidate), &slide.words()).min(30);
    1.0 - 0.5f64.powi(n as i32)
}

/// `m:ss` of a session time.
pub fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

pub fn outcome_label(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::FriendlyClose => "closed after the first follow-up (friendly)",
        Outcome::Circular => "moderator stepped in: the exchange went in circles",
        Outcome::TurnLimit => "cut at the turn limit",
        Outcome::PresenterMovedOn => "presenter asked to move on",
        Outcome::AgentTimedOut => "panelist did not answer in time",
        Outcome::NoAnswer => "presenter did not answer",
        Outcome::SessionEnded => "session ended mid-exchange",
    }
}

fn speaker_name(speaker: &Speaker) -> &str {
    match speaker {
        Speaker::Agent(a) => a,
        Speaker::Presenter => "presenter",
    }
}

/// An exchange as appended to `exchange-history.md`.
pub fn exchange_markdown(r: &ExchangeRecord) -> String {
    let mut s = format!(
        "## Exchange {} — slide {}, {} ({}, {}–{})\n\n",
        r.id,
        r.slide,
        r.slide_title,
        r.trigger.label(),
        clock(r.started_ms),
        clock(r.ended_ms)
    );
    for t in &r.turns {
        let dodged = if t.dodged { " _(dodged)_" } else { "" };
        s.push_str(&format!(
            "- **{}**: {}{dodged}\n",
            speaker_name(&t.speaker),
            excerpt(&t.text, 400)
        ));
    }
    if let Some(p) = &r.pile_on {
        match &p.status {
            PileOnStatus::Asked { answer } => {
                s.push_str(&format!("- **{}** (pile-on): {}\n", p.agent, p.question));
                if let Some(a) = answer {
                    s.push_str(&format!("- **presenter**: {}\n", excerpt(a, 400)));
                }
            }
            PileOnStatus::SkippedTimeTight { .. } => s.push_str(&format!(
                "- pile-on by {} skipped (time tight): {}\n",
                p.agent, p.question
            )),
        }
    }
    s.push_str(&format!("- outcome: {}\n\n", outcome_label(r.outcome)));
    s
}

/// What the exchange says about the presenter, appended to the panelist's
/// `presenter-profile.md`.
pub fn profile_markdown(r: &ExchangeRecord) -> String {
    let answers: Vec<&str> = r
        .turns
        .iter()
        .filter(|t| t.speaker == Speaker::Presenter)
        .map(|t| t.text.as_str())
        .collect();
    let dodged = r.turns.iter().filter(|t| t.dodged).count();
    let words: usize = answers.iter().map(|a| a.split_whitespace().count()).sum();
    let average = if answers.is_empty() {
        0
    } else {
        words / answers.len()
    };
    let numbers = answers
        .iter()
        .filter(|a| a.chars().any(|c| c.is_ascii_digit()))
        .count();
    format!(
        "- exchange {} ({}): {} answer(s), {average} words on average, {numbers} with figures, {dodged} off topic; {}\n",
        r.id,
        r.slide_title,
        answers.len(),
        outcome_label(r.outcome)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const DECK: &str = "# Acme\nIntro.\n## Market Size\nThe warehouse automation market is $40B; survey of 120 operators.\n## Pricing\nRobots at $2,500 per month, \"gross margin\" 62%.";

    #[test]
    fn control_commands() {
        assert_eq!(parse_control("slide 2"), Ok(Control::Slide(2)));
        assert_eq!(parse_control(" Slide  0 "), Ok(Control::Slide(0)));
        assert_eq!(parse_control("open_qa"), Ok(Control::OpenQa));
        assert_eq!(parse_control("Open Q&A"), Ok(Control::OpenQa));
        assert_eq!(parse_control("END"), Ok(Control::End));
        assert_eq!(parse_control("next"), Ok(Control::Next));
        assert_eq!(
            parse_control("hand skeptic 0.9"),
            Ok(Control::Hand {
                agent: "skeptic".into(),
                urgency: 0.9
            })
        );
        assert_eq!(parse_control("ack"), Ok(Control::Ack(None)));
        assert_eq!(parse_control("move_on"), Ok(Control::MoveOn));
        assert_eq!(parse_control("Let's move on"), Ok(Control::MoveOn));
        assert!(parse_control("slide two").is_err());
        assert!(parse_control("dance").is_err());
        assert!(parse_control("  ").is_err());
        assert!(parse_control("hand").is_err());
    }

    #[test]
    fn a_prepared_question_is_said_in_at_most_two_sentences() {
        assert_eq!(
            prepared_question("How does it  work? Why now? What about drones?").as_deref(),
            Some("How does it work? Why now?")
        );
        assert_eq!(
            prepared_question("\"What is your margin\"").as_deref(),
            Some("What is your margin")
        );
        assert_eq!(prepared_question("  "), None);
        // The model's comment on its own question is not said.
        assert_eq!(
            prepared_question(
                "What is the margin? --- This question builds on the exchange by asking."
            )
            .as_deref(),
            Some("What is the margin?")
        );
        assert_eq!(
            prepared_question("What is the margin? This builds on the exchange.").as_deref(),
            Some("What is the margin?")
        );
        assert_eq!(
            prepared_question("What is the margin?\nRationale: it matters.").as_deref(),
            Some("What is the margin?")
        );
        // A lead-in is said with its question.
        assert_eq!(
            prepared_question("Margins are thin. What is yours?").as_deref(),
            Some("Margins are thin. What is yours?")
        );
    }

    #[test]
    fn prepared_questions_are_quoted_once() {
        let deck = Deck::parse(DECK);
        let text = instruction_text(
            Instruction::AskQuestion,
            Some("What is \"your\" margin?"),
            &deck,
            2,
            None,
        );
        assert_eq!(text.matches('\u{201c}').count(), 1, "{text}");
        assert!(!text.contains('"'), "{text}");
        assert!(
            text.ends_with("\u{201c}What is your margin?\u{201d}"),
            "{text}"
        );
        let follow = instruction_text(
            Instruction::FollowUp,
            None,
            &deck,
            2,
            Some("About 62 percent."),
        );
        assert!(follow.contains("62 percent"));
        let prompt = request_prompt(CandidatePurpose::Question, &deck, 2, None);
        assert!(!prompt.contains('"'), "{prompt}");
        assert!(prompt.contains("Pricing"));
    }

    #[test]
    fn relevance_grows_with_shared_words() {
        let deck = Deck::parse(DECK);
        let slide = deck.slide(1);
        assert_eq!(relevance("Who cooks dinner?", slide), 0.0);
        let one = relevance("How big is the market?", slide);
        let two = relevance("How did you survey the market?", slide);
        assert!(one > 0.0 && two > one && two < 1.0, "{one} {two}");
        assert_eq!(relevance("anything", None), 0.0);
    }
}
