//! What a session folder holds, without touching the disk.
//!
//! `transcript.jsonl`: one [`TranscriptLine`] per utterance; `events.jsonl`: one
//! [`EventLine`] per control event (turns, interrupts, errors). [`SessionLog`] turns the
//! controller's (and, in spoken sessions, the player's) messages into those lines and into
//! what the console shows.
//!
//! In a spoken session ([`SessionLog::spoken`]) an agent's line waits for the player's
//! report of what was actually heard, and lines leave in question-id order: a human line
//! releases every older line that never began to sound (one that is sounding waits for
//! the report of how much of it was heard), a report for question `x` releases everything
//! below `x` (the player plays in order), and [`SessionLog::flush`] releases the rest at
//! the end.

mod recorder;
mod session_id;

pub use recorder::{RECORDER_FORMAT, RecorderSetup};
pub use session_id::{is_valid_session_id, session_id, session_id_for_dataflow};

use std::collections::BTreeMap;

use serde::Serialize;

/// One utterance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TranscriptLine {
    pub speaker: String,
    pub question_id: u64,
    pub text: String,
    /// Text session: when the turn was handed out (agents) or the utterance arrived
    /// (humans). Spoken session: when the utterance began and stopped sounding.
    pub start_ms: u64,
    pub end_ms: u64,
    pub interrupted: bool,
    pub human: bool,
    /// Spoken sessions: the part of `text` that was actually heard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_played: Option<String>,
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
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
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
    /// The player began to sound an utterance.
    PlaybackStarted {
        question_id: u64,
    },
    /// The player finished or cut off an utterance; `heard` is what sounded.
    Played {
        question_id: u64,
        heard: String,
        interrupted: bool,
    },
    Error {
        source: String,
        message: String,
    },
    /// A conductor's decision record (JSON text), logged as it came.
    Decision {
        detail: String,
    },
    /// A format's record (the auction's), written to `events.jsonl` stamped with the
    /// session time.
    Record(serde_json::Map<String, serde_json::Value>),
    /// The player's reports stopped for good (its input closed: crashed or killed).
    PlayerGone,
    /// The session is over: every line still waiting is written.
    Ended,
}

/// What to write.
#[derive(Debug, Clone, PartialEq)]
pub enum Record {
    Transcript(TranscriptLine),
    Event(EventLine),
    /// A format's record as it came, with `t_ms`: a line of `events.jsonl`.
    Stamped(serde_json::Map<String, serde_json::Value>),
}

impl Record {
    pub fn to_json(&self) -> String {
        match self {
            Record::Transcript(t) => serde_json::to_string(t),
            Record::Event(e) => serde_json::to_string(e),
            Record::Stamped(record) => serde_json::to_string(record),
        }
        .expect("records always serialize")
    }

    /// The console line for a human reader, if any. Control characters (terminal escape
    /// sequences in model or human text) are replaced: a line cannot drive the terminal.
    pub fn console_line(&self) -> Option<String> {
        self.console_text().map(|line| printable(&line))
    }

    fn console_text(&self) -> Option<String> {
        match self {
            Record::Transcript(t) => {
                let text = match &t.text_played {
                    Some(heard) if heard.is_empty() => {
                        "(cut off before a word was heard)".to_owned()
                    }
                    Some(heard) if t.interrupted => format!("{heard} —"),
                    _ => t.text.trim().to_owned(),
                };
                Some(format!(
                    "[q{}] {}: {}{}",
                    t.question_id,
                    t.speaker,
                    text,
                    if t.interrupted { " [interrupted]" } else { "" }
                ))
            }
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
            Record::Event(_) | Record::Stamped(_) => None,
        }
    }
}

/// `text` with every control character (C0, DEL, C1) shown as a space, runs collapsed.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last_space = false;
    for c in text.chars() {
        if c.is_control() {
            if !last_space {
                out.push(' ');
            }
            last_space = true;
        } else {
            out.push(c);
            last_space = false;
        }
    }
    out
}

#[derive(Debug, Clone)]
struct Pending {
    line: TranscriptLine,
    ready: bool,
}

/// Turns observations into records.
#[derive(Debug, Clone, Default)]
pub struct SessionLog {
    spoken: bool,
    turn_started: BTreeMap<u64, u64>,
    sounding_since: BTreeMap<u64, u64>,
    pending: BTreeMap<u64, Pending>,
    /// Reports that came before their utterance: (heard, interrupted, start, end).
    early_reports: BTreeMap<u64, (String, bool, u64, u64)>,
    /// The newest interrupt seen: what is older and never began to sound never will.
    interrupted_below: u64,
}

