//! Context assembly for one agent call, in the order of the spec's table.
//!
//! The caller supplies the text of each row (or `None` when the file is missing); the
//! result is the ordered parts plus one rendered prompt with a header per part.
//!
//! Size caps, in UTF-8 bytes of part content (headers not counted):
//! - every part is first cut to [`AssemblyCaps::max_part_bytes`];
//! - if the parts together still exceed [`AssemblyCaps::max_total_bytes`], they are cut
//!   further in three rounds, stopping as soon as the total fits: first the append-only
//!   rows (transcript, exchange history, exchange notes, presenter profile), then the
//!   other session rows, and only last the persona and domain knowledge. Within a round
//!   the largest parts are cut first, down to one common size ("water-filling"), so a
//!   small part is never sacrificed to a large one.
//!
//! A cut append-only part keeps its newest tail (what happened last matters most in a
//! live conversation) and starts with [`CUT_HEAD_MARKER`]; any other cut part keeps its
//! beginning and ends with [`CUT_TAIL_MARKER`]. Cuts fall on a line boundary where one
//! is available, always on a character boundary. A part cut to less than its marker is
//! dropped. Missing rows are skipped, and so are empty ones: a file holding nothing but
//! Markdown headings and `<!-- -->` comments (what a blueprint placeholder looks like
//! before the session writes to it) is empty.

use serde::{Deserialize, Serialize};

use crate::layout::{ContextRow, Mutability};

/// Starts an append-only part whose older content was cut away.
pub const CUT_HEAD_MARKER: &str = "[… earlier content omitted …]\n";
/// Ends a part whose later content was cut away.
pub const CUT_TAIL_MARKER: &str = "\n[… rest omitted …]";

/// Size limits of an assembled context.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AssemblyCaps {
    /// Most bytes of one part.
    pub max_part_bytes: usize,
    /// Most bytes of all parts together.
    pub max_total_bytes: usize,
}

impl Default for AssemblyCaps {
    /// 16 KB per part and 48 KB in total: roughly 12k tokens, which leaves a voice
    /// agent's model room to answer quickly.
    fn default() -> Self {
        Self {
            max_part_bytes: 16_000,
            max_total_bytes: 48_000,
        }
    }
}

/// The text of one row, as read by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowText {
    pub row: ContextRow,
    /// Where it came from, relative to the context root (shown in the header).
    pub path: String,
    /// `None` when the file does not exist.
    pub content: Option<String>,
}

/// How a part was shortened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// Complete.
    None,
    /// The beginning was kept (the end was cut).
    KeptHead,
    /// The end was kept (the beginning was cut).
    KeptTail,
}

/// One part of an assembled context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextPart {
    pub row: ContextRow,
    /// Source label, e.g. "Presenter transcript".
    pub label: &'static str,
    pub path: String,
    /// The (possibly cut) content, marker included.
    pub content: String,
    /// Byte length before any cut.
    pub original_bytes: usize,
    pub cut: Cut,
}

/// The context of one agent call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssembledContext {
    /// In table order; missing and blank rows left out.
    pub parts: Vec<ContextPart>,
    /// The parts rendered as one prompt text, each under a `## <label> (<path>)` header.
    pub prompt: String,
}

impl AssembledContext {
    /// Bytes of all part contents (what the caps limit).
    pub fn content_bytes(&self) -> usize {
        self.parts.iter().map(|p| p.content.len()).sum()
    }
}

/// Shortens `text` to at most `limit` bytes, marker included. Returns an empty string
/// if not even the marker and one byte fit.
pub fn cut_text(text: &str, limit: usize, keep_tail: bool) -> (String, Cut) {
    if text.len() <= limit {
        return (text.to_owned(), Cut::None);
    }
    force_cut(text, limit, keep_tail)
}

