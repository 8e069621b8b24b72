//! Text on its way to a voice: neutralised so that it cannot steer the synthesizer, and cut
//! into pieces, each small enough for one short, time-limited synthesis call.
//!
//! espeak-ng (as the player runs it: no `-m`, text on stdin) reads `[[...]]` as phoneme
//! input and a `0x01` byte as the start of an embedded command (speed, pitch, volume); a
//! leading `-` is plain text there (stdin, never the command line). A service voice may
//! read SSML (`<speak>`, `<break time="3s"/>`, `<prosody>`, `<phoneme>`, `<audio src>`),
//! so markup tags are taken out for every voice, while a `<` in prose (`x < y`, `3<4`)
//! stays readable. Control characters never help speech.

use std::ops::RangeInclusive;

/// Longest piece of text handed to one synthesis call, in characters (about half a minute
/// of speech, a fraction of a second of espeak-ng time): every call stays short enough
/// for its time limit to mean something, and an interrupt is honoured between pieces.
pub const MAX_PIECE_CHARS: usize = 500;

/// Longest segment voiced, in characters (about ten minutes of speech): a runaway segment
/// must not hold hours of audio in memory. Beyond it, text is reported, not voiced.
pub const MAX_SEGMENT_CHARS: usize = 10_000;

/// Sample rates a voice's audio may come at; anything else is refused rather than
/// resampled into an absurd buffer (1 Hz to 22050 Hz multiplies the length 22050 times).
pub const VOICE_SAMPLE_RATES: RangeInclusive<u32> = 4_000..=192_000;

/// What a segment becomes before it reaches a voice.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct VoicePlan {
    /// Sanitised text, one synthesis call each, in order.
    pub pieces: Vec<String>,
    /// Characters past [`MAX_SEGMENT_CHARS`] that are not voiced (0 normally).
    pub dropped_chars: usize,
}

/// Sanitises `text`, caps it at [`MAX_SEGMENT_CHARS`] and cuts it into pieces of at most
/// [`MAX_PIECE_CHARS`].
pub fn plan(text: &str) -> VoicePlan {
    plan_with(text, MAX_PIECE_CHARS, MAX_SEGMENT_CHARS)
}

/// [`plan`] with explicit limits (in characters).
pub fn plan_with(text: &str, max_piece_chars: usize, max_total_chars: usize) -> VoicePlan {
    let clean = sanitize(text);
    let (kept, dropped_chars) = cap(clean.trim(), max_total_chars);
    VoicePlan {
        pieces: split(kept, max_piece_chars),
        dropped_chars,
    }
}

/// Makes text safe to speak: markup tags (`<speak>`, `</prosody>`, `<break time="3s"/>`,
/// `<!-- -->`, `<?xml ?>`) become a space, a `<` that would still open one (`<b` with no
/// `>` after it) gets a space after it, control characters (C0 and C1, except newline and
/// tab) become spaces, and runs of `[` or `]` shrink to one, so no `[[` phoneme escape (or
/// `]]`) survives. Letters, digits, ordinary punctuation and a `<` or `>` in prose
/// (`x < y`, `3<4`, `a -> b`) are untouched.
pub fn sanitize(text: &str) -> String {
    let text = strip_markup(text);
    let mut out = String::with_capacity(text.len());
    let mut previous = None;
    for c in text.chars() {
        let c = if c.is_control() && c != '\n' && c != '\t' {
            ' '
        } else {
            c
        };
        if matches!(c, '[' | ']') && previous == Some(c) {
            continue;
        }
        out.push(c);
        previous = Some(c);
    }
    out
}

/// Whether `c` after a `<` would make it the start of a tag (an element, an end tag, a
/// comment, a declaration or a processing instruction).
fn opens_tag(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '/' | '!' | '?')
}