impl SessionLog {
    /// A text session: lines are written as utterances finish.
    pub fn new() -> Self {
        Self::default()
    }

    /// A spoken session: agents' lines wait for what the player reports as heard.
    pub fn spoken() -> Self {
        Self {
            spoken: true,
            ..Self::default()
        }
    }

    pub fn observe(&mut self, observed: Observed, now_ms: u64) -> Vec<Record> {
        let event = |event: &'static str,
                     speaker: Option<String>,
                     question_id: Option<u64>,
                     detail: Option<String>| {
            Record::Event(EventLine {
                t_ms: now_ms,
                event,
                speaker,
                question_id,
                detail,
            })
        };
        match observed {
            Observed::Turn {
                speaker,
                question_id,
            } => {
                // A turn repeated (the hold's end, a node that joined late) started once.
                let name = match self.turn_started.entry(question_id) {
                    std::collections::btree_map::Entry::Vacant(start) => {
                        start.insert(now_ms);
                        "turn"
                    }
                    std::collections::btree_map::Entry::Occupied(_) => "turn_repeated",
                };
                vec![event(name, Some(speaker), Some(question_id), None)]
            }
            Observed::Interrupt { kind, question_id } => {
                self.interrupted_below = self.interrupted_below.max(question_id);
                vec![event("interrupt", None, Some(question_id), Some(kind))]
            }
            Observed::Error { source, message } => {
                vec![event("error", Some(source), None, Some(message))]
            }
            Observed::Decision { detail } => vec![event("decision", None, None, Some(detail))],
            Observed::Record(mut record) => {
                record.insert("t_ms".into(), now_ms.into());
                vec![Record::Stamped(record)]
            }
            Observed::Ended => self.flush(),
            Observed::PlayerGone => {
                let mut out = vec![event("playback_reports_ended", None, None, None)];
                if self.spoken {
                    out.extend(self.without_player());
                }
                out
            }
            Observed::PlaybackStarted { question_id } => {
                self.sounding_since.entry(question_id).or_insert(now_ms);
                Vec::new()
            }
            Observed::Played {
                question_id,
                heard,
                interrupted,
            } => {
                let start = self.sounding_since.remove(&question_id).unwrap_or(now_ms);
                let mut out = vec![event(
                    "played",
                    None,
                    Some(question_id),
                    Some(if interrupted {
                        "interrupted".into()
                    } else {
                        "complete".into()
                    }),
                )];
                if !self.spoken {
                    return out;
                }
                match self.pending.get_mut(&question_id) {
                    Some(p) => {
                        p.line.text_played = Some(heard);
                        p.line.interrupted |= interrupted;
                        p.line.start_ms = start;
                        p.line.end_ms = now_ms;
                        p.ready = true;
                    }
                    None => {
                        self.early_reports
                            .insert(question_id, (heard, interrupted, start, now_ms));
                    }
                }
                self.give_up_below(question_id);
                out.extend(self.release());
                out
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
                let mut line = TranscriptLine {
                    speaker,
                    question_id,
                    text,
                    start_ms,
                    end_ms: now_ms,
                    interrupted,
                    human,
                    text_played: None,
                };
                if !self.spoken {
                    return vec![Record::Transcript(line)];
                }
                let mut ready = human;
                if human {
                    // Older lines that never began to sound never will, when an interrupt
                    // dropped them (a barge-in); one that is sounding now waits for the
                    // player's report of how much was heard (the human's words usually
                    // arrive before the report of the cut they caused). Without an
                    // interrupt (a rehearsal's presenter cuts nobody) queued lines still
                    // sound.
                    self.give_up_silent_below(question_id.min(self.interrupted_below));
                } else if let Some((heard, cut, start, end)) =
                    self.early_reports.remove(&question_id)
                {
                    line.text_played = Some(heard);
                    line.interrupted |= cut;
                    line.start_ms = start;
                    line.end_ms = end;
                    ready = true;
                }
                self.pending.insert(question_id, Pending { line, ready });
                self.release()
            }
        }
    }

