//! What the player's test files share: a segment as the segmenter sends it, and a
//! session file's JSON lines.

use std::path::Path;

use node_kit::testing::{TestEvent, input, meta};
use serde_json::{Value, json};

/// A `segment` input at `at` seconds: turn `q`'s `index`-th piece, by `speaker`.
pub fn segment_of(at: f64, q: u64, speaker: &str, index: u32, last: bool, text: &str) -> TestEvent {
    input(
        at,
        "segment",
        json!([text]),
        meta(&[
            ("question_id", json!(q)),
            ("speaker", json!(speaker)),
            ("segment_index", json!(index)),
            ("last_segment", json!(last)),
        ]),
    )
}

/// The JSON lines of a session file (none when it is missing).
pub fn lines(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
