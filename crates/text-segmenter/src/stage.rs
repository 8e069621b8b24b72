//! Stage directions and speaker labels: what a model writes about the voice rather than
//! for it. `(smirking)`, `*smiles*`, `[laughs]` and a leading `Judge:` or `A:` would be
//! read aloud word for word.
//!
//! Only short phrases built around a known stage word go: a bracketed aside such as
//! `(about 40%)` or `(for example, x squared)` is part of what is said.

/// Words that make a bracketed phrase of one to four words a stage direction when the
/// phrase starts or ends with one: `(laughs)`, `(clears throat)`, `(a long pause)`,
/// `*leans in*`, `(smiling warmly)`.
pub(crate) const STAGE_WORDS: &[&str] = &[
    "laugh",
    "laughs",
    "laughing",
    "laughed",
    "laughter",
    "chuckle",
    "chuckles",
    "chuckling",
    "chuckled",
    "giggle",
    "giggles",
    "giggling",
    "smile",
    "smiles",
    "smiling",
    "smiled",
    "smirk",
    "smirks",
    "smirking",
    "grin",
    "grins",
    "grinning",
    "sigh",
    "sighs",
    "sighing",
    "sighed",
    "pause",
    "pauses",
    "pausing",
    "paused",
    "beat",
    "silence",
    "nod",
    "nods",
    "nodding",
    "shrug",
    "shrugs",
    "shrugging",
    "wink",
    "winks",
    "winking",
    "frown",
    "frowns",
    "frowning",
    "gasp",
    "gasps",
    "gasping",
    "cough",
    "coughs",
    "coughing",
    "clears",
    "clearing",
    "throat",
    "lean",
    "leans",
    "leaning",
    "whisper",
    "whispers",
    "whispering",
    "mutters",
    "muttering",
    "murmurs",
    "murmuring",
    "applause",
    "claps",
    "clapping",
    "groans",
    "groaning",
    "yawns",
    "yawning",
    "scoffs",
    "scoffing",
    "snorts",
    "snorting",
    "blushes",
    "blushing",
    "beams",
    "beaming",
    "gestures",
    "gesturing",
    "glances",
    "glancing",
    "looks",
    "looking",
    "raises",
    "raising",
    "eyebrow",
    "eyebrows",
    "shakes",
    "shaking",
    "tilts",
    "tilting",
    "taps",
    "tapping",
    "thinks",
    "thinking",
    "ponders",
    "pondering",
    "hesitates",
    "hesitating",
    "exhales",
    "inhales",
    "breathes",
    "breath",
    "sniffs",
    "grimaces",
    "winces",
    "sips",
    "speaking",
    "turning",
    "excitedly",
    "sarcastically",
    "thoughtfully",
    "warmly",
    "softly",
    "quietly",
    "loudly",
    "nervously",
    "dramatically",
    "enthusiastically",
    "gently",
    "firmly",
    "sternly",
    "playfully",
    "cheerfully",
    "slowly",
    "calmly",
    "seriously",
    "confidently",
    "excited",
    "amused",
    "surprised",
    "confused",
    "impressed",
    "annoyed",
    "skeptical",
    "sarcastic",
];

/// Words ending in -ing or -ly that sit in brackets as content, not as a direction:
/// `(roughly)`, `(including tax)` stays said.
const NOT_STAGE: &[&str] = &[
    "early",
    "really",
    "actually",
    "exactly",
    "roughly",
    "nearly",
    "mostly",
    "mainly",
    "usually",
    "probably",
    "possibly",
    "likely",
    "unlikely",
    "especially",
    "particularly",
    "respectively",
    "optionally",
    "originally",
    "formerly",
    "finally",
    "initially",
    "ideally",
    "typically",
    "generally",
    "currently",
    "recently",
    "previously",
    "daily",
    "weekly",
    "monthly",
    "yearly",
    "annually",
    "hourly",
    "quarterly",
    "family",
    "reply",
    "apply",
    "supply",
    "italy",
    "silly",
    "anything",
    "something",
    "nothing",
    "everything",
    "thing",
    "string",
    "spring",
    "bring",
    "swing",
    "sting",
    "during",
    "morning",
    "evening",
    "ceiling",
    "building",
    "meaning",
    "pudding",
    "wedding",
    "clothing",
    "heading",
    "setting",
    "using",
    "including",
    "excluding",
    "regarding",
    "concerning",
    "following",
    "according",
    "assuming",
    "considering",
    "depending",
    "pending",
    "remaining",
    "missing",
    "existing",
    "ongoing",
    "upcoming",
    "training",
    "learning",
    "reading",
    "writing",
    "coding",
    "testing",
    "pricing",
    "marketing",
    "shipping",
    "billing",
    "parking",
    "timing",
    "rounding",
    "scaling",
    "spelling",
    "funding",
    "housing",
    "ending",
    "beginning",
    "opening",
    "warning",
    "rating",
    "ranking",
];

