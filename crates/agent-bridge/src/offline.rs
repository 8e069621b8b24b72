//! The offline model: deterministic, persona-aware replies without any network.
//!
//! It keeps every dataflow runnable on a fresh machine and makes tests reproducible. The
//! reply depends only on the persona, the topic and the conversation so far: it picks a
//! line from its role's repertoire and weaves in who spoke last and a salient word of
//! what they said.

use crate::{history::History, persona::Persona};

/// Which repertoire a role uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repertoire {
    /// Leads the conversation: tutor, teacher, moderator, judge, host, chair.
    Lead,
    /// Asks and tries: student, guest, learner.
    Learner,
    /// Argues a position: expert, defense, prosecution, debater, panelist.
    Advocate,
}

fn repertoire(role: &str) -> Repertoire {
    let role = role.to_lowercase();
    let lead = [
        "tutor",
        "teacher",
        "moderator",
        "judge",
        "host",
        "chair",
        "老师",
    ];
    let learner = ["student", "guest", "learner", "pupil", "学生"];
    if lead.iter().any(|r| role.contains(r)) {
        Repertoire::Lead
    } else if learner.iter().any(|r| role.contains(r)) {
        Repertoire::Learner
    } else {
        Repertoire::Advocate
    }
}

const LEAD: &[&str] = &[
    "Good point, {prev}. Let's slow down on {word}: what it means for {topic}, and where it usually trips people up.",
    "Thank you, {prev}. The key idea about {word} is simple: build intuition first, then the formal definition.",
    "Let me connect that to {topic}. When you hear {word}, think of one concrete example before any rule.",
    "That's a fair question, {prev}. Here's a short answer. {word} matters because it links the pieces of {topic} together. Who wants to try an example?",
    "Nice. Notice how {word} came up again. Can someone restate it in their own words?",
    "Let's summarize where we are on {topic}. We covered {word}, and the next step is to apply it.",
];

const LEARNER: &[&str] = &[
    "I think I get {word}, but how would I use it in a real problem about {topic}?",
    "Wait, {prev}, when you said {word}, did you mean it always works, or only in special cases?",
    "Let me try. {word} is like a shortcut that tells us what happens before we compute everything.",
    "Could you give an example with numbers? I understand {word} better that way.",
    "So if I change one thing, does {word} still hold? That part of {topic} confuses me.",
    "Oh, that makes sense now. {word} connects to what we saw earlier.",
];

const ADVOCATE: &[&str] = &[
    "I disagree with {prev} on {word}. The evidence on {topic} points the other way, and I can show why.",
    "Let me build on that. {word} is the crux here, and it cuts in our favour.",
    "With respect, {prev}, {word} is not the whole story. Consider the context of {topic}.",
    "Two facts matter. First, {word}. Second, nobody has answered the strongest objection yet.",
    "I'll concede one point on {word}, but the conclusion still does not follow.",
    "Here is the short version: {topic} turns on {word}, and the burden is on the other side.",
];

const OPENERS: &[&str] = &[
    "Let's begin with {topic}. What do we already know about it?",
    "To start us off on {topic}: here is the question I keep coming back to.",
    "My opening thought on {topic}: the basics matter more than the details.",
];

const COMMON: &[&str] = &[
    "the",
    "and",
    "that",
    "this",
    "with",
    "what",
    "when",
    "would",
    "could",
    "there",
    "their",
    "about",
    "which",
    "where",
    "your",
    "have",
    "from",
    "then",
    "them",
    "they",
    "just",
    "like",
    "does",
    "into",
    "than",
    "only",
    "some",
    "here",
    "good",
    "point",
    "think",
    "still",
    "again",
    "because",
    "really",
    "question",
    "example",
    "please",
    "thanks",
    "thank",
    "sorry",
    "interrupt",
    "actual",
    "actually",
    "together",
    "details",
    "basics",
    "matter",
    "everything",
    "before",
    "happens",
    "earlier",
    "connects",
    "already",
    "other",
    "more",
    "said",
    "mean",
];

