//! The segmenter's settings from its environment: `SEGMENT_MIN_CHARS`,
//! `SEGMENT_MAX_CHARS` (at least 8) and `SEGMENT_FIRST_CLAUSE_WORDS`, each defaulting to
//! [`SegmenterConfig::default`]'s.

use text_segmenter::SegmenterConfig;

pub fn from_env() -> eyre::Result<SegmenterConfig> {
    let defaults = SegmenterConfig::default();
    Ok(SegmenterConfig {
        min_chars: node_kit::env_parse("SEGMENT_MIN_CHARS", defaults.min_chars)?,
        max_chars: node_kit::env_parse("SEGMENT_MAX_CHARS", defaults.max_chars)?.max(8),
        first_clause_words: node_kit::env_parse(
            "SEGMENT_FIRST_CLAUSE_WORDS",
            defaults.first_clause_words,
        )?,
    })
}
