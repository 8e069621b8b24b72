//! The panel's verdict on an answer: after each exchange the panelist who asked rates the
//! presenter's answer (a side request to its bridge), with one sentence why. A reply that
//! does not open with a verdict is recorded as unrated, never guessed.

use serde::{Deserialize, Serialize};

/// The side request's kind.
pub const RATING_KIND: &str = "rating";

/// How the prompt names the question and the answer (the scripted stand-in reads them).
pub const QUESTION_LABEL: &str = "Your question was:";
pub const ANSWER_LABEL: &str = "The presenter's answer:";

/// Words a rating may have.
pub const RATING_MAX_WORDS: u32 = 40;

/// What a rating opens with (an embedded model is held to one of them): the verdict and
/// "because", so that a reason follows rather than more of the verdict ("Partly
/// answered.") or the answer quoted back.
pub const RATING_VERDICTS: [&str; 3] = ["Answered, because", "Partly, because", "Dodged, because"];

/// How long a rating is still wanted: it is read at the debrief, so it may wait behind
/// the panel's turns on a busy machine.
pub const RATING_WITHIN_MS: u64 = 120_000;

/// How well an answer met its question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rating {
    /// Sidestepped the question (the weakest).
    Dodged,
    /// Took it up without settling it.
    Partly,
    Answered,
}

impl Rating {
    pub fn as_str(self) -> &'static str {
        match self {
            Rating::Dodged => "dodged",
            Rating::Partly => "partly",
            Rating::Answered => "answered",
        }
    }
}

/// One exchange's rating, or why there is none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingRecord {
    pub exchange: u64,
    /// The panelist who asked (its identifier).
    pub agent: String,
    pub slide: usize,
    pub question: String,
    pub answer: String,
    /// `None`: unrated (no reply yet or in time, an error, or a reply without a verdict).
    pub rating: Option<Rating>,
    /// The panelist's reason, or why the answer is unrated.
    pub why: String,
}

/// The request's prompt.
pub fn rating_prompt(question: &str, answer: &str) -> String {
    format!(
        "{QUESTION_LABEL} {question}\n{ANSWER_LABEL} {answer}\n\
         Rate the answer: start with one word, answered, partly or dodged, then say why in \
         one sentence starting with because."
    )
}

/// A verdict and its reason from a panelist's reply: its first word must be the verdict
/// ("Partly: the cost per site is missing."); anything else is `None`.
pub fn parse_rating(reply: &str) -> Option<(Rating, String)> {
    let text = reply.trim_start_matches(|c: char| !c.is_alphanumeric());
    let end = text
        .find(|c: char| !c.is_alphanumeric())
        .unwrap_or(text.len());
    let rating = match text[..end].to_lowercase().as_str() {
        "answered" => Rating::Answered,
        "partly" | "partially" => Rating::Partly,
        "dodged" => Rating::Dodged,
        _ => return None,
    };
    let why = text[end..]
        .trim_start_matches(|c: char| !c.is_alphanumeric())
        .trim()
        .to_owned();
    Some((rating, why))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_verdict_opens_the_reply_or_there_is_none() {
        assert_eq!(
            parse_rating("Partly: the cost per site is missing."),
            Some((Rating::Partly, "the cost per site is missing.".into()))
        );
        assert_eq!(
            parse_rating("**Dodged** — no figure at all"),
            Some((Rating::Dodged, "no figure at all".into()))
        );
        // As the embedded model is held to open (RATING_VERDICTS).
        for verdict in RATING_VERDICTS {
            let (_, why) = parse_rating(&format!("{verdict} no margin figure.")).unwrap();
            assert_eq!(why, "because no margin figure.");
        }
        assert_eq!(
            parse_rating("ANSWERED."),
            Some((Rating::Answered, String::new()))
        );
        for unrated in [
            "",
            "The presenter dodged it.",
            "I think it was answered.",
            "answeredish",
            "4/5",
        ] {
            assert_eq!(parse_rating(unrated), None, "{unrated}");
        }
        assert!(Rating::Dodged < Rating::Partly && Rating::Partly < Rating::Answered);
    }

    #[test]
    fn the_prompt_names_question_and_answer() {
        let prompt = rating_prompt("What margin?", "Sixty percent.");
        assert!(prompt.contains("Your question was: What margin?"));
        assert!(prompt.contains("The presenter's answer: Sixty percent."));
    }

    proptest! {
        #[test]
        fn any_reply_parses_or_is_unrated_without_panic(reply in ".{0,80}") {
            if let Some((_, why)) = parse_rating(&reply) {
                prop_assert!(why.len() <= reply.len());
            }
        }
    }
}
