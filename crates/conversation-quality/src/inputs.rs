//! The session's files as text in, parsed records out: transcript lines, turn events, the
//! agenda and the personas. Reading the files is the caller's business.

use serde::Deserialize;

use crate::QualityError;

/// One utterance of `transcript.jsonl` (the fields the metrics use; others are ignored).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Utterance {
    pub speaker: String,
    #[serde(default)]
    pub question_id: u64,
    pub text: String,
    #[serde(default)]
    pub start_ms: u64,
    pub human: bool,
    /// Cut off by an interrupt.
    #[serde(default)]
    pub interrupted: bool,
}

impl Utterance {
    /// A line without timing, for building transcripts in code.
    pub fn new(speaker: &str, text: &str, human: bool) -> Self {
        Self {
            speaker: speaker.to_owned(),
            question_id: 0,
            text: text.to_owned(),
            start_ms: 0,
            human,
            interrupted: false,
        }
    }
}

/// A control event of `events.jsonl` that matters here: a turn handed out, or an
/// interrupt (a turn cut before its first word is not an empty turn).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionEvent {
    Turn {
        speaker: String,
        question_id: u64,
        t_ms: u64,
    },
    Interrupt {
        question_id: u64,
    },
}

/// The subject of a conversation (`dataflows/agendas/*.yml`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
pub struct Agenda {
    pub topic: String,
    #[serde(default)]
    pub agenda: Vec<String>,
    #[serde(default)]
    pub lexicon: Vec<String>,
    /// Speakers whose lines come from a phrase library, not a model (a moderator's calls
    /// and acknowledgements): context for the others' lines, never scored themselves.
    #[serde(default)]
    pub conductors: Vec<String>,
    /// The language the participants are asked to speak (`zh`): the share of agent
    /// lines written in it is reported.
    #[serde(default)]
    pub language: Option<String>,
}

impl Agenda {
    pub fn from_yaml(text: &str) -> Result<Self, QualityError> {
        serde_yaml::from_str(text).map_err(QualityError::Agenda)
    }
}

/// A participant's character (`templates/*/persona.md`): who it is and what it was told.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Persona {
    pub name: String,
    pub display_name: Option<String>,
    /// The body after the front matter: the participant's instructions.
    pub instructions: String,
}

impl Persona {
    /// Parses `+++` front matter (`key = "value"` lines; `name` required) and the body.
    pub fn parse(text: &str) -> Result<Self, QualityError> {
        let rest = text
            .trim_start()
            .strip_prefix("+++")
            .ok_or(QualityError::Persona("no `+++` front matter"))?;
        let (front, body) = rest.split_once("\n+++").ok_or(QualityError::Persona(
            "the front matter has no closing `+++`",
        ))?;
        let field = |key: &str| front.lines().find_map(|line| front_matter_value(line, key));
        let name = field("name").ok_or(QualityError::Persona("no `name` in the front matter"))?;
        Ok(Self {
            name,
            display_name: field("display_name"),
            instructions: body.trim().to_owned(),
        })
    }
}

/// The value of `key = "value"` (or `'value'`) on one front-matter line.
fn front_matter_value(line: &str, key: &str) -> Option<String> {
    let (k, v) = line.split_once('=')?;
    if k.trim() != key {
        return None;
    }
    let v = v.trim();
    let unquoted = v
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| v.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
        .unwrap_or(v);
    Some(unquoted.replace("\\\"", "\""))
}

/// A transcript line as written: spoken sessions add what was heard.
#[derive(Deserialize)]
struct RawUtterance {
    #[serde(flatten)]
    said: Utterance,
    #[serde(default)]
    text_played: Option<String>,
}

