//! What is wrong with a pattern, and where: the kind, the column, the pattern shown with
//! a caret under it.

use std::fmt;

use unicode_width::UnicodeWidthStr;

/// What is wrong with a pattern.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolicyErrorKind {
    #[error("the pattern is empty; expected e.g. `[A → B]` or `[(A, 2), (B, 1)]`")]
    Empty,
    #[error("the participant list is empty")]
    EmptyList,
    #[error("expected a participant name (letters, digits, `_` or `-`), found {found}")]
    ExpectedName { found: String },
    #[error("expected `,` followed by a weight (a number or `*`), found {found}")]
    ExpectedComma { found: String },
    #[error("expected a weight (a number greater than 0, or `*` for priority), found {found}")]
    ExpectedWeight { found: String },
    #[error("weight {value} is not allowed: weights must be finite and greater than 0")]
    InvalidWeight { value: String },
    #[error("expected `)` to close the entry, found {found}")]
    ExpectedCloseParen { found: String },
    #[error("participant `{name}` appears twice")]
    DuplicateName { name: String },
    #[error(
        "`→` and `,` cannot be mixed at the top level: use `A → B → C` (sequential) or `(A, 1), (B, 1)` (ratio/priority)"
    )]
    MixedSeparators,
    #[error("sequential patterns take plain names; weights belong in a `,` list")]
    WeightInSequence,
    #[error("`[` is never closed")]
    UnclosedBracket,
    #[error("`]` has no matching `[`")]
    UnmatchedBracket,
    #[error("`(` is never closed")]
    UnclosedParen,
    #[error("`)` has no matching `(`")]
    UnmatchedParen,
    #[error("unexpected {found} after the pattern")]
    TrailingInput { found: String },
}

/// A rejected pattern, with the byte offset of the offending character.
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyError {
    pub pattern: String,
    pub offset: usize,
    pub kind: PolicyErrorKind,
}

impl PolicyError {
    /// 1-based column, counted in characters, of the offending position.
    pub fn column(&self) -> usize {
        let line_start = self.pattern[..self.offset].rfind('\n').map_or(0, |i| i + 1);
        self.pattern[line_start..self.offset].chars().count() + 1
    }
}

impl std::error::Error for PolicyError {}

/// `message (column N)`, then the pattern line with a caret under the offending column.
/// The caret accounts for wide (CJK) characters so it lines up in a terminal.
impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let line_start = self.pattern[..self.offset].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.pattern[self.offset..]
            .find('\n')
            .map_or(self.pattern.len(), |i| self.offset + i);
        let line = &self.pattern[line_start..line_end];
        let before = &self.pattern[line_start..self.offset];
        // Tabs are shown as one space so the caret stays aligned.
        let shown = line.replace('\t', " ");
        let pad = UnicodeWidthStr::width(before.replace('\t', " ").as_str());
        write!(
            f,
            "invalid policy pattern: {} (column {})\n  {}\n  {}^",
            self.kind,
            self.column(),
            shown,
            " ".repeat(pad)
        )
    }
}