/// Tags out (each becomes one space), and a `<` that opens none but looks like it would
/// separated from what follows. Linear: each scan for a `>` stops at the next `<`.
fn strip_markup(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains('<') {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('<') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        if !after.chars().next().is_some_and(opens_tag) {
            out.push('<');
            rest = after;
            continue;
        }
        match after.find(['<', '>']) {
            Some(end) if after[end..].starts_with('>') => {
                out.push(' ');
                rest = &after[end + 1..];
            }
            // No `>` before the next `<` (or the end): not a tag, but it must not become
            // one with what a voice might add.
            _ => {
                out.push_str("< ");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// Whether `text` still holds anything a voice could read as markup or a phoneme escape:
/// a `<` followed by a tag's first character, `[[`, or a control character other than
/// newline and tab. Never true of [`sanitize`]'s output.
pub fn holds_markup(text: &str) -> bool {
    text.contains("[[")
        || text
            .chars()
            .any(|c| c.is_control() && c != '\n' && c != '\t')
        || text
            .match_indices('<')
            .any(|(i, _)| text[i + 1..].chars().next().is_some_and(opens_tag))
}

/// The first `max_chars` characters of `text` (cut back to a sentence or word end when
/// one is there), and how many characters are left over.
fn cap(text: &str, max_chars: usize) -> (&str, usize) {
    let Some((limit, _)) = text.char_indices().nth(max_chars) else {
        return (text, 0);
    };
    // A sentence end only when it keeps most of what fits: the cap drops the rest.
    let cut = sentence_cut(text, limit)
        .filter(|&end| end >= limit / 2)
        .or_else(|| word_cut(text, limit))
        .unwrap_or(limit);
    let kept = text[..cut].trim_end();
    (kept, text.chars().count() - kept.chars().count())
}

/// Cuts `text` into trimmed, non-empty pieces of at most `max_chars` characters: after the
/// last sentence end that fits, else at the last space that fits, else (one very long
/// word) after `max_chars` characters. No character other than whitespace at a cut is
/// lost.
pub fn split(text: &str, max_chars: usize) -> Vec<String> {
    let max_chars = max_chars.max(1);
    let mut pieces = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let Some((limit, _)) = rest.char_indices().nth(max_chars) else {
            pieces.push(rest.to_owned());
            break;
        };
        let cut = sentence_cut(rest, limit)
            .or_else(|| word_cut(rest, limit))
            .unwrap_or(limit);
        let (piece, tail) = rest.split_at(cut);
        let piece = piece.trim();
        if !piece.is_empty() {
            pieces.push(piece.to_owned());
        }
        rest = tail.trim_start();
    }
    pieces
}

/// Just after the last sentence end (or line break) within `text[..limit]`.
fn sentence_cut(text: &str, limit: usize) -> Option<usize> {
    text[..limit]
        .char_indices()
        .rev()
        .find_map(|(i, c)| {
            let end = i + c.len_utf8();
            let boundary = match c {
                '\n' => true,
                // Full-width marks end a sentence without a following space.
                '。' | '！' | '？' => true,
                '.' | '!' | '?' | ';' | '…' => {
                    text[end..].chars().next().is_none_or(char::is_whitespace)
                }
                _ => false,
            };
            boundary.then_some(end)
        })
        .filter(|&end| !text[..end].trim().is_empty())
}

/// The last whitespace at or before `limit` that has text before it.
fn word_cut(text: &str, limit: usize) -> Option<usize> {
    if text[limit..].starts_with(char::is_whitespace) && !text[..limit].trim().is_empty() {
        return Some(limit);
    }
    text[..limit]
        .char_indices()
        .rev()
        .find_map(|(i, c)| c.is_whitespace().then_some(i))
        .filter(|&i| !text[..i].trim().is_empty())
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn no_space(text: &str) -> String {
        text.chars().filter(|c| !c.is_whitespace()).collect()
    }

    #[test]
    fn phoneme_escapes_and_control_characters_are_neutralised() {
        assert_eq!(sanitize("say [[h@l'oU]] now"), "say [h@l'oU] now");
        assert_eq!(sanitize("[[[[x]]]]"), "[x]");
        // A control character between brackets must not leave `[[` behind either.
        assert_eq!(sanitize("[\u{1}["), "[ [");
        assert_eq!(sanitize("[\u{0}]["), "[ ][");
        // espeak-ng's embedded command byte, escape sequences, C1 controls, DEL.
        assert_eq!(sanitize("\u{1}0A hello"), " 0A hello");
        assert_eq!(sanitize("a\u{1b}[31mb\u{85}c\u{7f}d\re"), "a [31mb c d e");
        assert_eq!(sanitize("line one\n\tline two"), "line one\n\tline two");
    }

    #[test]
    fn markup_tags_are_taken_out_and_prose_comparisons_stay() {
        assert_eq!(
            sanitize("<speak>Hello<break time=\"3s\"/>world</speak>"),
            " Hello world "
        );
        assert_eq!(
            sanitize("<prosody rate=\"x-slow\" pitch='+90%'>slow</prosody> done"),
            " slow  done"
        );
        assert_eq!(
            sanitize("say <phoneme alphabet=\"ipa\" ph=\"pɪˈkɑːn\">pecan</phoneme>"),
            "say  pecan "
        );
        assert_eq!(sanitize("<!-- hidden --><?xml version=\"1.0\"?>x"), "  x");
        assert_eq!(sanitize("<audio src=\"http://127.0.0.1/x.wav\"/>"), " ");
        // Tags across lines and inside a bracket run are still tags.
        assert_eq!(sanitize("<break\ntime=\"9s\"/>a"), " a");
        assert_eq!(sanitize("[<x>[h@l]<y>]"), "[ [h@l] ]");
        // A `<` that would open a tag but has no `>`: kept, followed by a space.
        assert_eq!(sanitize("if a<b then"), "if a< b then");
        assert_eq!(sanitize("<speak"), "< speak");
        assert_eq!(sanitize("<<speak>x"), "< x");
        // Prose comparisons and arrows are untouched.
        for text in [
            "x < y and y > z",
            "3<4",
            "a <- b -> c",
            "<3 hearts",
            "1 <= 2 >= 0",
        ] {
            assert_eq!(sanitize(text), text);
            assert!(!holds_markup(text), "{text}");
        }
        for hostile in [
            "<speak>",
            "</prosody>",
            "<break time=\"3s\"/>",
            "a [[h@l'oU]]",
            "\u{1}80S",
            "x\u{1b}[31m",
        ] {
            assert!(holds_markup(hostile), "{hostile:?}");
            assert!(!holds_markup(&sanitize(hostile)), "{hostile:?}");
        }
    }

    #[test]
    fn plain_text_passes_unchanged() {
        for text in [
            "Hello there. How are you?",
            "-v de --help starts with a dash",
            "a [single] bracket, 3 < 4 & 5 > 2, naïve café 你好。",
        ] {
            assert_eq!(sanitize(text), text);
            assert_eq!(plan(text).pieces, [text]);
        }
        assert_eq!(plan("  \u{1}\u{2} ").pieces, Vec::<String>::new());
    }

    #[test]
    fn long_text_is_cut_at_sentence_ends_then_words() {
        let text = "One two three. Four five six seven. Eight nine.";
        assert_eq!(
            split(text, 20),
            ["One two three.", "Four five six seven.", "Eight nine."]
        );
        // No sentence end fits: cut at the last space.
        assert_eq!(
            split("alpha beta gamma delta", 12),
            ["alpha beta", "gamma delta"]
        );
        // One word longer than a piece: cut inside it, nothing lost.
        assert_eq!(split("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        // A period inside a number or an abbreviation is not a sentence end.
        assert_eq!(
            split("pi is 3.14159 roughly", 15),
            ["pi is 3.14159", "roughly"]
        );
        assert_eq!(split("第一句。第二句。", 5), ["第一句。", "第二句。"]);
    }

    #[test]
    fn a_runaway_segment_is_capped_and_says_how_much_is_dropped() {
        let sentence = "The quick brown fox jumps over the lazy dog. ";
        let text = sentence.repeat(5_000); // 225 000 characters
        let plan = plan(&text);
        let voiced: usize = plan.pieces.iter().map(|p| p.chars().count()).sum();
        assert!(
            plan.pieces
                .iter()
                .all(|p| p.chars().count() <= MAX_PIECE_CHARS)
        );
        assert!(voiced <= MAX_SEGMENT_CHARS && voiced > MAX_SEGMENT_CHARS - 100);
        assert_eq!(
            plan.dropped_chars,
            text.trim().chars().count() - plan.pieces.join(" ").chars().count()
        );
        assert!(plan.pieces.iter().all(|p| p.ends_with('.')), "{plan:?}");
        assert_eq!(plan_with("one two three", 100, 7).pieces, ["one two"]);
        assert_eq!(plan_with("one two three", 100, 7).dropped_chars, 6);
    }

    #[test]
    fn voice_sample_rates_refuse_absurd_values() {
        for rate in [8_000, 16_000, 22_050, 24_000, 44_100, 48_000, 96_000] {
            assert!(VOICE_SAMPLE_RATES.contains(&rate));
        }
        for rate in [0, 1, 100, 1_000_000, 1_000_000_000, u32::MAX] {
            assert!(!VOICE_SAMPLE_RATES.contains(&rate));
        }
    }

    fn text_strategy() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                "[a-z]{1,12}",
                Just(".".to_owned()),
                Just("[[".to_owned()),
                Just("]]".to_owned()),
                Just("[".to_owned()),
                Just("\u{1}".to_owned()),
                Just("\u{9b}".to_owned()),
                Just("\n".to_owned()),
                Just("\t".to_owned()),
                Just("\r".to_owned()),
                Just("<break time=\"9s\"/>".to_owned()),
                Just("<speak>".to_owned()),
                Just("</prosody>".to_owned()),
                Just("<phoneme ph=\"x\">".to_owned()),
                Just("<!--".to_owned()),
                Just("<".to_owned()),
                Just(">".to_owned()),
                Just(" < ".to_owned()),
                "[ !?]{1,3}",
                "\\PC{1,4}",
            ],
            0..60,
        )
        .prop_map(|parts| parts.concat())
    }

    proptest! {
        #[test]
        fn sanitised_text_cannot_steer_a_voice_and_keeps_the_words(text in text_strategy()) {
            let clean = sanitize(&text);
            prop_assert!(!clean.contains("[["), "{clean:?}");
            prop_assert!(!clean.contains("]]"), "{clean:?}");
            prop_assert!(
                !clean.chars().any(|c| c.is_control() && c != '\n' && c != '\t'),
                "{clean:?}"
            );
            prop_assert!(!holds_markup(&clean), "{clean:?}");
            // Without markup only brackets and control characters change: every word is
            // kept.
            if !text.contains('<') {
                let words = |t: &str| -> String {
                    t.chars().filter(|c| !matches!(c, '[' | ']') && !c.is_control()).collect()
                };
                prop_assert_eq!(words(&clean).replace(' ', ""), words(&text).replace(' ', ""));
            }
            // Markup only ever takes characters out (and adds spaces).
            prop_assert!(
                no_space(&clean).chars().count() <= no_space(&text).chars().count(),
                "{clean:?}"
            );
            prop_assert_eq!(sanitize(&clean), clean.clone());
        }

        #[test]
        fn pieces_are_bounded_and_lose_nothing(text in text_strategy(), max in 1usize..40) {
            let clean = sanitize(&text);
            let pieces = split(&clean, max);
            for piece in &pieces {
                prop_assert!(!piece.is_empty() && piece.chars().count() <= max, "{pieces:?}");
                prop_assert_eq!(piece.trim(), piece.as_str());
                prop_assert!(!piece.contains("[["));
            }
            prop_assert_eq!(no_space(&pieces.concat()), no_space(&clean));
            // Words no longer than a piece are never cut.
            if clean.split_whitespace().all(|w| w.chars().count() <= max)
                && !clean.contains(['。', '！', '？'])
            {
                let joined = pieces.join(" ");
                prop_assert_eq!(
                    joined.split_whitespace().collect::<Vec<_>>(),
                    clean.split_whitespace().collect::<Vec<_>>()
                );
            }
        }

        #[test]
        fn a_plan_voices_everything_it_does_not_report(text in text_strategy(), max in 1usize..40, total in 1usize..200) {
            let plan = plan_with(&text, max, total);
            let voiced: usize = plan.pieces.iter().map(|p| no_space(p).chars().count()).sum();
            prop_assert!(plan.pieces.iter().map(|p| p.chars().count()).sum::<usize>() <= total);
            let all = no_space(&sanitize(&text)).chars().count();
            prop_assert!(voiced <= all);
            if plan.dropped_chars == 0 {
                prop_assert_eq!(voiced, all);
            }
        }
    }
}
