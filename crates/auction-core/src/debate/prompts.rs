//! What a participant is asked to say, and the sentences of a text: one beat between
//! each two.

use text_segmenter::{SegmenterConfig, TurnSegmenter};

use super::events::{HintKind, SegmentRequest};
use crate::records::ClipRole;

/// Quotes in an instruction would be spoken verbatim by the offline stand-in model.
pub(super) fn strip_quotes(text: &str) -> String {
    text.chars()
        .filter(|c| !matches!(c, '"' | '“' | '”'))
        .collect::<String>()
        .trim_end_matches(['.', '!', '?'])
        .to_owned()
}

/// Sentences of a segment (sanitized; very short ones merged): one beat between each two.
pub fn split_sentences(text: &str) -> Vec<String> {
    let mut s = TurnSegmenter::new(SegmenterConfig {
        min_chars: 12,
        max_chars: 220,
        first_clause_words: 0,
    });
    let mut out = s.push(text);
    out.extend(s.finish());
    out.into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The `instruction` of a segment turn. Its fixed words are short on purpose: the offline
/// stand-in model answers about the longest unusual word, which should come from what was
/// heard, not from the instruction's own wording.
pub fn segment_instruction(req: &SegmentRequest, heard: String) -> String {
    let hint = &req.hint;
    let words = hint.target_words.clamp(6, 40);
    let mut text = match hint.kind {
        HintKind::Open => {
            format!("Make your point in a sentence or two, about {words} words.")
        }
        HintKind::Continue => {
            format!("Go on with your point in a sentence or two, about {words} words.")
        }
        HintKind::Respond => format!(
            "{} cut you off. Answer {} in a sentence or two, about {words} words, \
             with fresh words: do not repeat what you said.",
            hint.respond_to.as_deref().unwrap_or("Someone"),
            hint.respond_to.as_deref().unwrap_or("them"),
        ),
        HintKind::FollowInterruption => format!(
            "Reply to the cut-in you just made in a sentence or two, about {words} words. \
             Do not repeat what was said."
        ),
        HintKind::AnswerHuman => format!(
            "Answer {} directly, speaking to them as you, in a sentence or two, about \
             {words} words.",
            hint.respond_to.as_deref().unwrap_or("the guest"),
        ),
    };
    // Said to the participant, never as a state or a gesture to describe: "give a nod"
    // and "Your mood: calm." came back narrated ("Hawk nodded to his friend Olivia Owl",
    // "Her mood is calm.").
    if let Some(ack) = &hint.acknowledge {
        text.push_str(&format!(
            " First tell {} in a few words what you make of their point.",
            ack.from
        ));
    }
    if !heard.is_empty() {
        text.push(' ');
        text.push_str(heard.trim_end());
    }
    let m = hint.mood;
    let tone = if m.frustration >= 0.5 {
        "with some heat"
    } else if m.engagement >= 0.6 {
        "keenly"
    } else {
        "calmly"
    };
    text.push_str(&format!(" Speak {tone}, in the first person."));
    text
}

/// Roles for logs.
pub fn role_name(role: ClipRole) -> &'static str {
    match role {
        ClipRole::Segment => "segment",
        ClipRole::Kicker => "kicker",
        ClipRole::Interjection => "interjection",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences_and_instructions() {
        assert_eq!(
            split_sentences("**Cars** choke the old town. Walking is better!"),
            ["Cars choke the old town.", "Walking is better!"]
        );
        assert!(split_sentences("   ").is_empty());
        assert_eq!(strip_quotes("He said \"no\"."), "He said no");
    }
}
