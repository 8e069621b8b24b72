//! Short phrases voiced ahead while the voice has nothing else to do: an answer's opener
//! ("Sure.", `voice_protocol::openers::PHRASES`) then sounds the moment it arrives instead
//! of after its own synthesis (Kokoro needs about a second of one core per second of
//! speech). Only for a speaker who has said one: voicing every phrase of every voice at
//! the start would slow the first turns.

use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct Prepared {
    /// The speakers whose voice is worth it (the backend's choice).
    speakers: Vec<String>,
    phrases: &'static [&'static str],
    /// Speakers whose phrases are voiced or queued.
    started: Vec<String>,
    /// What is left to voice, popped from the back.
    todo: Vec<(String, String)>,
    audio: HashMap<(String, String), Vec<f32>>,
}

impl Prepared {
    pub fn new(speakers: Vec<String>, phrases: &'static [&'static str]) -> Self {
        Self {
            speakers,
            phrases,
            ..Self::default()
        }
    }

    /// The audio of `text` in `speaker`'s voice, if it was kept.
    pub fn get(&self, speaker: &str, text: &str) -> Option<&Vec<f32>> {
        self.audio.get(&(speaker.to_owned(), text.to_owned()))
    }

    /// The next (speaker, phrase) to voice while idle.
    pub fn next_to_voice(&mut self) -> Option<(String, String)> {
        self.todo.pop()
    }

    /// `speaker` says `text`, voiced as `samples` (when said, or ahead): kept if it is a
    /// phrase, and the speaker's other phrases are voiced ahead from now on.
    pub fn said(&mut self, speaker: &str, text: &str, samples: &[f32]) {
        if !self.phrases.contains(&text) || !self.speakers.iter().any(|s| s == speaker) {
            return;
        }
        self.audio
            .insert((speaker.to_owned(), text.to_owned()), samples.to_vec());
        if !self.started.iter().any(|s| s == speaker) {
            self.started.push(speaker.to_owned());
            self.todo.extend(
                self.phrases
                    .iter()
                    .rev()
                    .filter(|p| **p != text)
                    .map(|p| (speaker.to_owned(), (*p).to_owned())),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PHRASES: &[&str] = &["Sure.", "Okay.", "Right."];

    #[test]
    fn a_speakers_phrases_are_queued_once_it_says_one() {
        let mut p = Prepared::new(vec!["tutor".into()], PHRASES);
        // Not a phrase, or not a speaker worth it: nothing kept, nothing queued.
        p.said("tutor", "The slope is two.", &[0.1]);
        p.said("student", "Sure.", &[0.1]);
        assert_eq!(p.next_to_voice(), None);
        assert!(p.get("student", "Sure.").is_none());
        p.said("tutor", "Okay.", &[0.2]);
        assert_eq!(p.get("tutor", "Okay."), Some(&vec![0.2]));
        let mut queued = Vec::new();
        while let Some((speaker, text)) = p.next_to_voice() {
            p.said(&speaker, &text, &[0.3]);
            queued.push(text);
        }
        // The others, in order; saying one again queues nothing more.
        assert_eq!(queued, ["Sure.", "Right."]);
        p.said("tutor", "Sure.", &[0.3]);
        assert_eq!(p.next_to_voice(), None);
        assert!(PHRASES.iter().all(|t| p.get("tutor", t).is_some()));
    }
}
