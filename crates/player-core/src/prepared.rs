//! Short phrases voiced ahead while the voice has nothing else to do: an answer's opener
//! ("Sure.", `voice_protocol::openers::PHRASES`) then sounds the moment it arrives instead
//! of after its own synthesis (Kokoro needs about a second of one core per second of
//! speech). Every phrase of every speaker is queued from the start, the most used first;
//! voicing one ahead gives way to a turn's text the moment it comes (the worker stops the
//! call and puts the phrase back), so it never delays what a listener waits for.

use std::collections::HashMap;

#[derive(Debug, Default)]
pub struct Prepared {
    /// The speakers whose voice is worth it (the backend's choice).
    speakers: Vec<String>,
    phrases: &'static [&'static str],
    /// What is left to voice, popped from the back.
    todo: Vec<(String, String)>,
    audio: HashMap<(String, String), Vec<f32>>,
}

impl Prepared {
    /// Queues each of `phrases` for each of `speakers`: the first phrase for everyone,
    /// then the second, and so on (the list holds the most used first).
    pub fn new(speakers: Vec<String>, phrases: &'static [&'static str]) -> Self {
        let mut todo: Vec<(String, String)> = phrases
            .iter()
            .flat_map(|p| speakers.iter().map(|s| (s.clone(), (*p).to_owned())))
            .collect();
        todo.reverse();
        Self {
            speakers,
            phrases,
            todo,
            audio: HashMap::new(),
        }
    }

    /// The audio of `text` in `speaker`'s voice, if it was kept.
    pub fn get(&self, speaker: &str, text: &str) -> Option<&Vec<f32>> {
        self.audio.get(&(speaker.to_owned(), text.to_owned()))
    }

    /// Whether `text` in `speaker`'s voice is worth voicing ahead now: a phrase of a
    /// speaker worth it, not kept yet.
    pub fn wants(&self, speaker: &str, text: &str) -> bool {
        self.phrases.contains(&text)
            && self.speakers.iter().any(|s| s == speaker)
            && self.get(speaker, text).is_none()
    }

    /// The next (speaker, phrase) to voice while idle.
    pub fn next_to_voice(&mut self) -> Option<(String, String)> {
        self.todo.pop()
    }

    /// Voicing `text` ahead was stopped (a turn's text came): it is the next one again.
    pub fn put_back(&mut self, speaker: String, text: String) {
        self.todo.push((speaker, text));
    }

    /// `speaker` says `text`, voiced as `samples` (when said, or ahead): kept if it is a
    /// phrase of a speaker worth it, and no longer voiced ahead.
    pub fn said(&mut self, speaker: &str, text: &str, samples: &[f32]) {
        if !self.phrases.contains(&text) || !self.speakers.iter().any(|s| s == speaker) {
            return;
        }
        self.audio
            .insert((speaker.to_owned(), text.to_owned()), samples.to_vec());
        self.todo.retain(|(s, t)| !(s == speaker && t == text));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PHRASES: &[&str] = &["Sure.", "Okay.", "Right."];

    #[test]
    fn every_phrase_is_queued_once_the_most_used_first() {
        let mut p = Prepared::new(vec!["tutor".into(), "mia".into()], PHRASES);
        // Not a phrase, or not a speaker worth it: nothing kept.
        p.said("tutor", "The slope is two.", &[0.1]);
        p.said("student", "Sure.", &[0.1]);
        assert!(p.get("student", "Sure.").is_none());
        // Said in a turn before it was voiced ahead: kept, and not voiced again.
        assert!(p.wants("mia", "Okay."));
        p.said("mia", "Okay.", &[0.2]);
        assert_eq!(p.get("mia", "Okay."), Some(&vec![0.2]));
        assert!(!p.wants("mia", "Okay."), "kept already");
        assert!(!p.wants("student", "Okay."), "not a speaker worth it");
        assert!(!p.wants("mia", "Hello."), "not a phrase");
        let mut queued = Vec::new();
        while let Some((speaker, text)) = p.next_to_voice() {
            if queued.len() == 1 {
                // Stopped for a turn's text: it comes again next.
                p.put_back(speaker.clone(), text.clone());
                let again = p.next_to_voice().unwrap();
                assert_eq!(again, (speaker.clone(), text.clone()));
            }
            p.said(&speaker, &text, &[0.3]);
            queued.push(format!("{speaker} {text}"));
        }
        assert_eq!(
            queued,
            [
                "tutor Sure.",
                "mia Sure.",
                "tutor Okay.",
                "tutor Right.",
                "mia Right."
            ]
        );
        for speaker in ["tutor", "mia"] {
            assert!(PHRASES.iter().all(|t| p.get(speaker, t).is_some()));
        }
        assert_eq!(p.next_to_voice(), None);
    }
}
