//! Records of what a format's core decided, each sent whole as one JSON object.
//!
//! The roundtable's decision and status are typed here field by field. The rehearsal's
//! board and the auction's events are their cores' own types (`rehearsal_core::Board`,
//! `auction_core::EventRecord`), written with [`Board::of`] and [`AuctionEvent::of`] and
//! read as objects checked at decode, with the fields the console reads named here: the
//! console and the recorder know no format's types.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{DecodeError, Fields, Message, Meta};
use crate::{ids, shorten};

/// A JSON object as a record travels.
pub type Object = Map<String, Value>;

/// A record typed field by field travels as its JSON: `Display` is that JSON, `Debug` the
/// same quoted (the decision logs record it so, and the logs recorded before the record
/// was typed replay unchanged), `parse` reads it back with `what` it is in the error.
macro_rules! json_record {
    ($record:ty, $output:expr, $what:literal) => {
        impl std::fmt::Display for $record {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&json(self))
            }
        }

        impl std::fmt::Debug for $record {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{:?}", json(self))
            }
        }

        impl $record {
            /// The record from its JSON.
            pub fn parse(text: &str) -> Result<Self, DecodeError> {
                serde_json::from_str(text).map_err(|e| {
                    DecodeError::Invalid(format!(
                        concat!($what, " that is not the roundtable's ({}): {}"),
                        e,
                        shorten(text)
                    ))
                })
            }
        }

        impl Message for $record {
            const OUTPUT: &'static str = $output;
            type Payload = String;

            fn encode(self) -> (Fields, String) {
                (Fields::new(), json(&self))
            }

            fn decode(_: &impl Meta, text: String) -> Result<Self, DecodeError> {
                Self::parse(&text)
            }
        }
    };
}

/// The roundtable moderator's decision, on `decision`: the spec's decision (its action
/// in the spec's spelling, `SWITCH_PHASE`), then its number, when it was taken and the
/// phase it was taken in. Read back, only `action` and `phase` are required, so that a
/// decision can be written by hand.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeratorDecision {
    pub action: String,
    /// The one agent the action is about.
    pub target: Option<String>,
    #[serde(default)]
    pub reason: String,
    /// Where a phase switch goes (`opening`, …, `ended`).
    pub next_phase: Option<String>,
    /// The floor is granted as an interruption.
    #[serde(default)]
    pub is_interrupt: bool,
    /// The switch is a rollback to free discussion.
    #[serde(default)]
    pub is_rollback: bool,
    /// The decision's number in the session, from 1.
    #[serde(default)]
    pub n: u64,
    /// The roundtable's time, in milliseconds since it started.
    #[serde(default)]
    pub t_ms: u64,
    /// The phase it was taken in (`not_started`, `opening`, …).
    pub phase: String,
}

json_record!(ModeratorDecision, ids::DECISION, "a decision");

/// The roundtable's state, on `status` when a `stats` command asks for it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoundtableStatus {
    pub phase: String,
    /// Decisions taken so far.
    pub decisions: u64,
    /// Rounds of the current phase.
    pub phase_round: u32,
    /// How often each agent has spoken.
    pub speak_counts: BTreeMap<String, u32>,
    pub current_speaker: Option<String>,
    /// The question id being spoken or collected.
    pub question_id: Option<u64>,
    /// Lines sent and not yet reported heard.
    pub unheard: usize,
    pub ended: bool,
}

json_record!(RoundtableStatus, ids::STATUS, "a status");

/// The rehearsal's board as the page draws it, on `board`: the slide on show, the phase,
/// the panel, the exchange, the hands, the time left, the debrief.
#[derive(Debug, Clone, PartialEq)]
pub struct Board(pub Object);

impl Board {
    /// The board of a rehearsal core (`rehearsal_core::Board`).
    pub fn of(board: &impl Serialize) -> Result<Self, DecodeError> {
        object_of(board, "a board").map(Self)
    }

    /// A board from its JSON: one object.
    pub fn parse(text: &str) -> Result<Self, DecodeError> {
        parse_object(text, "a board").map(Self)
    }
}

impl Message for Board {
    const OUTPUT: &'static str = ids::BOARD;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (Fields::new(), json(&self.0))
    }

    fn decode(_: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Self::parse(&text)
    }
}

/// One of the auction's event records, on `auction`: an object whose `event` names its
/// kind (`segment`, `bid`, `bid_fallback`, `auction`, `interjection`, `interrupt`,
/// `timing`, `session_end`) and whose other fields are that kind's.
#[derive(Debug, Clone, PartialEq)]
pub struct AuctionEvent(pub Object);

impl AuctionEvent {
    /// An auction core's record (`auction_core::EventRecord`).
    pub fn of(record: &impl Serialize) -> Result<Self, DecodeError> {
        object_of(record, "an auction record").map(Self)
    }

    /// A record from its JSON: one object.
    pub fn parse(text: &str) -> Result<Self, DecodeError> {
        parse_object(text, "an auction record").map(Self)
    }

    /// Its kind: `bid`, `auction`, ….
    pub fn event(&self) -> &str {
        self.0.get("event").and_then(Value::as_str).unwrap_or("")
    }

    /// The agent a bid is of.
    pub fn agent(&self) -> Option<&str> {
        self.0.get("agent_id").and_then(Value::as_str)
    }

    /// A bid's amount.
    pub fn bid(&self) -> Option<u64> {
        self.0.get("bid").and_then(Value::as_u64)
    }

