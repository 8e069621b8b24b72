//! Side requests: short, non-spoken questions a conductor (a moderator, an auction) puts
//! to a participant's model — its intent to speak, a bid, a candidate question, a kicker
//! or an interjection — answered on the bridge's `reply` output.
//!
//! The request itself is voice-protocol's [`SideRequest`] (one encoding, read strictly);
//! here is how a participant answers one. The scripted stand-in answers no JSON requests:
//! the conductor's heuristic decides then, exactly as when a service fails or times out.

pub use voice_protocol::messages::{DEFAULT_MAX_WORDS, MAX_PROMPT_BYTES, SideRequest};

use crate::{history::History, persona::Persona, prompt::Prompt, scripted};

/// How a participant answers a side request: with its model, or with the scripted stand-in.
pub trait Answering {
    /// The prompt for a model: the participant's whole context (the others called by
    /// `name_of(id)`, as in its turns, so that both start alike), then the request.
    fn prompt(
        &self,
        persona: &Persona,
        topic: Option<&str>,
        history: &History,
        name_of: &dyn Fn(&str) -> String,
    ) -> Prompt;

    /// The scripted stand-in's answer: a short persona line for text requests; an error
    /// for JSON requests (the conductor's heuristic decides).
    fn scripted_answer(
        &self,
        persona: &Persona,
        topic: Option<&str>,
        history: &History,
    ) -> Result<String, String>;
}

impl Answering for SideRequest {
    fn prompt(
        &self,
        persona: &Persona,
        topic: Option<&str>,
        history: &History,
        name_of: &dyn Fn(&str) -> String,
    ) -> Prompt {
        let mut prompt = history.prompt(persona, topic, name_of);
        let mut content = self.prompt.trim().to_owned();
        if self.json {
            content.push_str("\nAnswer with one JSON object only, no other text.");
        } else {
            content.push_str(&format!(
                "\nAnswer in at most {} spoken words, without a name tag.",
                self.max_words()
            ));
        }
        prompt.requests.push(content);
        prompt
    }

    fn scripted_answer(
        &self,
        persona: &Persona,
        topic: Option<&str>,
        history: &History,
    ) -> Result<String, String> {
        if self.json {
            return Err(
                "the offline model gives no structured answers; the conductor's heuristic decides"
                    .to_owned(),
            );
        }
        Ok(scripted::short_line(
            persona,
            topic,
            history,
            &self.prompt,
            self.max_words(),
            &self.kind,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripted_answers_text_but_not_json() {
        let persona = Persona::fallback("skeptic");
        let history = History::new(4);
        let text = SideRequest::parse(
            r#"{"id":"k","kind":"kicker","prompt":"Cut in on the revenue claim","max_words":8}"#,
        )
        .unwrap();
        let answer = text.scripted_answer(&persona, None, &history).unwrap();
        assert!(answer.split_whitespace().count() <= 8, "{answer}");
        let json = SideRequest::parse(r#"{"id":"b","prompt":"bid","json":true}"#).unwrap();
        assert!(json.scripted_answer(&persona, None, &history).is_err());
        let p = json.prompt(&persona, Some("cities"), &history, &str::to_owned);
        assert!(p.requests.last().unwrap().contains("JSON"));
    }
}
