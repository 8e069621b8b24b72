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
}
