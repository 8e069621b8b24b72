//! Which script a character is written in, from one table: the rules that differ between
//! languages written with spaces and without them ask here.

/// Han ideographs and kana: each character is a word or a part of one, and no spaces part
/// the words.
pub fn is_han_or_kana(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x3FFFF  // CJK Extensions B..H
    )
}

/// Hangul syllables: Korean is written with spaces, but its particles are fused to the
/// words before them ("민수가"), so a name is found without spaces around it.
pub fn is_hangul(c: char) -> bool {
    matches!(c as u32, 0xAC00..=0xD7AF)
}

/// A letter of Chinese, Japanese or Korean script.
pub fn is_cjk_letter(c: char) -> bool {
    is_han_or_kana(c) || is_hangul(c)
}

/// A character of Chinese or Japanese script, their punctuation and full-width forms
/// included: such text writes no spaces between words.
pub fn is_cjk(c: char) -> bool {
    is_han_or_kana(c) || matches!(c as u32, 0x3000..=0x303F | 0xFF00..=0xFFEF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_script_is_told_apart() {
        for c in ['中', 'か', 'カ', '𠀀', '﨑'] {
            assert!(is_han_or_kana(c) && is_cjk_letter(c) && is_cjk(c), "{c}");
        }
        for c in ['。', '，', '？'] {
            assert!(is_cjk(c) && !is_cjk_letter(c), "{c}");
        }
        assert!(is_hangul('한') && is_cjk_letter('한') && !is_cjk('한'));
        for c in ['a', 'é', '1', ' ', '.', 'я'] {
            assert!(!is_cjk(c) && !is_cjk_letter(c), "{c}");
        }
    }
}
