//! Cleaning a segment for speech: Markdown markup, emoji, speaker tags and labels, and
//! stage directions are removed, math is spoken as words, white space is collapsed. Link
//! texts and image alt texts are kept, their URLs dropped.
//!
//! The rules are applied until the text stops changing, because removing one piece of
//! markup can uncover another (`**Ben:** Ann: Hi`, `[]{}: x`); ordinary text is settled
//! after one round and the second only confirms it. So sanitizing twice gives what
//! sanitizing once gives, except for code spans: the operators of `` `x + 1` `` are kept
//! as written, and once the backticks are gone a second call reads them as math ("x plus
//! 1").

use crate::{labels, math, stage};

/// Rounds of cleaning at most; real text needs two (the second changes nothing).
const MAX_ROUNDS: usize = 4;

/// Returns the speakable form of `text` (possibly empty).
pub fn sanitize(text: &str) -> String {
    let mut current = clean_once(text);
    for _ in 1..MAX_ROUNDS {
        let next = clean_once(&current);
        if next == current {
            break;
        }
        current = next;
    }
    // Code fences were kept so that each round reads the span as code.
    if current.contains('`') {
        current.retain(|c| c != '`');
        current = collapse_spaces(&current);
    }
    current
}

/// One round of cleaning; code fences stay.
fn clean_once(text: &str) -> String {
    let without_tags = strip_speaker_tags(text);
    let without_links = strip_links(&without_tags);
    let mut marked = String::with_capacity(without_links.len());
    for line in without_links.lines() {
        let line = strip_line_markup(line);
        // A list's first number alone on its line: the reply was cut before the item
        // ("Here's how:\n1."), and a stray "one" would be heard.
        // A heading alone on its line ("Air Quality Analysis:") is a title, not speech.
        let line = if matches!(line.trim_end(), "1." | "1)") || is_heading(line) {
            ""
        } else {
            line
        };
        marked.extend(line.chars().filter(|&c| !is_emoji(c) && c != '~'));
        marked.push('\n');
    }
    // Directions go before the math is read, so that `x (pauses) - 1` is "x minus 1".
    // Tags, links and directions go again after it: markup it dropped can have formed
    // new ones (`[]{}:` → `[]:`, `$(laughs)$` → `(laughs)`).
    let quiet = stage::strip_stage_directions(&marked);
    let spoken = math::speak(&quiet);
    let spoken = strip_links(&strip_speaker_tags(&spoken));
    let spoken = stage::strip_stage_directions(&spoken);
    let mut out = String::with_capacity(spoken.len());
    for line in spoken.lines() {
        out.push_str(strip_all_line_markup(line));
        out.push(' ');
    }
    // Nothing below should be left by now; what is would be read out as a symbol.
    let mut clean = String::with_capacity(out.len());
    let mut chars = out.chars().peekable();
    while let Some(c) = chars.next() {
        let stray_dollar = c == '$' && !chars.peek().is_some_and(char::is_ascii_digit);
        // A bullet inside a line (a list run into one line) is not read out either.
        if !(stray_dollar || matches!(c, '*' | '\\' | '^' | '•')) {
            clean.push(c);
        }
    }
    let collapsed = collapse_spaces(&clean);
    // The label is looked for in the joined text, as the next round sees it.
    let mut text = collapsed.as_str();
    loop {
        let next = labels::strip_label(strip_line_markup(text));
        if next == text {
            break;
        }
        text = next;
    }
    text.to_owned()
}

/// A line of two to five title-case words ending with a colon ("Air Quality Analysis:",
/// "Key Points:"): a heading the model wrote. "Here's how:" and "Steps: 1. mix" are not.
fn is_heading(line: &str) -> bool {
    let Some(title) = line.trim().strip_suffix([':', '：']) else {
        return false;
    };
    let words: Vec<&str> = title.split_whitespace().collect();
    let capital = |w: &&str| w.chars().next().is_some_and(char::is_uppercase);
    let small = |w: &&str| ["and", "of", "the", "for", "in", "on", "to", "a", "vs"].contains(w);
    (2..=5).contains(&words.len())
        && words.first().is_some_and(capital)
        && words.last().is_some_and(capital)
        && words.iter().all(|w| capital(w) || small(w))
}