/// A salient word of `text`: the longest word that is neither common nor already part
/// of the topic (repeating the topic back sounds robotic).
fn salient_word(text: &str, topic: &str) -> Option<String> {
    let topic = topic.to_lowercase();
    text.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'')
        .filter(|w| w.chars().count() >= 4 && !w.chars().any(|c| c.is_ascii_digit()))
        .filter(|w| !COMMON.contains(&w.to_lowercase().as_str()))
        .filter(|w| !topic.contains(&w.to_lowercase()))
        .max_by_key(|w| w.chars().count())
        .map(|w| w.to_lowercase())
}

fn fnv1a(parts: &[&str], n: u64) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in parts
        .iter()
        .flat_map(|p| p.bytes().chain([0xff]))
        .chain(n.to_le_bytes())
    {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The offline reply of `persona` after the conversation in `history`.
pub fn reply(persona: &Persona, topic: Option<&str>, history: &History) -> String {
    let topic = topic.unwrap_or("today's topic");
    let mine = history
        .entries()
        .filter(|e| e.speaker == persona.name)
        .count() as u64;
    let last_other = history.entries().rev().find(|e| e.speaker != persona.name);
    let Some(prev) = last_other else {
        let line = OPENERS[(fnv1a(&[&persona.name], mine) % OPENERS.len() as u64) as usize];
        return line.replace("{topic}", topic);
    };
    let bank = match repertoire(&persona.role) {
        Repertoire::Lead => LEAD,
        Repertoire::Learner => LEARNER,
        Repertoire::Advocate => ADVOCATE,
    };
    let pick = fnv1a(&[&persona.name, &prev.speaker, &prev.text], mine) % bank.len() as u64;
    let word = salient_word(&prev.text, topic).unwrap_or_else(|| "this idea".to_owned());
    let mut line = bank[pick as usize]
        .replace("{prev}", &prev.speaker)
        .replace("{word}", &word)
        .replace("{topic}", topic);
    if prev.human && repertoire(&persona.role) == Repertoire::Lead {
        line = format!("Thanks for jumping in. You asked about {word}. {line}");
    }
    capitalize_sentences(&line)
}

/// Upper-cases the first letter of every sentence (inserted words start lower-case).
fn capitalize_sentences(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut sentence_start = true;
    for c in text.chars() {
        if sentence_start && c.is_alphabetic() {
            out.extend(c.to_uppercase());
            sentence_start = false;
            continue;
        }
        if matches!(c, '.' | '?' | '!') {
            sentence_start = true;
        } else if !c.is_whitespace() {
            sentence_start = false;
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Entry;

    fn entry(speaker: &str, text: &str, q: u64) -> Entry {
        Entry::new(speaker, text, q)
    }

    #[test]
    fn deterministic_and_persona_aware() {
        let tutor = Persona::fallback("tutor");
        let student = Persona::fallback("student1");
        let mut h = History::new(20);
        let opening = reply(&student, Some("derivatives"), &h);
        assert!(opening.contains("derivatives"));
        h.push(entry("student1", "How do derivatives measure change?", 1));
        let a = reply(&tutor, Some("derivatives"), &h);
        assert_eq!(a, reply(&tutor, Some("derivatives"), &h));
        assert!(a.contains("measure") || a.contains("student1"), "{a}");
        h.push(entry("human", "Can you explain integrals instead?", 3));
        let answer = reply(&tutor, Some("derivatives"), &h);
        assert!(
            answer.starts_with("Thanks for jumping in. You asked about integrals."),
            "{answer}"
        );
    }

    #[test]
    fn salient_words() {
        assert_eq!(
            salient_word("What is a derivative?", "x").as_deref(),
            Some("derivative")
        );
        assert_eq!(salient_word("What is a derivative?", "derivatives"), None);
        assert_eq!(salient_word("ok", "x"), None);
        assert_eq!(
            capitalize_sentences("yes. derivative matters? a b"),
            "Yes. Derivative matters? A b"
        );
    }
}
