//! The words of a reply as they are said: where a piece ends and what it counts for the
//! budget, name tags and labels at its head, markup dropped and formulas put in words.

/// Where a piece of the reply ends: at whitespace, or in Chinese, which writes no spaces,
/// at its punctuation.
pub(super) fn ends_piece(c: char) -> bool {
    c.is_whitespace() || matches!(c, '。' | '！' | '？' | '；' | '，' | '：' | '、')
}

/// How many words a piece of the reply counts for the budget: as many as a voice says,
/// or for Chinese one per two characters (about as long to say as an English word). A
/// formula is said as more words than it is written as ("f(x)=x^2" is "f of x equals x
/// squared"): each of its operators is a word, and a bracket after a name ("of"); the
/// budget counted it as one, and a first answer ran to 34 s of formulas read aloud.
pub(super) fn spoken_words(piece: &str) -> usize {
    let han = piece
        .chars()
        .filter(|&c| text::script::is_han_or_kana(c))
        .count();
    if han > 0 {
        return han.div_ceil(2);
    }
    let mut operators = 0;
    let mut before = ' ';
    for c in piece.chars() {
        if matches!(c, '=' | '+' | '<' | '>' | '/' | '×' | '÷' | '≈' | '≤' | '≥')
            || (c == '(' && before.is_alphanumeric())
        {
            operators += 1;
        }
        before = c;
    }
    (piece.split_whitespace().count() + operators).max(1)
}

/// Words of a sentence going on from its said first clause that are sent together when
/// no clause mark comes first: about a phrase, a few dozen characters for the segmenter.
pub(super) const STREAMED_PHRASE_WORDS: usize = 4;

/// How many words `text` counts for the budget.
pub(super) fn spoken_words_in(text: &str) -> usize {
    text.split_inclusive(ends_piece)
        .filter(|w| !w.trim().is_empty())
        .map(spoken_words)
        .sum()
}

/// How far past the budget a sentence after the first may end and still be said: half
/// the budget, at least two words (a short first sentence, "Yes, exactly.", must leave
/// room for the point that follows it). The first sentence may run to twice the budget,
/// so that a reply is never empty.
pub fn budget_slack(max_words: usize) -> usize {
    (max_words / 2).max(2)
}

/// Lower-case words of letters and digits, one space apart.
pub(super) fn normalized_words(text: &str) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The reply's beginning without a name tag, quotes or leading markup.
pub(super) fn strip_head(head: &str, names: &[String]) -> String {
    let mut text = head.trim_start().to_owned();
    for _ in 0..3 {
        let before = text.clone();
        for tag in ["<|im_start|>", "assistant\n", "assistant:", "Assistant:"] {
            if let Some(rest) = text.strip_prefix(tag) {
                text = rest.trim_start().to_owned();
            }
        }
        if let Some(rest) = strip_tag(&text, names).or_else(|| strip_label(&text)) {
            text = rest.trim_start().to_owned();
        }
        text = text
            .trim_start_matches(['"', '“', '*', '#', '-', '>', '`', ' '])
            .to_owned();
        if text == before {
            break;
        }
    }
    text
}

/// The text after a leading speaker tag, if it starts with one (`names` in lower case).
pub fn strip_tag<'a>(text: &'a str, names: &[String]) -> Option<&'a str> {
    let colon = text.find(':')?;
    let tag = &text[..colon];
    if tag.chars().count() > 40 || tag.contains('\n') {
        return None;
    }
    let tag = tag
        .trim()
        .trim_matches(['[', ']', '*', '"'])
        .trim()
        .to_lowercase();
    let bare = tag.split(" (").next().unwrap_or(&tag).trim();
    let known = names.iter().any(|n| {
        n == &tag
            || n == bare
            || tag.contains(&format!("({n})"))
            || bare.ends_with(n.as_str())
            || part_of_name(bare, n)
    });
    let generic = ["assistant", "answer", "reply", "response", "you", "me"].contains(&bare);
    (known || generic).then(|| &text[colon + 1..])
}

