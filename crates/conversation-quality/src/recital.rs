//! Recited instructions: a participant saying its prompt aloud instead of speaking in
//! character ("You are a patient calculus tutor...", "Here's a revised version").

use std::collections::HashMap;

use crate::inputs::Persona;
use text::words::{contains_phrase, words};

/// How many consecutive words a line must share with a persona's instructions to recite
/// them: long enough that two people saying the same thing by chance is rare.
pub const RECITAL_RUN: usize = 6;

/// Phrases of prompts and of a model talking about its prompt, never of a conversation:
/// a line holding one (whole words, any case) recites instructions.
pub const INSTRUCTION_PHRASES: &[&str] = &[
    "you are a",
    "your role is",
    "in one or two sentences",
    "in two or three sentences",
    "probe the answer",
    "the moderator asks you",
    "here's a revised version",
    "here is a revised version",
    "here's a sample of how",
    "here is a sample of how",
    "your mood is",
    "as an ai",
    "as a language model",
    "for this turn",
    "do not repeat",
    "without a name tag",
    "reply with your own spoken words",
    "other speakers' lines are shown as",
];

/// What a line recited.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recital {
    /// A run of [`RECITAL_RUN`] words of this persona's instructions.
    Persona { persona: String, run: String },
    /// One of [`INSTRUCTION_PHRASES`].
    Phrase(&'static str),
}

/// The instructions the participants were given, indexed for lookup.
#[derive(Debug, Clone, Default)]
pub struct Instructions {
    /// Every run of [`RECITAL_RUN`] words of a persona body, with its persona's name.
    runs: HashMap<Vec<String>, String>,
    phrases: Vec<(&'static str, Vec<String>)>,
}

impl Instructions {
    pub fn new(personas: &[Persona]) -> Self {
        let mut runs = HashMap::new();
        for persona in personas {
            for run in words(&persona.instructions).windows(RECITAL_RUN) {
                runs.entry(run.to_vec())
                    .or_insert_with(|| persona.name.clone());
            }
        }
        let phrases = INSTRUCTION_PHRASES.iter().map(|p| (*p, words(p))).collect();
        Self { runs, phrases }
    }

    /// What `line` (its words) recites, if anything.
    pub fn recited(&self, line: &[String]) -> Option<Recital> {
        let from_persona = line.windows(RECITAL_RUN).find_map(|run| {
            self.runs.get(run).map(|persona| Recital::Persona {
                persona: persona.clone(),
                run: run.join(" "),
            })
        });
        from_persona.or_else(|| {
            self.phrases
                .iter()
                .find(|(_, phrase)| contains_phrase(line, phrase))
                .map(|(text, _)| Recital::Phrase(text))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn instructions() -> Instructions {
        Instructions::new(&[Persona {
            name: "tutor".into(),
            display_name: None,
            instructions: "Explain with one concrete example at a time, and keep every reply \
                           to two or three spoken sentences."
                .into(),
        }])
    }

    #[test]
    fn six_words_of_a_persona_body_are_a_recital() {
        let r = instructions().recited(&words("Sure! Keep every reply to two or three words."));
        assert_eq!(
            r,
            Some(Recital::Persona {
                persona: "tutor".into(),
                run: "keep every reply to two or".into()
            })
        );
    }

    #[test]
    fn five_shared_words_are_not() {
        let r = instructions().recited(&words("Explain with one concrete example, please."));
        assert_eq!(r, None);
    }

    #[test]
    fn an_instruction_phrase_is_a_recital_in_any_case() {
        assert_eq!(
            instructions().recited(&words("Here's a REVISED version of my answer.")),
            Some(Recital::Phrase("here's a revised version"))
        );
        assert_eq!(
            instructions().recited(&words("As an AI, I cannot")),
            Some(Recital::Phrase("as an ai"))
        );
        assert_eq!(instructions().recited(&words("You area a")), None);
    }
}