    /// No report will come any more: lines are written as they finish from now on. A
    /// line that was sounding when the player went is written with what was heard
    /// unknown (`text_played` absent), one that never sounded as not heard.
    fn without_player(&mut self) -> Vec<Record> {
        self.spoken = false;
        for (q, p) in self.pending.iter_mut() {
            if p.ready || p.line.human {
                continue;
            }
            p.ready = true;
            if !self.sounding_since.contains_key(q) {
                p.line.text_played = Some(String::new());
                p.line.interrupted = true;
            }
        }
        self.early_reports.clear();
        self.sounding_since.clear();
        self.release()
    }

    /// Releases every line still waiting (at the end of a session).
    pub fn flush(&mut self) -> Vec<Record> {
        let last = self.pending.keys().next_back().copied().unwrap_or(0);
        self.give_up_below(last + 1);
        self.release()
    }

    /// Like [`Self::give_up_below`], sparing lines the player has begun to sound.
    fn give_up_silent_below(&mut self, question_id: u64) {
        let sounding = &self.sounding_since;
        for (q, p) in self.pending.range_mut(..question_id) {
            if !p.ready && !sounding.contains_key(q) {
                p.ready = true;
                if !p.line.human {
                    p.line.text_played = Some(String::new());
                    p.line.interrupted = true;
                }
            }
        }
    }

    /// Lines below `question_id` without a report will never get one: nobody heard them.
    fn give_up_below(&mut self, question_id: u64) {
        for p in self.pending.range_mut(..question_id).map(|(_, p)| p) {
            if !p.ready {
                p.ready = true;
                if !p.line.human {
                    p.line.text_played = Some(String::new());
                    p.line.interrupted = true;
                }
            }
        }
        self.early_reports.retain(|q, _| *q >= question_id);
    }

    fn release(&mut self) -> Vec<Record> {
        let mut out = Vec::new();
        while let Some(entry) = self.pending.first_entry() {
            if !entry.get().ready {
                break;
            }
            out.push(Record::Transcript(entry.remove().line));
        }
        out
    }
}

/// Where a transcript line goes in the agent-context session of a conversation
/// (see the agent-context crate): every line into the shared exchange history, a human's
/// into the shared presenter transcript, an agent's into its own exchange notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextLines {
    /// `shared/exchange-history.md`
    pub history: String,
    /// `shared/presenter-transcript.md`, for human lines.
    pub presenter: Option<String>,
    /// `<speaker>/exchange-notes.md`, for agent lines: (agent, text).
    pub own_notes: Option<(String, String)>,
}

/// `[mm:ss]` of a session time.
pub fn clock(ms: u64) -> String {
    let secs = ms / 1000;
    format!("[{:02}:{:02}]", secs / 60, secs % 60)
}

impl TranscriptLine {
    /// What was heard: the played part in spoken sessions, else the whole text.
    pub fn heard(&self) -> &str {
        self.text_played.as_deref().unwrap_or(&self.text).trim()
    }

