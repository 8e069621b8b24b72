//! Cleaning a segment for speech: Markdown markup, emoji and speaker tags are removed,
//! white space is collapsed. Link texts and image alt texts are kept, their URLs dropped.

/// Returns the speakable form of `text` (possibly empty).
pub fn sanitize(text: &str) -> String {
    let without_tags = strip_speaker_tags(text);
    let without_links = strip_links(&without_tags);
    let mut out = String::with_capacity(without_links.len());
    for line in without_links.lines() {
        let line = strip_line_markup(line);
        for c in line.chars() {
            if is_emoji(c) || matches!(c, '*' | '`' | '~') {
                continue;
            }
            out.push(c);
        }
        out.push(' ');
    }
    collapse_spaces(&out)
}

/// `[Tutor]:` / `[学生]：` anywhere, and `**Tutor:**` at the start.
fn strip_speaker_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        let tag_end = after
            .find(']')
            .filter(|&close| close <= 40 && !after[..close].contains(['[', '\n']));
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
        out.push_str(before.strip_suffix('!').unwrap_or(before));
        let after = &after[1..];
        match after.find("](") {
            Some(mid) if !after[..mid].contains('[') => {
                let url_part = &after[mid + 2..];
                match url_part.find(')') {
                    Some(close) if !url_part[..close].contains(char::is_whitespace) => {
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
}
