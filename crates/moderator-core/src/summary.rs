//! The FORCE_SUMMARY line: extractive, deterministic, at most three sentences.
//!
//! One short clause per agent, taken from the last thing it said in the phase: the
//! first sentence of at least four words (else the first sentence); when that is longer
//! than [`MAX_CLAUSE_WORDS`] words, its first comma-separated clause of at least four
//! words that does not only introduce ("As an urban economist, …"); then cut between
//! words to [`MAX_CLAUSE_WORDS`] words and [`MAX_CLAUSE_CHARS`] characters without
//! ending on a dangling function word. Sentence marks are removed from clauses
//! so the summary keeps its shape whatever the agents said.

use crate::phrases::{Language, join_names_in};
use text::script::is_cjk_letter;

pub const MAX_CLAUSE_WORDS: usize = 16;
pub const MAX_CLAUSE_CHARS: usize = 90;
/// Characters of a clause in Chinese, Japanese or Korean text (no spaces to count words by).
pub const MAX_CJK_CLAUSE_CHARS: usize = 40;
/// Agents quoted in one summary; further ones are left out to keep it short.
pub const MAX_QUOTED_AGENTS: usize = 4;

/// Words a cut clause should not end on.
const DANGLING: &[&str] = &[
    "a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "for", "with", "by", "at",
    "that", "which", "is", "are", "as", "from", "than", "because",
];

/// Words that open a clause which only introduces the sentence ("As an urban economist,
/// …", "In my view, …"): quoted alone, it says nothing of the speaker's point.
const INTRODUCING: &[&str] = &[
    "as",
    "in",
    "for",
    "from",
    "to",
    "with",
    "when",
    "if",
    "while",
    "although",
    "though",
    "because",
    "since",
    "after",
    "before",
    "given",
    "speaking",
    "personally",
    "honestly",
];

/// Builds the summary of a phase.
///
/// `spoken`: `(display name, last utterance in the phase)` in the order to quote them;
/// `silent`: display names of agents that did not speak in the phase.
pub fn extractive_summary(
    lang: Language,
    phase_label: &str,
    spoken: &[(String, String)],
    silent: &[String],
) -> String {
    let mut parts: Vec<String> = Vec::new();
    // "Name said: …", not "Name: …": the voice takes a name and a colon at the start of
    // a phrase for a speaker's label and drops it, and the words were heard unattributed.
    let colon = match lang {
        Language::En => " said: ",
        Language::Zh => "：",
    };
    for (name, text) in spoken {
        if parts.len() == MAX_QUOTED_AGENTS {
            break;
        }
        if let Some(clause) = key_clause(text) {
            parts.push(format!("{}{colon}{clause}", clean(name, false)));
        }
    }
    let names: Vec<String> = silent.iter().map(|n| clean(n, false)).collect();
    match lang {
        Language::En => {
            let mut out = format!("Let me sum up {phase_label}.");
            if parts.is_empty() {
                out.push_str(" Nobody made a point we could hold on to.");
                return out;
            }
            out.push(' ');
            out.push_str(&crate::phrases::capitalize_first(&parts.join("; ")));
            out.push('.');
            if !names.is_empty() {
                out.push_str(&format!(
                    " We have not yet heard from {}.",
                    join_names_in(lang, &names)
                ));
            }
            out
        }
        Language::Zh => {
            let mut out = format!("我来总结一下{phase_label}。");
            if parts.is_empty() {
                out.push_str("还没有人提出可以把握的观点。");
                return out;
            }
            out.push_str(&parts.join("；"));
            out.push('。');
            if !names.is_empty() {
                out.push_str(&format!(
                    "我们还没有听到{}的发言。",
                    join_names_in(lang, &names)
                ));
            }
            out
        }
    }
}