    /// The Markdown lines this utterance adds to the context session.
    pub fn context_lines(&self) -> ContextLines {
        let heard = self.heard();
        let text = match (heard.is_empty(), self.interrupted) {
            (true, _) => "(cut off before a word was heard)".to_owned(),
            (false, true) => format!("{heard} — (interrupted)"),
            (false, false) => heard.to_owned(),
        };
        let at = clock(self.start_ms);
        let history = format!("- {at} **{}**: {text}\n", self.speaker);
        if self.human {
            ContextLines {
                history,
                presenter: Some(format!("{at} {text}\n")),
                own_notes: None,
            }
        } else {
            ContextLines {
                history,
                presenter: None,
                own_notes: Some((
                    self.speaker.clone(),
                    format!("- {at} I said (q{}): {text}\n", self.question_id),
                )),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gone_player_releases_waiting_lines_and_later_ones_at_once() {
        let mut log = SessionLog::spoken();
        let utterance = |q: u64| Observed::Utterance {
            speaker: "tutor".into(),
            text: format!("line {q}"),
            question_id: q,
            interrupted: false,
            human: false,
        };
        log.observe(Observed::PlaybackStarted { question_id: 2 }, 10);
        assert!(log.observe(utterance(2), 20).is_empty());
        assert!(log.observe(utterance(3), 30).is_empty());
        let out = log.observe(Observed::PlayerGone, 40);
        let lines: Vec<&TranscriptLine> = out
            .iter()
            .filter_map(|r| match r {
                Record::Transcript(t) => Some(t),
                _ => None,
            })
            .collect();
        assert_eq!(lines.len(), 2, "{out:?}");
        assert_eq!(
            lines[0].text_played, None,
            "sounding: what was heard is unknown"
        );
        assert_eq!(lines[1].text_played.as_deref(), Some(""), "never sounded");
        assert!(matches!(&out[0], Record::Event(e) if e.event == "playback_reports_ended"));
        let later = log.observe(utterance(4), 50);
        assert!(matches!(&later[..], [Record::Transcript(t)] if t.question_id == 4));
    }

    #[test]
    fn console_lines_carry_no_terminal_control() {
        let record = Record::Transcript(TranscriptLine {
            speaker: "tutor\u{1b}]0;owned\u{7}".into(),
            question_id: 1,
            text: "hi \u{1b}[2J\u{1b}[31mred\u{9b}0m\r\nthere".into(),
            start_ms: 0,
            end_ms: 1,
            interrupted: false,
            human: false,
            text_played: None,
        });
        let line = record.console_line().unwrap();
        assert!(!line.chars().any(char::is_control), "{line:?}");
        assert!(line.contains("red") && line.contains("there"), "{line:?}");
    }

    proptest::proptest! {
        #[test]
        fn printable_keeps_every_other_character(text in "\\PC{0,30}|[\\x00-\\x1f\\x7f-\\x9f a-z]{0,30}") {
            let out = printable(&text);
            proptest::prop_assert!(!out.chars().any(char::is_control));
            let kept: String = text.chars().filter(|c| !c.is_control() && *c != ' ').collect();
            let out_kept: String = out.chars().filter(|c| *c != ' ').collect();
            proptest::prop_assert_eq!(kept, out_kept);
        }
    }

    #[test]
    fn utterances_get_their_turn_start() {
        let mut log = SessionLog::new();
        let turn = || Observed::Turn {
            speaker: "tutor".into(),
            question_id: 3,
        };
        log.observe(turn(), 100);
        // Repeated (the hold's end): recorded as such, the turn's start unchanged.
        let repeat = log.observe(turn(), 500);
        assert!(matches!(&repeat[..], [Record::Event(e)] if e.event == "turn_repeated"));
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

    fn utterance(speaker: &str, q: u64, text: &str) -> Observed {
        Observed::Utterance {
            speaker: speaker.into(),
            text: text.into(),
            question_id: q,
            interrupted: false,
            human: speaker == "human",
        }
    }

    fn played(q: u64, heard: &str, interrupted: bool) -> Observed {
        Observed::Played {
            question_id: q,
            heard: heard.into(),
            interrupted,
        }
    }

    fn transcript(records: &[Record]) -> Vec<(u64, Option<String>, bool)> {
        records
            .iter()
            .filter_map(|r| match r {
                Record::Transcript(t) => {
                    Some((t.question_id, t.text_played.clone(), t.interrupted))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn spoken_sessions_write_what_was_heard_in_order() {
        let mut log = SessionLog::spoken();
        assert!(transcript(&log.observe(utterance("ben", 1, "First."), 10)).is_empty());
        assert!(transcript(&log.observe(utterance("tutor", 2, "A long answer."), 20)).is_empty());
        let out = log.observe(played(1, "First.", false), 30);
        assert_eq!(transcript(&out), [(1, Some("First.".into()), false)]);
        // The human cuts the tutor off: the player's report, then the human line.
        let out = log.observe(played(2, "A long", true), 40);
        assert_eq!(transcript(&out), [(2, Some("A long".into()), true)]);
        let out = log.observe(utterance("human", 4, "Wait!"), 50);
        assert_eq!(transcript(&out), [(4, None, false)]);
        // A queued utterance nobody heard (the human's barge-in dropped it), released by
        // the next human line.
        log.observe(utterance("mia", 5, "Never heard."), 60);
        log.observe(
            Observed::Interrupt {
                kind: "reset".into(),
                question_id: 6,
            },
            65,
        );
        let out = log.observe(utterance("human", 7, "Hello?"), 70);
        assert_eq!(
            transcript(&out),
            [(5, Some(String::new()), true), (7, None, false)]
        );
        // A report before the utterance (both arrive at once).
        log.observe(played(8, "Quick.", false), 80);
        let out = log.observe(utterance("tutor", 8, "Quick."), 81);
        assert_eq!(transcript(&out), [(8, Some("Quick.".into()), false)]);
        log.observe(utterance("ben", 9, "Cut by the end."), 90);
        assert_eq!(transcript(&log.flush()), [(9, Some(String::new()), true)]);
    }

    #[test]
    fn a_barge_in_keeps_what_was_heard_of_the_cut_line() {
        let mut log = SessionLog::spoken();
        log.observe(
            utterance("tutor", 4, "Thank you, that was a good question."),
            10,
        );
        log.observe(Observed::PlaybackStarted { question_id: 4 }, 20);
        // Queued behind it, never started; the barge-in drops it.
        log.observe(utterance("ben", 5, "Me next."), 25);
        log.observe(
            Observed::Interrupt {
                kind: "reset".into(),
                question_id: 6,
            },
            28,
        );
        // The human's words arrive before the player's report of the cut they caused.
        let out = log.observe(utterance("human", 6, "Wait, why?"), 30);
        assert!(transcript(&out).is_empty(), "{out:?}");
        let out = log.observe(played(4, "Thank you,", true), 35);
        assert_eq!(
            transcript(&out),
            [
                (4, Some("Thank you,".into()), true),
                (5, Some(String::new()), true),
                (6, None, false)
            ]
        );
        let Record::Transcript(cut) = &out[1] else {
            panic!("{out:?}")
        };
        assert_eq!((cut.start_ms, cut.end_ms), (20, 35));
    }

    #[test]
    fn a_line_queued_when_the_human_speaks_without_an_interrupt_still_sounds() {
        // A rehearsal: the panelist's prepared question waits behind the moderator's
        // line while the presenter goes on talking; nobody is cut.
        let mut log = SessionLog::spoken();
        log.observe(utterance("moderator", 3, "Marcus, your question."), 10);
        log.observe(Observed::PlaybackStarted { question_id: 3 }, 11);
        log.observe(utterance("skeptic", 4, "Why now?"), 12);
        let out = log.observe(utterance("human", 5, "Picking is costly."), 20);
        assert!(transcript(&out).is_empty(), "{out:?}");
        log.observe(played(3, "Marcus, your question.", false), 30);
        log.observe(Observed::PlaybackStarted { question_id: 4 }, 31);
        let out = log.observe(played(4, "Why now?", false), 40);
        assert_eq!(
            transcript(&out),
            [(4, Some("Why now?".into()), false), (5, None, false)]
        );
    }

    #[test]
    fn decisions_are_events_with_their_record_as_detail() {
        let mut log = SessionLog::spoken();
        let records = log.observe(
            Observed::Decision {
                detail: r#"{"action":"CALL_AGENT","phase":"opening"}"#.into(),
            },
            42,
        );
        let Record::Event(e) = &records[0] else {
            panic!("{records:?}")
        };
        assert_eq!((e.event, e.t_ms), ("decision", 42));
        let json: serde_json::Value = serde_json::from_str(&records[0].to_json()).unwrap();
        let detail: serde_json::Value =
            serde_json::from_str(json["detail"].as_str().unwrap()).unwrap();
        assert_eq!(detail["action"], "CALL_AGENT");
        assert_eq!(records[0].console_line(), None);
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

#[cfg(test)]
mod context_tests {
    use super::*;

    fn line(speaker: &str, human: bool, played: Option<&str>, interrupted: bool) -> TranscriptLine {
        TranscriptLine {
            speaker: speaker.into(),
            question_id: 3,
            text: "Limits describe behaviour near a point.".into(),
            start_ms: 65_000,
            end_ms: 70_000,
            interrupted,
            human,
            text_played: played.map(str::to_owned),
        }
    }

    #[test]
    fn agent_lines_go_to_history_and_own_notes() {
        let lines = line("tutor", false, None, false).context_lines();
        assert_eq!(
            lines.history,
            "- [01:05] **tutor**: Limits describe behaviour near a point.\n"
        );
        assert_eq!(lines.presenter, None);
        assert_eq!(
            lines.own_notes,
            Some((
                "tutor".into(),
                "- [01:05] I said (q3): Limits describe behaviour near a point.\n".into()
            ))
        );
    }

    #[test]
    fn human_lines_go_to_the_presenter_transcript() {
        let lines = line("human", true, None, false).context_lines();
        assert_eq!(
            lines.presenter.as_deref(),
            Some("[01:05] Limits describe behaviour near a point.\n")
        );
        assert!(lines.own_notes.is_none());
    }

    #[test]
    fn only_what_was_heard_is_kept() {
        let cut = line("tutor", false, Some("Limits describe"), true).context_lines();
        assert!(cut.history.ends_with("Limits describe — (interrupted)\n"));
        let silent = line("tutor", false, Some(""), true).context_lines();
        assert!(silent.history.contains("(cut off before a word was heard)"));
    }
}
