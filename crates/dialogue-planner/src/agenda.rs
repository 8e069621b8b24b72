//! The points a conversation moves through, in order.

use serde::Deserialize;

/// A topic and its points. The current point follows the question id, so that every
/// participant of a session agrees on it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, Deserialize)]
pub struct Agenda {
    topic: String,
    points: Vec<String>,
    /// The participants' ids, when the file names them.
    participants: Vec<String>,
    /// The conversation's first line, said as written by whoever opens it.
    opening: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum AgendaError {
    #[error("invalid agenda file: {0}")]
    Yaml(#[from] serde_yaml::Error),
    #[error("the agenda has no topic")]
    NoTopic,
}

/// The agenda file as written (`dataflows/agendas/*.yml`); `lexicon` is the benchmark's.
#[derive(Deserialize)]
struct AgendaFile {
    topic: String,
    #[serde(default)]
    agenda: Vec<String>,
    #[serde(default)]
    participants: Vec<String>,
    #[serde(default)]
    opening: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    lexicon: Vec<String>,
}

impl Agenda {
    /// Reads an agenda file: `topic`, `agenda` (points in order), `participants` (ids),
    /// `opening` (the first line, said as written: the session starts on it while the
    /// model reads its first prompt), `lexicon` (the benchmark's, ignored here).
    /// Without points, the default points of the topic.
    pub fn parse(yaml: &str) -> Result<Self, AgendaError> {
        let file: AgendaFile = serde_yaml::from_str(yaml)?;
        if file.topic.trim().is_empty() {
            return Err(AgendaError::NoTopic);
        }
        let points: Vec<String> = file
            .agenda
            .into_iter()
            .map(|p| p.trim().to_owned())
            .filter(|p| !p.is_empty())
            .collect();
        let mut agenda = if points.is_empty() {
            Self::from_topic(&file.topic)
        } else {
            Self {
                topic: file.topic.trim().to_owned(),
                points,
                participants: Vec::new(),
                opening: None,
            }
        };
        agenda.participants = file.participants;
        agenda.opening = file
            .opening
            .map(|o| o.trim().to_owned())
            .filter(|o| !o.is_empty());
        Ok(agenda)
    }

    /// Points derived from a topic alone: what it means, an example, a common mistake, why
    /// it matters, a harder case.
    pub fn from_topic(topic: &str) -> Self {
        let topic = topic.trim().trim_end_matches(['.', '?']).to_owned();
        let topic = if topic.is_empty() {
            "the topic".to_owned()
        } else {
            topic
        };
        let points = [
            format!("what {topic} means"),
            format!("a concrete example of {topic}"),
            format!("a common mistake about {topic}"),
            format!("why {topic} matters in practice"),
            format!("a harder case of {topic}"),
        ]
        .to_vec();
        Self {
            topic,
            points,
            participants: Vec::new(),
            opening: None,
        }
    }

    pub fn topic(&self) -> &str {
        &self.topic
    }

    /// The ids of the participants, when the agenda names them (else empty).
    pub fn participants(&self) -> &[String] {
        &self.participants
    }

    /// The agenda with `ids` as its participants, when the file names none.
    pub fn or_participants(mut self, ids: Vec<String>) -> Self {
        if self.participants.is_empty() {
            self.participants = ids;
        }
        self
    }

    /// The conversation's first line, if the agenda writes one.
    pub fn opening(&self) -> Option<&str> {
        self.opening.as_deref()
    }

    pub fn points(&self) -> &[String] {
        &self.points
    }

    /// The point of the turn `question_id`: each lasts [`crate::TURNS_PER_POINT`] turns,
    /// and after the last the agenda starts again.
    pub fn point(&self, question_id: u64) -> &str {
        let index = question_id.saturating_sub(1) / crate::TURNS_PER_POINT;
        &self.points[(index % self.points.len() as u64) as usize]
    }
}
