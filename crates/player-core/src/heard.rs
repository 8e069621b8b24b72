//! What a listener heard of an utterance or a clip: the one bookkeeping of the queued
//! utterances and the clips' voices, whose reports (`Played`, `Held`, `ClipFinished`)
//! the bridges take as what was said.

/// The parts played so far, joined by spaces, and their length in characters.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Heard {
    text: String,
    chars: usize,
}

impl Heard {
    /// Adds a part played (trimmed; an empty one adds nothing).
    pub(crate) fn push(&mut self, part: &str) {
        let part = part.trim();
        if part.is_empty() {
            return;
        }
        if !self.text.is_empty() {
            self.text.push(' ');
        }
        self.text.push_str(part);
        self.chars += part.chars().count();
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// The characters heard (the `chars_played` of a report).
    pub(crate) fn chars(&self) -> usize {
        self.chars
    }

    pub(crate) fn into_text(self) -> String {
        self.text
    }
}

/// The words of `text` heard once `position` of its `samples` have played: the same share
/// of its characters, cut back to the last whole word (all of it once the share is whole).
/// `None` before its first sample or for a part without audio.
pub(crate) fn heard_part(text: &str, position: usize, samples: usize) -> Option<String> {
    if samples == 0 || position == 0 {
        return None;
    }
    let total = text.chars().count();
    let heard = ((total as f64) * position as f64 / samples as f64).round() as usize;
    let prefix: String = text.chars().take(heard).collect();
    let cut = match prefix.rfind(char::is_whitespace) {
        Some(i) if heard < total => &prefix[..i],
        _ => prefix.as_str(),
    };
    Some(cut.trim_end().to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_join_with_one_space_and_count_characters() {
        let mut heard = Heard::default();
        heard.push(" Hello there. ");
        heard.push("");
        heard.push("你好。");
        assert_eq!((heard.text(), heard.chars()), ("Hello there. 你好。", 15));
    }

    #[test]
    fn a_part_heard_halfway_keeps_its_whole_words() {
        assert_eq!(heard_part("one two three four", 0, 100), None);
        assert_eq!(heard_part("one two three four", 50, 0), None);
        assert_eq!(
            heard_part("one two three four", 50, 100).as_deref(),
            Some("one two")
        );
        assert_eq!(
            heard_part("one two three four", 100, 100).as_deref(),
            Some("one two three four")
        );
    }
}