/// Line markup removed until none is left: one mark can hide another (`- - item`).
fn strip_all_line_markup(mut line: &str) -> &str {
    loop {
        let next = strip_line_markup(line);
        if next == line {
            return line;
        }
        line = next;
    }
}

/// `[Tutor]:` / `[学生]：` anywhere, and `**Tutor:**` at the start.
fn strip_speaker_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        // The next bracket closes the tag, or a `[` comes first and there is none (so each
        // search stops there: linear however many brackets). White space does not count
        // towards the length: collapsed, the tag is the same.
        let tag_end = after.find(['[', ']']).filter(|&close| {
            after[close..].starts_with(']')
                && after[..close]
                    .chars()
                    .filter(|c| !c.is_whitespace())
                    .count()
                    <= 40
        });
        match tag_end {
            Some(close)
                if after[close + 1..].starts_with(':') || after[close + 1..].starts_with('：') =>
            {
                let colon_len = after[close + 1..].chars().next().map_or(0, char::len_utf8);
                rest = &after[close + 1 + colon_len..];
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    let trimmed = out.trim_start();
    if let Some(inner) = trimmed.strip_prefix("**")
        && let Some(end) = inner.find(":**")
        && end <= 40
        && !inner[..end].contains(char::is_whitespace)
    {
        return inner[end + 3..].to_owned();
    }
    out
}

/// `[text](url)` → `text`, `![alt](url)` → `alt`.
fn strip_links(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        let (before, after) = rest.split_at(open);
        out.push_str(before);
        let after = &after[1..];
        match link_text_end(after) {
            Some(mid) => {
                let url_part = &after[mid + 2..];
                // A URL holds no white space (nor, here, a `[`: each search stops at the
                // next bracket, so the whole is linear).
                let url_end = url_part.find(|c: char| c == ')' || c == '[' || c.is_whitespace());
                match url_end {
                    Some(close) if url_part[close..].starts_with(')') => {
                        // The `!` of an image goes with its link, any other stays.
                        if out.ends_with('!') {
                            out.pop();
                        }
                        out.push_str(&after[..mid]);
                        rest = &url_part[close + 1..];
                    }
                    _ => {
                        out.push('[');
                        rest = after;
                    }
                }
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Where the text of a link opened just before `after` ends (its `](`), if it does
/// before another `[`.
fn link_text_end(after: &str) -> Option<usize> {
    let mut from = 0;
    loop {
        let k = from + after[from..].find(['[', ']'])?;
        if after[k..].starts_with('[') {
            return None;
        }
        if after[k + 1..].starts_with('(') {
            return Some(k);
        }
        from = k + 1;
    }
}

/// Headings, quotes and list bullets at the start of a line.
fn strip_line_markup(line: &str) -> &str {
    let mut line = line.trim_start();
    line = line.trim_start_matches('#').trim_start();
    line = line.trim_start_matches('>').trim_start();
    for bullet in ["- ", "* ", "+ ", "• "] {
        if let Some(rest) = line.strip_prefix(bullet) {
            return rest;
        }
    }
    // A bullet alone on its line (once the lines are joined it would open the next one).
    if matches!(line.trim_end(), "-" | "*" | "+" | "•") {
        return "";
    }
    line
}

fn is_emoji(c: char) -> bool {
    matches!(c as u32,
        0x1F000..=0x1FAFF   // pictographs, emoticons, transport, flags, symbols
        | 0x2600..=0x27BF   // misc symbols, dingbats
        | 0x2B00..=0x2BFF   // arrows and stars used as emoji
        | 0xFE0E..=0xFE0F   // variation selectors
        | 0x200D            // zero-width joiner
        | 0x20E3            // keycap
        | 0xE0020..=0xE007F // tags
    )
}

fn collapse_spaces(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn markdown_emoji_and_tags_are_removed() {
        let cases = [
            ("[Tutor]: Hello there.", "Hello there."),
            ("**Tutor:** Let's start.", "Let's start."),
            ("[学生]：你好。", "你好。"),
            ("This is **very** important 🎉!", "This is very important !"),
            ("Use `x + 1` here.", "Use x + 1 here."),
            ("## Summary", "Summary"),
            ("- first point", "first point"),
            (
                "See [the docs](https://example.com/a.b) now.",
                "See the docs now.",
            ),
            ("![a chart](img.png) shows it.", "a chart shows it."),
            ("Thumbs 👍🏽 up ❤️", "Thumbs up"),
            (
                "Keep [brackets] as they are.",
                "Keep [brackets] as they are.",
            ),
            ("snake_case_name stays", "snake_case_name stays"),
            ("", ""),
        ];
        for (input, expected) in cases {
            assert_eq!(sanitize(input), expected, "{input:?}");
        }
    }

    #[test]
    fn brackets_that_are_neither_tags_nor_links_stay() {
        assert_eq!(sanitize("Wow![1] and [a](b c)"), "Wow![1] and [a](b c)");
        assert_eq!(sanitize("![chart](c.png) [T]: ok"), "chart ok");
        // The search for a closing bracket stops at the next opening one.
        let many = "[".repeat(100_000);
        assert_eq!(sanitize(&many), many);
        let links = "[a](".repeat(30_000);
        assert_eq!(sanitize(&links), links);
    }

    #[test]
    fn math_is_spoken() {
        let cases = [
            ("\\( x = 2 \\)", "x equals 2"),
            ("3x+1", "3 x plus 1"),
            ("f'(x) = 2x", "f prime of x equals 2 x"),
            ("The slope is 2/3.", "The slope is 2 over 3."),
            (
                "So $x^2 + 1$ is positive.",
                "So x squared plus 1 is positive.",
            ),
            ("\\[\\frac{a}{b}\\]", "a over b"),
            ("$$\\sqrt{x}$$", "the square root of x"),
            (
                "\\(\\lim_{x \\to 0} \\frac{\\sin x}{x} = 1\\)",
                "the limit as x goes to 0 of sine x over x equals 1",
            ),
            ("dy/dx = 3x^2", "d y by d x equals 3 x squared"),
            (
                "x^n + x^{n}",
                "x to the power of n plus x to the power of n",
            ),
            ("\\Delta x \\cdot 2", "delta x times 2"),
            (
                "if x <= 5 or x ≥ 9",
                "if x is less than or equal to 5 or x is greater than or equal to 9",
            ),
            ("a*b", "a times b"),
            ("n-1 items", "n minus 1 items"),
            ("**Tutor:** Then $x = 4$.", "Then x equals 4."),
        ];
        for (input, expected) in cases {
            assert_eq!(sanitize(input), expected, "{input:?}");
        }
    }

    #[test]
    fn a_heading_alone_on_its_line_is_not_read() {
        assert_eq!(sanitize("Air Quality Analysis:"), "");
        assert_eq!(
            sanitize("Key Points:\nCars make noise in the old town."),
            "Cars make noise in the old town."
        );
        for said in ["Here's how:", "Steps: 1. mix", "The answer is:", "Note:"] {
            assert_eq!(sanitize(said), said, "{said}");
        }
    }

    #[test]
    fn prose_is_left_alone() {
        let cases = [
            "A first-year student got a well-known result by e-mail.",
            "We meet at 3:30 and it is 50% done.",
            "It costs $2,500, or $5 a day.",
            "Use and/or, not w/o.",
            "Dr. Smith met Mr. Jones.",
            "Steps: 1. mix 2. bake.",
            "Note: The limit exists.",
            "It costs a lot (about 40%).",
            "Try it (for example, x squared).",
            "Sure, 3 < 4.",
            "Wait... what? Really.",
            "这是一个例子。",
        ];
        for input in cases {
            assert_eq!(sanitize(input), input, "{input:?}");
        }
        // A year range is read as one.
        assert_eq!(
            sanitize("In 2024-2025 we grew."),
            "In 2024 to 2025 we grew."
        );
    }

    #[test]
    fn stage_directions_and_labels_are_removed() {
        let cases = [
            ("(smirking) Nice try.", "Nice try."),
            ("Nice try (laughs).", "Nice try."),
            ("Well (pauses), fine.", "Well, fine."),
            ("*smiles* Hello there.", "Hello there."),
            ("[laughs] Okay.", "Okay."),
            ("(clears throat) Order!", "Order!"),
            ("That is (sarcastically) brilliant.", "That is brilliant."),
            ("Judge: The motion carries.", "The motion carries."),
            ("Dr. Okafor: Thank you.", "Thank you."),
            ("Ben: (laughs) No way.", "No way."),
            ("A: 42.", "42."),
            ("Q: What is x?", "What is x?"),
            ("Answer: x equals 2.", "x equals 2."),
            ("Response: Fine.", "Fine."),
            ("Reply: Sure.", "Sure."),
            ("**Judge:** Order.", "Order."),
            ("## Judge: Order.", "Order."),
            ("Ben: - Yes", "Yes"),
            ("This is *really* big.", "This is really big."),
        ];
        for (input, expected) in cases {
            assert_eq!(sanitize(input), expected, "{input:?}");
        }
    }

    #[test]
    fn list_markers() {
        // Bullets go, however many; a number opening a line stays (the splitter keeps
        // "1. First step" as one segment and a voice reads it as an enumeration).
        assert_eq!(sanitize("- - item"), "item");
        assert_eq!(sanitize("* first\n+ second"), "first second");
        assert_eq!(
            sanitize("Its features: • Chat: instant messages."),
            "Its features: Chat: instant messages."
        );
        assert_eq!(sanitize("1. First step"), "1. First step");
        // A number alone on its line is an item the reply was cut before.
        assert_eq!(sanitize("Step by step:\n1."), "Step by step:");
        assert_eq!(sanitize("x equals 2."), "x equals 2.");
        assert_eq!(sanitize("Take 2. Then 3."), "Take 2. Then 3.");
    }

    /// Pieces of what models write: math, prose, markup, directions, labels.
    fn mixed() -> impl Strategy<Value = String> {
        const PIECES: &[&str] = &[
            "x",
            "y",
            "f",
            "a",
            "I",
            "F",
            "d",
            "dx",
            "dy",
            "e",
            "mail",
            "word",
            "The",
            "Ben",
            "2",
            "16",
            "2024",
            "3.14",
            "2,500",
            "0",
            " ",
            "  ",
            "\n",
            "\\n",
            "\\frac",
            "\\sqrt",
            "\\(",
            "\\)",
            "\\[",
            "\\]",
            "$",
            "$$",
            "^",
            "_",
            "{",
            "}",
            "(",
            ")",
            "[",
            "]",
            "-",
            "−",
            "--",
            "+",
            "*",
            "**",
            "/",
            "=",
            "==",
            "<",
            ">",
            "!",
            "'",
            "|",
            "&",
            "%",
            ".",
            ",",
            ":",
            "?",
            "\\alpha",
            "\\lim",
            "\\to",
            "\\cdot",
            "\\text",
            "\\left",
            "\\right",
            "\\sum",
            "\\,",
            "\\\\",
            "\\$",
            "(laughs)",
            "*smiles*",
            "[pauses]",
            "(about 40%)",
            "Ben: ",
            "A: ",
            "Judge:",
            "# ",
            "- ",
            "1. ",
            "> ",
            "²",
            "⁻¹",
            "π",
            "Δ",
            "→",
            "≤",
            "×",
            "·",
            "e-mail",
            "first-year",
            "24/7",
            "w/o",
            "F-16",
            "3:30",
            "50%",
            "🎉",
            "~",
            "[Tutor]: ",
            "[a](b)",
            "你好",
            "é",
        ];
        prop::collection::vec(prop::sample::select(PIECES), 0..24).prop_map(|v| v.concat())
    }

    fn holds_no_markup(out: &str) -> bool {
        let mut chars = out.chars().peekable();
        while let Some(c) = chars.next() {
            let stray_dollar = c == '$' && !chars.peek().is_some_and(char::is_ascii_digit);
            if stray_dollar || matches!(c, '\\' | '^' | '*') {
                return false;
            }
        }
        true
    }

    proptest! {
        #[test]
        fn no_markup_survives(text in prop_oneof![mixed(), any::<String>(), "[ -~]{0,60}"]) {
            let out = sanitize(&text);
            prop_assert!(holds_no_markup(&out), "{text:?} → {out:?}");
        }

        /// Backticks are left out: a code span keeps its operators only while its
        /// backticks are there (see the module documentation).
        #[test]
        fn sanitizing_twice_changes_nothing(text in prop_oneof![mixed(), "[ -_a-~]{0,60}"]) {
            let once = sanitize(&text);
            let twice = sanitize(&once);
            prop_assert_eq!(&twice, &once, "input {:?}", text);
        }

        #[test]
        fn plain_sentences_pass_unchanged(words in prop::collection::vec("[A-Za-z]{1,8}[,.]?", 1..12)) {
            let text = words.join(" ");
            prop_assert_eq!(sanitize(&text), text);
        }
    }
}
