//! The conversation as every participant sees it.

use std::collections::VecDeque;

use crate::{
    persona::Persona,
    prompt::{Prompt, PromptLine},
};

/// One utterance of the conversation.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Entry {
    pub speaker: String,
    pub text: String,
    pub question_id: u64,
    pub interrupted: bool,
    pub human: bool,
}

impl Entry {
    /// A complete utterance; `human` is the name `human` (set the field for others).
    pub fn new(speaker: &str, text: &str, question_id: u64) -> Self {
        Self {
            speaker: speaker.to_owned(),
            text: text.to_owned(),
            question_id,
            interrupted: false,
            human: speaker == "human",
        }
    }
}

/// The last `capacity` utterances, oldest first.
#[derive(Debug, Clone)]
pub struct History {
    entries: VecDeque<Entry>,
    capacity: usize,
}

impl History {
    pub fn new(capacity: usize) -> Self {
        Self {
            entries: VecDeque::new(),
            capacity: capacity.max(1),
        }
    }

    /// Adds an utterance; the same (speaker, question id) is only kept once.
    pub fn push(&mut self, entry: Entry) {
        if self
            .entries
            .iter()
            .any(|e| e.question_id == entry.question_id && e.speaker == entry.speaker)
        {
            return;
        }
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back(entry);
    }

    /// The utterance (`speaker`, `question_id`) was cut off after `heard`: only that stays
    /// in the context. Unknown so far: it is added as heard.
    pub fn cut_to_heard(&mut self, speaker: &str, question_id: u64, heard: &str) {
        match self
            .entries
            .iter_mut()
            .find(|e| e.question_id == question_id && e.speaker == speaker)
        {
            Some(entry) => {
                entry.text = heard.to_owned();
                entry.interrupted = true;
            }
            None => {
                let mut entry = Entry::new(speaker, heard, question_id);
                entry.interrupted = true;
                self.push(entry);
            }
        }
        // An utterance nobody heard a word of is not part of the conversation.
        self.entries.retain(|e| {
            !(e.question_id == question_id && e.speaker == speaker && e.text.trim().is_empty())
        });
    }

    /// Drops the participants' lines after `held`, the line the voice was held on, and
    /// before `until`: queued behind it, none of them sounded (a line written while the
    /// human spoke was read into the answer's prompt, and the answer read its prompt
    /// again for it).
    pub fn drop_queued(&mut self, held: u64, until: u64) {
        self.entries
            .retain(|e| e.human || e.question_id <= held || e.question_id >= until);
    }

    pub fn entries(&self) -> impl DoubleEndedIterator<Item = &Entry> + ExactSizeIterator {
        self.entries.iter()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The prompt of a model call by `persona` on `topic`: its system prompt and every
    /// utterance, the others called by `name_of(id)` (how the participants address each
    /// other), its own lines by its spoken name.
    pub fn prompt(
        &self,
        persona: &Persona,
        topic: Option<&str>,
        name_of: impl Fn(&str) -> String,
    ) -> Prompt {
        let lines = self
            .entries
            .iter()
            .map(|e| {
                let own = e.speaker == persona.name;
                let speaker = match own {
                    true => persona.spoken_name().to_owned(),
                    false => name_of(&e.speaker),
                };
                let suffix = if e.interrupted { " —" } else { "" };
                PromptLine {
                    speaker,
                    text: format!("{}{suffix}", e.text.trim()),
                    own,
                }
            })
            .collect();
        Prompt {
            persona: persona.system_prompt.trim().to_owned(),
            topic: topic.map(str::to_owned),
            lines,
            requests: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(speaker: &str, text: &str, q: u64) -> Entry {
        Entry::new(speaker, text, q)
    }

    #[test]
    fn attribution_and_roles() {
        let mut h = History::new(10);
        h.push(entry("student1", "What is a limit?", 1));
        h.push(entry("tutor", "A value approached.", 2));
        h.push(entry("human", "Example please", 4));
        h.push(entry("human", "Example please", 4));
        let persona = Persona::fallback("tutor");
        let p = h.prompt(&persona, Some("calculus"), str::to_owned);
        assert_eq!(p.lines.len(), 3);
        assert_eq!(p.topic.as_deref(), Some("calculus"));
        assert_eq!(p.lines[0], PromptLine::new("student1", "What is a limit?"));
        assert!(p.lines[1].own);
        assert_eq!(p.lines[1].text, "A value approached.");
        assert_eq!(p.lines[2], PromptLine::new("human", "Example please"));
    }

    #[test]
    fn interrupted_utterances_keep_only_what_was_heard() {
        let mut h = History::new(10);
        h.push(entry(
            "tutor",
            "A limit is the value a function approaches as x grows.",
            5,
        ));
        h.cut_to_heard("tutor", 5, "A limit is the value");
        let e = h.entries().next().unwrap();
        assert_eq!(e.text, "A limit is the value");
        assert!(e.interrupted);
        // Heard before the controller's copy arrived: the heard text wins.
        h.cut_to_heard("ben", 6, "So");
        h.push(entry("ben", "So what about infinity?", 6));
        assert_eq!(h.entries().last().unwrap().text, "So");
        // Nothing heard at all: gone from the context.
        h.push(entry("mia", "Never heard.", 7));
        h.cut_to_heard("mia", 7, "");
        assert_eq!(h.len(), 2);
    }

    #[test]
    fn capacity_keeps_the_newest() {
        let mut h = History::new(2);
        for q in 0..5 {
            h.push(entry("a", "x", q));
        }
        assert_eq!(h.len(), 2);
        assert_eq!(h.entries().next().unwrap().question_id, 3);
    }
}