/// Labels dropped at the start whatever follows them.
const FIXED_LABELS: &[&str] = &["A", "Q", "Answer", "Response", "Reply"];

/// Capitalised words that, before a colon, introduce what follows rather than name a
/// speaker: `Note: The …`, `Steps: 1. …` are said.
const LEAD_INS: &[&str] = &[
    "note",
    "notes",
    "remember",
    "example",
    "examples",
    "hint",
    "tip",
    "tips",
    "warning",
    "caution",
    "important",
    "summary",
    "definition",
    "formula",
    "step",
    "steps",
    "key",
    "result",
    "results",
    "conclusion",
    "reason",
    "solution",
    "why",
    "how",
    "what",
    "yes",
    "no",
    "well",
    "first",
    "second",
    "third",
    "finally",
    "also",
    "next",
    "now",
    "so",
    "but",
    "and",
    "then",
    "here",
    "there",
    "this",
    "that",
    "these",
    "those",
    "it",
    "the",
    "objection",
    "verdict",
    "ruling",
    "idea",
    "fact",
    "goal",
    "task",
    "problem",
    "correct",
    "wrong",
    "true",
    "false",
    "exactly",
    "right",
    "okay",
    "ok",
    "wait",
    "listen",
    "look",
    "think",
    "imagine",
    "consider",
    "recall",
    "careful",
    "bonus",
    "update",
    "context",
    "claim",
    "evidence",
    "rebuttal",
    "point",
    "premise",
    "therefore",
    "thus",
    "hence",
    "today",
];

/// Titles whose full stop belongs to a speaker's name (`Dr. Okafor:`).
const TITLES: &[&str] = &[
    "Dr", "Mr", "Mrs", "Ms", "Prof", "Sr", "Jr", "St", "Capt", "Gen", "Rev", "Sgt",
];

/// The longest bracketed text looked at as a possible stage direction (four words),
/// in characters other than white space.
const MAX_DIRECTION_CHARS: usize = 64;

