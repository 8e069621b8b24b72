//! Messages in dora node-hub style: a node-hub LLM or ASR node sends its text as a bare
//! Utf8 array, a node-hub TTS node its speech as bare Float32 samples with `sample_rate`;
//! neither says which turn it belongs to. Such a message is taken as one complete
//! utterance under a question id of its own, drawn above every id seen so far, so it is
//! never mistaken for stale data or merged into another turn.

/// Hands out question ids to messages that come without one.
#[derive(Debug, Clone, Default)]
pub struct LocalQuestionIds {
    highest_seen: u64,
}

impl LocalQuestionIds {
    /// A message carrying `question_id` passed by: later local ids stay above it.
    pub fn observe(&mut self, question_id: u64) {
        self.highest_seen = self.highest_seen.max(question_id);
    }

    /// The id for a message that has none: its own, above every id seen.
    pub fn fresh(&mut self) -> u64 {
        self.highest_seen = self.highest_seen.saturating_add(1);
        self.highest_seen
    }

    /// The message's own id when it has one (noted), else a fresh local one.
    pub fn or_fresh(&mut self, question_id: Option<u64>) -> u64 {
        match question_id {
            Some(id) => {
                self.observe(id);
                id
            }
            None => self.fresh(),
        }
    }
}

/// The speaker a node-hub-style input speaks for: the `speaker` metadata when given, else
/// the input id's suffix after `prefix_` (`text_guide` → `guide`), else `fallback`.
pub fn speaker_of<'a>(
    input_id: &'a str,
    prefix: &str,
    metadata_speaker: Option<&'a str>,
    fallback: &'a str,
) -> &'a str {
    if let Some(speaker) = metadata_speaker.filter(|s| !s.trim().is_empty()) {
        return speaker;
    }
    input_id
        .strip_prefix(prefix)
        .and_then(|rest| rest.strip_prefix('_'))
        .filter(|rest| !rest.is_empty())
        .unwrap_or(fallback)
}

/// Whether `input_id` is `prefix` or `prefix_<name>`.
pub fn is_input(input_id: &str, prefix: &str) -> bool {
    input_id == prefix
        || input_id
            .strip_prefix(prefix)
            .is_some_and(|rest| rest.len() > 1 && rest.starts_with('_'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn local_ids_stay_above_every_id_seen() {
        let mut ids = LocalQuestionIds::default();
        assert_eq!(ids.fresh(), 1);
        ids.observe(7);
        assert_eq!(ids.or_fresh(None), 8);
        assert_eq!(ids.or_fresh(Some(3)), 3);
        assert_eq!(ids.fresh(), 9);
        ids.observe(u64::MAX);
        assert_eq!(ids.fresh(), u64::MAX);
    }

    #[test]
    fn speakers_and_inputs_by_name() {
        assert_eq!(speaker_of("text_guide", "text", None, "voice"), "guide");
        assert_eq!(speaker_of("text", "text", None, "voice"), "voice");
        assert_eq!(speaker_of("text_", "text", None, "voice"), "voice");
        assert_eq!(speaker_of("text_x", "text", Some("tutor"), "v"), "tutor");
        assert_eq!(speaker_of("text_x", "text", Some(" "), "v"), "x");
        assert!(is_input("audio", "audio"));
        assert!(is_input("audio_hub", "audio"));
        assert!(!is_input("audio_", "audio"));
        assert!(!is_input("audios", "audio"));
        assert!(!is_input("segment", "audio"));
    }

    proptest! {
        #[test]
        fn local_ids_increase_and_never_repeat_a_seen_id(seen in prop::collection::vec(prop::option::of(0u64..1_000), 0..50)) {
            let mut ids = LocalQuestionIds::default();
            let mut highest = 0;
            for id in seen {
                let got = ids.or_fresh(id);
                match id {
                    Some(id) => prop_assert_eq!(got, id),
                    None => prop_assert!(got > highest),
                }
                highest = highest.max(got);
            }
        }
    }
}