/// Parses `transcript.jsonl`; blank lines are skipped, a bad line is an error with its
/// number (1-based). In a spoken session a line's text is what was heard (`text_played`,
/// after the voice's cleaning), since that is what a listener judges.
pub fn parse_transcript(text: &str) -> Result<Vec<Utterance>, QualityError> {
    json_lines(text)
        .map(|(number, line)| {
            let raw: RawUtterance = serde_json::from_str(line)
                .map_err(|source| QualityError::Line { number, source })?;
            let mut said = raw.said;
            if let Some(heard) = raw.text_played {
                said.text = heard;
            }
            Ok(said)
        })
        .collect()
}

#[derive(Deserialize)]
struct RawEvent {
    event: String,
    #[serde(default)]
    t_ms: u64,
    speaker: Option<String>,
    question_id: Option<u64>,
}

/// Parses the turns and interrupts of `events.jsonl`; other events are skipped.
pub fn parse_events(text: &str) -> Result<Vec<SessionEvent>, QualityError> {
    let mut events = Vec::new();
    for (number, line) in json_lines(text) {
        let raw: RawEvent =
            serde_json::from_str(line).map_err(|source| QualityError::Line { number, source })?;
        match (raw.event.as_str(), raw.speaker, raw.question_id) {
            ("turn", Some(speaker), Some(question_id)) => events.push(SessionEvent::Turn {
                speaker,
                question_id,
                t_ms: raw.t_ms,
            }),
            ("interrupt", _, Some(question_id)) => {
                events.push(SessionEvent::Interrupt { question_id })
            }
            _ => {}
        }
    }
    Ok(events)
}

fn json_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, line)| (i + 1, line.trim()))
        .filter(|(_, line)| !line.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_persona_has_names_and_instructions() {
        let p = Persona::parse(
            "+++\nname = \"tutor\"\ndisplay_name = \"Ms. Rivera\"\nrole = \"tutor\"\n+++\n\nYou are Ms. Rivera.\n",
        )
        .unwrap();
        assert_eq!(p.name, "tutor");
        assert_eq!(p.display_name.as_deref(), Some("Ms. Rivera"));
        assert_eq!(p.instructions, "You are Ms. Rivera.");
    }

    #[test]
    fn a_persona_without_front_matter_or_name_is_refused() {
        assert!(Persona::parse("You are Ben.").is_err());
        assert!(Persona::parse("+++\nname = \"x\"\n").is_err());
        assert!(Persona::parse("+++\nrole = \"x\"\n+++\nbody").is_err());
    }

    #[test]
    fn transcript_lines_parse_and_a_bad_line_is_named() {
        let text = r#"{"speaker":"tutor","question_id":3,"text":"Hi.","start_ms":5,"end_ms":9,"interrupted":false,"human":false,"text_played":"Hi."}

{"speaker":"human","question_id":4,"text":"Why?","start_ms":10,"end_ms":10,"interrupted":false,"human":true}"#;
        let lines = parse_transcript(text).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].question_id, 3);
        assert!(lines[1].human);
        let err = parse_transcript("{\"speaker\":1}\n").unwrap_err();
        assert!(err.to_string().contains("line 1"), "{err}");
    }

    #[test]
    fn events_keep_turns_and_interrupts() {
        let text = r#"{"t_ms":1,"event":"turn","speaker":"tutor","question_id":1}
{"t_ms":2,"event":"played","question_id":1,"detail":"complete"}
{"t_ms":3,"event":"interrupt","question_id":2,"detail":"cancel"}"#;
        assert_eq!(
            parse_events(text).unwrap(),
            [
                SessionEvent::Turn {
                    speaker: "tutor".into(),
                    question_id: 1,
                    t_ms: 1
                },
                SessionEvent::Interrupt { question_id: 2 }
            ]
        );
    }

    #[test]
    fn an_agenda_reads_from_yaml() {
        let a = Agenda::from_yaml("topic: limits\nagenda: [one, two]\nlexicon: [x]\n").unwrap();
        assert_eq!(a.topic, "limits");
        assert_eq!(a.agenda, ["one", "two"]);
        assert_eq!(a.lexicon, ["x"]);
        assert!(Agenda::from_yaml("agenda: [").is_err());
    }
}