    /// The tokens a bidder holds.
    pub fn tokens(&self) -> Option<u64> {
        self.0.get("tokens").and_then(Value::as_u64)
    }

    /// An auction's rows: each agent with the tokens it has left.
    pub fn tokens_left(&self) -> Vec<(&str, u64)> {
        let rows = self.0.get("rows").and_then(Value::as_array);
        rows.into_iter()
            .flatten()
            .filter_map(|row| {
                let agent = row.get("agent_id")?.as_str()?;
                Some((agent, row.get("tokens_left")?.as_u64()?))
            })
            .collect()
    }

    /// Its own fields, in order: neither its kind, its provenance nor an auction's rows.
    pub fn details(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.0
            .iter()
            .filter(|(k, _)| !matches!(k.as_str(), "event" | "provenance" | "rows"))
            .map(|(k, v)| (k.as_str(), v))
    }
}

impl Message for AuctionEvent {
    const OUTPUT: &'static str = ids::AUCTION;
    type Payload = String;

    fn encode(self) -> (Fields, String) {
        (Fields::new(), json(&self.0))
    }

    fn decode(_: &impl Meta, text: String) -> Result<Self, DecodeError> {
        Self::parse(&text)
    }
}

/// A record's JSON. Writing plain data (strings, numbers, maps with string keys) cannot
/// fail; were it to, the record reads as an empty object.
fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "{}".to_owned())
}

fn object_of(value: &impl Serialize, what: &str) -> Result<Object, DecodeError> {
    match serde_json::to_value(value) {
        Ok(Value::Object(object)) => Ok(object),
        Ok(other) => Err(DecodeError::Invalid(format!(
            "{what} that is not a JSON object: {}",
            shorten(&other.to_string())
        ))),
        Err(e) => Err(DecodeError::Invalid(format!("{what} not written: {e}"))),
    }
}

fn parse_object(text: &str, what: &str) -> Result<Object, DecodeError> {
    match serde_json::from_str(text) {
        Ok(Value::Object(object)) => Ok(object),
        _ => Err(DecodeError::Invalid(format!(
            "{what} that is not a JSON object: {}",
            shorten(text)
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decision() -> ModeratorDecision {
        ModeratorDecision {
            action: "SWITCH_PHASE".into(),
            target: None,
            reason: "the session starts".into(),
            next_phase: Some("opening".into()),
            is_interrupt: false,
            is_rollback: false,
            n: 1,
            t_ms: 0,
            phase: "not_started".into(),
        }
    }

    #[test]
    fn a_decision_reads_back_and_shows_as_the_json_it_travels_as() {
        let (_, text) = decision().encode();
        assert_eq!(
            text,
            r#"{"action":"SWITCH_PHASE","target":null,"reason":"the session starts","next_phase":"opening","is_interrupt":false,"is_rollback":false,"n":1,"t_ms":0,"phase":"not_started"}"#
        );
        assert_eq!(format!("{:?}", decision()), format!("{text:?}"));
        let back = ModeratorDecision::decode(&Fields::new(), text).unwrap();
        assert_eq!(back, decision());
        let err = ModeratorDecision::decode(&Fields::new(), r#"{"action":1}"#.into());
        assert!(
            err.unwrap_err()
                .to_string()
                .contains("not the roundtable's")
        );
        let by_hand = ModeratorDecision::parse(r#"{"action":"WAIT","phase":"opening"}"#).unwrap();
        assert_eq!(
            (by_hand.n, by_hand.target, by_hand.reason),
            (0, None, String::new())
        );
    }

    #[test]
    fn a_status_reads_back() {
        let status = RoundtableStatus {
            phase: "opening".into(),
            decisions: 3,
            phase_round: 1,
            speak_counts: BTreeMap::from([("economist".into(), 2)]),
            current_speaker: Some("economist".into()),
            question_id: Some(4),
            unheard: 1,
            ended: false,
        };
        let (_, text) = status.clone().encode();
        assert_eq!(
            RoundtableStatus::decode(&Fields::new(), text).unwrap(),
            status
        );
    }

    #[test]
    fn a_record_that_is_no_object_is_refused() {
        for text in ["[1,2]", "3", "not json", ""] {
            assert!(
                Board::decode(&Fields::new(), text.into()).is_err(),
                "{text}"
            );
            assert!(
                AuctionEvent::decode(&Fields::new(), text.into()).is_err(),
                "{text}"
            );
        }
        assert!(Board::of(&[1, 2]).is_err());
    }

    #[test]
    fn an_auction_event_names_what_the_console_reads() {
        let bid = r#"{"event":"bid","agent_id":"ana","bid":3,"tokens":7,"provenance":{"policy":"auction/v1"}}"#;
        let bid = AuctionEvent::decode(&Fields::new(), bid.into()).unwrap();
        assert_eq!(
            (bid.event(), bid.agent(), bid.bid(), bid.tokens()),
            ("bid", Some("ana"), Some(3), Some(7))
        );
        let keys: Vec<&str> = bid.details().map(|(k, _)| k).collect();
        assert_eq!(keys.len(), 3, "{keys:?}");
        assert!(!keys.contains(&"event") && !keys.contains(&"provenance"));
        let auction = r#"{"event":"auction","winner":"ana","rows":[{"agent_id":"ana","tokens_left":2},{"agent_id":"ben"}]}"#;
        let auction = AuctionEvent::decode(&Fields::new(), auction.into()).unwrap();
        assert_eq!(auction.tokens_left(), [("ana", 2)]);
        assert_eq!(auction.details().count(), 1);
    }
}