/// Whether every word of `tag` is a word of `name` (both in lower case), or one letter
/// off one of three letters or more: a small model cuts its tag ("Dr. nadia:" for "Dr.
/// Nadia Okafor") and misspells it ("Benn:" for "Ben", a tutor's reply that went on with
/// a student's line, voiced by the tutor).
fn part_of_name(tag: &str, name: &str) -> bool {
    let words = |s: &str| {
        s.split_whitespace()
            .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_owned())
            .filter(|w| !w.is_empty())
            .collect::<Vec<_>>()
    };
    let name = words(name);
    let tag = words(tag);
    !tag.is_empty()
        && tag.iter().all(|w| {
            name.iter()
                .any(|n| n == w || (n.chars().count() >= 3 && one_letter_off(n, w)))
        })
}

/// Whether `a` and `b` differ by one letter put in, left out or changed.
fn one_letter_off(a: &str, b: &str) -> bool {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let (short, long) = if a.len() <= b.len() {
        (&a, &b)
    } else {
        (&b, &a)
    };
    match long.len() - short.len() {
        0 => short.iter().zip(long).filter(|(x, y)| x != y).count() == 1,
        1 => (0..long.len()).any(|skip| {
            long.iter()
                .enumerate()
                .filter(|(i, _)| *i != skip)
                .map(|(_, c)| c)
                .eq(short.iter())
        }),
        _ => false,
    }
}

/// The text after a label that opens a reply like a speaker's name ("Mike:", "Mr.
/// Rivera:", "Example:"): one to three capitalised words, then a colon and a space. A
/// small model labels its reply with names it made up or misspelt; spoken, the label
/// is noise. Only a reply's head is judged so: within a reply, an unknown name at a line
/// start is not taken for another speaker's line.
pub(super) fn strip_label(text: &str) -> Option<&str> {
    let (label, rest) = text.split_once(':')?;
    if !rest.starts_with([' ', '\n']) || label.chars().count() > 24 {
        return None;
    }
    let words: Vec<&str> = label.split(' ').collect();
    let capitalised = |word: &&str| {
        let mut chars = word.chars();
        chars.next().is_some_and(char::is_uppercase)
            && chars.all(|c| c.is_alphabetic() || matches!(c, '.' | '\'' | '-'))
    };
    // A verdict or an answer that opens on a word and a colon ("Partly: …", "Yes: …")
    // keeps it: it is said, not a speaker's label.
    let opens_a_sentence = words.len() == 1
        && OPENING_WORDS_BEFORE_A_COLON.contains(&words[0].to_lowercase().as_str());
    (words.len() <= 3 && words.iter().all(capitalised) && !opens_a_sentence).then_some(rest)
}

/// Words a reply may open with before a colon that are said, not a speaker's label.
const OPENING_WORDS_BEFORE_A_COLON: &[&str] = &[
    "yes", "no", "partly", "answered", "dodged", "unrated", "true", "false", "well", "so", "sure",
    "right", "first", "second", "finally", "remember", "look", "consider",
];

pub(super) fn starts_with_tag(text: &str, names: &[String]) -> bool {
    strip_tag(text.trim_start(), names).is_some()
}

/// A word without markdown emphasis and code marks, its inline formula in words.
pub(super) fn clean_markup(word: &str) -> String {
    spoken_math(word)
        .chars()
        .filter(|c| !matches!(c, '*' | '`' | '#' | '_' | '|'))
        .collect()
}

