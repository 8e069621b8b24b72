//! The conference controller's `status`: the turn policy's state, as the spec's `stats`
//! structure plus the last speaker and the question id. The console draws the talk
//! shares from it.

use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::{DecodeError, Fields, Message, Meta};
use crate::ids;

/// The turn policy's state at one moment.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct PolicyStatus {
    /// The policy's mode (`ratio_priority`, `sequential`, …).
    pub mode: String,
    /// The participants, in the pattern's order.
    pub participants: Vec<String>,
    pub weights: Vec<ParticipantWeight>,
    /// Words each participant said since the last reset, in the pattern's order.
    pub word_counts: WordCounts,
    pub cycle: u64,
    pub current_speaker: Option<String>,
    pub last_speaker: Option<String>,
    pub question_id: Option<u64>,
    /// Participants skipped because they stopped answering.
    pub absent: Vec<String>,
}

/// A participant's configured weight.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ParticipantWeight {
    pub name: String,
    pub weight: Share,
}

/// What a participant is owed: a ratio of the words, or the floor whenever it is due
/// (`*` in a pattern and in the JSON).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Share {
    Ratio(f64),
    Priority,
}

impl Serialize for Share {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Share::Priority => s.serialize_str("*"),
            Share::Ratio(w) => s.serialize_f64(*w),
        }
    }
}

impl<'de> Deserialize<'de> for Share {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ShareVisitor;
        impl Visitor<'_> for ShareVisitor {
            type Value = Share;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or \"*\"")
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Share, E> {
                Ok(Share::Ratio(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Share, E> {
                Ok(Share::Ratio(v as f64))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Share, E> {
                Ok(Share::Ratio(v as f64))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Share, E> {
                match v {
                    "*" => Ok(Share::Priority),
                    other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
                }
            }
        }
        d.deserialize_any(ShareVisitor)
    }
}

/// Word counts in the pattern's order, a JSON object (`{"tutor": 40, …}`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct WordCounts(pub Vec<(String, u64)>);

impl WordCounts {
    pub fn get(&self, name: &str) -> Option<u64> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, c)| *c)
    }
}

impl Serialize for WordCounts {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (name, count) in &self.0 {
            map.serialize_entry(name, count)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for WordCounts {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct CountsVisitor;
        impl<'de> Visitor<'de> for CountsVisitor {
            type Value = WordCounts;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of word counts")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<WordCounts, A::Error> {
                let mut counts = Vec::new();
                while let Some((name, count)) = map.next_entry::<String, u64>()? {
                    counts.push((name, count));
                }
                Ok(WordCounts(counts))
            }
        }
        d.deserialize_map(CountsVisitor)
    }
}

impl PolicyStatus {
    /// The status as its JSON text.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }

    /// A status from its JSON text: one object, any of its fields missing.
    pub fn parse(text: &str) -> Result<Self, DecodeError> {
        serde_json::from_str(text).map_err(|e| {
            DecodeError::Invalid(format!(
                "status is not the controller's JSON ({e}): {}",
                crate::shorten(text)
            ))
        })
    }
}

impl Message for PolicyStatus {
    const OUTPUT: &'static str = ids::STATUS;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (Fields::new(), self.to_json())
    }

    fn decode(_: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Self::parse(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_status_reads_back_as_it_was_written_in_order() {
        let status = PolicyStatus {
            mode: "ratio_priority".into(),
            participants: vec!["human".into(), "tutor".into(), "ben".into()],
            weights: vec![
                ParticipantWeight {
                    name: "human".into(),
                    weight: Share::Ratio(0.001),
                },
                ParticipantWeight {
                    name: "tutor".into(),
                    weight: Share::Priority,
                },
            ],
            word_counts: WordCounts(vec![("tutor".into(), 40), ("ben".into(), 3)]),
            cycle: 3,
            current_speaker: Some("ben".into()),
            last_speaker: None,
            question_id: Some(12),
            absent: vec!["ben".into()],
        };
        let json = status.to_json();
        assert!(json.contains(r#""weight":"*""#), "{json}");
        assert!(
            json.contains(r#""word_counts":{"tutor":40,"ben":3}"#),
            "{json}"
        );
        assert_eq!(PolicyStatus::parse(&json).unwrap(), status);
        let (fields, text) = status.clone().encode();
        assert_eq!(PolicyStatus::decode(&fields, text).unwrap(), status);
    }

    #[test]
    fn a_status_that_does_not_read_is_an_error() {
        for bad in ["", "[1]", "not json", r#"{"weights":[{"weight":"all"}]}"#] {
            assert!(PolicyStatus::parse(bad).is_err(), "{bad}");
        }
        // Fields left out are their defaults.
        let bare = PolicyStatus::parse(r#"{"mode":"sequential"}"#).unwrap();
        assert_eq!(bare.mode, "sequential");
        assert!(bare.weights.is_empty());
    }
}
