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
}