/// Like [`cut_text`], but always marks the result as cut.
fn force_cut(text: &str, limit: usize, keep_tail: bool) -> (String, Cut) {
    let (marker, how) = if keep_tail {
        (CUT_HEAD_MARKER, Cut::KeptTail)
    } else {
        (CUT_TAIL_MARKER, Cut::KeptHead)
    };
    let Some(budget) = limit.checked_sub(marker.len()).filter(|b| *b > 0) else {
        return (String::new(), how);
    };
    let bytes = text.as_bytes();
    if keep_tail {
        let mut start = text.len().saturating_sub(budget);
        while !text.is_char_boundary(start) {
            start += 1;
        }
        // Start on a fresh line if the kept part contains one to start on.
        let at_line_start = start == 0 || bytes[start - 1] == b'\n';
        if !at_line_start
            && let Some(nl) = text[start..].find('\n')
            && start + nl + 1 < text.len()
        {
            start += nl + 1;
        }
        (format!("{marker}{}", &text[start..]), how)
    } else {
        let mut end = budget.min(text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        // End at a line end if the kept part contains one to end at.
        let at_line_end = end == text.len() || bytes[end] == b'\n';
        if !at_line_end
            && let Some(nl) = text[..end].rfind('\n')
            && nl > 0
        {
            end = nl;
        }
        (format!("{}{marker}", &text[..end]), how)
    }
}

/// Whether `text` has nothing but blank lines, Markdown headings and HTML comments.
pub fn is_effectively_empty(text: &str) -> bool {
    let mut rest = text;
    let mut visible = String::new();
    while let Some(start) = rest.find("<!--") {
        visible.push_str(&rest[..start]);
        match rest[start..].find("-->") {
            Some(end) => rest = &rest[start + end + 3..],
            None => {
                rest = "";
            }
        }
    }
    visible.push_str(rest);
    visible
        .lines()
        .map(str::trim)
        .all(|line| line.is_empty() || line.starts_with('#'))
}

/// The largest level `l` with `sum(min(size, l)) <= budget`.
fn water_level(sizes: &[usize], budget: usize) -> usize {
    let (mut lo, mut hi) = (0usize, sizes.iter().copied().max().unwrap_or(0));
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        let used: usize = sizes.iter().map(|s| (*s).min(mid)).sum();
        if used <= budget {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    lo
}

fn is_append_only(row: ContextRow) -> bool {
    row.mutability() == Mutability::AppendOnly
}

/// Which total-cap round a row is cut in (see the module documentation).
fn round_of(row: ContextRow) -> usize {
    match row.mutability() {
        Mutability::AppendOnly => 0,
        Mutability::Immutable => 2,
        _ => 1,
    }
}

/// Orders, caps and renders the rows of one agent call. Rows given out of order are put
/// in table order; a row given twice is taken once (the first).
pub fn assemble(rows: Vec<RowText>, caps: AssemblyCaps) -> AssembledContext {
    let mut rows = rows;
    rows.sort_by_key(|r| r.row);
    rows.dedup_by_key(|r| r.row);

    // Per-part cap.
    let mut parts: Vec<ContextPart> = rows
        .into_iter()
        .filter_map(|r| {
            let text = r.content?;
            if is_effectively_empty(&text) {
                return None;
            }
            let (content, cut) = cut_text(&text, caps.max_part_bytes, is_append_only(r.row));
            Some(ContextPart {
                row: r.row,
                label: r.row.label(),
                path: r.path,
                content,
                original_bytes: text.len(),
                cut,
            })
        })
        .collect();

    // Total cap, round by round.
    for round in 0..3 {
        let total: usize = parts.iter().map(|p| p.content.len()).sum();
        if total <= caps.max_total_bytes {
            break;
        }
        let (members, others): (Vec<usize>, Vec<usize>) =
            (0..parts.len()).partition(|&i| round_of(parts[i].row) == round);
        let others_bytes: usize = others.iter().map(|&i| parts[i].content.len()).sum();
        let budget = caps.max_total_bytes.saturating_sub(others_bytes);
        let sizes: Vec<usize> = members.iter().map(|&i| parts[i].content.len()).collect();
        let level = water_level(&sizes, budget);
        for &i in &members {
            let part = &mut parts[i];
            if part.content.len() > level {
                // Re-cut from the current content: its marker (if any) is already in
                // place and a second cut only shortens it further on the same side.
                let keep_tail = is_append_only(part.row);
                let (content, cut) = recut(&part.content, level, keep_tail);
                part.content = content;
                part.cut = cut;
            }
        }
    }
    parts.retain(|p| !p.content.is_empty());

    let prompt = render(&parts);
    AssembledContext { parts, prompt }
}

/// Cuts an already capped part further without stacking markers: the result is still
/// a prefix (or suffix) of the original text, with one marker.
fn recut(content: &str, limit: usize, keep_tail: bool) -> (String, Cut) {
    let inner = if keep_tail {
        content.strip_prefix(CUT_HEAD_MARKER)
    } else {
        content.strip_suffix(CUT_TAIL_MARKER)
    };
    match inner {
        Some(inner) => force_cut(inner, limit, keep_tail),
        None => cut_text(content, limit, keep_tail),
    }
}

/// The prompt text of `parts`.
pub fn render(parts: &[ContextPart]) -> String {
    let mut out = String::new();
    for part in parts {
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str("## ");
        out.push_str(part.label);
        out.push_str(" (");
        out.push_str(&part.path);
        out.push_str(")\n\n");
        out.push_str(part.content.trim());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(row: ContextRow, content: &str) -> RowText {
        RowText {
            row,
            path: format!("p/{}", row.number()),
            content: Some(content.to_owned()),
        }
    }

    const BIG: AssemblyCaps = AssemblyCaps {
        max_part_bytes: 1 << 20,
        max_total_bytes: 1 << 20,
    };

    #[test]
    fn orders_by_table_and_skips_missing_and_blank() {
        let rows = vec![
            row(ContextRow::CandidateQuestion, "Q?"),
            row(ContextRow::Persona, "I am."),
            RowText {
                row: ContextRow::DeckContent,
                path: "x".into(),
                content: None,
            },
            row(ContextRow::ExternalIntel, "  \n"),
            row(ContextRow::PresenterTranscript, "said"),
        ];
        let ctx = assemble(rows, BIG);
        let order: Vec<_> = ctx.parts.iter().map(|p| p.row).collect();
        assert_eq!(
            order,
            vec![
                ContextRow::Persona,
                ContextRow::PresenterTranscript,
                ContextRow::CandidateQuestion
            ]
        );
        assert_eq!(
            ctx.prompt,
            "## Persona (p/1)\n\nI am.\n\n## Presenter transcript (p/6)\n\nsaid\n\n## Candidate question (p/11)\n\nQ?\n"
        );
    }

    #[test]
    fn placeholders_count_as_empty() {
        assert!(is_effectively_empty(""));
        assert!(is_effectively_empty(
            "# Focus brief\n\n<!-- generated\nat start -->\n"
        ));
        assert!(is_effectively_empty("<!-- unclosed"));
        assert!(!is_effectively_empty(
            "# Transcript\n\n[00:01] Hello board.\n"
        ));
        assert!(!is_effectively_empty("<!-- c --> text"));
    }

    #[test]
    fn tail_cut_keeps_newest_lines() {
        let text = "first line that is long\nsecond line that is long\nline three\n";
        let limit = CUT_HEAD_MARKER.len() + 14;
        let (cut, how) = cut_text(text, limit, true);
        assert_eq!(how, Cut::KeptTail);
        assert_eq!(cut, format!("{CUT_HEAD_MARKER}line three\n"));
        assert!(cut.len() <= limit);
    }

    #[test]
    fn head_cut_keeps_first_lines() {
        let text = "alpha\nbeta\ngamma delta epsilon zeta eta theta iota kappa";
        let limit = CUT_TAIL_MARKER.len() + 8;
        let (cut, how) = cut_text(text, limit, false);
        assert_eq!(how, Cut::KeptHead);
        assert_eq!(cut, format!("alpha{CUT_TAIL_MARKER}"));
    }

    #[test]
    fn cuts_respect_char_boundaries() {
        let text = "ééééééééééééééééééééééééééééééééééééééééé";
        for limit in 0..text.len() {
            for tail in [true, false] {
                let (cut, _) = cut_text(text, limit, tail);
                assert!(cut.len() <= limit);
            }
        }
    }

    #[test]
    fn total_cap_cuts_transcript_before_deck_and_persona() {
        let transcript = "t\n".repeat(500);
        let deck = "d".repeat(300);
        let persona = "p".repeat(200);
        let caps = AssemblyCaps {
            max_part_bytes: 10_000,
            max_total_bytes: 700,
        };
        let ctx = assemble(
            vec![
                row(ContextRow::Persona, &persona),
                row(ContextRow::DeckContent, &deck),
                row(ContextRow::PresenterTranscript, &transcript),
            ],
            caps,
        );
        assert!(ctx.content_bytes() <= 700);
        assert_eq!(ctx.parts[0].content, persona);
        assert_eq!(ctx.parts[1].content, deck);
        assert_eq!(ctx.parts[2].cut, Cut::KeptTail);
        assert!(ctx.parts[2].content.starts_with(CUT_HEAD_MARKER));
        assert!(ctx.parts[2].content.ends_with("t\nt\n"));
    }

    #[test]
    fn water_filling_spares_small_parts() {
        let caps = AssemblyCaps {
            max_part_bytes: 10_000,
            max_total_bytes: 400,
        };
        let ctx = assemble(
            vec![
                row(ContextRow::PresenterTranscript, &"a\n".repeat(400)),
                row(ContextRow::ExchangeHistory, "short history\n"),
            ],
            caps,
        );
        assert_eq!(ctx.parts[1].content, "short history\n");
        assert!(ctx.content_bytes() <= 400);
        assert_eq!(water_level(&[10, 100, 1000], 300), 190);
        assert_eq!(water_level(&[10, 20], 1000), 20);
        assert_eq!(water_level(&[], 0), 0);
    }

    #[test]
    fn tiny_total_drops_parts_instead_of_overflowing() {
        let caps = AssemblyCaps {
            max_part_bytes: 100,
            max_total_bytes: 5,
        };
        let ctx = assemble(
            vec![
                row(ContextRow::Persona, &"p".repeat(50)),
                row(ContextRow::FocusBrief, &"f".repeat(50)),
            ],
            caps,
        );
        assert!(ctx.content_bytes() <= 5);
        assert!(ctx.parts.is_empty());
        assert!(ctx.prompt.is_empty());
    }

    #[test]
    fn caps_deserialize_with_defaults() {
        let caps: AssemblyCaps = serde_json::from_str(r#"{"max_total_bytes": 1000}"#).unwrap();
        assert_eq!(caps.max_total_bytes, 1000);
        assert_eq!(caps.max_part_bytes, AssemblyCaps::default().max_part_bytes);
    }
}
