//! What a session folder holds, without touching the disk.
//!
//! `transcript.jsonl`: one [`TranscriptLine`] per utterance; `events.jsonl`: one
//! [`EventLine`] per control event (turns, interrupts, errors). [`SessionLog`] turns the
//! controller's messages into those lines and into what the console shows.

use std::collections::BTreeMap;

use serde::Serialize;

/// One utterance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TranscriptLine {
    pub speaker: String,
    pub question_id: u64,
    pub text: String,
    /// When the turn was handed out (agents) or the utterance arrived (humans).
    pub start_ms: u64,
    pub end_ms: u64,
    pub interrupted: bool,
    pub human: bool,
}

/// One control event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EventLine {
    pub t_ms: u64,
    pub event: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speaker: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub question_id: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// What the recorder observed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Observed {
    Turn {
        speaker: String,
        question_id: u64,
    },
    Interrupt {
        kind: String,
        question_id: u64,
    },
    Utterance {
        speaker: String,
        text: String,
        question_id: u64,
        interrupted: bool,
        human: bool,
    },
    Error {
        source: String,
        message: String,
    },
}

/// What to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    Transcript(TranscriptLine),
    Event(EventLine),
}

impl Record {
    pub fn to_json(&self) -> String {
        match self {
            Record::Transcript(t) => serde_json::to_string(t),
            Record::Event(e) => serde_json::to_string(e),
        }
        .expect("records always serialize")
    }

    /// The console line for a human reader, if any.
    pub fn console_line(&self) -> Option<String> {
        match self {
            Record::Transcript(t) => Some(format!(
                "[q{}] {}: {}{}",
                t.question_id,
                t.speaker,
                t.text.trim(),
                if t.interrupted { " [interrupted]" } else { "" }
            )),
            Record::Event(e) if e.event == "interrupt" => Some(format!(
                "---- interrupt ({}) q{} ----",
                e.detail.as_deref().unwrap_or("cancel"),
                e.question_id.unwrap_or_default()
            )),
            Record::Event(e) if e.event == "error" => Some(format!(
                "!! {}: {}",
                e.speaker.as_deref().unwrap_or("?"),
                e.detail.as_deref().unwrap_or("")
            )),
            Record::Event(_) => None,
        }
    }
}

/// Turns observations into records, remembering when each turn began.
#[derive(Debug, Clone, Default)]
pub struct SessionLog {
    turn_started: BTreeMap<u64, u64>,
}

impl SessionLog {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn observe(&mut self, observed: Observed, now_ms: u64) -> Vec<Record> {
        match observed {
            Observed::Turn {
                speaker,
                question_id,
            } => {
                self.turn_started.entry(question_id).or_insert(now_ms);
                vec![Record::Event(EventLine {
                    t_ms: now_ms,
                    event: "turn",
                    speaker: Some(speaker),
                    question_id: Some(question_id),
                    detail: None,
                })]
            }
            Observed::Interrupt { kind, question_id } => {
                vec![Record::Event(EventLine {
                    t_ms: now_ms,
                    event: "interrupt",
                    speaker: None,
                    question_id: Some(question_id),
                    detail: Some(kind),
                })]
            }
            Observed::Utterance {
                speaker,
                text,
                question_id,
                interrupted,
                human,
            } => {
                let start_ms = match human {
                    true => now_ms,
                    false => self.turn_started.remove(&question_id).unwrap_or(now_ms),
                };
                // Keep the map small: turns that never produced an utterance are forgotten.
                self.turn_started.retain(|q, _| *q > question_id);
                vec![Record::Transcript(TranscriptLine {
                    speaker,
                    question_id,
                    text,
                    start_ms,
                    end_ms: now_ms,
                    interrupted,
                    human,
                })]
            }
            Observed::Error { source, message } => vec![Record::Event(EventLine {
                t_ms: now_ms,
                event: "error",
                speaker: Some(source),
                question_id: None,
                detail: Some(message),
            })],
        }
    }
}

/// A session id from a UTC time: `YYYYMMDD-HHMMSS-<suffix>`.
pub fn session_id(unix_secs: u64, suffix: u32) -> String {
    let days = (unix_secs / 86_400) as i64;
    let secs = unix_secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}-{suffix}",
        secs / 3600,
        secs % 3600 / 60,
        secs % 60
    )
}

/// The session id of a dataflow run, the same in every node of it:
/// `YYYYMMDD-HHMMSS-<last 6 hex digits>` from a time-ordered (v7) dataflow UUID, or
/// `run-<12 hex digits>` for other UUIDs.
pub fn session_id_for_dataflow(uuid: &str) -> String {
    let hex: String = uuid.chars().filter(char::is_ascii_hexdigit).collect();
    if hex.len() != 32 {
        let safe: String = uuid
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .take(32)
            .collect();
        return format!("run-{safe}");
    }
    let tail = &hex[26..];
    if hex.as_bytes()[12] == b'7' {
        let millis = u64::from_str_radix(&hex[..12], 16).unwrap_or(0);
        let full = session_id(millis / 1000, 0);
        let stamp = full.rsplit_once('-').map_or(full.as_str(), |(s, _)| s);
        return format!("{stamp}-{tail}");
    }
    format!("run-{}", &hex[20..])
}

/// Whether `id` is safe as a single folder name (no path escape, no hidden files).
pub fn is_valid_session_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Days since 1970-01-01 to a (year, month, day) civil date.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utterances_get_their_turn_start() {
        let mut log = SessionLog::new();
        log.observe(
            Observed::Turn {
                speaker: "tutor".into(),
                question_id: 3,
            },
            100,
        );
        let records = log.observe(
            Observed::Utterance {
                speaker: "tutor".into(),
                text: "Hi.".into(),
                question_id: 3,
                interrupted: true,
                human: false,
            },
            900,
        );
        let Record::Transcript(t) = &records[0] else {
            panic!()
        };
        assert_eq!((t.start_ms, t.end_ms), (100, 900));
        assert_eq!(
            records[0].console_line().unwrap(),
            "[q3] tutor: Hi. [interrupted]"
        );
        let json: serde_json::Value = serde_json::from_str(&records[0].to_json()).unwrap();
        assert_eq!(json["question_id"], 3);
        assert_eq!(json["interrupted"], true);
    }

    #[test]
    fn ids() {
        assert_eq!(session_id(0, 7), "19700101-000000-7");
        assert_eq!(session_id(1_795_000_000, 1), "20261118-110640-1");
        assert!(is_valid_session_id("20261122-010203-42"));
        // UUID v7: the time is in its first 48 bits.
        let v7 = "01a20107-2f71-79c7-821b-84498594f109";
        let id = session_id_for_dataflow(v7);
        assert!(id.ends_with("-94f109"), "{id}");
        assert!(is_valid_session_id(&id));
        assert_eq!(session_id_for_dataflow(v7), id, "the same in every node");
        assert!(
            session_id_for_dataflow("3b241101-e2bb-4255-8caf-4136c566a962").starts_with("run-")
        );
        assert!(is_valid_session_id(&session_id_for_dataflow("../../etc")));
        for bad in ["", "..", "../x", "a/b", ".hidden", "a\\b", "x y"] {
            assert!(!is_valid_session_id(bad), "{bad}");
        }
    }
}