/// A word's inline LaTeX as a voice can say it: `$` and `\(` delimiters dropped (not a
/// `$` before a figure: money), `\frac{a}{b}` as "a over b", a power as "squared",
/// "cubed" or "to the n", `\cdot` and `\times` as "times", an equation's `\tag{1}` not
/// at all, other commands by their name.
/// A synthesizer reads the marks one by one otherwise ("dollar backslash frac").
pub(super) fn spoken_math(word: &str) -> String {
    if !word.contains(['$', '\\', '^', '{', '}', '_']) {
        return word.to_owned();
    }
    let chars: Vec<char> = word.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    // The text of a `{...}` group starting at `at`, and the index after it.
    let group = |at: usize| -> Option<(String, usize)> {
        if chars.get(at) != Some(&'{') {
            return None;
        }
        let end = chars[at..].iter().position(|c| *c == '}')? + at;
        Some((chars[at + 1..end].iter().collect(), end + 1))
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '$' if !is_money(&chars[i..]) => i += 1,
            // A fraction written over several words: `\frac{f(x+h) - f(x)}{h}`.
            '}' if chars.get(i + 1) == Some(&'{') => {
                out.push_str(" over ");
                i += 2;
            }
            '{' | '}' => i += 1,
            // A subscript: `\lim_{h`, `x_1`.
            '_' => {
                out.push(' ');
                i += 1;
            }
            '\\' => {
                let name: String = chars[i + 1..]
                    .iter()
                    .take_while(|c| c.is_ascii_alphabetic())
                    .collect();
                i += 1 + name.chars().count();
                match name.as_str() {
                    // `\(`, `\)`, `\[`, `\]`: formula delimiters.
                    "" => i += usize::from(i < chars.len()),
                    "frac" | "dfrac" => {
                        if let Some((a, b, after)) =
                            group(i).and_then(|(a, at)| group(at).map(|(b, after)| (a, b, after)))
                        {
                            out.push_str(&format!("{} over {}", spoken_math(&a), spoken_math(&b)));
                            i = after;
                        }
                        // Else its parts are in the next words, where `}{` says "over".
                    }
                    "cdot" | "times" => out.push_str(" times "),
                    "to" | "rightarrow" => out.push_str(" to "),
                    "lim" => out.push_str("the limit as "),
                    "sqrt" => out.push_str("the square root of "),
                    "infty" => out.push_str(" infinity "),
                    "left" | "right" | "displaystyle" | "quad" => {}
                    // An equation's number or label is not said ("over h tag 1").
                    "tag" | "label" => {
                        if let Some((_, after)) = group(i) {
                            i = after;
                        }
                    }
                    other => out.push_str(other),
                }
            }
            '^' => {
                let (power, after) = match group(i + 1) {
                    Some(found) => found,
                    None => {
                        // A sign, then a number or one letter: `^-x`, `^20`.
                        let sign = usize::from(chars.get(i + 1) == Some(&'-'));
                        let from = i + 1 + sign;
                        let digits = chars[from.min(chars.len())..]
                            .iter()
                            .take_while(|c| c.is_ascii_digit())
                            .count();
                        let len = match chars.get(from) {
                            _ if digits > 0 => digits,
                            Some(c) if c.is_alphabetic() => 1,
                            _ => 0,
                        };
                        let end = if len == 0 { i + 1 } else { from + len };
                        (chars[i + 1..end].iter().collect(), end)
                    }
                };
                match power.as_str() {
                    "2" => out.push_str(" squared"),
                    "3" => out.push_str(" cubed"),
                    "" => {}
                    _ => {
                        let power = spoken_math(&power);
                        let power = match power.strip_prefix('-') {
                            Some(rest) => format!("minus {rest}"),
                            None => power,
                        };
                        out.push_str(&format!(" to the {power}"));
                    }
                }
                i = after;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    // The words put in may stand beside spaces already there: one space between words,
    // the word's own spaces at its ends kept.
    let start = out.len() - out.trim_start().len();
    let end = out.trim_end().len();
    if start >= end {
        return out;
    }
    let inner = out[start..end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    format!("{}{inner}{}", &out[..start], &out[end..])
}

/// Whether the `$` that starts `from` is money ("$5", "$2.5M"), not a formula's
/// delimiter ("$2x$", "$6$"): a figure follows, with no letter glued to it and no second
/// `$` after it.
fn is_money(from: &[char]) -> bool {
    let rest = &from[1..];
    let figure = rest
        .iter()
        .take_while(|c| c.is_ascii_digit() || matches!(c, '.' | ','))
        .count();
    rest.first().is_some_and(char::is_ascii_digit)
        && !rest[figure..].contains(&'$')
        && !rest
            .get(figure)
            .is_some_and(|c| c.is_alphabetic() && !c.is_uppercase())
}
