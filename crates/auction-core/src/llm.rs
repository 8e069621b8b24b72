//! Strict parsers for the optional model outputs: JSON bids and mood reports.
//!
//! Models add prose, code fences and trailing remarks; the parsers take the first
//! balanced JSON object in the text, then validate it against a strict schema
//! (unknown fields and wrong types are errors). Errors mean "use the heuristic".
//! No input string can make them panic.

use serde::Deserialize;

use crate::bidding::BidIntent;
use crate::emotion::Mood;
use crate::evidence::EvidenceClaim;

/// Largest bid a model may name; anything above is malformed rather than ambitious.
pub const MAX_LLM_BID: i64 = 1000;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ParseError {
    #[error("no JSON object found")]
    NoJson,
    #[error("invalid JSON: {0}")]
    Json(String),
    #[error("unknown action `{0}` (speak, interject or pass)")]
    Action(String),
    #[error("bid {0} out of range 0..={MAX_LLM_BID}")]
    BidRange(i64),
    #[error("mood value `{0}` is not a number in 0..=1")]
    Mood(&'static str),
}

/// A validated model bid.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmBid {
    pub intent: BidIntent,
    pub bid: u32,
    pub kicker: bool,
    pub evidence: Option<EvidenceClaim>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBid {
    action: String,
    bid: i64,
    #[serde(default)]
    kicker: bool,
    #[serde(default)]
    evidence_backed: bool,
    #[serde(default)]
    citations: Vec<String>,
    #[serde(default)]
    relevance: Option<f64>,
}

/// Parses `{"action": "speak|interject|pass", "bid": int, "kicker": bool}` with the
/// optional evidence fields `evidence_backed`, `citations` and `relevance`.
/// A pass carries no bid and no kicker whatever the model wrote.
pub fn parse_bid(text: &str) -> Result<LlmBid, ParseError> {
    let json = extract_json_object(text).ok_or(ParseError::NoJson)?;
    let raw: RawBid = serde_json::from_str(json).map_err(|e| ParseError::Json(e.to_string()))?;
    let intent = match raw.action.as_str() {
        "speak" => BidIntent::Speak,
        "interject" => BidIntent::Interject,
        "pass" => BidIntent::Pass,
        other => return Err(ParseError::Action(truncate(other, 40))),
    };
    if !(0..=MAX_LLM_BID).contains(&raw.bid) {
        return Err(ParseError::BidRange(raw.bid));
    }
    let pass = intent == BidIntent::Pass;
    let evidence = raw.evidence_backed.then(|| EvidenceClaim {
        citations: raw.citations,
        relevance: raw.relevance.unwrap_or(0.0),
    });
    Ok(LlmBid {
        intent,
        bid: if pass { 0 } else { raw.bid as u32 },
        kicker: !pass && intent == BidIntent::Speak && raw.kicker,
        evidence,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMood {
    frustration: f64,
    engagement: f64,
    confidence: f64,
}

/// Parses `{"frustration": f, "engagement": f, "confidence": f}`; values must be
/// finite and within `0..=1` (out-of-range reports are malformed and ignored whole).
pub fn parse_mood(text: &str) -> Result<Mood, ParseError> {
    let json = extract_json_object(text).ok_or(ParseError::NoJson)?;
    let raw: RawMood = serde_json::from_str(json).map_err(|e| ParseError::Json(e.to_string()))?;
    mood_from(raw.frustration, raw.engagement, raw.confidence)
}

fn mood_from(f: f64, e: f64, c: f64) -> Result<Mood, ParseError> {
    for (name, v) in [("frustration", f), ("engagement", e), ("confidence", c)] {
        if !(v.is_finite() && (0.0..=1.0).contains(&v)) {
            return Err(ParseError::Mood(name));
        }
    }
    Ok(Mood {
        frustration: f,
        engagement: e,
        confidence: c,
    })
}

/// A segment answer split into speakable text and an optional mood report.
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentPayload {
    pub text: String,
    /// `None` when absent or malformed.
    pub mood: Option<Mood>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEnvelope {
    segment: String,
    #[serde(default)]
    mood: Option<RawMood>,
}

/// Accepts the two formats of a segment with mood: the JSON envelope
/// `{"segment": "…", "mood": {…}}` and the tagged form
/// `<<<SEGMENT>>> … <<<MOOD>>> {…}`. Anything else is plain segment text.
pub fn parse_segment_payload(raw: &str) -> SegmentPayload {
    let trimmed = raw.trim();
    if (trimmed.starts_with('{') || trimmed.starts_with("```"))
        && let Some(json) = extract_json_object(trimmed)
        && let Ok(env) = serde_json::from_str::<RawEnvelope>(json)
    {
        let mood = env
            .mood
            .and_then(|m| mood_from(m.frustration, m.engagement, m.confidence).ok());
        return SegmentPayload {
            text: env.segment.trim().to_owned(),
            mood,
        };
    }
    if let Some(pos) = trimmed.find("<<<MOOD>>>") {
        let (segment, mood_part) = trimmed.split_at(pos);
        let segment = segment.trim();
        let segment = segment
            .strip_prefix("<<<SEGMENT>>>")
            .unwrap_or(segment)
            .trim();
        return SegmentPayload {
            text: segment.to_owned(),
            mood: parse_mood(&mood_part["<<<MOOD>>>".len()..]).ok(),
        };
    }
    let text = trimmed
        .strip_prefix("<<<SEGMENT>>>")
        .unwrap_or(trimmed)
        .trim();
    SegmentPayload {
        text: text.to_owned(),
        mood: None,
    }
}

/// The first balanced `{…}` of `text`, braces inside JSON strings ignored.
pub fn extract_json_object(text: &str) -> Option<&str> {
    let start = text.find('{')?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text[start..].char_indices() {
        if in_string {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[start..start + i + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

fn truncate(s: &str, max_chars: usize) -> String {
    s.chars().take(max_chars).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bid_with_prose_and_fences() {
        let b = parse_bid(
            "Sure!\n```json\n{\"action\": \"speak\", \"bid\": 3, \"kicker\": true}\n```\nDone.",
        )
        .unwrap();
        assert_eq!(b.intent, BidIntent::Speak);
        assert_eq!(b.bid, 3);
        assert!(b.kicker);
        assert!(b.evidence.is_none());
    }

    #[test]
    fn bid_schema_is_strict() {
        assert_eq!(parse_bid("no json"), Err(ParseError::NoJson));
        assert!(matches!(
            parse_bid(r#"{"action":"shout","bid":1}"#),
            Err(ParseError::Action(_))
        ));
        assert!(matches!(
            parse_bid(r#"{"action":"speak","bid":2.5}"#),
            Err(ParseError::Json(_))
        ));
        assert!(matches!(
            parse_bid(r#"{"action":"speak","bid":-1}"#),
            Err(ParseError::BidRange(-1))
        ));
        assert!(matches!(
            parse_bid(r#"{"action":"speak","bid":1,"extra":0}"#),
            Err(ParseError::Json(_))
        ));
        let pass = parse_bid(r#"{"action":"pass","bid":5,"kicker":true}"#).unwrap();
        assert_eq!((pass.bid, pass.kicker), (0, false));
        let ev = parse_bid(
            r#"{"action":"speak","bid":2,"kicker":false,"evidence_backed":true,"citations":["kb:7"],"relevance":0.8}"#,
        )
        .unwrap();
        assert_eq!(ev.evidence.unwrap().citations, vec!["kb:7".to_owned()]);
    }

    #[test]
    fn mood_reports() {
        let m = parse_mood(r#"{"frustration":0.42,"engagement":0.61,"confidence":0.55}"#).unwrap();
        assert_eq!(m.engagement, 0.61);
        assert!(parse_mood(r#"{"frustration":1.5,"engagement":0.6,"confidence":0.5}"#).is_err());
        assert!(parse_mood(r#"{"frustration":0.5}"#).is_err());
    }

    #[test]
    fn segment_payload_formats() {
        let p = parse_segment_payload(
            r#"{ "segment": "We disagree. Here is why.", "mood": { "frustration": 0.42, "engagement": 0.61, "confidence": 0.55 } }"#,
        );
        assert_eq!(p.text, "We disagree. Here is why.");
        assert!(p.mood.is_some());
        let p = parse_segment_payload(
            "<<<SEGMENT>>>\nFirst. Second.\n<<<MOOD>>>\n{\"frustration\":0.4,\"engagement\":0.6,\"confidence\":0.5}",
        );
        assert_eq!(p.text, "First. Second.");
        assert_eq!(p.mood.unwrap().frustration, 0.4);
        let p = parse_segment_payload("Just text {with braces}.");
        assert_eq!(p.text, "Just text {with braces}.");
        assert!(p.mood.is_none());
    }

    #[test]
    fn json_extraction_handles_strings() {
        assert_eq!(
            extract_json_object(r#"x {"a":"}{","b":{"c":1}} y"#),
            Some(r#"{"a":"}{","b":{"c":1}}"#)
        );
        assert_eq!(extract_json_object("{{"), None);
    }
}