/// Removes stage directions anywhere in `text`.
pub(crate) fn strip_stage_directions(text: &str) -> String {
    if !text.contains(['(', '[', '*']) {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find(['(', '[', '*']) {
        let (before, from) = rest.split_at(open);
        out.push_str(before);
        match direction_len(from, out.chars().next_back()) {
            Some(len) => {
                let after = &from[len..];
                // "Well (pauses), fine" → "Well, fine"; "so(laughs)yes" → "so yes".
                if after.starts_with([',', '.', ';', ':', '!', '?']) {
                    out.truncate(out.trim_end().len());
                } else if out.ends_with(|c: char| !c.is_whitespace())
                    && after.starts_with(|c: char| !c.is_whitespace())
                {
                    out.push(' ');
                }
                rest = after;
            }
            None => {
                // A run of asterisks is passed over whole: "**very**" is not "*very*".
                let skip = if from.starts_with('*') {
                    from.len() - from.trim_start_matches('*').len()
                } else {
                    1
                };
                out.push_str(&from[..skip]);
                rest = &from[skip..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Byte length of the stage direction that starts `from`, if it is one.
fn direction_len(from: &str, before: Option<char>) -> Option<usize> {
    // `\(` and `\[` open math.
    if before == Some('\\') {
        return None;
    }
    match from.chars().next()? {
        '(' => {
            let close = closing(from, 1, '(', ')')?;
            is_direction(&from[1..close], true).then_some(close + 1)
        }
        '[' => {
            let close = closing(from, 1, '[', ']')?;
            // `[Tutor]:` is a speaker tag, `[text](url)` a link: handled elsewhere.
            let after = &from[close + 1..];
            (!after.starts_with([':', '：', '(']) && is_direction(&from[1..close], true))
                .then_some(close + 1)
        }
        '*' => {
            let run = from.len() - from.trim_start_matches('*').len();
            if run > 2 {
                return None;
            }
            let close = closing(from, run, '*', '*')?;
            let inner = &from[run..close];
            let closing_run = from[close..].len() - from[close..].trim_start_matches('*').len();
            let tight =
                !inner.starts_with(char::is_whitespace) && !inner.ends_with(char::is_whitespace);
            // Emphasis is common (`*really*`): only listed words count between asterisks.
            (closing_run == run && tight && is_direction(inner, false)).then_some(close + run)
        }
        _ => None,
    }
}

/// Byte index of the `close` ending the bracket opened before `start`, unless another
/// `open` comes first or the text grows past four words' worth. White space does not
/// count: collapsed, the direction is the same.
fn closing(from: &str, start: usize, open: char, close: char) -> Option<usize> {
    let mut letters = 0;
    for (i, c) in from[start..].char_indices() {
        if c == close {
            return Some(start + i);
        }
        if c == open {
            return None;
        }
        if !c.is_whitespace() {
            letters += 1;
            if letters > MAX_DIRECTION_CHARS {
                return None;
            }
        }
    }
    None
}

/// One to four plain words around a stage word; a single -ing/-ly word counts too when
/// `any_ing_ly` (in brackets, not between asterisks).
fn is_direction(inner: &str, any_ing_ly: bool) -> bool {
    let words: Vec<&str> = inner.split_whitespace().collect();
    if words.is_empty() || words.len() > 4 {
        return false;
    }
    let last = words.len() - 1;
    let mut lower = Vec::with_capacity(words.len());
    for (k, word) in words.iter().enumerate() {
        let word = if k == last {
            word.trim_end_matches(['.', '!', '…'])
        } else {
            word
        };
        let plain = word.starts_with(char::is_alphabetic)
            && word
                .chars()
                .all(|c| c.is_alphabetic() || c == '\'' || c == '-');
        // A capital only opens the phrase: "(Laughs)", not "(New York)".
        if !plain || (k > 0 && word.starts_with(char::is_uppercase)) {
            return false;
        }
        lower.push(word.to_lowercase());
    }
    let listed = |w: &str| STAGE_WORDS.contains(&w);
    if let [word] = lower.as_slice() {
        return listed(word)
            || (any_ing_ly
                && word.is_ascii()
                && word.len() >= 5
                && (word.ends_with("ing") || word.ends_with("ly"))
                && !NOT_STAGE.contains(&word.as_str()));
    }
    listed(&lower[0]) || listed(&lower[last])
}

/// `text` without a leading speaker label (`Judge:`, `Dr. Okafor:`, `A:`, `Answer:`).
///
/// A name label of one or two capitalised words goes only when a sentence follows it
/// (a capital or an uncased letter) or nothing does, and its first word is not a
/// lead-in such as `Note`: `Steps: 1. mix` and `Note: the …` are said.
pub(crate) fn strip_label(text: &str) -> &str {
    let t = text.trim_start();
    let Some((name, after)) = split_label(t) else {
        return text;
    };
    if !(after.is_empty() || after.starts_with(char::is_whitespace)) {
        return text;
    }
    let body = after.trim_start();
    if FIXED_LABELS.contains(&name) {
        return body;
    }
    let first = name
        .split([' ', '.'])
        .next()
        .unwrap_or_default()
        .to_lowercase();
    if LEAD_INS.contains(&first.as_str()) {
        return text;
    }
    let opens_sentence = body
        .chars()
        .find(|c| {
            !matches!(
                c,
                '"' | '\'' | '“' | '‘' | '«' | '(' | '-' | '•' | '#' | '>' | ' '
            )
        })
        .is_none_or(|c| c.is_alphabetic() && !c.is_lowercase());
    if opens_sentence { body } else { text }
}

/// `("Dr. Okafor", rest after the colon)` for `Dr. Okafor: rest`.
fn split_label(t: &str) -> Option<(&str, &str)> {
    let mut end = name_word_len(t)?;
    if t[end..].starts_with('.') && TITLES.contains(&&t[..end]) {
        end += 1;
    }
    let colon = |at: usize| {
        let rest = &t[at..];
        rest.strip_prefix(':')
            .or_else(|| rest.strip_prefix('：'))
            .map(|after| (&t[..at], after))
    };
    if let Some(found) = colon(end) {
        return (!t[..end].ends_with('.')).then_some(found);
    }
    let second = t[end..].strip_prefix(' ')?;
    let len = name_word_len(second)?;
    colon(end + 1 + len)
}

/// Length of a capitalised word at the start of `s` (at most 20 characters).
fn name_word_len(s: &str) -> Option<usize> {
    let mut chars = s.char_indices();
    let (_, first) = chars.next()?;
    if !first.is_uppercase() {
        return None;
    }
    let end = chars
        .find(|(_, c)| !(c.is_alphabetic() || matches!(c, '\'' | '-')))
        .map_or(s.len(), |(i, _)| i);
    (s[..end].chars().count() <= 20).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stage_directions_go_asides_stay() {
        let cases = [
            ("(smirking) Nice try.", " Nice try."),
            ("Nice try (laughs).", "Nice try."),
            ("Well (pauses), fine.", "Well, fine."),
            ("*smiles* Hello.", " Hello."),
            ("**sighs** Fine.", " Fine."),
            ("Hello [laughs] there.", "Hello  there."),
            ("(clears throat) Order.", " Order."),
            ("(leaning in) Listen.", " Listen."),
            ("(a long pause) Yes.", " Yes."),
            ("(Sarcastically) Great.", " Great."),
            ("(excitedly) Go!", " Go!"),
            ("It costs a lot (about 40%).", "It costs a lot (about 40%)."),
            (
                "Use it (for example, x squared).",
                "Use it (for example, x squared).",
            ),
            ("(This is aside.) Next.", "(This is aside.) Next."),
            ("Keep [brackets] here.", "Keep [brackets] here."),
            ("This is *really* big.", "This is *really* big."),
            ("Tax (including fees).", "Tax (including fees)."),
            ("It is (roughly) true.", "It is (roughly) true."),
            ("f(x) and (x)", "f(x) and (x)"),
            ("\\(laughs\\)", "\\(laughs\\)"),
            ("(New York) trip", "(New York) trip"),
        ];
        for (input, expected) in cases {
            assert_eq!(strip_stage_directions(input), expected, "{input:?}");
        }
    }

    #[test]
    fn leading_labels_go() {
        let cases = [
            ("Judge: The motion carries.", "The motion carries."),
            ("Dr. Okafor: Thank you.", "Thank you."),
            ("Ben: I disagree.", "I disagree."),
            ("Mary Ann: Yes.", "Yes."),
            ("A: 42.", "42."),
            ("Q: what is x?", "what is x?"),
            ("Answer: 12", "12"),
            ("Reply: Sure.", "Sure."),
            ("Judge:", ""),
            ("Ben: 你好", "你好"),
            ("Steps: 1. mix", "Steps: 1. mix"),
            ("Note: The limit exists.", "Note: The limit exists."),
            ("Remember: the slope.", "Remember: the slope."),
            ("Paris: the capital.", "Paris: the capital."),
            ("It is 3:30 now.", "It is 3:30 now."),
            ("Ben:30", "Ben:30"),
            ("Dr.: hi", "Dr.: hi"),
            ("So the answer: Yes.", "So the answer: Yes."),
        ];
        for (input, expected) in cases {
            assert_eq!(strip_label(input), expected, "{input:?}");
        }
    }
}