/// The clause quoted for one utterance, if it contains any words.
pub fn key_clause(text: &str) -> Option<String> {
    if text.chars().any(is_cjk_letter) {
        return cjk_clause(text);
    }
    let sentences = split_sentences(text);
    let chosen = sentences
        .iter()
        .find(|s| s.split_whitespace().count() >= 4)
        .or_else(|| sentences.first())?;
    let chosen: &str = if chosen.split_whitespace().count() > MAX_CLAUSE_WORDS {
        let clauses: Vec<&str> = chosen
            .split([',', '，', ':', '：'])
            .filter(|c| c.split_whitespace().count() >= 4)
            .collect();
        clauses
            .iter()
            .find(|c| !introduces(c))
            .or(clauses.first())
            .copied()
            .unwrap_or(chosen)
    } else {
        chosen
    };
    let mut words: Vec<&str> = chosen.split_whitespace().take(MAX_CLAUSE_WORDS).collect();
    // Within the characters allowed, between words: a word cut in two is heard as noise
    // ("… the lack of incentives f.").
    while words.len() > 1 && words.join(" ").chars().count() > MAX_CLAUSE_CHARS {
        words.pop();
    }
    while words.len() > 1
        && words
            .last()
            .is_some_and(|w| DANGLING.contains(&w.to_lowercase().as_str()))
    {
        words.pop();
    }
    let mut clause = words.join(" ");
    if clause.chars().count() > MAX_CLAUSE_CHARS {
        // One word longer than the limit.
        clause = clause.chars().take(MAX_CLAUSE_CHARS).collect();
    }
    let clause = clause
        .trim_end_matches(|c: char| {
            c == ',' || c == '，' || c == ':' || c == '.' || c == '、' || c.is_whitespace()
        })
        .to_owned();
    (!clause.is_empty()).then_some(clause)
}

/// Whether `clause` only introduces its sentence: it opens on a word of [`INTRODUCING`].
fn introduces(clause: &str) -> bool {
    clause
        .split_whitespace()
        .next()
        .is_some_and(|w| INTRODUCING.contains(&w.to_lowercase().as_str()))
}

/// The clause of a CJK utterance: its first sentence of at least six characters (else
/// the first), cut at its first comma when longer than [`MAX_CJK_CLAUSE_CHARS`], then
/// to that many characters.
fn cjk_clause(text: &str) -> Option<String> {
    let sentences = split_sentences(text);
    let chosen = sentences
        .iter()
        .find(|s| s.chars().count() >= 6)
        .or_else(|| sentences.first())?;
    let mut clause: &str = chosen;
    if clause.chars().count() > MAX_CJK_CLAUSE_CHARS {
        clause = clause
            .split([',', '，', ':', '：', '、'])
            .find(|c| c.chars().count() >= 6)
            .unwrap_or(clause);
    }
    let clause: String = clause.chars().take(MAX_CJK_CLAUSE_CHARS).collect();
    let clause = clause
        .trim_end_matches(|c: char| {
            matches!(c, ',' | '，' | ':' | '：' | '、') || c.is_whitespace()
        })
        .to_owned();
    (!clause.is_empty()).then_some(clause)
}

/// The sentences of `text` ([`text::words::sentences`] in each of its
/// lines), cut again at semicolons; the pieces carry no sentence marks (a `.` inside one,
/// "3.5", stays).
fn split_sentences(text: &str) -> Vec<String> {
    text.lines()
        .flat_map(text::words::sentences)
        .flat_map(|sentence| sentence.split([';', '；']))
        .map(|piece| {
            clean(piece, true)
                .trim_end_matches('.')
                .trim_end()
                .to_owned()
        })
        .filter(|piece| !piece.is_empty())
        .collect()
}

/// Removes sentence marks, quotes and control characters, and collapses whitespace.
fn clean(s: &str, keep_dots: bool) -> String {
    let kept: String = s
        .chars()
        .map(|c| {
            if (c == '.' && !keep_dots)
                || matches!(
                    c,
                    '!' | '?'
                        | ';'
                        | '。'
                        | '！'
                        | '？'
                        | '；'
                        | '…'
                        | '"'
                        | '“'
                        | '”'
                        | '«'
                        | '»'
                )
                || c.is_control()
            {
                ' '
            } else {
                c
            }
        })
        .collect();
    kept.split_whitespace().collect::<Vec<_>>().join(" ")
}
