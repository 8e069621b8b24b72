//! The scripted stand-in: deterministic, persona-aware template replies without any
//! model, a test double (the embedded model is the default, and offline too).
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

/// The offline reply to a turn that came with an instruction. A quoted passage in the
/// instruction (`"..."` or `“...”`) is what to say, in the stand-in's own words: it says
/// it as is. Otherwise the reply is the persona's usual line about the instruction's
/// most salient word, so a moderator's call on a subject is answered on that subject.
pub fn instructed_reply(
    persona: &Persona,
    topic: Option<&str>,
    history: &History,
    instruction: &str,
) -> String {
    if let Some(quoted) = quoted_passage(instruction) {
        return capitalize_sentences(quoted);
    }
    let topic_text = topic.unwrap_or("today's topic");
    let Some(word) = salient_word(instruction, topic_text) else {
        return reply(persona, topic, history);
    };
    let mine = history
        .entries()
        .filter(|e| e.speaker == persona.name)
        .count() as u64;
    let prev = history
        .entries()
        .rev()
        .find(|e| e.speaker != persona.name)
        .map_or("everyone", |e| e.speaker.as_str());
    let bank = match repertoire(&persona.role) {
        Repertoire::Lead => LEAD,
        Repertoire::Learner => LEARNER,
        Repertoire::Advocate => ADVOCATE,
    };
    let pick = fnv1a(&[&persona.name, instruction], mine) % bank.len() as u64;
    capitalize_sentences(
        &bank[pick as usize]
            .replace("{prev}", prev)
            .replace("{word}", &word)
            .replace("{topic}", topic_text),
    )
}

/// The first non-empty quoted passage of `text`.
fn quoted_passage(text: &str) -> Option<&str> {
    for (open, close) in [('“', '”'), ('"', '"')] {
        if let Some(start) = text.find(open) {
            let rest = &text[start + open.len_utf8()..];
            if let Some(end) = rest.find(close) {
                let quoted = rest[..end].trim();
                if !quoted.is_empty() {
                    return Some(quoted);
                }
            }
        }
    }
    None
}

/// Words of a conductor's request that say what to do, not what about.
const INSTRUCTION_WORDS: &[&str] = &[
    "prepare",
    "sharp",
    "short",
    "sentence",
    "remark",
    "words",
    "filler",
    "builds",
    "exchange",
    "slide",
    "interjection",
    "tone",
    "support",
    "clarify",
    "challenge",
    "around",
    "turns",
    "answer",
    "spoken",
    "without",
    "kicker",
    "point",
    "said",
    "just",
    "only",
    "most",
    "least",
    "presenter",
    "question",
    "questions",
];

/// The content word of a request: from what it quotes or reports someone said (after
/// "said:"), else from the whole prompt, skipping the request's own instruction words.
fn request_word(prompt: &str, topic: &str) -> Option<String> {
    let content = quoted_passage(prompt)
        .or_else(|| prompt.split_once("said:").map(|(_, said)| said))
        .or_else(|| prompt.split_once(':').map(|(_, rest)| rest))
        .unwrap_or(prompt);
    let pick = |text: &str| {
        text.split(|c: char| !c.is_alphanumeric() && c != '-' && c != '\'')
            .filter(|w| w.chars().count() >= 4 && !w.chars().any(|c| c.is_ascii_digit()))
            .map(str::to_lowercase)
            .filter(|w| !COMMON.contains(&w.as_str()) && !INSTRUCTION_WORDS.contains(&w.as_str()))
            .filter(|w| !topic.to_lowercase().contains(w.as_str()))
            .max_by_key(|w| w.chars().count())
    };
    pick(content).or_else(|| pick(prompt))
}

const QUESTIONS_SKEPTIC: &[&str] = &[
    "What evidence shows {word} will hold up at scale?",
    "Why should we believe the {word} numbers?",
    "What happens to {word} if your main assumption is wrong?",
];
const QUESTIONS_ANALYST: &[&str] = &[
    "How exactly did you measure {word}?",
    "What sample size sits behind {word}?",
    "Which metric on {word} would change your mind?",
];
const QUESTIONS_CONTRARIAN: &[&str] = &[
    "What if {word} is the wrong problem to solve?",
    "Isn't {word} exactly what failed competitors claimed?",
    "Why not bet on the opposite of {word}?",
];
const QUESTIONS_OTHER: &[&str] = &[
    "Can you say more about {word}?",
    "How does {word} work in practice?",
    "What is the biggest risk in {word}?",
];
const KICKERS: &[&str] = &[
    "Hold on, {word} is exactly where this falls apart.",
    "Wait, that gets {word} backwards.",
    "No, {word} cuts the other way, and here is why.",
];
const SUPPORT: &[&str] = &[
    "Exactly, {word}.",
    "Right, that is the point.",
    "Yes, {word} matters.",
];
const CLARIFY: &[&str] = &["Sorry, which {word}?", "Wait, what do you mean by {word}?"];
const CHALLENGE: &[&str] = &["Not so sure about {word}.", "That is a stretch on {word}."];

