//! Text that reaches a voice: interjections and kickers come from a model and pass
//! through [`sanitize_spoken`] before any synthesis, so that nothing in them can act as
//! a control mark for the speech backend (SSML tags, fenced code) or be read aloud
//! literally (Markdown, emoji, speaker tags, quotes, invisible Unicode).

/// Cleans `text` for speech and caps it at `max_words` words (an ellipsis marks the
/// cut). Returns an empty string when nothing speakable is left.
pub fn sanitize_spoken(text: &str, max_words: usize) -> String {
    let without_code = strip_fences(text);
    let without_tags = strip_tags(&without_code);
    let mut cleaned = String::with_capacity(without_tags.len());
    let chars: Vec<char> = without_tags.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if is_invisible(c) {
            continue;
        }
        if c.is_control() {
            cleaned.push(' ');
            continue;
        }
        if matches!(
            c,
            '"' | '“' | '”' | '„' | '«' | '»' | '‹' | '›' | '「' | '」'
        ) {
            continue;
        }
        if matches!(c, '\'' | '‘' | '’') {
            // Keep apostrophes inside words ("don't"), drop quoting marks.
            let before = i > 0 && chars[i - 1].is_alphanumeric();
            let after = chars.get(i + 1).is_some_and(|n| n.is_alphanumeric());
            if before && after {
                cleaned.push('\'');
            }
            continue;
        }
        cleaned.push(c);
    }
    let speakable = text_segmenter::sanitize(&cleaned);
    cap_words(&speakable, max_words)
}

/// Keeps at most `max_words` words; a cut text ends with `…`.
pub fn cap_words(text: &str, max_words: usize) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.len() <= max_words {
        return words.join(" ");
    }
    if max_words == 0 {
        return String::new();
    }
    let mut out = words[..max_words].join(" ");
    while out.ends_with([',', ';', ':', '-', '–', '—']) {
        out.pop();
    }
    out.push('…');
    out
}

/// Removes ```` ``` ```` fenced blocks with their content (an unclosed fence runs to the end).
fn strip_fences(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        out.push_str(&rest[..open]);
        out.push(' ');
        let after = &rest[open + 3..];
        match after.find("```") {
            Some(close) => rest = &after[close + 3..],
            None => return out,
        }
    }
    out.push_str(rest);
    out
}

/// Removes markup tags (`<break time="250ms"/>`, `</speak>`, `<<<MOOD>>>`).
fn strip_tags(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open..];
        let body = after.trim_start_matches('<');
        let is_tag = body
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!' || c == '?');
        let close = after.find('>').filter(|&c| c <= 300);
        match close {
            Some(close) if is_tag && !after[..close].contains('\n') => {
                let mut end = close + 1;
                while after[end..].starts_with('>') {
                    end += 1;
                }
                out.push(' ');
                rest = &after[end..];
            }
            _ => {
                out.push('<');
                rest = &after[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Zero-width, bidirectional-control and other format characters.
fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}'
        | '\u{200B}'..='\u{200F}'
        | '\u{2028}'..='\u{202E}'
        | '\u{2060}'..='\u{2069}'
        | '\u{FEFF}'
        | '\u{FFF9}'..='\u{FFFB}'
        | '\u{E0000}'..='\u{E007F}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_markup_and_caps() {
        assert_eq!(
            sanitize_spoken(
                "**Hawk:** <break time=\"250ms\"/>\"That's *wrong*!\" 🔥",
                12
            ),
            "That's wrong!"
        );
        assert_eq!(
            sanitize_spoken("one two three four, five six", 4),
            "one two three four…"
        );
        assert_eq!(sanitize_spoken("```rm -rf /``` Fine.", 12), "Fine.");
        assert_eq!(sanitize_spoken("a\u{200B}b \u{202E}c", 12), "ab c");
        assert_eq!(sanitize_spoken("[Dove]: Sure, 3 < 4.", 12), "Sure, 3 < 4.");
        assert_eq!(sanitize_spoken("<<<MOOD>>>", 12), "");
    }
}