/// A short line (at most `max_words` words) for a side request of `kind`: a candidate
/// question (`candidate_question`, `pile_on`, `question`) in the persona's questioning
/// style, a `kicker` that cuts in, an `interjection` in the tone the prompt names
/// (support, clarify, challenge), else the first sentence of an instructed reply.
pub fn short_line(
    persona: &Persona,
    topic: Option<&str>,
    history: &History,
    prompt: &str,
    max_words: usize,
    kind: &str,
) -> String {
    if kind == "rating" {
        return rating_line(prompt);
    }
    let topic_text = topic.unwrap_or("today's topic");
    let role = persona.role.to_lowercase();
    let bank: Option<&[&str]> = match kind {
        "candidate_question" | "pile_on" | "question" => Some(if role.contains("skeptic") {
            QUESTIONS_SKEPTIC
        } else if role.contains("analyst") {
            QUESTIONS_ANALYST
        } else if role.contains("contrarian") {
            QUESTIONS_CONTRARIAN
        } else {
            QUESTIONS_OTHER
        }),
        "kicker" => Some(KICKERS),
        "interjection" => {
            let lower = prompt.to_lowercase();
            Some(if lower.contains("clarify") {
                CLARIFY
            } else if lower.contains("challenge") {
                CHALLENGE
            } else {
                SUPPORT
            })
        }
        _ => None,
    };
    let line = match bank {
        Some(bank) => {
            let word = request_word(prompt, topic_text).unwrap_or_else(|| "that".to_owned());
            let mine = history
                .entries()
                .filter(|e| e.speaker == persona.name)
                .count() as u64;
            let pick = fnv1a(&[&persona.name, kind, prompt], mine) % bank.len() as u64;
            capitalize_sentences(&bank[pick as usize].replace("{word}", &word))
        }
        None => instructed_reply(persona, topic, history, prompt),
    };
    let first_sentence = line
        .split_inclusive(['.', '?', '!'])
        .next()
        .unwrap_or(&line)
        .trim();
    let words: Vec<&str> = first_sentence.split_whitespace().collect();
    if words.len() <= max_words.max(1) {
        return first_sentence.to_owned();
    }
    let mut cut = words[..max_words.max(1)].join(" ");
    cut = cut
        .trim_end_matches([',', ';', ':', '.', '?', '!'])
        .to_owned();
    cut.push('.');
    cut
}

/// A rating of the presenter's answer, as a panelist would give it, from the rating
/// prompt's two labelled lines ("Your question was: …", "The presenter's answer: …"):
/// answered when the answer takes up the question and gives a figure, partly when it
/// takes it up only, dodged when it shares no content word with it.
fn rating_line(prompt: &str) -> String {
    let labelled = |label: &str| {
        prompt
            .lines()
            .find_map(|l| l.trim().strip_prefix(label))
            .map(text::words::words)
            .unwrap_or_default()
    };
    let question = labelled("Your question was:");
    let answer = labelled("The presenter's answer:");
    let figure = answer.iter().any(|w| w.chars().any(|c| c.is_ascii_digit()));
    if !conversation_quality::answers::addresses(&question, &answer) {
        "Dodged: the answer does not take up what I asked.".to_owned()
    } else if figure {
        "Answered: it takes up my question and gives a figure.".to_owned()
    } else {
        "Partly: it takes up my question but gives no figure.".to_owned()
    }
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
    fn instructions_steer_the_scripted_reply() {
        let skeptic = Persona::fallback("skeptic");
        let h = History::new(5);
        assert_eq!(
            instructed_reply(
                &skeptic,
                None,
                &h,
                "Ask this in your own words: \"how do you get to breakeven by March?\""
            ),
            "How do you get to breakeven by March?"
        );
        let line = instructed_reply(&skeptic, None, &h, "Give your view on congestion pricing");
        assert!(line.contains("congestion"), "{line}");
        let short = short_line(&skeptic, None, &h, "challenge the congestion claim", 6, "");
        assert!(short.split_whitespace().count() <= 6, "{short}");
        assert!(short.ends_with(['.', '?', '!']), "{short}");
        let mut skeptic = Persona::fallback("skeptic");
        skeptic.role = "skeptic".into();
        let question = short_line(
            &skeptic,
            None,
            &h,
            "Prepare one sharp question about slide 3, Unit economics: payback in fourteen months",
            30,
            "candidate_question",
        );
        assert!(
            question.ends_with('?') && question.contains("fourteen"),
            "{question}"
        );
        let kicker = short_line(
            &skeptic,
            None,
            &h,
            "Cut in on hawk with one sentence. hawk just said: tariffs protect manufacturing. No filler.",
            12,
            "kicker",
        );
        assert!(kicker.contains("manufacturing"), "{kicker}");
        let clarify = short_line(
            &skeptic,
            None,
            &h,
            "Tone: clarify. dove just said: subsidies",
            12,
            "interjection",
        );
        assert!(
            clarify.contains("subsidies") && clarify.ends_with('?'),
            "{clarify}"
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
